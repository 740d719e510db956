WITH per_order AS (
    SELECT
        o.o_custkey AS customer_key,
        o.o_orderkey AS order_key,
        o.o_orderdate AS order_date,
        o.o_totalprice AS order_value,
        max(l.l_shipdate) - o.o_orderdate AS days_to_last_shipment
    FROM raw.orders AS o
    JOIN raw.customer AS c ON c.c_custkey = o.o_custkey
    JOIN raw.lineitem AS l ON l.l_orderkey = o.o_orderkey
    WHERE c.c_mktsegment = 'BUILDING'
    GROUP BY o.o_custkey, o.o_orderkey, o.o_orderdate, o.o_totalprice
),
ranked AS (
    SELECT
        *,
        row_number() OVER (PARTITION BY customer_key ORDER BY order_value DESC, order_key)
            AS value_rank
    FROM per_order
)
SELECT * FROM ranked WHERE value_rank <= 2
