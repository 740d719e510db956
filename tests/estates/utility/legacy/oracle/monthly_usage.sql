-- Monthly consumption per customer, summed from the AMI detail (UTIL.READ_INTERVALS).
SELECT i.customer_id,
       TRUNC(i.read_day, 'MM') AS usage_month,
       COUNT(*) AS intervals,
       SUM(i.kwh_used) AS kwh_used,
       SUM(CASE WHEN i.read_kind = 'estimated' THEN 1 ELSE 0 END) AS estimated_intervals,
       ROUND(SUM(CASE WHEN i.read_kind = 'estimated' THEN 1 ELSE 0 END) / COUNT(*), 4)
           AS estimated_share,
       MAX(i.read_at) AS last_read_at,
       MAX(i.hours_elapsed) AS longest_gap_hours
FROM util.read_intervals i
GROUP BY i.customer_id, TRUNC(i.read_day, 'MM')
