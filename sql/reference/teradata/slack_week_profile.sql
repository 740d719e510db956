-- Teradata INTEGER division truncates toward zero (-10 / 7 = -1) and MOD takes the sign of the
-- dividend (-10 MOD 7 = -3); floor division would give -2 and 4.
SELECT
    trunc((l.l_commitdate - l.l_shipdate) / 7)::BIGINT AS slack_weeks,
    (l.l_commitdate - l.l_shipdate) - 7 * trunc((l.l_commitdate - l.l_shipdate) / 7)::BIGINT
        AS slack_extra_days,
    count(*) AS line_count,
    count(*) FILTER (WHERE l.l_receiptdate > l.l_commitdate) AS late_lines,
    count(*) FILTER (WHERE l.l_receiptdate > l.l_commitdate)::DOUBLE / count(*) AS late_rate,
    min(trim(l.l_shipmode)) AS first_ship_mode
FROM raw.lineitem AS l
GROUP BY 1, 2
