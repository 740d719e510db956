-- BigQuery: / always returns FLOAT64, so 100 * late / total is a fraction, not truncated.
SELECT
    l.l_shipmode AS ship_mode,
    o.o_orderpriority AS order_priority,
    count(*) AS line_count,
    count(*) FILTER (WHERE l.l_receiptdate > l.l_commitdate) AS late_lines,
    count(*) FILTER (WHERE l.l_receiptdate > l.l_commitdate) / count(*)::DOUBLE AS late_rate,
    100 * count(*) FILTER (WHERE l.l_receiptdate > l.l_commitdate) / count(*)::DOUBLE AS late_pct,
    avg((l.l_shipdate - o.o_orderdate)::DOUBLE) AS avg_ship_lag_days,
    avg((l.l_commitdate - o.o_orderdate)::DOUBLE) AS avg_commit_lag_days,
    count(*) FILTER (WHERE l.l_shipinstruct = 'DELIVER IN PERSON') AS in_person_lines
FROM raw.lineitem AS l
JOIN raw.orders AS o ON o.o_orderkey = l.l_orderkey
WHERE l.l_shipdate >= DATE '1995-01-01'
GROUP BY 1, 2
