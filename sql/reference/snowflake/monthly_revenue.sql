-- Snowflake ADD_MONTHS keeps month-end dates at month end (Feb 28 + 1 month = Mar 31),
-- so the due date is the last day of the following month, not month_end + INTERVAL 1 MONTH.
SELECT
    date_trunc('month', o.o_orderdate)::DATE AS revenue_month,
    last_day(o.o_orderdate) AS month_end,
    last_day(date_trunc('month', o.o_orderdate)::DATE + INTERVAL 1 MONTH)::DATE
        AS invoice_due_date,
    count(DISTINCT o.o_orderkey) AS orders,
    sum(l.l_extendedprice * (1 - l.l_discount)) AS net_revenue,
    sum(l.l_extendedprice * (1 - l.l_discount) * (1 + l.l_tax)) AS gross_revenue,
    string_agg(DISTINCT l.l_shipmode, ',' ORDER BY l.l_shipmode) AS ship_modes
FROM raw.orders AS o
JOIN raw.lineitem AS l ON l.l_orderkey = o.o_orderkey
WHERE o.o_orderdate < DATE '1998-01-01'
GROUP BY 1, 2, 3
