-- Snowflake sorts NULL as the largest value: DESC puts never-ordered customers first.
-- DATEADD(MONTH, ...) clamps to the target month's last day but, unlike ADD_MONTHS, does not
-- move a month-end date to the target month's end (2024-02-29 + 1 month = 2024-03-29).
SELECT
    c.c_custkey AS customer_key,
    c.c_mktsegment AS segment,
    max(o.o_orderdate) AS last_order_date,
    (max(o.o_orderdate) + INTERVAL 1 MONTH)::DATE AS follow_up_date,
    CASE WHEN max(o.o_orderkey) IS NULL THEN 'PROSPECT' ELSE 'CUSTOMER' END AS account_type,
    count(o.o_orderkey) AS order_count,
    left(c.c_phone, 2)::INTEGER AS phone_country_code
FROM raw.customer AS c
LEFT JOIN raw.orders AS o ON o.o_custkey = c.c_custkey
GROUP BY c.c_custkey, c.c_mktsegment, c.c_phone
ORDER BY last_order_date DESC NULLS FIRST, customer_key
LIMIT 600
