-- case: union of two tables
-- fields: customers.email, analytics.accounts.name
SELECT email FROM customers UNION SELECT name FROM analytics.accounts

-- case: union all with where on each side
-- fields: orders.id, orders.status, tickets.id, tickets.status
SELECT id FROM orders WHERE status = 'paid' UNION ALL SELECT id FROM tickets WHERE status = 'open'

-- case: intersect
-- fields: orders.customer_id, subscriptions.customer_id
SELECT customer_id FROM orders INTERSECT SELECT customer_id FROM subscriptions

-- case: except
-- fields: customers.id, tickets.cust_id
SELECT id FROM customers EXCEPT SELECT cust_id FROM tickets

-- case: union in a derived table then filtered
-- fields: orders.customer_id, orders.created_at, events.customer_id, events.occurred_at
SELECT who FROM (SELECT customer_id AS who, created_at AS at FROM orders UNION ALL SELECT customer_id, occurred_at FROM events) t WHERE at > '2026-01-01'

-- case: union order by output name
-- fields: products.sku, products.name
SELECT sku AS k FROM products UNION SELECT name FROM products ORDER BY k

-- case: union order by position
-- fields: customers.name, analytics.accounts.name
SELECT name FROM customers UNION SELECT name FROM analytics.accounts ORDER BY 1

-- case: three-way union
-- fields: orders.customer_id, tickets.cust_id, events.customer_id
SELECT customer_id FROM orders UNION SELECT cust_id FROM tickets UNION SELECT customer_id FROM events

-- case: union with aggregate sides
-- fields: orders.total_cents, subscriptions.mrr_cents
SELECT 'orders' AS src, sum(total_cents) FROM orders UNION ALL SELECT 'subs', sum(mrr_cents) FROM subscriptions

-- case: parenthesized set operation
-- fields: customers.id, orders.customer_id, tickets.cust_id
(SELECT id FROM customers EXCEPT SELECT customer_id FROM orders) INTERSECT SELECT cust_id FROM tickets

-- case: values list
-- fields:
SELECT * FROM (VALUES (1, 'a'), (2, 'b')) AS v(n, s)

-- case: values joined to a table
-- fields: customers.sales_region, customers.id
SELECT r.label, count(c.id) FROM customers c JOIN (VALUES ('EMEA', 'Europe'), ('AMER', 'Americas')) AS r(code, label) ON r.code = c.sales_region GROUP BY r.label

-- case: union distinct columns count as both sides
-- fields: orders.id, orders.total_cents, subscriptions.id, subscriptions.mrr_cents
SELECT sum(amount) FROM (SELECT id, total_cents AS amount FROM orders UNION SELECT id, mrr_cents FROM subscriptions) u

-- case: union inside cte used by join
-- fields: orders.customer_id, tickets.cust_id, customers.id, customers.name
WITH touched AS (SELECT customer_id AS cid FROM orders UNION SELECT cust_id FROM tickets) SELECT c.name FROM customers c JOIN touched t ON t.cid = c.id

-- case: except all in postgres
-- dialect: postgres
-- fields: events.customer_id, orders.customer_id
SELECT customer_id FROM events EXCEPT ALL SELECT customer_id FROM orders
