-- Shipping performance by ship mode: volumes, whole-percent late rate and average lags in days.
-- Used by the logistics team's weekly carrier review (SSRS report "Carrier SLA").
SELECT
    l.L_ShipMode AS ship_mode,
    COUNT(*) AS line_count,
    SUM(IIF(l.L_ReceiptDate > l.L_CommitDate, 1, 0)) AS late_lines,
    100 * SUM(IIF(l.L_ReceiptDate > l.L_CommitDate, 1, 0)) / COUNT(*) AS late_pct,
    AVG(DATEDIFF(day, o.O_OrderDate, l.L_ShipDate)) AS avg_ship_lag_days,
    AVG(DATEDIFF(dd, o.O_OrderDate, l.L_CommitDate)) AS avg_commit_lag_days,
    AVG(CAST(DATEDIFF(day, l.L_ShipDate, l.L_ReceiptDate) AS FLOAT)) AS avg_transit_days,
    SUM(ISNULL(l.L_Quantity, 0)) AS units_shipped
FROM [SalesDW].[dbo].[LineItem] l WITH (NOLOCK)
INNER JOIN [SalesDW].[dbo].[Orders] o WITH (NOLOCK)
    ON o.O_OrderKey = l.L_OrderKey
WHERE l.L_ShipDate >= '19950101'
GROUP BY l.L_ShipMode;
