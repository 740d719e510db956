-- Account status list for the credit team: the 600 customers with the most recent orders,
-- newest first (accounts with no order at all head the list). Oracle Forms "ACCT_STATUS".
SELECT customer_key, customer_name, last_order_date, first_order_year, account_type,
       open_orders
FROM (
    SELECT
        c.c_custkey AS customer_key,
        c.c_name AS customer_name,
        MAX(o.o_orderdate) AS last_order_date,
        TRUNC(MIN(o.o_orderdate), 'YYYY') AS first_order_year,
        DECODE(MAX(o.o_orderkey), NULL, 'PROSPECT', 'CUSTOMER') AS account_type,
        SUM(DECODE(o.o_orderstatus, 'O', 1, 0)) AS open_orders
    FROM sales.customer c, sales.orders o
    WHERE o.o_custkey (+) = c.c_custkey
    GROUP BY c.c_custkey, c.c_name
    ORDER BY last_order_date DESC, c.c_custkey
)
WHERE ROWNUM <= 600;
