-- case: scalar subquery in select
-- fields: customers.id, customers.name, orders.customer_id, orders.id
SELECT c.name, (SELECT count(o.id) FROM orders o WHERE o.customer_id = c.id) AS n FROM customers c

-- case: in subquery
-- fields: customers.email, customers.id, subscriptions.customer_id, subscriptions.status
SELECT email FROM customers WHERE id IN (SELECT customer_id FROM subscriptions WHERE status = 'ACTIVE')

-- case: not in subquery
-- fields: customers.email, customers.id, tickets.cust_id
SELECT email FROM customers WHERE id NOT IN (SELECT cust_id FROM tickets)

-- case: exists correlated
-- fields: customers.id, customers.name, tickets.cust_id, tickets.status
SELECT name FROM customers c WHERE EXISTS (SELECT 1 FROM tickets t WHERE t.cust_id = c.id AND t.status = 'open')

-- case: not exists correlated with bare outer column
-- fields: products.id, products.sku, order_lines.product_id
SELECT sku FROM products p WHERE NOT EXISTS (SELECT 1 FROM order_lines l WHERE l.product_id = p.id)

-- case: scalar subquery in where
-- fields: products.sku, products.list_price_usd
SELECT sku FROM products WHERE list_price_usd > (SELECT avg(list_price_usd) FROM products)

-- case: derived table
-- fields: orders.customer_id, orders.total_cents
SELECT customer_id FROM (SELECT customer_id, sum(total_cents) AS s FROM orders GROUP BY customer_id) t WHERE s > 100

-- case: derived table with column aliases
-- fields: subscriptions.plan, subscriptions.mrr_cents
SELECT p, m FROM (SELECT plan, mrr_cents FROM subscriptions) AS x(p, m)

-- case: derived table joined to base table
-- fields: orders.customer_id, orders.id, customers.id, customers.sales_region
SELECT c.sales_region, avg(t.n) FROM (SELECT customer_id, count(id) AS n FROM orders GROUP BY customer_id) t JOIN customers c ON c.id = t.customer_id GROUP BY c.sales_region

-- case: nested derived tables
-- fields: events.customer_id, events.event_type
SELECT count(*) FROM (SELECT customer_id FROM (SELECT customer_id, event_type FROM events) a WHERE event_type = 'login') b

-- case: correlated subquery referencing outer alias two levels up
-- fields: customers.id, customers.name, orders.id, orders.customer_id, order_lines.order_id, order_lines.quantity
SELECT c.name FROM customers c WHERE EXISTS (SELECT 1 FROM orders o WHERE o.customer_id = c.id AND EXISTS (SELECT 1 FROM order_lines l WHERE l.order_id = o.id AND l.quantity > 10))

-- case: subquery in having
-- fields: orders.customer_id, orders.total_cents
SELECT customer_id FROM orders GROUP BY customer_id HAVING sum(total_cents) > (SELECT avg(total_cents) FROM orders)

-- case: subquery in case
-- fields: customers.id, customers.name, tickets.cust_id
SELECT name, CASE WHEN id IN (SELECT cust_id FROM tickets) THEN 'has tickets' ELSE 'none' END FROM customers

-- case: any comparison
-- dialect: postgres
-- fields: products.sku, products.list_price_usd, order_lines.unit_price_usd
SELECT sku FROM products WHERE list_price_usd > ANY (SELECT unit_price_usd FROM order_lines)

-- case: all comparison
-- dialect: postgres
-- fields: products.sku, products.list_price_usd, order_lines.unit_price_usd
SELECT sku FROM products WHERE list_price_usd >= ALL (SELECT unit_price_usd FROM order_lines)

-- case: inner bare column prefers inner table
-- fields: customers.id, customers.email, orders.customer_id, orders.status
SELECT email FROM customers WHERE id IN (SELECT customer_id FROM orders WHERE status = 'paid')

-- case: inner bare column falls back to outer table
-- fields: customers.id, customers.email, customers.sales_region, orders.customer_id
SELECT email FROM customers c WHERE 2 < (SELECT count(*) FROM orders o WHERE o.customer_id = c.id AND sales_region = 'EMEA')

-- case: derived table star
-- fields: tickets.id, tickets.cust_id, tickets.status, tickets.priority, tickets.opened_at, tickets.closed_at
SELECT x.status FROM (SELECT * FROM tickets) x

-- case: scalar subquery as derived column used outside
-- fields: customers.id, subscriptions.customer_id, subscriptions.mrr_cents
SELECT id, m FROM (SELECT c.id, (SELECT max(s.mrr_cents) FROM subscriptions s WHERE s.customer_id = c.id) AS m FROM customers c) t WHERE m > 0

-- case: row value in subquery
-- dialect: postgres
-- fields: orders.customer_id, orders.created_at, orders.id
SELECT id FROM orders WHERE (customer_id, created_at) IN (SELECT customer_id, max(created_at) FROM orders GROUP BY customer_id)

-- case: subquery in from with where on outer
-- fields: analytics.deals.owner, analytics.deals.amount_usd
SELECT owner FROM (SELECT owner, sum(amount_usd) AS total FROM analytics.deals GROUP BY owner) t ORDER BY total DESC LIMIT 5

-- case: exists with select star
-- fields: customers.id, customers.name, orders.customer_id
SELECT name FROM customers c WHERE EXISTS (SELECT o.customer_id FROM orders o WHERE o.customer_id = c.id)

-- case: subquery comparing to an aggregate of a join
-- fields: products.id, products.name, order_lines.product_id, order_lines.quantity
SELECT name FROM products p WHERE (SELECT sum(quantity) FROM order_lines l WHERE l.product_id = p.id) > 100

-- case: in subquery with union
-- fields: customers.name, customers.id, tickets.cust_id, orders.customer_id
SELECT name FROM customers WHERE id IN (SELECT cust_id FROM tickets UNION SELECT customer_id FROM orders)

-- case: derived table without alias in postgres
-- dialect: postgres
-- fields: products.category
SELECT count(*) FROM (SELECT DISTINCT category FROM products) AS t

-- case: correlated scalar in order by
-- fields: customers.name, customers.id, orders.customer_id
SELECT name FROM customers c ORDER BY (SELECT count(*) FROM orders o WHERE o.customer_id = c.id) DESC
