-- Customer master enriched with order statistics and the ship modes each customer has used.
-- Used by the CRM export and the customer-segmentation notebook.
CREATE OR REPLACE TABLE `acme-dw.analytics.customer_order_summary` AS
WITH order_stats AS (
  SELECT
    o.o_custkey,
    COUNT(DISTINCT o.o_orderkey) AS order_count,
    SUM(l.l_extendedprice * (1 - l.l_discount)) AS net_revenue,
    STRING_AGG(DISTINCT l.l_shipmode, ',' ORDER BY l.l_shipmode) AS ship_modes_used,
    MAX(o.o_orderdate) AS last_order_date
  FROM sales.orders AS o
  JOIN sales.lineitem AS l ON l.l_orderkey = o.o_orderkey
  GROUP BY o.o_custkey
)
SELECT
  c.* EXCEPT (c_address, c_phone, c_comment),
  IFNULL(s.order_count, 0) AS order_count,
  IFNULL(s.net_revenue, 0) AS net_revenue,
  IFNULL(s.ship_modes_used, 'NONE') AS ship_modes_used,
  DATE_DIFF(DATE '1998-08-02', s.last_order_date, DAY) AS days_since_last_order
FROM sales.customer AS c
LEFT JOIN order_stats AS s ON s.o_custkey = c.c_custkey;
