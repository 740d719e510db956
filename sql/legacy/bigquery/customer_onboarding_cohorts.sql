-- Onboarding cohorts: the 600 customers who first ordered earliest (prospects without orders
-- are listed first), with weeks between first order and the mid-1995 price change.
SELECT
  c.c_custkey AS customer_key,
  c.c_mktsegment AS segment,
  MIN(o.o_orderdate) AS first_order_date,
  CAST(FLOOR(DATE_DIFF(MIN(o.o_orderdate), DATE '1995-06-17', DAY) / 7) AS INT64)
    AS weeks_from_price_change,
  MOD(DATE_DIFF(MIN(o.o_orderdate), DATE '1995-06-17', DAY), 7) AS extra_days,
  DATE_SUB(MIN(o.o_orderdate), INTERVAL 30 DAY) AS lead_created_date,
  IFNULL(COUNT(DISTINCT o.o_orderkey), 0) AS order_count
FROM sales.customer AS c
LEFT JOIN sales.orders AS o ON o.o_custkey = c.c_custkey
GROUP BY c.c_custkey, c.c_mktsegment
ORDER BY first_order_date, customer_key
LIMIT 600;
