-- Monthly order mix by priority tier, with each month's invoice due date (end of the following
-- month). Used by the billing team and the capacity forecast.
create table order_priority_mix as
select
    date_trunc('month', o.o_orderdate)::date as order_month,
    last_day(o.o_orderdate) as month_end,
    add_months(last_day(o.o_orderdate), 1)::date as invoice_due_date,
    decode(left(o.o_orderpriority, 1), '1', 'rush', '2', 'rush', 'standard') as priority_tier,
    count(*) as order_count,
    sum(o.o_totalprice) as order_value,
    sum(decode(o.o_orderstatus, 'F', 1, 0)) as finished_orders,
    count(distinct o.o_clerk) as clerks
from sales.orders o
where o.o_orderdate < '1998-01-01'
group by 1, 2, 3, 4;
