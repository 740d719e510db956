-- T-SQL sorts NULL lowest: ascending order puts never-ordered customers (NULL dates) first.
SELECT
    c.c_custkey AS customer_key,
    c.c_name AS customer_name,
    lo.last_order_date,
    coalesce(lo.order_count, 0) AS order_count,
    (1998 - year(lo.last_order_date)) * 12 + (8 - month(lo.last_order_date))
        AS months_since_last_order,
    last_day(lo.last_order_date) AS last_order_month_end,
    CASE
        WHEN c.c_acctbal > 5000 THEN 'HIGH'
        WHEN c.c_acctbal > 0 THEN 'MEDIUM'
        ELSE 'LOW'
    END AS balance_band
FROM raw.customer AS c
LEFT JOIN (
    SELECT o_custkey, max(o_orderdate) AS last_order_date, count(*) AS order_count
    FROM raw.orders
    GROUP BY o_custkey
) AS lo ON lo.o_custkey = c.c_custkey
ORDER BY lo.last_order_date ASC NULLS FIRST, c.c_custkey ASC
LIMIT 600
