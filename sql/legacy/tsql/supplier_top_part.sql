-- Supplier catalogue check: for every supplier, its most expensive part to source and how many
-- parts it stocks. Used by procurement to spot cost outliers before contract renewal.
SELECT
    s.S_SuppKey AS supplier_key,
    s.S_Name AS supplier_name,
    n.N_Name AS nation,
    tp.PS_PartKey AS top_cost_part_key,
    tp.PS_SupplyCost AS top_supply_cost,
    tp.P_Brand AS top_cost_brand,
    pc.parts_stocked,
    pc.units_available
FROM [dbo].[Supplier] s
JOIN [dbo].[Nation] n ON n.N_NationKey = s.S_NationKey
CROSS APPLY (
    SELECT TOP 1 ps.PS_PartKey, ps.PS_SupplyCost, p.P_Brand
    FROM [dbo].[PartSupp] ps
    JOIN [dbo].[Part] p ON p.P_PartKey = ps.PS_PartKey
    WHERE ps.PS_SuppKey = s.S_SuppKey
    ORDER BY ps.PS_SupplyCost DESC, ps.PS_PartKey
) tp
CROSS APPLY (
    SELECT COUNT(*) AS parts_stocked, SUM(ps2.PS_AvailQty) AS units_available
    FROM [dbo].[PartSupp] ps2
    WHERE ps2.PS_SuppKey = s.S_SuppKey
) pc
WHERE s.S_AcctBal > 0;
