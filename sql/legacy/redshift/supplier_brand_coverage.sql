-- Brands and part counts each supplier carries, with the list of brands as one string.
-- Used by category managers to find single-source brands.
select
    s.s_suppkey as supplier_key,
    s.s_name as supplier_name,
    count(distinct p.p_brand) as brand_count,
    count(*) as parts_supplied,
    listagg(distinct p.p_brand, '|') within group (order by p.p_brand) as brands,
    sum(ps.ps_availqty) / count(*) as avg_units_per_part,
    min(nvl(p.p_size, 0)) as smallest_size
from sales.supplier s
join sales.partsupp ps on ps.ps_suppkey = s.s_suppkey
join sales.part p on p.p_partkey = ps.ps_partkey
where p.p_mfgr in ('Manufacturer#1', 'Manufacturer#2')
group by s.s_suppkey, s.s_name;
