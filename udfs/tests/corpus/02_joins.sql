-- case: inner join on keys
-- fields: orders.id, orders.customer_id, customers.id, customers.name
SELECT o.id, c.name FROM orders o JOIN customers c ON c.id = o.customer_id

-- case: left join
-- fields: customers.id, customers.name, orders.customer_id, orders.id
SELECT c.name, count(o.id) FROM customers c LEFT JOIN orders o ON o.customer_id = c.id GROUP BY c.name

-- case: three-table join
-- fields: orders.id, orders.customer_id, customers.id, customers.sales_region, order_lines.order_id, order_lines.quantity
SELECT c.sales_region, sum(l.quantity) FROM orders o JOIN customers c ON c.id = o.customer_id JOIN order_lines l ON l.order_id = o.id GROUP BY c.sales_region

-- case: four-table join with product
-- fields: orders.id, orders.created_at, order_lines.order_id, order_lines.product_id, order_lines.quantity, order_lines.unit_price_usd, products.id, products.category
SELECT p.category, sum(l.quantity * l.unit_price_usd) AS revenue FROM orders o JOIN order_lines l ON l.order_id = o.id JOIN products p ON p.id = l.product_id WHERE o.created_at >= '2026-01-01' GROUP BY p.category

-- case: the seed's fan-out join
-- fields: orders.id, orders.customer_id, orders.total_cents, order_lines.order_id
SELECT o.customer_id, sum(o.total_cents) FROM orders o JOIN order_lines ol ON ol.order_id = o.id GROUP BY o.customer_id

-- case: unqualified columns resolved through the catalog
-- fields: orders.status, orders.customer_id, customers.id, customers.email
SELECT email, status FROM orders JOIN customers ON customers.id = orders.customer_id

-- case: ambiguous unqualified column
-- fields: orders.customer_id, customers.id
-- reasons: ambiguous column id: could be in orders, customers
SELECT id FROM orders JOIN customers ON customers.id = orders.customer_id

-- case: using join
-- fields: events.customer_id, subscriptions.customer_id, events.event_type, subscriptions.plan
SELECT event_type, plan FROM events JOIN subscriptions USING (customer_id)

-- case: using column referenced bare
-- fields: events.customer_id, subscriptions.customer_id
SELECT customer_id FROM events JOIN subscriptions USING (customer_id)

-- case: using column qualified
-- fields: events.customer_id, subscriptions.customer_id, subscriptions.mrr_cents
SELECT e.customer_id, s.mrr_cents FROM events e JOIN subscriptions s USING (customer_id)

-- case: natural join
-- fields: orders.id, orders.status, orders.closed_at, tickets.id, tickets.status, tickets.closed_at, orders.total_cents
SELECT total_cents FROM orders NATURAL JOIN tickets

-- case: cross join
-- fields: products.sku, customers.name
SELECT p.sku, c.name FROM products p CROSS JOIN customers c

-- case: comma join with where
-- fields: orders.id, orders.customer_id, customers.id, customers.email
SELECT o.id, c.email FROM orders o, customers c WHERE o.customer_id = c.id

-- case: self join
-- fields: customers.id, customers.name, customers.email
SELECT a.name, b.name FROM customers a JOIN customers b ON a.email = b.email AND a.id < b.id

-- case: full outer join
-- fields: tickets.cust_id, customers.id, customers.name, tickets.status
SELECT c.name, t.status FROM customers c FULL OUTER JOIN tickets t ON t.cust_id = c.id

-- case: right join
-- fields: subscriptions.customer_id, subscriptions.plan, customers.id
SELECT s.plan FROM customers c RIGHT JOIN subscriptions s ON s.customer_id = c.id

-- case: join condition with a literal
-- fields: orders.id, orders.customer_id, orders.status, customers.id
SELECT o.id FROM orders o JOIN customers c ON c.id = o.customer_id AND o.status = 'paid'

-- case: join on expression
-- fields: customers.email, events.payload, events.id
SELECT e.id FROM events e JOIN customers c ON lower(c.email) = e.payload

