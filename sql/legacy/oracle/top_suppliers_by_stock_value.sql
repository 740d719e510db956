-- The ten suppliers holding the most stock by value, with their account balance and nation.
-- Used by treasury when reviewing supplier credit exposure.
SELECT *
FROM (
    SELECT
        s.s_suppkey AS supplier_key,
        s.s_name AS supplier_name,
        n.n_name AS nation,
        SUM(ps.ps_availqty * ps.ps_supplycost) AS stock_value,
        COUNT(*) AS parts_stocked,
        s.s_acctbal AS account_balance,
        NVL2(NULLIF(SIGN(s.s_acctbal), -1), 'CREDIT', 'DEBIT') AS balance_side
    FROM sales.supplier s, sales.partsupp ps, sales.nation n
    WHERE ps.ps_suppkey = s.s_suppkey
      AND n.n_nationkey = s.s_nationkey
    GROUP BY s.s_suppkey, s.s_name, n.n_name, s.s_acctbal
    ORDER BY stock_value DESC, s.s_suppkey
)
WHERE ROWNUM <= 10;
