-- Late line items per ship year, one column per carrier mode (the "carrier matrix" sheet).
-- Used by the logistics director's annual carrier tender.
SELECT
    pvt.ship_year,
    pvt.[AIR] AS air_late,
    pvt.[MAIL] AS mail_late,
    pvt.[RAIL] AS rail_late,
    pvt.[SHIP] AS ship_late,
    pvt.[TRUCK] AS truck_late
FROM (
    SELECT
        YEAR(l.L_ShipDate) AS ship_year,
        l.L_ShipMode AS ship_mode,
        IIF(l.L_ReceiptDate > l.L_CommitDate, 1, 0) AS is_late
    FROM SalesDW.dbo.LineItem AS l WITH (NOLOCK)
) AS src
PIVOT (
    SUM(is_late) FOR ship_mode IN ([AIR], [MAIL], [RAIL], [SHIP], [TRUCK])
) AS pvt;
