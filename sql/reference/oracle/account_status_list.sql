-- Oracle sorts NULL as the largest value, so DESC puts customers without orders first; DECODE
-- treats two NULLs as equal (and a NULL status matches no search value, giving the default 0).
SELECT *
FROM (
    SELECT
        c.c_custkey AS customer_key,
        c.c_name AS customer_name,
        max(o.o_orderdate) AS last_order_date,
        date_trunc('year', min(o.o_orderdate))::DATE AS first_order_year,
        CASE WHEN max(o.o_orderkey) IS NULL THEN 'PROSPECT' ELSE 'CUSTOMER' END AS account_type,
        sum(CASE WHEN o.o_orderstatus = 'O' THEN 1 ELSE 0 END) AS open_orders
    FROM raw.customer AS c
    LEFT JOIN raw.orders AS o ON o.o_custkey = c.c_custkey
    GROUP BY c.c_custkey, c.c_name
    ORDER BY last_order_date DESC NULLS FIRST, customer_key
    LIMIT 600
)
