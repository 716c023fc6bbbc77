-- case: monthly revenue by region
-- dialect: postgres
-- fields: orders.created_at, orders.total_cents, orders.customer_id, orders.status, customers.id, customers.sales_region
SELECT date_trunc('month', o.created_at) AS month, c.sales_region, sum(o.total_cents) / 100.0 AS revenue_usd FROM orders o JOIN customers c ON c.id = o.customer_id WHERE o.status = 'paid' GROUP BY 1, 2 ORDER BY 1, 2

-- case: churned customers last quarter
-- dialect: postgres
-- fields: subscriptions.customer_id, subscriptions.status, subscriptions.period_end, customers.id, customers.name
SELECT c.name FROM customers c JOIN subscriptions s ON s.customer_id = c.id WHERE s.status = 'CANCELLED' AND s.period_end BETWEEN '2026-04-01' AND '2026-06-30'

-- case: top products by units with rank
-- fields: products.id, products.name, order_lines.product_id, order_lines.quantity
SELECT name, units, rnk FROM (SELECT p.name, sum(l.quantity) AS units, rank() OVER (ORDER BY sum(l.quantity) DESC) AS rnk FROM products p JOIN order_lines l ON l.product_id = p.id GROUP BY p.name) t WHERE rnk <= 10

-- case: retention cohort
-- dialect: postgres
-- fields: customers.id, customers.created_at, events.customer_id, events.occurred_at
WITH cohort AS (SELECT id, date_trunc('month', created_at) AS cohort_month FROM customers), activity AS (SELECT customer_id, date_trunc('month', occurred_at) AS active_month FROM events) SELECT c.cohort_month, a.active_month, count(DISTINCT c.id) FROM cohort c JOIN activity a ON a.customer_id = c.id GROUP BY 1, 2

-- case: average order value per customer segment
-- fields: customers.id, customers.subscription_status, orders.customer_id, orders.total_cents
SELECT c.subscription_status, avg(o.total_cents) FROM customers c JOIN orders o ON o.customer_id = c.id GROUP BY c.subscription_status

-- case: ticket resolution time
-- dialect: postgres
-- fields: tickets.priority, tickets.opened_at, tickets.closed_at
SELECT priority, avg(extract(epoch FROM closed_at - opened_at) / 3600) AS hours FROM tickets WHERE closed_at IS NOT NULL GROUP BY priority

-- case: customers with open tickets and recent orders
-- fields: customers.id, customers.email, tickets.cust_id, tickets.status, orders.customer_id, orders.created_at
SELECT DISTINCT c.email FROM customers c JOIN tickets t ON t.cust_id = c.id AND t.status = 'open' WHERE EXISTS (SELECT 1 FROM orders o WHERE o.customer_id = c.id AND o.created_at > '2026-06-01')

-- case: pipeline by stage and owner
-- fields: analytics.deals.stage, analytics.deals.owner, analytics.deals.amount_usd, analytics.deals.close_date
SELECT stage, owner, sum(amount_usd) FROM analytics.deals WHERE close_date >= '2026-07-01' GROUP BY ROLLUP (stage, owner)

-- case: deals with account region
-- fields: analytics.deals.deal_id, analytics.deals.account_id, analytics.accounts.account_id, analytics.accounts.sales_region
SELECT d.deal_id, a.sales_region FROM analytics.deals d LEFT JOIN analytics.accounts a ON a.account_id = d.account_id

-- case: mrr movement with lag
-- dialect: postgres
-- fields: subscriptions.customer_id, subscriptions.period_start, subscriptions.mrr_cents
SELECT customer_id, period_start, mrr_cents - lag(mrr_cents, 1, 0) OVER (PARTITION BY customer_id ORDER BY period_start) AS delta FROM subscriptions

-- case: share of revenue per category
-- fields: products.id, products.category, order_lines.product_id, order_lines.quantity, order_lines.unit_price_usd
SELECT category, rev / sum(rev) OVER () AS share FROM (SELECT p.category, sum(l.quantity * l.unit_price_usd) AS rev FROM order_lines l JOIN products p ON p.id = l.product_id GROUP BY p.category) t

