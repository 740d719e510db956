WITH per_supplier AS (
    SELECT
        r.r_name AS region,
        s.s_suppkey AS supplier_key,
        s.s_name AS supplier_name,
        count(l.l_orderkey) AS lines_shipped,
        coalesce(sum(l.l_extendedprice * (1 - l.l_discount)), 0) AS net_revenue,
        count(*) FILTER (WHERE l.l_receiptdate <= l.l_commitdate) AS on_time_lines
    FROM raw.supplier AS s
    JOIN raw.nation AS n ON n.n_nationkey = s.s_nationkey
    JOIN raw.region AS r ON r.r_regionkey = n.n_regionkey
    LEFT JOIN raw.lineitem AS l ON l.l_suppkey = s.s_suppkey
    GROUP BY r.r_name, s.s_suppkey, s.s_name
),
ranked AS (
    SELECT
        *,
        CASE WHEN lines_shipped = 0 THEN 0 ELSE on_time_lines / lines_shipped::DOUBLE END
            AS on_time_rate,
        rank() OVER (PARTITION BY region ORDER BY net_revenue DESC) AS revenue_rank,
        row_number() OVER (PARTITION BY region ORDER BY net_revenue DESC, supplier_key) AS rn
    FROM per_supplier
)
SELECT
    region, supplier_key, supplier_name, lines_shipped, net_revenue, on_time_lines,
    on_time_rate, revenue_rank
FROM ranked
WHERE rn <= 3
