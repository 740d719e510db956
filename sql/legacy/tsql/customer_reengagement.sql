-- Re-engagement list: the 600 customers who have gone longest without ordering (customers who
-- never ordered come first), with months since their last order. Used by the outbound sales team.
SELECT
    o.O_CustKey AS cust_key,
    MAX(o.O_OrderDate) AS last_order_date,
    COUNT(*) AS order_count
INTO #last_orders
FROM dbo.Orders o WITH (NOLOCK)
GROUP BY o.O_CustKey;

SELECT TOP (600)
    c.C_CustKey AS customer_key,
    c.C_Name AS customer_name,
    lo.last_order_date,
    ISNULL(lo.order_count, 0) AS order_count,
    DATEDIFF(month, lo.last_order_date, '1998-08-02') AS months_since_last_order,
    EOMONTH(lo.last_order_date) AS last_order_month_end,
    IIF(c.C_AcctBal > 5000, 'HIGH', IIF(c.C_AcctBal > 0, 'MEDIUM', 'LOW')) AS balance_band
FROM dbo.Customer c
LEFT JOIN #last_orders lo ON lo.cust_key = c.C_CustKey
ORDER BY lo.last_order_date ASC, c.C_CustKey ASC;
