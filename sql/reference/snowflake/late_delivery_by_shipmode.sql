SELECT
    l.l_shipmode AS ship_mode,
    o.o_orderpriority AS order_priority,
    count(*) AS line_count,
    count(*) FILTER (WHERE l.l_receiptdate > l.l_commitdate) AS late_lines,
    count(*) FILTER (WHERE l.l_receiptdate > l.l_commitdate) / count(*)::DOUBLE AS late_rate,
    avg((l.l_shipdate - o.o_orderdate)::DOUBLE) AS avg_ship_lag_days,
    max(l.l_commitdate - o.o_orderdate) AS max_commit_lag_days
FROM raw.lineitem AS l
JOIN raw.orders AS o ON o.o_orderkey = l.l_orderkey
WHERE l.l_shipdate >= DATE '1994-01-01'
GROUP BY ALL
