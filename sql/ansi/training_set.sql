-- The delivery-delay model's training set: what is known when a line item ships, the label
-- (received after its commit date) and a deterministic train/validation/test split of
-- 80/10/10 by a multiplicative hash of the line key (the same on every engine, every run).
-- Written in portable ANSI SQL over the warehouse's delay features.
SELECT
  "f"."order_key" AS "order_key",
  "f"."line_number" AS "line_number",
  "f"."ship_mode" AS "ship_mode",
  "f"."ship_instruct" AS "ship_instruct",
  "f"."order_priority" AS "order_priority",
  "f"."customer_segment" AS "customer_segment",
  "f"."customer_region" AS "customer_region",
  "f"."supplier_region" AS "supplier_region",
  "f"."same_region" AS "same_region",
  "f"."quantity" AS "quantity",
  "f"."discount" AS "discount",
  "f"."ship_lag_days" AS "ship_lag_days",
  "f"."commit_lag_days" AS "commit_lag_days",
  "f"."slack_days" AS "slack_days",
  "f"."ship_iso_weekday" AS "ship_iso_weekday",
  "f"."is_late" AS "is_late",
  CASE
    WHEN MOD("f"."order_key" * 2654435761 + "f"."line_number" * 40503, 100) < 80 THEN 'train'
    WHEN MOD("f"."order_key" * 2654435761 + "f"."line_number" * 40503, 100) < 90
      THEN 'validation'
    ELSE 'test'
  END AS "split"
FROM "warehouse"."delay_features" AS "f"
