-- On-time delivery by supplier region and ship mode. Written in portable ANSI SQL from the
-- start: no translation step, built directly on DuckDB or Spark.
SELECT
  "r"."r_name" AS "supplier_region",
  "l"."l_shipmode" AS "ship_mode",
  COUNT(*) AS "line_count",
  SUM(CASE WHEN "l"."l_receiptdate" > "l"."l_commitdate" THEN 1 ELSE 0 END) AS "late_lines",
  CAST(SUM(CASE WHEN "l"."l_receiptdate" > "l"."l_commitdate" THEN 1 ELSE 0 END) AS DOUBLE PRECISION)
    / COUNT(*) AS "late_rate"
FROM "raw"."lineitem" AS "l"
JOIN "raw"."supplier" AS "s"
  ON "s"."s_suppkey" = "l"."l_suppkey"
JOIN "raw"."nation" AS "n"
  ON "n"."n_nationkey" = "s"."s_nationkey"
JOIN "raw"."region" AS "r"
  ON "r"."r_regionkey" = "n"."n_regionkey"
GROUP BY
  "r"."r_name",
  "l"."l_shipmode"
