-- case: bigquery qualified by dataset with alias
-- dialect: bigquery
-- fields: analytics.deals.owner, analytics.deals.amount_usd
SELECT d.owner, SUM(d.amount_usd) FROM analytics.deals AS d GROUP BY d.owner

-- case: bigquery struct field access
-- dialect: bigquery
-- fields: events.payload
SELECT payload.source FROM events

-- case: bigquery except distinct
-- dialect: bigquery
-- fields: orders.customer_id, tickets.cust_id
SELECT customer_id FROM orders EXCEPT DISTINCT SELECT cust_id FROM tickets

-- case: bigquery window qualify
-- dialect: bigquery
-- fields: subscriptions.customer_id, subscriptions.plan, subscriptions.period_start
SELECT customer_id, plan FROM subscriptions WHERE TRUE QUALIFY ROW_NUMBER() OVER (PARTITION BY customer_id ORDER BY period_start DESC) = 1

-- case: bigquery date_sub with interval
-- dialect: bigquery
-- fields: events.id, events.occurred_at
SELECT COUNT(id) FROM events WHERE occurred_at >= DATE_SUB(CURRENT_DATE(), INTERVAL 30 DAY)

-- case: snowflake ilike any
-- dialect: snowflake
-- fields: customers.email
SELECT email FROM customers WHERE email ILIKE '%@acme.com'

-- case: snowflake top
-- dialect: snowflake
-- fields: products.sku, products.list_price_usd
SELECT TOP 5 sku FROM products ORDER BY list_price_usd DESC

-- case: snowflake quoted upper case identifier
-- dialect: snowflake
-- fields:
-- reasons: unknown table CUSTOMERS
SELECT "ID" FROM "CUSTOMERS"

-- case: snowflake div0 and nvl
-- dialect: snowflake
-- fields: order_lines.quantity, order_lines.unit_price_usd
SELECT DIV0(SUM(unit_price_usd), NVL(SUM(quantity), 0)) FROM order_lines

-- case: mysql group by with rollup is beyond the parser, and says so
-- dialect: mysql
-- fields:
-- reasons: cannot parse: sql parser error: Expected: end of statement, found: WITH at Line: 1, Column: 61
SELECT status, SUM(total_cents) FROM orders GROUP BY status WITH ROLLUP

-- case: mysql str_to_date
-- dialect: mysql
-- fields: tickets.id, tickets.opened_at
SELECT id FROM tickets WHERE opened_at > STR_TO_DATE('01/06/2026', '%d/%m/%Y')

-- case: mysql straight join
-- dialect: mysql
-- fields: orders.id, orders.customer_id, customers.id
SELECT o.id FROM orders o STRAIGHT_JOIN customers c ON c.id = o.customer_id

-- case: sqlite date function
-- dialect: sqlite
-- fields: orders.id, orders.created_at
SELECT id FROM orders WHERE date(created_at) = date('now', '-1 day')

-- case: sqlite group_concat
-- dialect: sqlite
-- fields: products.category, products.name
SELECT category, group_concat(name, ', ') FROM products GROUP BY category

-- case: duckdb date_diff and strftime
-- dialect: duckdb
-- fields: tickets.opened_at, tickets.closed_at
SELECT date_diff('hour', opened_at, closed_at), strftime(opened_at, '%Y-%m') FROM tickets

-- case: duckdb from first
-- dialect: duckdb
-- fields: products.sku
FROM products SELECT sku

-- case: duckdb exclude in join star
-- dialect: duckdb
-- fields: orders.id, orders.customer_id, orders.status, orders.total_cents, orders.currency, orders.created_at, orders.closed_at
SELECT o.* EXCLUDE (id) , o.id FROM orders o

-- case: postgres array any
-- dialect: postgres
-- fields: tickets.id, tickets.status
SELECT id FROM tickets WHERE status = ANY (ARRAY['open', 'pending'])

-- case: postgres coalesce with cast to text
-- dialect: postgres
-- fields: customers.name, customers.id
SELECT coalesce(name, id::text) FROM customers

