-- Carrier scorecard by ship mode and ship year: whole-percent late rate, exact late ratio,
-- longest ship lag and mean transit days. Used by transport procurement ("Carrier Scorecard").
create table shipmode_late_pct as
select
    l.l_shipmode as ship_mode,
    date_part(year, l.l_shipdate) as ship_year,
    count(*) as line_count,
    sum(decode(sign(datediff(day, l.l_commitdate, l.l_receiptdate)), 1, 1, 0)) as late_lines,
    100 * sum(case when l.l_receiptdate > l.l_commitdate then 1 else 0 end) / count(*) as late_pct,
    sum(case when l.l_receiptdate > l.l_commitdate then 1 else 0 end)::float / count(*) as late_ratio,
    max(datediff(day, o.o_orderdate, l.l_shipdate)) as max_ship_lag_days,
    avg(datediff(day, l.l_shipdate, l.l_receiptdate)::float) as avg_transit_days
from sales.lineitem l
join sales.orders o on o.o_orderkey = l.l_orderkey
group by 1, 2;
