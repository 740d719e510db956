-- Each FURNITURE customer's most recent order (or none), with its size and age in years.
-- Used by the furniture desk's account-review screen.
SELECT
    c.C_CustKey AS customer_key,
    c.C_Name AS customer_name,
    lo.O_OrderKey AS latest_order_key,
    lo.O_OrderDate AS latest_order_date,
    ISNULL(lo.O_TotalPrice, 0) AS latest_order_value,
    lo.years_since_order,
    ISNULL(lo.O_OrderStatus, 'N/A') AS latest_order_status
FROM dbo.Customer c WITH (NOLOCK)
OUTER APPLY (
    SELECT TOP 1
        o.O_OrderKey, o.O_OrderDate, o.O_TotalPrice, o.O_OrderStatus,
        DATEDIFF(year, o.O_OrderDate, CAST('1998-08-02' AS DATE)) AS years_since_order
    FROM dbo.Orders o WITH (NOLOCK)
    WHERE o.O_CustKey = c.C_CustKey
    ORDER BY o.O_OrderDate DESC, o.O_OrderKey DESC
) lo
WHERE c.C_MktSegment = 'FURNITURE';
