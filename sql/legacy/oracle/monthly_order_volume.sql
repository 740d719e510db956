-- Monthly order volume with the month's last day, the invoice date (end of the following month)
-- and the age of the month in whole months. Used by the finance ageing report.
CREATE TABLE monthly_order_volume AS
SELECT
    TRUNC(o.o_orderdate, 'MM') AS order_month,
    LAST_DAY(o.o_orderdate) AS month_end,
    ADD_MONTHS(LAST_DAY(o.o_orderdate), 1) AS invoice_date,
    MONTHS_BETWEEN(DATE '1998-08-01', TRUNC(o.o_orderdate, 'MM')) AS months_ago,
    COUNT(*) AS order_count,
    SUM(o.o_totalprice) AS order_value,
    COUNT(DISTINCT o.o_custkey) AS active_customers
FROM sales.orders o
GROUP BY TRUNC(o.o_orderdate, 'MM'), LAST_DAY(o.o_orderdate);
