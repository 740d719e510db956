WITH ranked_parts AS (
    SELECT
        ps.ps_suppkey,
        ps.ps_partkey,
        ps.ps_supplycost,
        p.p_brand,
        row_number() OVER (
            PARTITION BY ps.ps_suppkey ORDER BY ps.ps_supplycost DESC, ps.ps_partkey
        ) AS rn
    FROM raw.partsupp AS ps
    JOIN raw.part AS p ON p.p_partkey = ps.ps_partkey
),
stock AS (
    SELECT ps_suppkey, count(*) AS parts_stocked, sum(ps_availqty) AS units_available
    FROM raw.partsupp
    GROUP BY ps_suppkey
)
SELECT
    s.s_suppkey AS supplier_key,
    s.s_name AS supplier_name,
    n.n_name AS nation,
    tp.ps_partkey AS top_cost_part_key,
    tp.ps_supplycost AS top_supply_cost,
    tp.p_brand AS top_cost_brand,
    st.parts_stocked,
    st.units_available
FROM raw.supplier AS s
JOIN raw.nation AS n ON n.n_nationkey = s.s_nationkey
JOIN ranked_parts AS tp ON tp.ps_suppkey = s.s_suppkey AND tp.rn = 1
JOIN stock AS st ON st.ps_suppkey = s.s_suppkey
WHERE s.s_acctbal > 0
