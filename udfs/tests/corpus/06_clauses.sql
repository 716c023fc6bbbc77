-- case: group by and having
-- fields: orders.customer_id, orders.total_cents
SELECT customer_id, sum(total_cents) FROM orders GROUP BY customer_id HAVING sum(total_cents) > 10000

-- case: group by position
-- fields: customers.sales_region, customers.id
SELECT sales_region, count(id) FROM customers GROUP BY 1

-- case: group by output alias
-- fields: orders.created_at, orders.id
SELECT date_trunc('month', created_at) AS m, count(id) FROM orders GROUP BY m

-- case: order by output alias
-- fields: products.category, products.list_price_usd
SELECT category, avg(list_price_usd) AS avg_price FROM products GROUP BY category ORDER BY avg_price DESC

-- case: order by a column not selected
-- fields: customers.name, customers.created_at
SELECT name FROM customers ORDER BY created_at

-- case: order by expression
-- fields: order_lines.id, order_lines.quantity, order_lines.unit_price_usd
SELECT id FROM order_lines ORDER BY quantity * unit_price_usd DESC

-- case: window partition and order
-- fields: orders.id, orders.customer_id, orders.created_at
SELECT id, row_number() OVER (PARTITION BY customer_id ORDER BY created_at) FROM orders

-- case: window aggregate
-- fields: subscriptions.customer_id, subscriptions.plan, subscriptions.mrr_cents
SELECT customer_id, plan, sum(mrr_cents) OVER (PARTITION BY plan) FROM subscriptions

-- case: window frame
-- fields: orders.created_at, orders.total_cents
SELECT created_at, avg(total_cents) OVER (ORDER BY created_at ROWS BETWEEN 6 PRECEDING AND CURRENT ROW) FROM orders

-- case: lag and lead
-- fields: events.customer_id, events.occurred_at
SELECT customer_id, occurred_at - lag(occurred_at) OVER (PARTITION BY customer_id ORDER BY occurred_at) FROM events

-- case: named window
-- dialect: postgres
-- fields: orders.customer_id, orders.created_at, orders.total_cents
SELECT sum(total_cents) OVER w, rank() OVER w FROM orders WINDOW w AS (PARTITION BY customer_id ORDER BY created_at)

-- case: qualify
-- dialect: snowflake
-- fields: orders.id, orders.customer_id, orders.created_at
SELECT id FROM orders QUALIFY row_number() OVER (PARTITION BY customer_id ORDER BY created_at DESC) = 1

-- case: qualify on output alias
-- dialect: snowflake
-- fields: tickets.id, tickets.cust_id, tickets.opened_at
SELECT id, row_number() OVER (PARTITION BY cust_id ORDER BY opened_at) AS rn FROM tickets QUALIFY rn = 1

-- case: filter clause on aggregate
-- dialect: postgres
-- fields: tickets.id, tickets.status
SELECT count(id) FILTER (WHERE status = 'open') FROM tickets

-- case: count distinct
-- fields: events.customer_id, events.event_type
SELECT event_type, count(DISTINCT customer_id) FROM events GROUP BY event_type

-- case: conditional aggregation
-- fields: orders.status, orders.total_cents
SELECT sum(CASE WHEN status = 'refunded' THEN total_cents ELSE 0 END) FROM orders

-- case: group by rollup
-- dialect: postgres
-- fields: customers.sales_region, customers.subscription_status, customers.id
SELECT sales_region, subscription_status, count(id) FROM customers GROUP BY ROLLUP (sales_region, subscription_status)

-- case: group by grouping sets
-- dialect: postgres
-- fields: orders.status, orders.currency, orders.id
SELECT status, currency, count(id) FROM orders GROUP BY GROUPING SETS ((status), (currency))

-- case: having with alias
-- fields: orders.customer_id, orders.id
SELECT customer_id, count(id) AS n FROM orders GROUP BY customer_id HAVING n > 5

-- case: ordered-set aggregate
-- dialect: postgres
-- fields: subscriptions.mrr_cents
SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY mrr_cents) FROM subscriptions

-- case: string_agg with order
-- dialect: postgres
-- fields: products.category, products.sku
SELECT category, string_agg(sku, ',' ORDER BY sku) FROM products GROUP BY category

-- case: distinct on
-- dialect: postgres
-- fields: events.customer_id, events.event_type, events.occurred_at
SELECT DISTINCT ON (customer_id) customer_id, event_type FROM events ORDER BY customer_id, occurred_at DESC

-- case: coalesce in group by
-- fields: customers.sales_region, customers.region_code, customers.id
SELECT coalesce(sales_region, region_code) AS r, count(id) FROM customers GROUP BY coalesce(sales_region, region_code)

-- case: window with filter in where on alias subquery
-- fields: analytics.deals.owner, analytics.deals.amount_usd
SELECT owner FROM (SELECT owner, rank() OVER (ORDER BY sum(amount_usd) DESC) AS r FROM analytics.deals GROUP BY owner) t WHERE r <= 3

-- case: running total
-- fields: orders.created_at, orders.total_cents
SELECT created_at, sum(total_cents) OVER (ORDER BY created_at ROWS UNBOUNDED PRECEDING) AS running FROM orders

-- case: ntile and percent rank
-- fields: products.id, products.list_price_usd
SELECT id, ntile(4) OVER (ORDER BY list_price_usd), percent_rank() OVER (ORDER BY list_price_usd) FROM products

-- case: first_value
-- fields: subscriptions.customer_id, subscriptions.plan, subscriptions.period_start
SELECT DISTINCT customer_id, first_value(plan) OVER (PARTITION BY customer_id ORDER BY period_start) FROM subscriptions

-- case: having without group by
-- fields: orders.total_cents
SELECT sum(total_cents) FROM orders HAVING count(*) > 0

-- case: order by nulls last
-- dialect: postgres
-- fields: tickets.id, tickets.closed_at
SELECT id FROM tickets ORDER BY closed_at DESC NULLS LAST

-- case: fetch first
-- dialect: postgres
-- fields: products.sku, products.list_price_usd
SELECT sku FROM products ORDER BY list_price_usd FETCH FIRST 3 ROWS ONLY
