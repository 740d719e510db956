-- DATEDIFF(MONTH, a, b) counts month boundaries crossed, not whole months elapsed.
SELECT
    c.c_custkey AS customer_key,
    c.c_name AS customer_name,
    c.c_mktsegment AS segment,
    n.n_name AS nation,
    CASE WHEN c.c_acctbal < 0 THEN 'IN_DEBT' ELSE 'OK' END AS credit_flag,
    count(o.o_orderkey) AS order_count,
    coalesce(sum(o.o_totalprice), 0) AS lifetime_value,
    min(o.o_orderdate) AS first_order_date,
    max(o.o_orderdate) AS last_order_date,
    (1998 - year(max(o.o_orderdate))) * 12 + (8 - month(max(o.o_orderdate)))
        AS months_since_last_order,
    coalesce(max(o.o_orderpriority), 'NONE') AS highest_priority_code
FROM raw.customer AS c
JOIN raw.nation AS n ON n.n_nationkey = c.c_nationkey
LEFT JOIN raw.orders AS o ON o.o_custkey = c.c_custkey
GROUP BY c.c_custkey, c.c_name, c.c_mktsegment, n.n_name, c.c_acctbal
