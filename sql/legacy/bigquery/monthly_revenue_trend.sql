-- Monthly net revenue and returns with the month's age and the next month's first day, for the
-- revenue trend chart in the board pack.
SELECT
  DATE_TRUNC(l.l_shipdate, MONTH) AS ship_month,
  LAST_DAY(l.l_shipdate, MONTH) AS month_end,
  DATE_ADD(DATE_TRUNC(l.l_shipdate, MONTH), INTERVAL 1 MONTH) AS next_month,
  DATE_DIFF(DATE '1998-12-01', DATE_TRUNC(l.l_shipdate, MONTH), MONTH) AS months_ago,
  SUM(l.l_extendedprice * (1 - l.l_discount)) AS net_revenue,
  SUM(IF(l.l_returnflag = 'R', l.l_extendedprice * (1 - l.l_discount), 0)) AS returned_revenue,
  COUNTIF(l.l_returnflag = 'R') AS returned_lines,
  SAFE_DIVIDE(COUNTIF(l.l_returnflag = 'R'), COUNTIF(l.l_linestatus = 'F')) AS return_ratio
FROM sales.lineitem AS l
GROUP BY 1, 2, 3, 4;
