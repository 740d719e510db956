-- Redshift's estimated_reads: DATEDIFF(day, a, b) counts the day boundaries from a to b.
SELECT m.meter_id,
       m.customer_id,
       UPPER(m.meter_kind) AS meter_kind,
       COUNT(*) AS reads,
       SUM(CASE WHEN UPPER(COALESCE(r.read_type, 'E')) = 'A' THEN 0 ELSE 1 END) AS estimated_reads,
       MAX(CASE WHEN UPPER(r.read_type) = 'A' THEN r.read_at END) AS last_actual_read,
       DATE '2024-07-01' - MAX(CASE WHEN UPPER(r.read_type) = 'A' THEN r.read_at END)::date
           AS days_since_actual,
       string_agg(DISTINCT COALESCE(UPPER(r.read_type), '?'), ''
                  ORDER BY COALESCE(UPPER(r.read_type), '?')) AS read_types
FROM utility.readings r
JOIN utility.meters m ON m.meter_id = r.meter_id
WHERE m.removed_on IS NULL
GROUP BY m.meter_id, m.customer_id, UPPER(m.meter_kind)
HAVING SUM(CASE WHEN UPPER(COALESCE(r.read_type, 'E')) = 'A' THEN 0 ELSE 1 END) > 0
