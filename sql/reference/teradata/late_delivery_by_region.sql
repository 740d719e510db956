-- Teradata: INTEGER / INTEGER truncates; DATE - DATE is an INTEGER number of days.
SELECT
    r.r_name AS customer_region,
    l.l_shipmode AS ship_mode,
    count(*) AS line_count,
    count(*) FILTER (WHERE l.l_receiptdate > l.l_commitdate) AS late_lines,
    (100 * count(*) FILTER (WHERE l.l_receiptdate > l.l_commitdate)) // count(*) AS late_pct,
    count(*) FILTER (WHERE l.l_receiptdate > l.l_commitdate)::DOUBLE / count(*) AS late_rate,
    sum(l.l_receiptdate - l.l_shipdate) // count(*) AS mean_transit_days,
    coalesce(sum(l.l_quantity) FILTER (WHERE l.l_shipinstruct = 'DELIVER IN PERSON'), 0)
        AS in_person_units
FROM raw.lineitem AS l
JOIN raw.orders AS o ON o.o_orderkey = l.l_orderkey
JOIN raw.customer AS c ON c.c_custkey = o.o_custkey
JOIN raw.nation AS n ON n.n_nationkey = c.c_nationkey
JOIN raw.region AS r ON r.r_regionkey = n.n_regionkey
WHERE l.l_shipdate BETWEEN DATE '1996-01-01' AND DATE '1997-12-31'
GROUP BY 1, 2
