WITH per_supplier AS (
    SELECT
        n.n_name AS nation,
        s.s_suppkey AS supplier_key,
        s.s_name AS supplier_name,
        count(*) AS lines_shipped,
        count(*) FILTER (WHERE l.l_receiptdate > l.l_commitdate) AS late_lines,
        max(l.l_receiptdate - l.l_commitdate) AS worst_delay_days
    FROM raw.supplier AS s
    JOIN raw.nation AS n ON n.n_nationkey = s.s_nationkey
    JOIN raw.lineitem AS l ON l.l_suppkey = s.s_suppkey
    WHERE l.l_shipdate >= DATE '1995-01-01'
    GROUP BY n.n_name, s.s_suppkey, s.s_name
)
SELECT
    nation, supplier_key, supplier_name, lines_shipped, late_lines,
    late_lines::DOUBLE / lines_shipped AS late_share,
    worst_delay_days
FROM per_supplier
QUALIFY row_number() OVER (PARTITION BY nation ORDER BY late_lines DESC, supplier_key) <= 2
