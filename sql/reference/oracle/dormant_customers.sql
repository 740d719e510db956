-- MINUS is a set difference: duplicates from the join collapse to one row per customer.
SELECT DISTINCT c.c_custkey AS customer_key, c.c_name AS customer_name, c.c_mktsegment AS segment
FROM raw.customer AS c
JOIN raw.orders AS o ON o.o_custkey = c.c_custkey
WHERE o.o_orderdate < DATE '1998-01-01'
  AND NOT EXISTS (
      SELECT 1 FROM raw.orders AS o2
      WHERE o2.o_custkey = c.c_custkey AND o2.o_orderdate >= DATE '1998-01-01'
  )