-- case: schema-qualified join
-- fields: analytics.deals.account_id, analytics.deals.amount_usd, analytics.accounts.account_id, analytics.accounts.name
SELECT a.name, sum(d.amount_usd) FROM analytics.deals d JOIN analytics.accounts a ON a.account_id = d.account_id GROUP BY a.name

-- case: schema table joined with plain table
-- fields: analytics.accounts.owner, analytics.accounts.sales_region, customers.sales_region, customers.id
SELECT a.owner, count(c.id) FROM analytics.accounts a JOIN customers c ON c.sales_region = a.sales_region GROUP BY a.owner

-- case: nested join in parentheses
-- fields: orders.id, orders.customer_id, customers.id, order_lines.order_id, order_lines.quantity
SELECT o.id, l.quantity FROM (orders o JOIN customers c ON c.id = o.customer_id) JOIN order_lines l ON l.order_id = o.id

-- case: left join with is null anti pattern
-- fields: customers.id, customers.name, orders.customer_id, orders.id
SELECT c.name FROM customers c LEFT JOIN orders o ON o.customer_id = c.id WHERE o.id IS NULL

-- case: join to the same table twice with different aliases
-- fields: orders.id, orders.customer_id, customers.id, customers.name, tickets.cust_id, tickets.status
SELECT o.id, c1.name FROM orders o JOIN customers c1 ON c1.id = o.customer_id JOIN tickets t ON t.cust_id = c1.id WHERE t.status = 'open'

-- case: ambiguous column in where with two tables
-- fields: orders.id, orders.customer_id, customers.id
-- reasons: ambiguous column created_at: could be in o, c
SELECT o.id FROM orders o JOIN customers c ON c.id = o.customer_id WHERE created_at > '2026-01-01'

-- case: unique bare column across two tables
-- fields: orders.id, orders.customer_id, orders.total_cents, customers.id, customers.subscription_status
SELECT o.id, total_cents FROM orders o JOIN customers c ON c.id = o.customer_id WHERE subscription_status = 'ACTIVE'

-- case: five-table join
-- fields: customers.id, customers.sales_region, orders.id, orders.customer_id, order_lines.order_id, order_lines.product_id, order_lines.quantity, products.id, products.category, subscriptions.customer_id, subscriptions.plan
SELECT c.sales_region, p.category, s.plan, sum(l.quantity) FROM customers c JOIN orders o ON o.customer_id = c.id JOIN order_lines l ON l.order_id = o.id JOIN products p ON p.id = l.product_id JOIN subscriptions s ON s.customer_id = c.id GROUP BY 1, 2, 3

-- case: join with between on dates
-- fields: events.customer_id, events.occurred_at, subscriptions.customer_id, subscriptions.period_start, subscriptions.period_end, subscriptions.plan
SELECT s.plan, count(*) FROM events e JOIN subscriptions s ON s.customer_id = e.customer_id AND e.occurred_at BETWEEN s.period_start AND s.period_end GROUP BY s.plan

-- case: semi join in generic dialect through exists
-- fields: customers.id, customers.name, orders.customer_id
SELECT c.name FROM customers c WHERE EXISTS (SELECT 1 FROM orders o WHERE o.customer_id = c.id)

-- case: lateral join
-- dialect: postgres
-- fields: customers.id, customers.name, orders.customer_id, orders.created_at, orders.total_cents
SELECT c.name, last.total_cents FROM customers c CROSS JOIN LATERAL (SELECT o.total_cents FROM orders o WHERE o.customer_id = c.id ORDER BY o.created_at DESC LIMIT 1) last

-- case: left join lateral on true
-- dialect: postgres
-- fields: customers.id, customers.email, tickets.cust_id, tickets.id
SELECT c.email, t.n FROM customers c LEFT JOIN LATERAL (SELECT count(tickets.id) AS n FROM tickets WHERE tickets.cust_id = c.id) t ON true
