-- BigQuery's weekly_read_coverage: WEEK(MONDAY) weeks are PostgreSQL's ISO weeks; AVG of an
-- INT64 is a FLOAT64; the last twelve weeks per meter kind.
WITH reads AS (
    SELECT m.meter_id,
           UPPER(m.meter_kind) AS meter_kind,
           date_trunc('week', r.read_at)::date AS week_start,
           EXTRACT(HOUR FROM r.read_at)::bigint AS read_hour,
           r.register_kwh
    FROM utility.readings r
    JOIN utility.meters m USING (meter_id)
    WHERE r.read_at >= TIMESTAMP '2024-01-01 00:00:00'
), weekly AS (
    SELECT meter_kind,
           week_start,
           COUNT(DISTINCT meter_id) AS meters_read,
           COUNT(*) FILTER (WHERE register_kwh IS NULL) AS failed_reads,
           AVG(read_hour)::double precision AS mean_read_hour,
           MAX(read_hour) AS latest_read_hour,
           ROW_NUMBER() OVER (PARTITION BY meter_kind ORDER BY week_start DESC) AS week_rank
    FROM reads
    GROUP BY meter_kind, week_start
)
SELECT meter_kind, week_start, meters_read, failed_reads, mean_read_hour, latest_read_hour
FROM weekly
WHERE week_rank <= 12
