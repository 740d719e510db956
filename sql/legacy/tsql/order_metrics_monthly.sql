-- Monthly order metrics per order priority: order counts, value, clerks on duty and the
-- payment-terms date (30 days after month end). Used by the finance month-end close pack.
INSERT INTO order_metrics_monthly
SELECT
    DATEPART(year, o.O_OrderDate) AS order_year,
    DATEPART(month, o.O_OrderDate) AS order_month,
    EOMONTH(o.O_OrderDate) AS month_end,
    DATEADD(day, 30, EOMONTH(o.O_OrderDate)) AS payment_due_date,
    o.O_OrderPriority AS order_priority,
    COUNT(*) AS order_count,
    COUNT(DISTINCT CONVERT(INT, RIGHT(o.O_Clerk, 9))) AS clerks_on_duty,
    SUM(o.O_TotalPrice) AS order_value,
    SUM(CASE WHEN o.O_OrderStatus = 'F' THEN 1 ELSE 0 END) AS fulfilled_orders,
    MAX(LEN(o.O_Comment)) AS longest_comment
FROM SalesDW.dbo.Orders o WITH (NOLOCK)
WHERE o.O_OrderDate >= DATEADD(year, -3, '1998-08-02')
GROUP BY DATEPART(year, o.O_OrderDate), DATEPART(month, o.O_OrderDate), EOMONTH(o.O_OrderDate),
    o.O_OrderPriority;
