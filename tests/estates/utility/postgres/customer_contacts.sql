-- BigQuery's customer_contacts: DATE_DIFF(a, b, DAY) is a - b in days; EXTRACT is an INT64.
SELECT c.customer_id,
       TRIM(c.account_name) AS account_name,
       LOWER(COALESCE(NULLIF(TRIM(c.email), ''), 'unknown')) AS contact_email,
       COALESCE(UPPER(c.region), 'UNASSIGNED') AS region,
       COUNT(m.meter_id) AS live_meters,
       string_agg(DISTINCT UPPER(m.meter_kind), '/' ORDER BY UPPER(m.meter_kind)) AS meter_kinds,
       DATE '2024-07-01' - c.opened_on AS days_as_customer,
       EXTRACT(YEAR FROM c.opened_on)::bigint AS cohort_year
FROM utility.customers c
LEFT JOIN utility.meters m ON m.customer_id = c.customer_id AND m.removed_on IS NULL
GROUP BY c.customer_id, c.account_name, c.email, c.region, c.opened_on
