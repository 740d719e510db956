"""``preorder`` and ``breadth_first`` are sqlglot's two walks, node for node, on real statements."""

from __future__ import annotations

from pathlib import Path

import sqlglot

from sql.source_dialects import SOURCE_DIALECTS
from sql.tree import breadth_first, preorder

LEGACY_FILES = sorted((Path(__file__).resolve().parents[2] / "sql" / "legacy").glob("*/*.sql"))


def test_preorder_is_sqlglots_depth_first_walk():
    assert LEGACY_FILES
    for path in LEGACY_FILES:
        dialect = SOURCE_DIALECTS[path.parent.name]
        for statement in filter(None, sqlglot.parse(path.read_text(), read=dialect)):
            walked = list(statement.walk(bfs=False))
            assert len(walked) > 10, path
            assert [id(n) for n in preorder(statement)] == [id(n) for n in walked], path
            inner = walked[len(walked) // 2]
            assert [id(n) for n in preorder(inner)] == [id(n) for n in inner.walk(bfs=False)]


def test_breadth_first_is_sqlglots_breadth_first_walk():
    # portable.uses and the script's temporary-table check report in this order.
    for path in LEGACY_FILES:
        dialect = SOURCE_DIALECTS[path.parent.name]
        for statement in filter(None, sqlglot.parse(path.read_text(), read=dialect)):
            walked = list(statement.walk())
            assert [id(n) for n in breadth_first(statement)] == [id(n) for n in walked], path
            inner = walked[len(walked) // 2]
            assert [id(n) for n in breadth_first(inner)] == [id(n) for n in inner.walk()]


def test_operands_a_rule_built_get_the_parentheses_their_tree_means():
    from sqlglot import exp

    from sql.tree import parenthesize

    one, two, three = (exp.Literal.number(n) for n in (1, 2, 3))
    cases = [
        (exp.Sub(this=one, expression=exp.Add(this=two, expression=three)), "1 - (2 + 3)"),
        (exp.Mul(this=exp.Sub(this=one, expression=two), expression=three), "(1 - 2) * 3"),
        (exp.Sub(this=exp.Sub(this=one, expression=two), expression=three), "1 - 2 - 3"),
        (exp.DPipe(this=exp.Literal.string("a"), expression=exp.Add(this=one, expression=two)),
         "'a' || (1 + 2)"),  # Spark reads || as tightly as +
        (exp.Neg(this=exp.Add(this=one, expression=two)), "-(1 + 2)"),
        (exp.And(this=exp.Or(this=exp.true(), expression=exp.false()), expression=exp.true()),
         "(TRUE OR FALSE) AND TRUE"),
    ]  # fmt: skip
    for tree, text in cases:
        parenthesize(preorder(tree))
        assert tree.sql() == text
    parsed = sqlglot.parse_one("SELECT (a - b) * c, a - (b - c), MOD(a + 1, 2) FROM t")
    before = parsed.sql()
    parenthesize(preorder(parsed), functions=(exp.Mod,))
    assert parsed.sql() == before  # what the parser read keeps its own parentheses
