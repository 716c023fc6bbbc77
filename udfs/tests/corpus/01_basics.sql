-- case: one column
-- fields: customers.id
SELECT id FROM customers

-- case: several columns
-- fields: customers.id, customers.name, customers.email
SELECT id, name, email FROM customers

-- case: table alias
-- fields: customers.id, customers.name
SELECT c.id, c.name FROM customers c

-- case: table alias with AS
-- fields: customers.id, customers.sales_region
SELECT c.id FROM customers AS c WHERE c.sales_region = 'EMEA'

-- case: table name as qualifier
-- fields: customers.id, customers.email
SELECT customers.id, customers.email FROM customers

-- case: count star reads no column
-- fields:
SELECT count(*) FROM customers

-- case: count star with a filter
-- fields: customers.is_active
SELECT count(*) FROM customers WHERE is_active

-- case: the seed's Server A query
-- fields: customers.is_active, customers.region_code, customers.created_at
SELECT COUNT(*) FROM customers WHERE is_active = true AND region_code LIKE 'EU%' AND created_at < '2026-07-01'

-- case: grounded count of active customers
-- fields: customers.id, customers.subscription_status, customers.sales_region, subscriptions.customer_id, subscriptions.period_start, subscriptions.period_end
SELECT COUNT(DISTINCT c.id) FROM customers c JOIN subscriptions s ON s.customer_id = c.id WHERE c.subscription_status IN ('ACTIVE', 'PAUSED_BILLING') AND c.sales_region = 'EMEA' AND s.period_start <= DATE '2026-06-30' AND s.period_end >= DATE '2026-04-01'

-- case: column alias is not a column
-- fields: orders.total_cents
SELECT total_cents / 100.0 AS total_usd FROM orders

-- case: expression over columns
-- fields: order_lines.quantity, order_lines.unit_price_usd
SELECT quantity * unit_price_usd AS line_total FROM order_lines

-- case: function of a column
-- fields: customers.email
SELECT lower(email) FROM customers

-- case: nested functions
-- fields: customers.name, customers.email
SELECT coalesce(nullif(trim(name), ''), email) FROM customers

-- case: case expression
-- fields: orders.status, orders.total_cents
SELECT CASE WHEN status = 'paid' THEN total_cents ELSE 0 END FROM orders

-- case: simple case with operand
-- fields: tickets.priority
SELECT CASE priority WHEN 1 THEN 'high' WHEN 2 THEN 'mid' ELSE 'low' END FROM tickets

-- case: cast
-- fields: orders.created_at
SELECT CAST(created_at AS DATE) FROM orders

-- case: distinct
-- fields: customers.sales_region
SELECT DISTINCT sales_region FROM customers

-- case: literal only
-- fields:
SELECT 1

-- case: literal with from
-- fields:
SELECT 1 FROM customers

-- case: between
-- fields: orders.id, orders.created_at
SELECT id FROM orders WHERE created_at BETWEEN '2026-01-01' AND '2026-03-31'

-- case: in list
-- fields: tickets.id, tickets.status
SELECT id FROM tickets WHERE status IN ('open', 'pending')

-- case: is null
-- fields: tickets.id, tickets.closed_at
SELECT id FROM tickets WHERE closed_at IS NULL

-- case: like and not
-- fields: products.sku, products.name
SELECT sku FROM products WHERE NOT name LIKE 'test%'

-- case: limit and offset
-- fields: products.id, products.list_price_usd
SELECT id FROM products ORDER BY list_price_usd DESC LIMIT 10 OFFSET 5

-- case: quoted identifiers in generic dialect
-- fields: customers.id, customers.name
SELECT "id", "Name" FROM "customers"

-- case: upper-case keywords and names
-- fields: customers.id, customers.email
SELECT ID, EMAIL FROM CUSTOMERS

-- case: mixed case alias
-- fields: orders.id, orders.status
SELECT O.Id FROM Orders o WHERE o.STATUS = 'paid'

-- case: schema-qualified table
-- fields: analytics.deals.deal_id, analytics.deals.amount_usd
SELECT deal_id, amount_usd FROM analytics.deals

-- case: schema-qualified column reference
-- fields: analytics.deals.deal_id, analytics.deals.stage
SELECT analytics.deals.deal_id FROM analytics.deals WHERE analytics.deals.stage = 'won'

-- case: schema table without schema in the query
-- fields: analytics.accounts.name
SELECT name FROM accounts

-- case: arithmetic in where
-- fields: order_lines.id, order_lines.quantity, order_lines.unit_price_usd
SELECT id FROM order_lines WHERE quantity * unit_price_usd > 1000

-- case: trailing semicolon
-- fields: products.category
SELECT category FROM products;

-- case: comments in the query
-- fields: products.sku
SELECT sku -- the stock keeping unit
FROM products /* all of them */

-- case: extract
-- fields: orders.created_at, orders.id
SELECT EXTRACT(YEAR FROM created_at) AS y, count(id) FROM orders GROUP BY 1

-- case: interval arithmetic
-- fields: events.id, events.occurred_at
SELECT id FROM events WHERE occurred_at > now() - INTERVAL '7 days'

-- case: string concatenation
-- fields: customers.name, customers.email
SELECT name || ' <' || email || '>' FROM customers

-- case: boolean column negated
-- fields: customers.id, customers.is_active
SELECT id FROM customers WHERE NOT is_active
