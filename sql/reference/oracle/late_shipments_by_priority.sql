-- Oracle: DATE - DATE is a NUMBER of days, and NUMBER division is exact (not integer division).
SELECT
    CASE left(o.o_orderpriority, 1)
        WHEN '1' THEN 'URGENT'
        WHEN '2' THEN 'HIGH'
        WHEN '3' THEN 'MEDIUM'
        ELSE 'STANDARD'
    END AS priority_class,
    count(*) AS line_count,
    count(*) FILTER (WHERE l.l_receiptdate > l.l_commitdate) AS late_lines,
    count(*) FILTER (WHERE l.l_receiptdate > l.l_commitdate) / count(*)::DOUBLE AS late_rate,
    avg((l.l_shipdate - o.o_orderdate)::DOUBLE) AS avg_ship_lag_days,
    avg((l.l_commitdate - o.o_orderdate)::DOUBLE) AS avg_commit_lag_days,
    count(*) FILTER (WHERE l.l_returnflag <> 'N') AS returned_or_accepted_lines
FROM raw.lineitem AS l
JOIN raw.orders AS o ON o.o_orderkey = l.l_orderkey
WHERE l.l_shipdate >= DATE '1994-01-01'
GROUP BY 1
