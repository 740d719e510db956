-- Oracle: (+) on every predicate of the orders table makes the date filter part of the outer
-- join; || treats NULL as the empty string; '' is NULL, so NVL(x, '') IS NULL iff x IS NULL.
SELECT
    c.c_custkey AS customer_key,
    o.o_orderkey AS order_key,
    c.c_name || ' / ' || coalesce(o.o_clerk, '') AS account_line,
    split_part(c.c_phone, '-', 1) AS phone_country_code,
    substr(o.o_clerk, strpos(o.o_clerk, '#') + 1) AS clerk_number,
    CASE WHEN o.o_clerk IS NULL THEN 'NO 1997 ORDER' ELSE 'ACTIVE' END AS status_1997,
    coalesce(o.o_totalprice, 0) AS order_value
FROM raw.customer AS c
JOIN raw.nation AS n ON n.n_nationkey = c.c_nationkey
JOIN raw.region AS r ON r.r_regionkey = n.n_regionkey
LEFT JOIN raw.orders AS o
    ON o.o_custkey = c.c_custkey
    AND o.o_orderdate >= DATE '1997-01-01'
    AND o.o_orderdate < DATE '1998-01-01'
WHERE r.r_name = 'AMERICA'
