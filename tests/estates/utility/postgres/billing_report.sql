-- Oracle's billing_report: ADD_MONTHS(m, 1) - m is the number of days in the month; LAST_DAY
-- keeps the DATE's time of day (midnight here) and its type; NULL || NULL is NULL in both.
WITH priced AS (
    SELECT COALESCE(UPPER(SUBSTR(c.region, 1, 1)) || LOWER(SUBSTR(c.region, 2)), 'Unassigned')
               AS region,
           u.usage_month,
           u.customer_id,
           UPPER(c.tariff_code) AS tariff_code,
           u.kwh_used,
           ROUND(u.kwh_used * t.unit_rate, 2) AS energy_charge,
           ROUND(t.standing_charge
                 * ((u.usage_month + interval '1 month')::date - u.usage_month::date), 2)
               AS standing_charge
    FROM utility.monthly_usage u
    JOIN utility.customers c ON c.customer_id = u.customer_id
    LEFT JOIN utility.tariffs t
           ON t.tariff_code = UPPER(c.tariff_code)
          AND u.usage_month >= t.valid_from
          AND (t.valid_to IS NULL OR u.usage_month < t.valid_to)
)
SELECT region,
       usage_month,
       (usage_month + interval '1 month' - interval '1 day')::timestamp(0) AS period_end,
       COUNT(*) AS customers,
       SUM(kwh_used) AS kwh_used,
       SUM(energy_charge + standing_charge) AS amount_billed,
       COUNT(*) - COUNT(energy_charge) AS unpriced_customers,
       string_agg(DISTINCT tariff_code, ',' ORDER BY tariff_code) AS tariffs
FROM priced
GROUP BY region, usage_month
