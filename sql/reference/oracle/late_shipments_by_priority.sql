-- Oracle: DATE - DATE is a NUMBER of days, and NUMBER division is exact (not integer division)
-- to 38 digits; ROUND of a positive NUMBER is FLOOR(n * POWER(10, places) + 0.5) * POWER(10,
-- -places) (SQL Language Reference, ROUND (number)), here in integers: FLOOR(s / c * 10^k +
-- 0.5) is (2 * 10^k * s + c) // (2 * c) for whole s >= 0 and c > 0.
SELECT
    CASE left(o.o_orderpriority, 1)
        WHEN '1' THEN 'URGENT'
        WHEN '2' THEN 'HIGH'
        WHEN '3' THEN 'MEDIUM'
        ELSE 'STANDARD'
    END AS priority_class,
    count(*) AS line_count,
    count(*) FILTER (WHERE l.l_receiptdate > l.l_commitdate) AS late_lines,
    ((20000 * count(*) FILTER (WHERE l.l_receiptdate > l.l_commitdate) + count(*))
        // (2 * count(*)) * 0.0001)::DECIMAL(38, 4) AS late_rate,
    ((200 * sum(l.l_shipdate - o.o_orderdate) + count(*)) // (2 * count(*)) * 0.01)::DECIMAL(38, 2)
        AS avg_ship_lag_days,
    ((200 * sum(l.l_commitdate - o.o_orderdate) + count(*)) // (2 * count(*)) * 0.01)::DECIMAL(38, 2)
        AS avg_commit_lag_days,
    count(*) FILTER (WHERE l.l_returnflag <> 'N') AS returned_or_accepted_lines
FROM raw.lineitem AS l
JOIN raw.orders AS o ON o.o_orderkey = l.l_orderkey
WHERE l.l_shipdate >= DATE '1994-01-01'
GROUP BY 1
