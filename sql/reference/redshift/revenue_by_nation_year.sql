-- ::decimal(18, 2) rounds the scale-4 sums half away from zero.
WITH per_nation AS (
    SELECT
        n.n_name AS supplier_nation,
        r.r_name AS region,
        year(o.o_orderdate) AS order_year,
        sum(l.l_extendedprice * (1 - l.l_discount)) AS net_revenue_exact,
        sum(l.l_extendedprice * l.l_discount) AS discount_exact,
        count(DISTINCT l.l_orderkey) AS orders
    FROM raw.lineitem AS l
    JOIN raw.orders AS o ON o.o_orderkey = l.l_orderkey
    JOIN raw.supplier AS s ON s.s_suppkey = l.l_suppkey
    JOIN raw.nation AS n ON n.n_nationkey = s.s_nationkey
    JOIN raw.region AS r ON r.r_regionkey = n.n_regionkey
    GROUP BY 1, 2, 3
)
SELECT
    supplier_nation,
    region,
    order_year,
    round(net_revenue_exact, 2)::DECIMAL(18, 2) AS net_revenue,
    round(discount_exact, 2)::DECIMAL(18, 2) AS discount_given,
    net_revenue_exact::DOUBLE
        / sum(net_revenue_exact::DOUBLE) OVER (PARTITION BY region, order_year) AS region_share,
    orders
FROM per_nation
