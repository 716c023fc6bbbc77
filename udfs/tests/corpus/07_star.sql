-- case: star over one table
-- fields: products.id, products.sku, products.name, products.category, products.list_price_usd
SELECT * FROM products

-- case: qualified star
-- fields: tickets.id, tickets.cust_id, tickets.status, tickets.priority, tickets.opened_at, tickets.closed_at, customers.id, customers.name
SELECT t.*, c.name FROM tickets t JOIN customers c ON c.id = t.cust_id

-- case: star over a join
-- fields: subscriptions.id, subscriptions.customer_id, subscriptions.plan, subscriptions.status, subscriptions.period_start, subscriptions.period_end, subscriptions.mrr_cents, products.id, products.sku, products.name, products.category, products.list_price_usd
SELECT * FROM subscriptions, products

-- case: star with where
-- fields: events.id, events.customer_id, events.event_type, events.occurred_at, events.payload
SELECT * FROM events WHERE event_type = 'login'

-- case: qualified star by table name
-- fields: products.id, products.sku, products.name, products.category, products.list_price_usd
SELECT products.* FROM products

-- case: schema table star
-- fields: analytics.accounts.account_id, analytics.accounts.name, analytics.accounts.sales_region, analytics.accounts.owner
SELECT * FROM analytics.accounts

-- case: star over a derived table reads only its columns
-- fields: customers.id, customers.email
SELECT * FROM (SELECT id, email FROM customers) x

-- case: star except in bigquery
-- dialect: bigquery
-- fields: products.id, products.sku, products.name, products.category
SELECT * EXCEPT (list_price_usd) FROM products

-- case: star exclude in snowflake
-- dialect: snowflake
-- fields: events.id, events.customer_id, events.event_type, events.occurred_at
SELECT * EXCLUDE (payload) FROM events

-- case: star exclude in duckdb
-- dialect: duckdb
-- fields: tickets.id, tickets.cust_id, tickets.status, tickets.priority
SELECT * EXCLUDE (opened_at, closed_at) FROM tickets

-- case: star replace in bigquery
-- dialect: bigquery
-- fields: products.id, products.sku, products.name, products.category, products.list_price_usd
SELECT * REPLACE (upper(name) AS name) FROM products

-- case: count star over join
-- fields: orders.customer_id, customers.id
SELECT count(*) FROM orders o JOIN customers c ON c.id = o.customer_id

-- case: star over using join lists the using column once
-- fields: events.id, events.customer_id, events.event_type, events.occurred_at, events.payload, subscriptions.id, subscriptions.customer_id, subscriptions.plan, subscriptions.status, subscriptions.period_start, subscriptions.period_end, subscriptions.mrr_cents
SELECT * FROM events JOIN subscriptions USING (customer_id)

-- case: star over cte with renamed columns
-- fields: products.sku, products.list_price_usd
WITH p(code, price) AS (SELECT sku, list_price_usd FROM products) SELECT * FROM p

-- case: exists select star reads the table
-- fields: customers.name, customers.id, tickets.id, tickets.cust_id, tickets.status, tickets.priority, tickets.opened_at, tickets.closed_at
SELECT name FROM customers c WHERE EXISTS (SELECT * FROM tickets t WHERE t.cust_id = c.id)

-- case: star of second alias only
-- fields: orders.customer_id, customers.id, customers.name, customers.email, customers.sales_region, customers.region_code, customers.subscription_status, customers.is_active, customers.created_at, customers.updated_at
SELECT c.* FROM orders o JOIN customers c ON c.id = o.customer_id