-- case: first order per customer
-- fields: orders.customer_id, orders.created_at
SELECT customer_id, min(created_at) AS first_order FROM orders GROUP BY customer_id

-- case: repeat purchase rate
-- fields: orders.customer_id, orders.id
WITH n AS (SELECT customer_id, count(id) AS orders FROM orders GROUP BY customer_id) SELECT avg(CASE WHEN orders > 1 THEN 1.0 ELSE 0 END) FROM n

-- case: events funnel
-- fields: events.customer_id, events.event_type
SELECT count(DISTINCT CASE WHEN event_type = 'view' THEN customer_id END) AS viewed, count(DISTINCT CASE WHEN event_type = 'cart' THEN customer_id END) AS carted, count(DISTINCT CASE WHEN event_type = 'purchase' THEN customer_id END) AS bought FROM events

-- case: daily active customers with generate_series
-- dialect: postgres
-- fields: events.customer_id, events.occurred_at
SELECT d::date, count(DISTINCT e.customer_id) FROM generate_series('2026-06-01'::date, '2026-06-30'::date, '1 day') AS d LEFT JOIN events e ON e.occurred_at::date = d::date GROUP BY 1

-- case: orders without lines
-- fields: orders.id, order_lines.order_id
SELECT o.id FROM orders o LEFT JOIN order_lines l ON l.order_id = o.id WHERE l.order_id IS NULL

-- case: duplicate emails
-- fields: customers.email, customers.id
SELECT email, count(id) FROM customers GROUP BY email HAVING count(id) > 1

-- case: latest subscription per customer by row number
-- fields: subscriptions.customer_id, subscriptions.plan, subscriptions.period_start
SELECT customer_id, plan FROM (SELECT customer_id, plan, row_number() OVER (PARTITION BY customer_id ORDER BY period_start DESC) AS rn FROM subscriptions) s WHERE rn = 1

-- case: region mix of active customers
-- fields: customers.sales_region, customers.subscription_status, customers.id
SELECT sales_region, count(id) * 1.0 / sum(count(id)) OVER () FROM customers WHERE subscription_status IN ('ACTIVE', 'PAUSED_BILLING') GROUP BY sales_region

-- case: revenue by currency converted
-- fields: orders.currency, orders.total_cents
SELECT currency, sum(total_cents) FILTER (WHERE currency = 'EUR') AS eur FROM orders GROUP BY currency

-- case: average basket size
-- fields: order_lines.order_id, order_lines.quantity
SELECT avg(items) FROM (SELECT order_id, sum(quantity) AS items FROM order_lines GROUP BY order_id) b

-- case: top customers by spend with their region
-- fields: orders.customer_id, orders.total_cents, customers.id, customers.name, customers.sales_region
WITH spend AS (SELECT customer_id, sum(total_cents) AS s FROM orders GROUP BY customer_id ORDER BY s DESC LIMIT 20) SELECT c.name, c.sales_region, spend.s FROM spend JOIN customers c ON c.id = spend.customer_id

-- case: tickets per thousand customers by region
-- fields: tickets.id, tickets.cust_id, customers.id, customers.sales_region
SELECT c.sales_region, 1000.0 * count(t.id) / count(DISTINCT c.id) FROM customers c LEFT JOIN tickets t ON t.cust_id = c.id GROUP BY c.sales_region

-- case: won deals this quarter by owner with rank
-- dialect: snowflake
-- fields: analytics.deals.owner, analytics.deals.amount_usd, analytics.deals.stage, analytics.deals.close_date
SELECT owner, SUM(amount_usd) AS won, RANK() OVER (ORDER BY SUM(amount_usd) DESC) AS r FROM analytics.deals WHERE stage = 'won' AND close_date >= DATE_TRUNC('quarter', CURRENT_DATE()) GROUP BY owner

-- case: product price bands
-- fields: products.list_price_usd, products.id
SELECT CASE WHEN list_price_usd < 10 THEN 'low' WHEN list_price_usd < 100 THEN 'mid' ELSE 'high' END AS band, count(id) FROM products GROUP BY 1

-- case: orders per weekday
-- dialect: postgres
-- fields: orders.created_at, orders.id
SELECT extract(dow FROM created_at) AS dow, count(id) FROM orders GROUP BY 1 ORDER BY 1

