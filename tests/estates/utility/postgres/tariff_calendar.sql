-- Redshift's tariff_calendar: DATEADD on a DATE gives a TIMESTAMP; DATEDIFF(month, a, b)
-- counts month boundaries, a BIGINT.
SELECT t.tariff_code,
       t.tariff_name,
       t.valid_from,
       COALESCE((t.valid_to - 1)::timestamp, TIMESTAMP '2099-12-31 00:00:00') AS valid_through,
       t.unit_rate,
       LEAD(t.unit_rate) OVER (PARTITION BY t.tariff_code ORDER BY t.valid_from) AS next_unit_rate,
       ((EXTRACT(YEAR FROM COALESCE(t.valid_to, DATE '2025-01-01'))
         - EXTRACT(YEAR FROM t.valid_from)) * 12
        + EXTRACT(MONTH FROM COALESCE(t.valid_to, DATE '2025-01-01'))
        - EXTRACT(MONTH FROM t.valid_from))::bigint AS months_in_force,
       t.standing_charge * 365 AS yearly_standing_charge
FROM utility.tariffs t
