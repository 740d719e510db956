-- Top 25 customers by net revenue since 1996, with a display label and phone country code.
-- Used by the key-account dashboard (Power BI, "Top Accounts" page).
SELECT TOP 25
    c.C_CustKey AS customer_key,
    c.C_Name + ' (' + RTRIM(c.C_MktSegment) + ')' AS customer_label,
    LEFT(c.C_Phone, CHARINDEX('-', c.C_Phone) - 1) AS phone_country_code,
    LEN(c.C_Name) AS name_length,
    CONVERT(INT, SUBSTRING(c.C_Name, CHARINDEX('#', c.C_Name) + 1, 9)) AS customer_number,
    COUNT(DISTINCT o.O_OrderKey) AS orders,
    CONVERT(DECIMAL(18, 2), SUM(l.L_ExtendedPrice * (1 - l.L_Discount))) AS net_revenue
FROM dbo.Customer AS c WITH (NOLOCK)
JOIN dbo.Orders AS o WITH (NOLOCK) ON o.O_CustKey = c.C_CustKey
JOIN dbo.LineItem AS l WITH (NOLOCK) ON l.L_OrderKey = o.O_OrderKey
WHERE o.O_OrderDate >= CONVERT(DATE, '1996-01-01')
GROUP BY c.C_CustKey, c.C_Name, c.C_MktSegment, c.C_Phone
ORDER BY net_revenue DESC, c.C_CustKey;
