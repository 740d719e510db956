-- Teradata: SUM(INTEGER) / COUNT(*) truncates (all values are non-negative here).
SELECT
    l.l_orderkey AS order_key,
    o.o_orderpriority AS order_priority,
    count(*) AS line_count,
    min(l.l_shipdate - o.o_orderdate) AS min_ship_lag,
    max(l.l_shipdate - o.o_orderdate) AS max_ship_lag,
    sum(l.l_shipdate - o.o_orderdate) // count(*) AS mean_ship_lag,
    min(l.l_commitdate - o.o_orderdate) AS min_commit_lag,
    count(*) FILTER (WHERE l.l_receiptdate > l.l_commitdate) AS late_lines,
    count(*) FILTER (WHERE l.l_receiptdate > l.l_commitdate)::DOUBLE / count(*) AS late_share,
    max(o.o_shippriority) AS ship_priority
FROM raw.lineitem AS l
JOIN raw.orders AS o ON o.o_orderkey = l.l_orderkey
GROUP BY l.l_orderkey, o.o_orderpriority
