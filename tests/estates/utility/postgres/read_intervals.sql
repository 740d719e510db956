-- Oracle's read_intervals in PostgreSQL. An Oracle DATE is a timestamp to the second; the
-- whole hours between two are the interval's days * 24 plus its hours.
WITH reads AS (
    SELECT r.reading_id, r.meter_id, r.read_at, r.register_kwh,
           UPPER(COALESCE(r.read_type, 'E')) AS read_type,
           LAG(r.register_kwh) OVER w AS previous_kwh,
           LAG(r.read_at) OVER w AS previous_read_at
    FROM utility.readings r
    WHERE r.register_kwh IS NOT NULL
    WINDOW w AS (PARTITION BY r.meter_id ORDER BY r.read_at, r.reading_id)
)
SELECT reads.reading_id,
       reads.meter_id,
       m.customer_id,
       date_trunc('day', reads.read_at)::timestamp(0) AS read_day,
       reads.read_at,
       reads.register_kwh - reads.previous_kwh AS kwh_used,
       EXTRACT(DAY FROM reads.read_at - reads.previous_read_at) * 24
         + EXTRACT(HOUR FROM reads.read_at - reads.previous_read_at) AS hours_elapsed,
       CASE reads.read_type WHEN 'A' THEN 'actual' ELSE 'estimated' END AS read_kind
FROM reads
JOIN utility.meters m ON m.meter_id = reads.meter_id
WHERE reads.previous_kwh IS NOT NULL
