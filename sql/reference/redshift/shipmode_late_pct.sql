-- Redshift: BIGINT / BIGINT truncates (SUM of an INTEGER CASE is a BIGINT, so is COUNT(*)).
-- DATEDIFF(day, a, b) is b - a in days.
SELECT
    l.l_shipmode AS ship_mode,
    year(l.l_shipdate) AS ship_year,
    count(*) AS line_count,
    count(*) FILTER (WHERE l.l_receiptdate > l.l_commitdate) AS late_lines,
    (100 * count(*) FILTER (WHERE l.l_receiptdate > l.l_commitdate)) // count(*) AS late_pct,
    count(*) FILTER (WHERE l.l_receiptdate > l.l_commitdate)::DOUBLE / count(*) AS late_ratio,
    max(l.l_shipdate - o.o_orderdate) AS max_ship_lag_days,
    avg((l.l_receiptdate - l.l_shipdate)::DOUBLE) AS avg_transit_days
FROM raw.lineitem AS l
JOIN raw.orders AS o ON o.o_orderkey = l.l_orderkey
GROUP BY 1, 2
