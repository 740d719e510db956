-- Customers with no order since 1998-01-01 but at least one earlier order (lapsed accounts).
-- Used by the win-back campaign team.
SELECT c.c_custkey AS customer_key, c.c_name AS customer_name, c.c_mktsegment AS segment
FROM sales.customer c, sales.orders o
WHERE o.o_custkey = c.c_custkey
  AND o.o_orderdate < DATE '1998-01-01'
MINUS
SELECT c.c_custkey, c.c_name, c.c_mktsegment
FROM sales.customer c
WHERE c.c_custkey IN (
    SELECT o.o_custkey FROM sales.orders o WHERE o.o_orderdate >= DATE '1998-01-01'
);
