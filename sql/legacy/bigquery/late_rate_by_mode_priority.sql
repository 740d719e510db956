-- Late-delivery rate by ship mode and order priority for lines shipped since 1995, with mean
-- ship and commit lags. Feature table for the delay model and the ops Looker dashboard.
CREATE OR REPLACE TABLE `acme-dw.analytics.late_rate_by_mode_priority` AS
SELECT
  l.l_shipmode AS ship_mode,
  o.o_orderpriority AS order_priority,
  COUNT(*) AS line_count,
  COUNTIF(l.l_receiptdate > l.l_commitdate) AS late_lines,
  SAFE_DIVIDE(COUNTIF(l.l_receiptdate > l.l_commitdate), COUNT(*)) AS late_rate,
  100 * COUNTIF(l.l_receiptdate > l.l_commitdate) / COUNT(*) AS late_pct,
  AVG(DATE_DIFF(l.l_shipdate, o.o_orderdate, DAY)) AS avg_ship_lag_days,
  AVG(DATE_DIFF(l.l_commitdate, o.o_orderdate, DAY)) AS avg_commit_lag_days,
  SUM(IF(l.l_shipinstruct = 'DELIVER IN PERSON', 1, 0)) AS in_person_lines
FROM `acme-dw.sales.lineitem` AS l
JOIN `acme-dw.sales.orders` AS o
  ON o.o_orderkey = l.l_orderkey
WHERE l.l_shipdate >= '1995-01-01'
GROUP BY ship_mode, order_priority;
