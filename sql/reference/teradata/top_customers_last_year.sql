-- Teradata: INTEGER / INTEGER truncates toward zero; NULLIFZERO makes single-order customers NULL.
SELECT
    c.c_custkey AS customer_key,
    c.c_name AS customer_name,
    c.c_mktsegment AS segment,
    count(*) AS order_count,
    sum(o.o_totalprice) AS order_value,
    trunc((max(o.o_orderdate) - min(o.o_orderdate)) / nullif(count(*) - 1, 0))::BIGINT
        AS days_between_orders,
    month(max(o.o_orderdate)) AS last_order_month,
    substr(c.c_phone, 1, 2) AS phone_country_code
FROM raw.customer AS c
JOIN raw.orders AS o ON o.o_custkey = c.c_custkey
WHERE o.o_orderdate > DATE '1997-08-02'
GROUP BY c.c_custkey, c.c_name, c.c_mktsegment, c.c_phone
ORDER BY order_value DESC, customer_key
LIMIT 100
