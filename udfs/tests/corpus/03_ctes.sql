-- case: one cte
-- fields: customers.id, customers.sales_region
WITH emea AS (SELECT id FROM customers WHERE sales_region = 'EMEA') SELECT count(*) FROM emea

-- case: cte column maps to base column
-- fields: orders.customer_id, orders.total_cents
WITH t AS (SELECT customer_id, total_cents FROM orders) SELECT customer_id, sum(total_cents) FROM t GROUP BY customer_id

-- case: cte with renamed output
-- fields: orders.total_cents, orders.id
WITH t AS (SELECT id AS order_id, total_cents / 100.0 AS usd FROM orders) SELECT order_id, usd FROM t WHERE usd > 10

-- case: cte column list
-- fields: products.sku, products.list_price_usd
WITH p(code, price) AS (SELECT sku, list_price_usd FROM products) SELECT code FROM p WHERE price > 5

-- case: chained ctes
-- fields: orders.customer_id, orders.total_cents, orders.created_at, customers.id, customers.sales_region
WITH recent AS (SELECT customer_id, total_cents FROM orders WHERE created_at >= '2026-04-01'), by_customer AS (SELECT customer_id, sum(total_cents) AS spend FROM recent GROUP BY customer_id) SELECT c.sales_region, avg(b.spend) FROM by_customer b JOIN customers c ON c.id = b.customer_id GROUP BY c.sales_region

-- case: cte referenced twice
-- fields: events.customer_id, events.event_type
WITH e AS (SELECT customer_id, event_type FROM events) SELECT a.customer_id FROM e a JOIN e b ON a.customer_id = b.customer_id WHERE a.event_type = 'login' AND b.event_type = 'purchase'

-- case: cte shadows a base table
-- fields: tickets.id, tickets.status
WITH orders AS (SELECT id, status FROM tickets) SELECT id FROM orders WHERE status = 'open'

-- case: cte star expands base columns
-- fields: products.id, products.sku, products.name, products.category, products.list_price_usd
WITH p AS (SELECT * FROM products) SELECT sku FROM p

-- case: cte with aggregate and having
-- fields: orders.customer_id, orders.id
WITH counts AS (SELECT customer_id, count(id) AS n FROM orders GROUP BY customer_id HAVING count(id) > 3) SELECT customer_id FROM counts

-- case: cte in a derived table
-- fields: subscriptions.plan, subscriptions.mrr_cents
WITH s AS (SELECT plan, mrr_cents FROM subscriptions) SELECT plan, total FROM (SELECT plan, sum(mrr_cents) AS total FROM s GROUP BY plan) x

-- case: recursive cte
-- fields:
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 10) SELECT i FROM n

-- case: recursive cte over a table
-- fields: analytics.accounts.account_id, analytics.accounts.owner, analytics.accounts.name
WITH RECURSIVE chain AS (SELECT account_id, owner FROM analytics.accounts WHERE name = 'Acme' UNION ALL SELECT a.account_id, a.owner FROM analytics.accounts a JOIN chain c ON a.owner = c.account_id) SELECT account_id FROM chain

-- case: unused cte still counts
-- fields: customers.email, products.sku
WITH unused AS (SELECT email FROM customers) SELECT sku FROM products

-- case: cte column from expression of two columns
-- fields: order_lines.quantity, order_lines.unit_price_usd, order_lines.order_id
WITH l AS (SELECT order_id, quantity * unit_price_usd AS amount FROM order_lines) SELECT order_id, sum(amount) FROM l GROUP BY order_id

-- case: cte joined with a base table
-- fields: subscriptions.customer_id, subscriptions.status, customers.id, customers.name
WITH active AS (SELECT customer_id FROM subscriptions WHERE status = 'ACTIVE') SELECT c.name FROM customers c JOIN active a ON a.customer_id = c.id

-- case: nested with inside a subquery
-- fields: tickets.priority, tickets.id
SELECT * FROM (WITH t AS (SELECT id, priority FROM tickets) SELECT id FROM t WHERE priority = 1) x

-- case: cte star from a join
-- fields: orders.id, orders.customer_id, orders.status, orders.total_cents, orders.currency, orders.created_at, orders.closed_at, customers.id, customers.name, customers.email, customers.sales_region, customers.region_code, customers.subscription_status, customers.is_active, customers.created_at, customers.updated_at
WITH j AS (SELECT * FROM orders o JOIN customers c ON c.id = o.customer_id) SELECT count(*) FROM j

-- case: cte referencing an earlier cte by alias
-- fields: analytics.deals.stage, analytics.deals.amount_usd, analytics.deals.close_date
WITH won AS (SELECT amount_usd, close_date FROM analytics.deals WHERE stage = 'won'), q AS (SELECT w.amount_usd FROM won w WHERE w.close_date >= '2026-04-01') SELECT sum(amount_usd) FROM q

-- case: cte with window function
-- fields: orders.customer_id, orders.created_at, orders.id
WITH ranked AS (SELECT id, customer_id, row_number() OVER (PARTITION BY customer_id ORDER BY created_at DESC) AS rn FROM orders) SELECT id FROM ranked WHERE rn = 1

-- case: materialized cte
-- dialect: postgres
-- fields: events.event_type
WITH e AS MATERIALIZED (SELECT event_type FROM events) SELECT count(*) FROM e

-- case: cte name case-insensitive
-- fields: products.category
WITH Cats AS (SELECT category FROM products) SELECT CATEGORY FROM cats

-- case: cte with union inside
-- fields: customers.email, analytics.accounts.name
WITH contacts AS (SELECT email AS c FROM customers UNION SELECT name FROM analytics.accounts) SELECT count(*) FROM contacts

-- case: cte output used in where of outer query
-- fields: orders.total_cents, orders.customer_id, customers.id, customers.email
WITH big AS (SELECT customer_id FROM orders WHERE total_cents > 100000) SELECT email FROM customers WHERE id IN (SELECT customer_id FROM big)

-- case: cte with distinct on
-- dialect: postgres
-- fields: subscriptions.customer_id, subscriptions.period_start, subscriptions.plan
WITH latest AS (SELECT DISTINCT ON (customer_id) customer_id, plan FROM subscriptions ORDER BY customer_id, period_start DESC) SELECT plan, count(*) FROM latest GROUP BY plan

-- case: three ctes each filtering the previous
-- fields: tickets.id, tickets.status, tickets.priority, tickets.opened_at
WITH a AS (SELECT id, priority, opened_at FROM tickets WHERE status = 'open'), b AS (SELECT id, opened_at FROM a WHERE priority = 1), c AS (SELECT id FROM b WHERE opened_at < '2026-06-01') SELECT count(id) FROM c
