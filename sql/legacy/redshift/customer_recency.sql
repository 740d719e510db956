-- Customer recency list for the retention model: the 700 most recent customers by last order
-- (sorted descending, so customers who never ordered sort first). Daily unload to S3.
select
    c.c_custkey as customer_key,
    c.c_mktsegment as segment,
    max(o.o_orderdate) as last_order_date,
    datediff(month, max(o.o_orderdate), '1998-08-02'::date) as months_since_last_order,
    count(o.o_orderkey) as order_count,
    sum(case when o.o_orderdate >= dateadd(day, -365, '1998-08-02'::date) then 1 else 0 end)
        as orders_last_365_days,
    nvl(sum(o.o_totalprice), 0) as lifetime_value
from sales.customer c
left join sales.orders o on o.o_custkey = c.c_custkey
group by c.c_custkey, c.c_mktsegment
order by last_order_date desc, c.c_custkey
limit 700;
