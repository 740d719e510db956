-- Monthly billing by region: energy at the tariff in force on the first of the month, plus
-- the standing charge for each day of the month. Customers without a tariff are counted
-- as unpriced (billing follows them up by hand).
WITH priced AS (
    SELECT NVL(UPPER(SUBSTR(c.region, 1, 1)) || LOWER(SUBSTR(c.region, 2)), 'Unassigned')
               AS region,
           u.usage_month,
           u.customer_id,
           UPPER(c.tariff_code) AS tariff_code,
           u.kwh_used,
           ROUND(u.kwh_used * t.unit_rate, 2) AS energy_charge,
           ROUND(t.standing_charge * (ADD_MONTHS(u.usage_month, 1) - u.usage_month), 2)
               AS standing_charge
    FROM monthly_usage u
    JOIN util.customers c ON c.customer_id = u.customer_id
    LEFT JOIN util.tariffs t
           ON t.tariff_code = UPPER(c.tariff_code)
          AND u.usage_month >= t.valid_from
          AND (t.valid_to IS NULL OR u.usage_month < t.valid_to)
)
SELECT region,
       usage_month,
       LAST_DAY(usage_month) AS period_end,
       COUNT(*) AS customers,
       SUM(kwh_used) AS kwh_used,
       SUM(energy_charge + standing_charge) AS amount_billed,
       COUNT(*) - COUNT(energy_charge) AS unpriced_customers,
       LISTAGG(DISTINCT tariff_code, ',') WITHIN GROUP (ORDER BY tariff_code) AS tariffs
FROM priced
GROUP BY region, usage_month
