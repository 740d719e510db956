-- Contact sheet for customer service: one row per customer with its meters still in place.
SELECT
  c.customer_id,
  TRIM(c.account_name) AS account_name,
  LOWER(IFNULL(NULLIF(TRIM(c.email), ''), 'unknown')) AS contact_email,
  COALESCE(UPPER(c.region), 'UNASSIGNED') AS region,
  COUNT(m.meter_id) AS live_meters,
  STRING_AGG(DISTINCT UPPER(m.meter_kind), '/' ORDER BY UPPER(m.meter_kind)) AS meter_kinds,
  DATE_DIFF(DATE '2024-07-01', c.opened_on, DAY) AS days_as_customer,
  EXTRACT(YEAR FROM c.opened_on) AS cohort_year
FROM utility.customers AS c
LEFT JOIN utility.meters AS m
  ON m.customer_id = c.customer_id AND m.removed_on IS NULL
GROUP BY c.customer_id, account_name, contact_email, region, c.opened_on
