-- T-SQL LEN ignores trailing spaces.
SELECT
    year(o.o_orderdate) AS order_year,
    month(o.o_orderdate) AS order_month,
    last_day(o.o_orderdate) AS month_end,
    (last_day(o.o_orderdate) + 30)::DATE AS payment_due_date,
    o.o_orderpriority AS order_priority,
    count(*) AS order_count,
    count(DISTINCT right(o.o_clerk, 9)::INTEGER) AS clerks_on_duty,
    sum(o.o_totalprice) AS order_value,
    count(*) FILTER (WHERE o.o_orderstatus = 'F') AS fulfilled_orders,
    max(length(rtrim(o.o_comment))) AS longest_comment
FROM raw.orders AS o
WHERE o.o_orderdate >= DATE '1995-08-02'
GROUP BY ALL
