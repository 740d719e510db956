-- Redshift sorts NULL as the largest value: DESC puts never-ordered customers (NULL last order)
-- first. DATEDIFF(month, a, b) counts month boundaries crossed.
SELECT
    c.c_custkey AS customer_key,
    c.c_mktsegment AS segment,
    max(o.o_orderdate) AS last_order_date,
    (1998 - year(max(o.o_orderdate))) * 12 + (8 - month(max(o.o_orderdate)))
        AS months_since_last_order,
    count(o.o_orderkey) AS order_count,
    count(*) FILTER (WHERE o.o_orderdate >= DATE '1997-08-02') AS orders_last_365_days,
    coalesce(sum(o.o_totalprice), 0) AS lifetime_value
FROM raw.customer AS c
LEFT JOIN raw.orders AS o ON o.o_custkey = c.c_custkey
GROUP BY c.c_custkey, c.c_mktsegment
ORDER BY last_order_date DESC NULLS FIRST, customer_key
LIMIT 700
