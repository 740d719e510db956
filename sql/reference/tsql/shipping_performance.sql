-- T-SQL: int * int / int is integer division (truncating), and AVG over an int expression
-- returns an int (the truncated mean). All operands here are non-negative.
SELECT
    l.l_shipmode AS ship_mode,
    count(*) AS line_count,
    count(*) FILTER (WHERE l.l_receiptdate > l.l_commitdate) AS late_lines,
    (100 * count(*) FILTER (WHERE l.l_receiptdate > l.l_commitdate)) // count(*) AS late_pct,
    sum(l.l_shipdate - o.o_orderdate) // count(*) AS avg_ship_lag_days,
    sum(l.l_commitdate - o.o_orderdate) // count(*) AS avg_commit_lag_days,
    avg((l.l_receiptdate - l.l_shipdate)::DOUBLE) AS avg_transit_days,
    sum(l.l_quantity) AS units_shipped
FROM raw.lineitem AS l
JOIN raw.orders AS o ON o.o_orderkey = l.l_orderkey
WHERE l.l_shipdate >= DATE '1995-01-01'
GROUP BY l.l_shipmode
