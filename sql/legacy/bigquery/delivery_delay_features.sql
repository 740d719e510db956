-- Line-level training features for the delivery-delay model (lines ordered from 1995 on):
-- lags, weekday of shipment, discount band and the late label. Scheduled query, nightly.
CREATE OR REPLACE TABLE `acme-dw.ml.delivery_delay_features` AS
SELECT
  l.l_orderkey AS order_key,
  l.l_linenumber AS line_number,
  l.l_shipmode AS ship_mode,
  o.o_orderpriority AS order_priority,
  c.c_mktsegment AS customer_segment,
  DATE_DIFF(l.l_shipdate, o.o_orderdate, DAY) AS ship_lag_days,
  DATE_DIFF(l.l_commitdate, o.o_orderdate, DAY) AS commit_lag_days,
  DATE_DIFF(l.l_commitdate, l.l_shipdate, DAY) AS slack_days,
  EXTRACT(DAYOFWEEK FROM l.l_shipdate) AS ship_weekday,
  EXTRACT(MONTH FROM o.o_orderdate) AS order_month,
  IF(l.l_discount >= 0.05, 'HIGH', 'LOW') AS discount_band,
  CAST(l.l_quantity AS INT64) AS quantity,
  IF(l.l_receiptdate > l.l_commitdate, 1, 0) AS is_late
FROM `acme-dw.sales.lineitem` AS l
JOIN `acme-dw.sales.orders` AS o ON o.o_orderkey = l.l_orderkey
JOIN `acme-dw.sales.customer` AS c ON c.c_custkey = o.o_custkey
WHERE o.o_orderdate >= DATE '1995-01-01';