-- case: postgres having with filter
-- dialect: postgres
-- fields: orders.customer_id, orders.status
SELECT customer_id FROM orders GROUP BY customer_id HAVING count(*) FILTER (WHERE status = 'refunded') > 2

-- case: postgres recursive series of months
-- dialect: postgres
-- fields: orders.created_at, orders.total_cents
WITH RECURSIVE months(m) AS (SELECT DATE '2026-01-01' UNION ALL SELECT (m + interval '1 month')::date FROM months WHERE m < DATE '2026-12-01') SELECT m, (SELECT sum(total_cents) FROM orders WHERE date_trunc('month', created_at) = m) FROM months

-- case: generic nested ctes in subquery in where
-- fields: customers.id, customers.name, orders.customer_id, orders.total_cents
SELECT name FROM customers WHERE id IN (WITH big AS (SELECT customer_id FROM orders WHERE total_cents > 5000) SELECT customer_id FROM big)

-- case: alias shadows column name in order by
-- fields: orders.total_cents, orders.id
SELECT id, total_cents / 100 AS total_cents FROM orders ORDER BY total_cents

-- case: select alias used in where in snowflake
-- dialect: snowflake
-- fields: orders.total_cents
SELECT total_cents / 100 AS usd FROM orders WHERE usd > 10

-- case: column named like a date part
-- fields: events.id
-- reasons: unknown column week
SELECT id FROM events WHERE "week" = 3

-- case: three-level derived tables with renames
-- fields: products.list_price_usd, products.category
SELECT c FROM (SELECT cat AS c, p FROM (SELECT category AS cat, list_price_usd AS p FROM products) a WHERE p > 1) b

-- case: join using two columns
-- fields: orders.id, orders.status, tickets.id, tickets.status, tickets.priority
SELECT t.priority FROM orders JOIN tickets t USING (id, status)

-- case: window over a cte with star
-- fields: events.id, events.customer_id, events.event_type, events.occurred_at, events.payload
WITH e AS (SELECT * FROM events) SELECT id, count(*) OVER (PARTITION BY customer_id) FROM e

-- case: scalar subquery in join condition
-- fields: orders.id, orders.customer_id, orders.created_at, customers.id
SELECT o.id FROM orders o JOIN customers c ON c.id = o.customer_id AND o.created_at = (SELECT max(created_at) FROM orders o2 WHERE o2.customer_id = c.id)

-- case: exists with union inside
-- fields: customers.id, customers.email, orders.customer_id, tickets.cust_id
SELECT email FROM customers c WHERE EXISTS (SELECT 1 FROM orders o WHERE o.customer_id = c.id UNION ALL SELECT 1 FROM tickets t WHERE t.cust_id = c.id)

-- case: insert select is not a query
-- fields:
-- reasons: not a query: INSERT
INSERT INTO archive SELECT * FROM orders

-- case: create table as is not a query
-- fields:
-- reasons: not a query: CREATE
CREATE TABLE x AS SELECT id FROM orders

-- case: explain is not a query
-- fields:
-- reasons: not a query: EXPLAIN
EXPLAIN SELECT id FROM orders

-- case: deep parentheses in where
-- fields: orders.id, orders.status, orders.currency, orders.total_cents
SELECT id FROM orders WHERE ((((status = 'paid') AND (currency = 'USD'))) OR (total_cents > 100))

-- case: is distinct from
-- dialect: postgres
-- fields: customers.id, customers.sales_region, customers.region_code
SELECT id FROM customers WHERE sales_region IS DISTINCT FROM region_code

-- case: tuple comparison
-- dialect: postgres
-- fields: orders.id, orders.created_at
SELECT id FROM orders WHERE (created_at, id) > ('2026-01-01', 100)

-- case: aggregate of a case over a join with products
-- fields: order_lines.product_id, order_lines.quantity, products.id, products.category
SELECT sum(CASE WHEN p.category = 'books' THEN l.quantity END) FROM order_lines l JOIN products p ON p.id = l.product_id

-- case: select distinct with order by a selected alias
-- fields: customers.sales_region
SELECT DISTINCT sales_region AS r FROM customers ORDER BY r
