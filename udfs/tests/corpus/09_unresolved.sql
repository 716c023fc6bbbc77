-- case: unknown table
-- fields:
-- reasons: unknown table invoices
SELECT amount FROM invoices

-- case: unknown column
-- fields: customers.id
-- reasons: unknown column nickname
SELECT id, nickname FROM customers

-- case: unknown qualified column
-- fields:
-- reasons: unknown column c.nickname
SELECT c.nickname FROM customers c

-- case: unknown alias qualifier
-- fields: customers.id
-- reasons: unknown table or alias in x.email
SELECT c.id, x.email FROM customers c

-- case: show is not a query
-- fields:
-- reasons: not a query: SHOW
show me the customers

-- case: not sql at all
-- fields:
-- reasons: cannot parse: sql parser error: Expected: an SQL statement, found: please at Line: 1, Column: 1
please list the customers

-- case: truncated query
-- fields:
-- reasons: cannot parse: sql parser error: Expected: an expression, found: EOF
SELECT id FROM customers WHERE

-- case: insert is not a query
-- fields:
-- reasons: not a query: INSERT
INSERT INTO customers (id) VALUES (1)

-- case: delete is not a query
-- fields:
-- reasons: not a query: DELETE
DELETE FROM customers WHERE id = 1

-- case: empty text
-- fields:
-- reasons: no statement
 

-- case: two statements both counted
-- fields: customers.id, products.sku
SELECT id FROM customers; SELECT sku FROM products

-- case: star over a table function
-- dialect: postgres
-- fields:
-- reasons: cannot expand * over g: columns unknown
SELECT * FROM generate_series(1, 10) g

-- case: known and unknown tables joined
-- fields: customers.id
-- reasons: unknown table invoices
SELECT c.id, i.amount FROM customers c JOIN invoices i ON i.customer_id = c.id

-- case: ambiguous bare column among three tables
-- fields: orders.customer_id, customers.id, subscriptions.customer_id
-- reasons: ambiguous column status: could be in o, s
SELECT status FROM orders o JOIN customers c ON c.id = o.customer_id JOIN subscriptions s ON s.customer_id = c.id

-- case: using column missing on one side
-- fields: orders.customer_id
-- reasons: unknown column customer_id in USING
SELECT 1 FROM orders JOIN products USING (customer_id)

-- case: unknown dialect keyword parsed as column
-- fields: customers.id
-- reasons: unknown column foo
SELECT id FROM customers WHERE foo
