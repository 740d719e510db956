-- Redshift ADD_MONTHS keeps a month's last day at month end (Feb 28 + 1 month = Mar 31),
-- unlike DATEADD(month, ...).
SELECT
    date_trunc('month', o.o_orderdate)::DATE AS order_month,
    last_day(o.o_orderdate) AS month_end,
    last_day(date_trunc('month', o.o_orderdate)::DATE + INTERVAL 1 MONTH)::DATE
        AS invoice_due_date,
    CASE WHEN left(o.o_orderpriority, 1) IN ('1', '2') THEN 'rush' ELSE 'standard' END
        AS priority_tier,
    count(*) AS order_count,
    sum(o.o_totalprice) AS order_value,
    count(*) FILTER (WHERE o.o_orderstatus = 'F') AS finished_orders,
    count(DISTINCT o.o_clerk) AS clerks
FROM raw.orders AS o
WHERE o.o_orderdate < DATE '1998-01-01'
GROUP BY 1, 2, 3, 4
