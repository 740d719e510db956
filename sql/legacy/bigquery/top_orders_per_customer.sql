-- Each BUILDING-segment customer's two largest orders, with days from order to last shipment.
-- Used by the key-account team to prepare quarterly business reviews.
SELECT
  o.o_custkey AS customer_key,
  o.o_orderkey AS order_key,
  o.o_orderdate AS order_date,
  o.o_totalprice AS order_value,
  DATE_DIFF(MAX(l.l_shipdate), o.o_orderdate, DAY) AS days_to_last_shipment,
  ROW_NUMBER() OVER (PARTITION BY o.o_custkey ORDER BY o.o_totalprice DESC, o.o_orderkey) AS value_rank
FROM `acme-dw`.sales.orders AS o
JOIN `acme-dw`.sales.customer AS c ON c.c_custkey = o.o_custkey
JOIN `acme-dw`.sales.lineitem AS l ON l.l_orderkey = o.o_orderkey
WHERE c.c_mktsegment = 'BUILDING'
GROUP BY o.o_custkey, o.o_orderkey, o.o_orderdate, o.o_totalprice
QUALIFY value_rank <= 2;
