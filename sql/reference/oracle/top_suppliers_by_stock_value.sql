-- ROWNUM over an ordered inline view picks the first ten rows of that order; the outer query
-- has no ORDER BY, so only the set of rows is defined, not their order.
SELECT *
FROM (
    SELECT
        s.s_suppkey AS supplier_key,
        s.s_name AS supplier_name,
        n.n_name AS nation,
        sum(ps.ps_availqty * ps.ps_supplycost) AS stock_value,
        count(*) AS parts_stocked,
        s.s_acctbal AS account_balance,
        CASE WHEN s.s_acctbal < 0 THEN 'DEBIT' ELSE 'CREDIT' END AS balance_side
    FROM raw.supplier AS s
    JOIN raw.partsupp AS ps ON ps.ps_suppkey = s.s_suppkey
    JOIN raw.nation AS n ON n.n_nationkey = s.s_nationkey
    GROUP BY s.s_suppkey, s.s_name, n.n_name, s.s_acctbal
    ORDER BY stock_value DESC, supplier_key
    LIMIT 10
)
