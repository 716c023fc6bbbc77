-- case: postgres json operators
-- dialect: postgres
-- fields: events.payload, events.event_type
SELECT payload->>'page' FROM events WHERE event_type = 'view'

-- case: postgres casts with double colon
-- dialect: postgres
-- fields: orders.created_at, orders.id
SELECT created_at::date, count(id) FROM orders GROUP BY created_at::date

-- case: postgres ilike
-- dialect: postgres
-- fields: customers.id, customers.email
SELECT id FROM customers WHERE email ILIKE '%@acme.com'

-- case: postgres date_trunc and interval
-- dialect: postgres
-- fields: orders.created_at, orders.total_cents
SELECT date_trunc('week', created_at) AS wk, sum(total_cents) FROM orders WHERE created_at >= current_date - interval '90 days' GROUP BY 1

-- case: postgres quoted identifier matches exactly
-- dialect: postgres
-- fields: customers.id
SELECT "id" FROM "customers"

-- case: postgres quoted identifier with other case is another name
-- dialect: postgres
-- fields:
-- reasons: unknown table Customers
SELECT "id" FROM "Customers"

-- case: postgres generate_series table function
-- dialect: postgres
-- fields: orders.created_at
SELECT d, count(o.created_at) FROM generate_series(DATE '2026-01-01', DATE '2026-01-31', INTERVAL '1 day') AS g(d) LEFT JOIN orders o ON o.created_at::date = g.d GROUP BY d

-- case: postgres unnest with ordinality
-- dialect: postgres
-- fields:
SELECT x, n FROM unnest(ARRAY['a', 'b']) WITH ORDINALITY AS t(x, n)

-- case: postgres filter and coalesce
-- dialect: postgres
-- fields: subscriptions.plan, subscriptions.status, subscriptions.mrr_cents
SELECT plan, coalesce(sum(mrr_cents) FILTER (WHERE status = 'ACTIVE'), 0) FROM subscriptions GROUP BY plan

-- case: snowflake dateadd with a bare date part
-- dialect: snowflake
-- fields: orders.id, orders.created_at
SELECT id FROM orders WHERE created_at >= DATEADD(day, -7, CURRENT_DATE())

-- case: snowflake iff
-- dialect: snowflake
-- fields: customers.is_active, customers.id
SELECT IFF(is_active, 'yes', 'no'), count(id) FROM customers GROUP BY 1

-- case: snowflake json path on variant
-- dialect: snowflake
-- fields: events.payload, events.id
SELECT id, payload:page::string FROM events

-- case: snowflake lateral flatten
-- dialect: snowflake
-- fields: events.id, events.payload
SELECT e.id, f.value FROM events e, LATERAL FLATTEN(input => e.payload) f

-- case: snowflake unquoted upper case names
-- dialect: snowflake
-- fields: customers.name, customers.sales_region
SELECT NAME FROM CUSTOMERS WHERE SALES_REGION = 'EMEA'

-- case: snowflake datediff
-- dialect: snowflake
-- fields: tickets.opened_at, tickets.closed_at, tickets.id
SELECT id, DATEDIFF(hour, opened_at, closed_at) FROM tickets

-- case: bigquery backticks
-- dialect: bigquery
-- fields: analytics.deals.deal_id, analytics.deals.stage
SELECT deal_id FROM `analytics.deals` WHERE stage = 'won'

-- case: bigquery backticks per part
-- dialect: bigquery
-- fields: analytics.accounts.name
SELECT name FROM `analytics`.`accounts`

-- case: bigquery date_trunc with a bare part
-- dialect: bigquery
-- fields: orders.created_at, orders.id
SELECT DATE_TRUNC(created_at, MONTH) AS m, COUNT(id) FROM orders GROUP BY m

-- case: bigquery unnest of a literal array
-- dialect: bigquery
-- fields:
SELECT x FROM UNNEST([1, 2, 3]) AS x

-- case: bigquery safe_divide
-- dialect: bigquery
-- fields: order_lines.quantity, order_lines.unit_price_usd
SELECT SAFE_DIVIDE(SUM(unit_price_usd), SUM(quantity)) FROM order_lines

-- case: bigquery countif
-- dialect: bigquery
-- fields: tickets.status
SELECT COUNTIF(status = 'open') FROM tickets

-- case: mysql backticks
-- dialect: mysql
-- fields: customers.id, customers.name
SELECT `id`, `Name` FROM `customers`

-- case: mysql limit with offset comma
-- dialect: mysql
-- fields: products.sku, products.id
SELECT sku FROM products ORDER BY id LIMIT 10, 20

-- case: mysql date_format and ifnull
-- dialect: mysql
-- fields: orders.created_at, orders.total_cents
SELECT DATE_FORMAT(created_at, '%Y-%m') AS ym, IFNULL(SUM(total_cents), 0) FROM orders GROUP BY ym

-- case: mysql double quoted string literal
-- dialect: mysql
-- fields: tickets.id, tickets.status
SELECT id FROM tickets WHERE status = "open"

-- case: sqlite strftime
-- dialect: sqlite
-- fields: events.occurred_at, events.id
SELECT strftime('%Y-%m', occurred_at) AS ym, count(id) FROM events GROUP BY ym

-- case: sqlite case-insensitive names
-- dialect: sqlite
-- fields: products.category
SELECT Category FROM PRODUCTS

-- case: duckdb group by all
-- dialect: duckdb
-- fields: customers.sales_region, customers.id
SELECT sales_region, count(id) FROM customers GROUP BY ALL

-- case: duckdb list aggregate
-- dialect: duckdb
-- fields: products.category, products.sku
SELECT category, list(sku) FROM products GROUP BY category

-- case: duckdb lambda
-- dialect: duckdb
-- fields: products.sku
SELECT list_transform([sku], x -> upper(x)) FROM products

-- case: duckdb qualify
-- dialect: duckdb
-- fields: events.customer_id, events.occurred_at, events.id
SELECT id FROM events QUALIFY row_number() OVER (PARTITION BY customer_id ORDER BY occurred_at DESC) = 1

-- case: generic dialect by default
-- fields: orders.currency
SELECT DISTINCT currency FROM orders
