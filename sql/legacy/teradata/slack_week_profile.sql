-- Late-delivery profile by commit slack in whole weeks (commit date minus ship date; negative
-- when a line ships after its commit date). Feature table for the delay model's slack buckets.
SEL
    (L.L_COMMITDATE - L.L_SHIPDATE) / 7 AS SLACK_WEEKS,
    (L.L_COMMITDATE - L.L_SHIPDATE) MOD 7 AS SLACK_EXTRA_DAYS,
    COUNT(*) AS LINE_COUNT,
    SUM(CASE WHEN L.L_RECEIPTDATE > L.L_COMMITDATE THEN 1 ELSE 0 END) AS LATE_LINES,
    CAST(SUM(CASE WHEN L.L_RECEIPTDATE > L.L_COMMITDATE THEN 1 ELSE 0 END) AS FLOAT)
        / COUNT(*) AS LATE_RATE,
    MIN(TRIM(L.L_SHIPMODE)) AS FIRST_SHIP_MODE
FROM SALES_DB.LINEITEM L
GROUP BY 1, 2;
