-- Field-team worklist: meters in place whose reads were estimated at least once, with the
-- last actual read and how long ago it was (as of the end of the half-year).
SELECT m.meter_id,
       m.customer_id,
       UPPER(m.meter_kind) AS meter_kind,
       COUNT(*) AS reads,
       SUM(CASE WHEN UPPER(NVL(r.read_type, 'E')) = 'A' THEN 0 ELSE 1 END) AS estimated_reads,
       MAX(CASE WHEN UPPER(r.read_type) = 'A' THEN r.read_at END) AS last_actual_read,
       DATEDIFF(day, MAX(CASE WHEN UPPER(r.read_type) = 'A' THEN r.read_at END),
                '2024-07-01 00:00:00'::timestamp) AS days_since_actual,
       LISTAGG(DISTINCT NVL(UPPER(r.read_type), '?'), '')
           WITHIN GROUP (ORDER BY NVL(UPPER(r.read_type), '?')) AS read_types
FROM utility.readings r
JOIN utility.meters m ON m.meter_id = r.meter_id
WHERE m.removed_on IS NULL
GROUP BY m.meter_id, m.customer_id, UPPER(m.meter_kind)
HAVING SUM(CASE WHEN UPPER(NVL(r.read_type, 'E')) = 'A' THEN 0 ELSE 1 END) > 0
