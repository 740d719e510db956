-- AMI detail: the energy a meter recorded between two consecutive register reads.
-- A failed read (no register value) is skipped; a meter's first read opens no interval.
WITH reads AS (
    SELECT r.reading_id,
           r.meter_id,
           r.read_at,
           r.register_kwh,
           UPPER(NVL(r.read_type, 'E')) AS read_type,
           LAG(r.register_kwh) OVER (PARTITION BY r.meter_id
                                     ORDER BY r.read_at, r.reading_id) AS previous_kwh,
           LAG(r.read_at) OVER (PARTITION BY r.meter_id
                                ORDER BY r.read_at, r.reading_id) AS previous_read_at
    FROM util.readings r
    WHERE r.register_kwh IS NOT NULL
)
SELECT reads.reading_id,
       reads.meter_id,
       m.customer_id,
       TRUNC(reads.read_at) AS read_day,
       reads.read_at,
       reads.register_kwh - reads.previous_kwh AS kwh_used,
       -- Whole hours between the reads, through Oracle's interval (a DATE minus a DATE is a
       -- fraction of a day, which plumbline translates only where it is whole).
       EXTRACT(DAY FROM (CAST(reads.read_at AS TIMESTAMP) - CAST(reads.previous_read_at AS TIMESTAMP))) * 24
         + EXTRACT(HOUR FROM (CAST(reads.read_at AS TIMESTAMP) - CAST(reads.previous_read_at AS TIMESTAMP)))
         AS hours_elapsed,
       CASE reads.read_type WHEN 'A' THEN 'actual' ELSE 'estimated' END AS read_kind
FROM reads
JOIN util.meters m ON m.meter_id = reads.meter_id
WHERE reads.previous_kwh IS NOT NULL
