-- Redshift: DATE - DATE is an integer number of days; integer / truncates toward zero and %
-- takes the dividend's sign (-10 / 7 = -1, -10 % 7 = -3).
SELECT
    l.l_shipmode AS ship_mode,
    trunc((l.l_commitdate - l.l_shipdate) / 7)::BIGINT AS slack_weeks,
    count(*) AS line_count,
    count(*) FILTER (WHERE l.l_receiptdate > l.l_commitdate) AS late_lines,
    count(*) FILTER (WHERE l.l_receiptdate > l.l_commitdate)::DOUBLE / count(*) AS late_share,
    min((l.l_commitdate - l.l_shipdate)
        - 7 * trunc((l.l_commitdate - l.l_shipdate) / 7)::BIGINT) AS min_extra_days,
    CASE WHEN count(*) FILTER (WHERE l.l_returnflag <> 'N') > 0 THEN 'has returns'
        ELSE 'no returns' END AS return_status
FROM raw.lineitem AS l
WHERE l.l_shipdate >= DATE '1995-01-01'
GROUP BY 1, 2
