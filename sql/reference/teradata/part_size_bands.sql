-- Teradata: INTEGER / INTEGER truncates, MOD is the integer remainder (operands non-negative).
SELECT
    (p.p_size - 1) // 10 + 1 AS size_band,
    split_part(p.p_container, ' ', 1) AS container_family,
    count(DISTINCT p.p_partkey) AS part_count,
    sum(ps.ps_availqty) // 1000 AS stock_thousands,
    sum(ps.ps_availqty) % 1000 AS stock_remainder,
    sum(ps.ps_availqty * ps.ps_supplycost) AS stock_cost,
    min(p.p_retailprice) AS min_retail_price,
    max(p.p_retailprice) AS max_retail_price
FROM raw.part AS p
JOIN raw.partsupp AS ps ON ps.ps_partkey = p.p_partkey
GROUP BY 1, 2
