-- BigQuery DAYOFWEEK is 1 = Sunday ... 7 = Saturday; CAST(NUMERIC AS INT64) rounds half away
-- from zero (quantities are whole numbers anyway).
SELECT
    l.l_orderkey AS order_key,
    l.l_linenumber AS line_number,
    l.l_shipmode AS ship_mode,
    o.o_orderpriority AS order_priority,
    c.c_mktsegment AS customer_segment,
    l.l_shipdate - o.o_orderdate AS ship_lag_days,
    l.l_commitdate - o.o_orderdate AS commit_lag_days,
    l.l_commitdate - l.l_shipdate AS slack_days,
    dayofweek(l.l_shipdate) + 1 AS ship_weekday,
    month(o.o_orderdate) AS order_month,
    CASE WHEN l.l_discount >= 0.05 THEN 'HIGH' ELSE 'LOW' END AS discount_band,
    round(l.l_quantity)::BIGINT AS quantity,
    (l.l_receiptdate > l.l_commitdate)::INTEGER AS is_late
FROM raw.lineitem AS l
JOIN raw.orders AS o ON o.o_orderkey = l.l_orderkey
JOIN raw.customer AS c ON c.c_custkey = o.o_custkey
WHERE o.o_orderdate >= DATE '1995-01-01'