-- case: customers active in two consecutive months
-- dialect: postgres
-- fields: events.customer_id, events.occurred_at
WITH m AS (SELECT DISTINCT customer_id, date_trunc('month', occurred_at) AS month FROM events) SELECT a.customer_id FROM m a JOIN m b ON b.customer_id = a.customer_id AND b.month = a.month + interval '1 month'

-- case: subscription overlap with the fiscal quarter
-- fields: subscriptions.customer_id, subscriptions.period_start, subscriptions.period_end, subscriptions.status
SELECT count(DISTINCT customer_id) FROM subscriptions WHERE status IN ('ACTIVE', 'PAUSED_BILLING') AND period_start <= '2026-06-30' AND period_end >= '2026-04-01'

-- case: median order by region using percentile
-- dialect: postgres
-- fields: orders.total_cents, orders.customer_id, customers.id, customers.sales_region
SELECT c.sales_region, percentile_cont(0.5) WITHIN GROUP (ORDER BY o.total_cents) FROM orders o JOIN customers c ON c.id = o.customer_id GROUP BY c.sales_region

-- case: stale customers not updated this year
-- fields: customers.id, customers.updated_at
SELECT count(id) FROM customers WHERE updated_at < '2026-01-01' OR updated_at IS NULL

-- case: event payload keys
-- dialect: postgres
-- fields: events.payload, events.event_type
SELECT event_type, count(*) FROM events WHERE payload ->> 'source' = 'mobile' GROUP BY event_type

-- case: union of emails and account names deduplicated with count
-- fields: customers.email, analytics.accounts.name
SELECT count(*) FROM (SELECT email AS n FROM customers UNION SELECT name FROM analytics.accounts) t

-- case: gap between orders
-- fields: orders.customer_id, orders.created_at
SELECT customer_id, avg(gap) FROM (SELECT customer_id, created_at - lag(created_at) OVER (PARTITION BY customer_id ORDER BY created_at) AS gap FROM orders) g GROUP BY customer_id

-- case: cancelled subscriptions with last ticket priority
-- fields: subscriptions.customer_id, subscriptions.status, tickets.cust_id, tickets.priority, tickets.opened_at
SELECT s.customer_id, (SELECT t.priority FROM tickets t WHERE t.cust_id = s.customer_id ORDER BY t.opened_at DESC LIMIT 1) FROM subscriptions s WHERE s.status = 'CANCELLED'

-- case: sku revenue with cte and join to products
-- fields: order_lines.product_id, order_lines.quantity, order_lines.unit_price_usd, products.id, products.sku
WITH r AS (SELECT product_id, sum(quantity * unit_price_usd) AS revenue FROM order_lines GROUP BY product_id) SELECT p.sku, r.revenue FROM r JOIN products p ON p.id = r.product_id ORDER BY r.revenue DESC

-- case: customers whose region code disagrees with sales region
-- fields: customers.id, customers.region_code, customers.sales_region
SELECT id FROM customers WHERE region_code LIKE 'EU%' AND sales_region <> 'EMEA'

-- case: accounts without deals
-- fields: analytics.accounts.account_id, analytics.accounts.name, analytics.deals.account_id
SELECT a.name FROM analytics.accounts a WHERE NOT EXISTS (SELECT 1 FROM analytics.deals d WHERE d.account_id = a.account_id)

-- case: lines above list price
-- fields: order_lines.id, order_lines.product_id, order_lines.unit_price_usd, products.id, products.list_price_usd
SELECT l.id FROM order_lines l JOIN products p ON p.id = l.product_id WHERE l.unit_price_usd > p.list_price_usd

-- case: running count of signups
-- dialect: postgres
-- fields: customers.created_at
SELECT created_at::date AS d, count(*) OVER (ORDER BY created_at::date) FROM customers

-- case: deal size quartiles
-- fields: analytics.deals.amount_usd, analytics.deals.deal_id
SELECT q, count(deal_id) FROM (SELECT deal_id, ntile(4) OVER (ORDER BY amount_usd) AS q FROM analytics.deals) t GROUP BY q
