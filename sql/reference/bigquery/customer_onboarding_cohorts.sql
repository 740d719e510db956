-- BigQuery sorts NULL first in ascending order; / is FLOAT64 division (FLOOR then rounds down)
-- and MOD takes the dividend's sign (the earliest first orders precede 1995-06-17, so the day
-- counts are negative: FLOOR(-1256 / 7) = -180, MOD(-1256, 7) = -3).
SELECT
    c.c_custkey AS customer_key,
    c.c_mktsegment AS segment,
    min(o.o_orderdate) AS first_order_date,
    floor((min(o.o_orderdate) - DATE '1995-06-17') / 7)::BIGINT AS weeks_from_price_change,
    (min(o.o_orderdate) - DATE '1995-06-17')
        - 7 * trunc((min(o.o_orderdate) - DATE '1995-06-17') / 7)::BIGINT AS extra_days,
    (min(o.o_orderdate) - INTERVAL 30 DAY)::DATE AS lead_created_date,
    count(DISTINCT o.o_orderkey) AS order_count
FROM raw.customer AS c
LEFT JOIN raw.orders AS o ON o.o_custkey = c.c_custkey
GROUP BY c.c_custkey, c.c_mktsegment
ORDER BY first_order_date ASC NULLS FIRST, customer_key
LIMIT 600
