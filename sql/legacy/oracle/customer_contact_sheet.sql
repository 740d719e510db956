-- Contact sheet for the 1997 account review: every customer in the AMERICA region with each of
-- their 1997 orders (or one row with no order). Used by the account managers' mail merge.
SELECT
    c.c_custkey AS customer_key,
    o.o_orderkey AS order_key,
    c.c_name || ' / ' || o.o_clerk AS account_line,
    SUBSTR(c.c_phone, 1, INSTR(c.c_phone, '-') - 1) AS phone_country_code,
    SUBSTR(o.o_clerk, INSTR(o.o_clerk, '#') + 1) AS clerk_number,
    CASE WHEN NVL(o.o_clerk, '') IS NULL THEN 'NO 1997 ORDER' ELSE 'ACTIVE' END AS status_1997,
    NVL(o.o_totalprice, 0) AS order_value
FROM sales.customer c, sales.nation n, sales.region r, sales.orders o
WHERE n.n_nationkey = c.c_nationkey
  AND r.r_regionkey = n.n_regionkey
  AND r.r_name = 'AMERICA'
  AND o.o_custkey (+) = c.c_custkey
  AND o.o_orderdate (+) >= DATE '1997-01-01'
  AND o.o_orderdate (+) < DATE '1998-01-01';
