-- Tariff calendar for finance: each version of a tariff, the last day it applied, and how
-- its unit rate moved at the next version.
SELECT t.tariff_code,
       t.tariff_name,
       t.valid_from,
       NVL(DATEADD(day, -1, t.valid_to), '2099-12-31'::date) AS valid_through,
       t.unit_rate,
       LEAD(t.unit_rate) OVER (PARTITION BY t.tariff_code ORDER BY t.valid_from) AS next_unit_rate,
       DATEDIFF(month, t.valid_from, NVL(t.valid_to, '2025-01-01'::date)) AS months_in_force,
       t.standing_charge * 365 AS yearly_standing_charge
FROM utility.tariffs t
