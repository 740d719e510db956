-- Late shipments by order priority class since 1994, with mean ship and commit lags in days
-- (the late rate to 4 places, the lags to 2: the report's figures).
-- Used by customer service to set expectations per priority class (Oracle Reports "SLA-07").
CREATE TABLE late_shipments_by_priority AS
SELECT
    DECODE(SUBSTR(o.o_orderpriority, 1, 1), '1', 'URGENT', '2', 'HIGH', '3', 'MEDIUM', 'STANDARD')
        AS priority_class,
    COUNT(*) AS line_count,
    SUM(DECODE(SIGN(l.l_receiptdate - l.l_commitdate), 1, 1, 0)) AS late_lines,
    ROUND(SUM(DECODE(SIGN(l.l_receiptdate - l.l_commitdate), 1, 1, 0)) / COUNT(*), 4) AS late_rate,
    ROUND(AVG(l.l_shipdate - o.o_orderdate), 2) AS avg_ship_lag_days,
    ROUND(AVG(l.l_commitdate - o.o_orderdate), 2) AS avg_commit_lag_days,
    SUM(NVL2(NULLIF(l.l_returnflag, 'N'), 1, 0)) AS returned_or_accepted_lines
FROM sales.lineitem l, sales.orders o
WHERE o.o_orderkey = l.l_orderkey
  AND l.l_shipdate >= DATE '1994-01-01'
GROUP BY DECODE(SUBSTR(o.o_orderpriority, 1, 1), '1', 'URGENT', '2', 'HIGH', '3', 'MEDIUM', 'STANDARD');
