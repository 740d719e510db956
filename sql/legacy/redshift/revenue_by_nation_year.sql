-- Net revenue and discount given per supplier nation and order year, with the revenue share of
-- the nation's region. Used by the regional finance controllers.
create table revenue_by_nation_year as
select
    n.n_name as supplier_nation,
    r.r_name as region,
    extract(year from o.o_orderdate) as order_year,
    sum(l.l_extendedprice * (1 - l.l_discount))::decimal(18, 2) as net_revenue,
    sum(l.l_extendedprice * l.l_discount)::decimal(18, 2) as discount_given,
    sum(l.l_extendedprice * (1 - l.l_discount))::float
        / sum(sum(l.l_extendedprice * (1 - l.l_discount))::float)
            over (partition by r.r_name, extract(year from o.o_orderdate)) as region_share,
    count(distinct l.l_orderkey) as orders
from sales.lineitem l
join sales.orders o on o.o_orderkey = l.l_orderkey
join sales.supplier s on s.s_suppkey = l.l_suppkey
join sales.nation n on n.n_nationkey = s.s_nationkey
join sales.region r on r.r_regionkey = n.n_regionkey
group by n.n_name, r.r_name, extract(year from o.o_orderdate);
