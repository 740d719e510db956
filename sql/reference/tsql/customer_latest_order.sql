-- OUTER APPLY keeps customers with no order (NULL columns); DATEDIFF(year, a, b) counts
-- year boundaries crossed (1997-12-31 to 1998-08-02 is 1).
WITH latest AS (
    SELECT
        o_custkey, o_orderkey, o_orderdate, o_totalprice, o_orderstatus,
        row_number() OVER (
            PARTITION BY o_custkey ORDER BY o_orderdate DESC, o_orderkey DESC
        ) AS rn
    FROM raw.orders
)
SELECT
    c.c_custkey AS customer_key,
    c.c_name AS customer_name,
    lo.o_orderkey AS latest_order_key,
    lo.o_orderdate AS latest_order_date,
    coalesce(lo.o_totalprice, 0) AS latest_order_value,
    1998 - year(lo.o_orderdate) AS years_since_order,
    coalesce(lo.o_orderstatus, 'N/A') AS latest_order_status
FROM raw.customer AS c
LEFT JOIN latest AS lo ON lo.o_custkey = c.c_custkey AND lo.rn = 1
WHERE c.c_mktsegment = 'FURNITURE'
