-- CONVERT(DECIMAL(18, 2), x) rounds half away from zero; the revenue sum has scale 4.
SELECT
    c.c_custkey AS customer_key,
    c.c_name || ' (' || rtrim(c.c_mktsegment) || ')' AS customer_label,
    split_part(c.c_phone, '-', 1) AS phone_country_code,
    length(rtrim(c.c_name)) AS name_length,
    substr(c.c_name, strpos(c.c_name, '#') + 1, 9)::INTEGER AS customer_number,
    count(DISTINCT o.o_orderkey) AS orders,
    round(sum(l.l_extendedprice * (1 - l.l_discount)), 2)::DECIMAL(18, 2) AS net_revenue
FROM raw.customer AS c
JOIN raw.orders AS o ON o.o_custkey = c.c_custkey
JOIN raw.lineitem AS l ON l.l_orderkey = o.o_orderkey
WHERE o.o_orderdate >= DATE '1996-01-01'
GROUP BY c.c_custkey, c.c_name, c.c_mktsegment, c.c_phone
ORDER BY net_revenue DESC, customer_key
LIMIT 25
