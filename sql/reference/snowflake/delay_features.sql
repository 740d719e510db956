-- Snowflake rounds NUMBER -> INT casts half away from zero (l_quantity is whole anyway);
-- DAYOFWEEKISO is 1 = Monday ... 7 = Sunday.
SELECT
    l.l_orderkey AS order_key,
    l.l_linenumber AS line_number,
    l.l_shipmode AS ship_mode,
    l.l_shipinstruct AS ship_instruct,
    o.o_orderpriority AS order_priority,
    c.c_mktsegment AS customer_segment,
    cr.r_name AS customer_region,
    sr.r_name AS supplier_region,
    (cn.n_regionkey = sn.n_regionkey)::INTEGER AS same_region,
    round(l.l_quantity)::BIGINT AS quantity,
    l.l_discount AS discount,
    l.l_shipdate - o.o_orderdate AS ship_lag_days,
    l.l_commitdate - o.o_orderdate AS commit_lag_days,
    l.l_commitdate - l.l_shipdate AS slack_days,
    isodow(l.l_shipdate) AS ship_iso_weekday,
    (l.l_receiptdate > l.l_commitdate)::INTEGER AS is_late
FROM raw.lineitem AS l
JOIN raw.orders AS o ON o.o_orderkey = l.l_orderkey
JOIN raw.customer AS c ON c.c_custkey = o.o_custkey
JOIN raw.nation AS cn ON cn.n_nationkey = c.c_nationkey
JOIN raw.region AS cr ON cr.r_regionkey = cn.n_regionkey
JOIN raw.supplier AS s ON s.s_suppkey = l.l_suppkey
JOIN raw.nation AS sn ON sn.n_nationkey = s.s_nationkey
JOIN raw.region AS sr ON sr.r_regionkey = sn.n_regionkey
WHERE l.l_shipdate <= DATE '1998-08-02'
