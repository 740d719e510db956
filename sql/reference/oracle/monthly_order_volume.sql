-- Oracle ADD_MONTHS maps a month's last day to the last day of the target month (Feb 28 + 1
-- month = Mar 31); MONTHS_BETWEEN of two first-of-month dates is a whole number.
SELECT
    date_trunc('month', o.o_orderdate)::DATE AS order_month,
    last_day(o.o_orderdate) AS month_end,
    last_day(date_trunc('month', o.o_orderdate)::DATE + INTERVAL 1 MONTH)::DATE AS invoice_date,
    (1998 - year(o.o_orderdate)) * 12 + (8 - month(o.o_orderdate)) AS months_ago,
    count(*) AS order_count,
    sum(o.o_totalprice) AS order_value,
    count(DISTINCT o.o_custkey) AS active_customers
FROM raw.orders AS o
GROUP BY 1, 2, 3, 4
