-- Oracle's monthly_usage: TRUNC(d, 'MM') is the first of the month at midnight, a DATE;
-- NUMBER / NUMBER is a decimal division.
SELECT i.customer_id,
       date_trunc('month', i.read_day)::timestamp(0) AS usage_month,
       COUNT(*) AS intervals,
       SUM(i.kwh_used) AS kwh_used,
       SUM(CASE WHEN i.read_kind = 'estimated' THEN 1 ELSE 0 END) AS estimated_intervals,
       ROUND(SUM(CASE WHEN i.read_kind = 'estimated' THEN 1 ELSE 0 END)::numeric / COUNT(*), 4)
           AS estimated_share,
       MAX(i.read_at) AS last_read_at,
       MAX(i.hours_elapsed) AS longest_gap_hours
FROM utility.read_intervals i
GROUP BY i.customer_id, date_trunc('month', i.read_day)
