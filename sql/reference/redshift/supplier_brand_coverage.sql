-- Redshift: SUM(INTEGER) is a BIGINT, so dividing by COUNT(*) truncates.
SELECT
    s.s_suppkey AS supplier_key,
    s.s_name AS supplier_name,
    count(DISTINCT p.p_brand) AS brand_count,
    count(*) AS parts_supplied,
    string_agg(DISTINCT p.p_brand, '|' ORDER BY p.p_brand) AS brands,
    sum(ps.ps_availqty) // count(*) AS avg_units_per_part,
    min(p.p_size) AS smallest_size
FROM raw.supplier AS s
JOIN raw.partsupp AS ps ON ps.ps_suppkey = s.s_suppkey
JOIN raw.part AS p ON p.p_partkey = ps.ps_partkey
WHERE p.p_mfgr IN ('Manufacturer#1', 'Manufacturer#2')
GROUP BY s.s_suppkey, s.s_name
