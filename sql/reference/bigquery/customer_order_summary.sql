SELECT
    c.c_custkey,
    c.c_name,
    c.c_nationkey,
    c.c_acctbal,
    c.c_mktsegment,
    coalesce(s.order_count, 0) AS order_count,
    coalesce(s.net_revenue, 0) AS net_revenue,
    coalesce(s.ship_modes_used, 'NONE') AS ship_modes_used,
    DATE '1998-08-02' - s.last_order_date AS days_since_last_order
FROM raw.customer AS c
LEFT JOIN (
    SELECT
        o.o_custkey,
        count(DISTINCT o.o_orderkey) AS order_count,
        sum(l.l_extendedprice * (1 - l.l_discount)) AS net_revenue,
        string_agg(DISTINCT l.l_shipmode, ',' ORDER BY l.l_shipmode) AS ship_modes_used,
        max(o.o_orderdate) AS last_order_date
    FROM raw.orders AS o
    JOIN raw.lineitem AS l ON l.l_orderkey = o.o_orderkey
    GROUP BY o.o_custkey
) AS s ON s.o_custkey = c.c_custkey
