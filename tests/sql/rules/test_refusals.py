"""A refused clause is located at its keyword, wherever its other parts are written."""

import pytest

from sql.diagnostics import TranslationError
from sql.translate import translate

HIERARCHY = "SELECT n_nationkey\nFROM SALES.NATION\n"


@pytest.mark.parametrize(
    ("dialect", "source", "rule", "line", "col"),
    [
        # START WITH before CONNECT BY: not at the START WITH condition.
        (
            "oracle",
            HIERARCHY + "START WITH n_nationkey = 0\nCONNECT BY PRIOR n_nationkey = n_regionkey",
            "ORA-CONNECT-BY",
            4,
            1,
        ),
        # START WITH after CONNECT BY, the keyword indented and its words spaced.
        (
            "oracle",
            HIERARCHY + "  CONNECT   BY NOCYCLE PRIOR n_nationkey = n_regionkey\n"
            "  START WITH n_nationkey = 0",
            "ORA-CONNECT-BY",
            3,
            3,
        ),
        # One line, START WITH first.
        (
            "oracle",
            "SELECT n_nationkey FROM SALES.NATION START WITH n_nationkey = 0"
            " CONNECT BY PRIOR n_nationkey = n_regionkey",
            "ORA-CONNECT-BY",
            1,
            65,
        ),
        # A hierarchy in a subquery: the CONNECT BY of that subquery.
        (
            "oracle",
            "SELECT k FROM (\n  SELECT n_nationkey AS k FROM SALES.NATION\n"
            "  START WITH n_nationkey = 0 CONNECT BY PRIOR n_nationkey = n_regionkey\n) t",
            "ORA-CONNECT-BY",
            3,
            30,
        ),
        # The same pattern: a clause keyword sqlglot keeps no position of.
        ("teradata", "SELECT o_orderkey\nFROM SALES_DB.ORDERS\nSAMPLE 10", "SAMPLE", 3, 1),
        (
            "bigquery",
            "SELECT *\nFROM sales.orders\n  PIVOT (SUM(o_totalprice) FOR o_orderstatus IN ('F'))",
            "PIVOT",
            3,
            3,
        ),
    ],
)
def test_a_refused_clause_is_located_at_its_keyword(dialect, source, rule, line, col):
    with pytest.raises(TranslationError) as raised:
        translate(source, dialect, file="q.sql")
    located = [(d.line, d.col) for d in raised.value.diagnostics if d.rule == rule]
    assert located == [(line, col)], [d.format() for d in raised.value.diagnostics]
