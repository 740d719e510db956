-- Commit slack by ship mode in whole weeks (negative when a line ships after its commit date),
-- with the late share per bucket. Feature table for the delay model; nightly in the ETL DAG.
create table commit_slack_by_mode as
select
    l.l_shipmode as ship_mode,
    (l.l_commitdate - l.l_shipdate) / 7 as slack_weeks,
    count(*) as line_count,
    sum(case when l.l_receiptdate > l.l_commitdate then 1 else 0 end) as late_lines,
    sum(case when l.l_receiptdate > l.l_commitdate then 1 else 0 end)::float8 / count(*) as late_share,
    min((l.l_commitdate - l.l_shipdate) % 7) as min_extra_days,
    nvl2(max(nullif(l.l_returnflag, 'N')), 'has returns', 'no returns') as return_status
from sales.lineitem l
where l.l_shipdate >= '1995-01-01'::date
group by 1, 2;
