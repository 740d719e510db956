-- Line items in transit on the warehouse's as-of date (1998-08-02): shipped, not yet received.
-- The features are the delay model's, computed exactly as for the training set; the batch
-- scoring asset scores these with the champion model. The day counts are cast to BIGINT, the
-- delay features' type: EXTRACT alone is BIGINT on DuckDB but INT on Spark.
SELECT
  "l"."l_orderkey" AS "order_key",
  "l"."l_linenumber" AS "line_number",
  "l"."l_shipmode" AS "ship_mode",
  "l"."l_shipinstruct" AS "ship_instruct",
  "o"."o_orderpriority" AS "order_priority",
  "c"."c_mktsegment" AS "customer_segment",
  "cr"."r_name" AS "customer_region",
  "sr"."r_name" AS "supplier_region",
  CASE WHEN "cn"."n_regionkey" = "sn"."n_regionkey" THEN 1 ELSE 0 END AS "same_region",
  CAST(ROUND("l"."l_quantity", 0) AS INTEGER) AS "quantity",
  "l"."l_discount" AS "discount",
  CAST(EXTRACT(DAY FROM (
    CAST(CAST("l"."l_shipdate" AS DATE) AS TIMESTAMP) - CAST(CAST("o"."o_orderdate" AS DATE) AS TIMESTAMP)
  )) AS BIGINT) AS "ship_lag_days",
  CAST(EXTRACT(DAY FROM (
    CAST(CAST("l"."l_commitdate" AS DATE) AS TIMESTAMP) - CAST(CAST("o"."o_orderdate" AS DATE) AS TIMESTAMP)
  )) AS BIGINT) AS "commit_lag_days",
  CAST(EXTRACT(DAY FROM (
    CAST(CAST("l"."l_commitdate" AS DATE) AS TIMESTAMP) - CAST(CAST("l"."l_shipdate" AS DATE) AS TIMESTAMP)
  )) AS BIGINT) AS "slack_days",
  CAST(MOD(
    MOD(
      EXTRACT(DAY FROM (
        CAST(CAST("l"."l_shipdate" AS DATE) AS TIMESTAMP) - CAST('1900-01-01 00:00:00' AS TIMESTAMP)
      )),
      7
    ) + 7,
    7
  ) + 1 AS BIGINT) AS "ship_iso_weekday"
FROM "raw"."lineitem" AS "l"
JOIN "raw"."orders" AS "o"
  ON "o"."o_orderkey" = "l"."l_orderkey"
JOIN "raw"."customer" AS "c"
  ON "c"."c_custkey" = "o"."o_custkey"
JOIN "raw"."nation" AS "cn"
  ON "cn"."n_nationkey" = "c"."c_nationkey"
JOIN "raw"."region" AS "cr"
  ON "cr"."r_regionkey" = "cn"."n_regionkey"
JOIN "raw"."supplier" AS "s"
  ON "s"."s_suppkey" = "l"."l_suppkey"
JOIN "raw"."nation" AS "sn"
  ON "sn"."n_nationkey" = "s"."s_nationkey"
JOIN "raw"."region" AS "sr"
  ON "sr"."r_regionkey" = "sn"."n_regionkey"
WHERE
  "l"."l_shipdate" <= CAST('1998-08-02' AS DATE)
  AND "l"."l_receiptdate" > CAST('1998-08-02' AS DATE)
