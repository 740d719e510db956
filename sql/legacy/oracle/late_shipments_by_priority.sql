-- Late shipments by order priority class since 1994, with mean ship and commit lags in days
-- (rates and means in binary floating point, as the SLA dashboard reads them).
-- Used by customer service to set expectations per priority class (Oracle Reports "SLA-07").
CREATE TABLE late_shipments_by_priority AS
SELECT
    DECODE(SUBSTR(o.o_orderpriority, 1, 1), '1', 'URGENT', '2', 'HIGH', '3', 'MEDIUM', 'STANDARD')
        AS priority_class,
    COUNT(*) AS line_count,
    SUM(DECODE(SIGN(l.l_receiptdate - l.l_commitdate), 1, 1, 0)) AS late_lines,
    CAST(SUM(DECODE(SIGN(l.l_receiptdate - l.l_commitdate), 1, 1, 0)) AS BINARY_DOUBLE) / COUNT(*)
        AS late_rate,
    AVG(CAST(l.l_shipdate - o.o_orderdate AS BINARY_DOUBLE)) AS avg_ship_lag_days,
    AVG(CAST(l.l_commitdate - o.o_orderdate AS BINARY_DOUBLE)) AS avg_commit_lag_days,
    SUM(NVL2(NULLIF(l.l_returnflag, 'N'), 1, 0)) AS returned_or_accepted_lines
FROM sales.lineitem l, sales.orders o
WHERE o.o_orderkey = l.l_orderkey
  AND l.l_shipdate >= DATE '1994-01-01'
GROUP BY DECODE(SUBSTR(o.o_orderpriority, 1, 1), '1', 'URGENT', '2', 'HIGH', '3', 'MEDIUM', 'STANDARD');
