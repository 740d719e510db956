-- Weekly read coverage per meter kind over the last twelve weeks: how many meters were read,
-- how many reads failed, and at what hour of the day the head-end collected them.
WITH reads AS (
  SELECT
    m.meter_id,
    UPPER(m.meter_kind) AS meter_kind,
    DATE_TRUNC(DATE(r.read_at), WEEK(MONDAY)) AS week_start,
    EXTRACT(HOUR FROM r.read_at) AS read_hour,
    r.register_kwh
  FROM utility.readings AS r
  JOIN utility.meters AS m USING (meter_id)
  WHERE r.read_at >= DATETIME '2024-01-01 00:00:00'
)
SELECT
  meter_kind,
  week_start,
  COUNT(DISTINCT meter_id) AS meters_read,
  COUNTIF(register_kwh IS NULL) AS failed_reads,
  AVG(read_hour) AS mean_read_hour,
  MAX(read_hour) AS latest_read_hour
FROM reads
GROUP BY meter_kind, week_start
QUALIFY ROW_NUMBER() OVER (PARTITION BY meter_kind ORDER BY week_start DESC) <= 12
