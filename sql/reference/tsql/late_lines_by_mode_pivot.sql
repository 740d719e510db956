-- PIVOT groups by every source column not aggregated or pivoted (here ship_year); a mode with
-- no lines in a year would be NULL, not 0.
SELECT
    year(l.l_shipdate) AS ship_year,
    sum(CASE WHEN l.l_receiptdate > l.l_commitdate THEN 1 ELSE 0 END)
        FILTER (WHERE l.l_shipmode = 'AIR') AS air_late,
    sum(CASE WHEN l.l_receiptdate > l.l_commitdate THEN 1 ELSE 0 END)
        FILTER (WHERE l.l_shipmode = 'MAIL') AS mail_late,
    sum(CASE WHEN l.l_receiptdate > l.l_commitdate THEN 1 ELSE 0 END)
        FILTER (WHERE l.l_shipmode = 'RAIL') AS rail_late,
    sum(CASE WHEN l.l_receiptdate > l.l_commitdate THEN 1 ELSE 0 END)
        FILTER (WHERE l.l_shipmode = 'SHIP') AS ship_late,
    sum(CASE WHEN l.l_receiptdate > l.l_commitdate THEN 1 ELSE 0 END)
        FILTER (WHERE l.l_shipmode = 'TRUCK') AS truck_late
FROM raw.lineitem AS l
GROUP BY 1
