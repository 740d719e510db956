-- SAFE_DIVIDE returns NULL when the divisor is 0 (months with no finished lines).
SELECT
    date_trunc('month', l.l_shipdate)::DATE AS ship_month,
    last_day(l.l_shipdate) AS month_end,
    (date_trunc('month', l.l_shipdate) + INTERVAL 1 MONTH)::DATE AS next_month,
    (1998 - year(l.l_shipdate)) * 12 + (12 - month(l.l_shipdate)) AS months_ago,
    sum(l.l_extendedprice * (1 - l.l_discount)) AS net_revenue,
    coalesce(
        sum(l.l_extendedprice * (1 - l.l_discount)) FILTER (WHERE l.l_returnflag = 'R'), 0
    ) AS returned_revenue,
    count(*) FILTER (WHERE l.l_returnflag = 'R') AS returned_lines,
    count(*) FILTER (WHERE l.l_returnflag = 'R')
        / nullif(count(*) FILTER (WHERE l.l_linestatus = 'F'), 0)::DOUBLE AS return_ratio
FROM raw.lineitem AS l
GROUP BY 1, 2, 3, 4
