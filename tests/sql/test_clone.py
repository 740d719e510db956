"""``clone``: the rules' cheap copy is the same tree as sqlglot's deep copy, detached from
the original, with the same annotations."""

from __future__ import annotations

import sqlglot
from sqlglot import exp
from sqlglot.optimizer.annotate_types import annotate_types

from sql.rules.build import clone

SQL = (
    "SELECT CASE WHEN a > 1 THEN CAST(b AS DECIMAL(10, 2)) END AS x, /* note */ SUM(a) "
    "FROM t WHERE b IN (1, 2, 3)"
)


def _tree() -> exp.Expr:
    tree = sqlglot.parse_one(SQL)
    annotate_types(tree, schema={"t": {"a": "INT", "b": "DOUBLE"}})
    for node in tree.walk():
        node.meta["source"] = True
    return tree


def test_a_clone_is_the_same_tree_with_the_same_types_and_meta():
    tree = _tree()
    copied = clone(tree)
    assert copied == tree == tree.copy()
    assert copied.sql() == tree.sql()
    pairs = list(zip(tree.walk(), copied.walk(), strict=True))
    assert all(type(a) is type(b) and a is not b for a, b in pairs)
    assert all(a.type == b.type and a.meta == b.meta for a, b in pairs)
    assert all((a.arg_key, a.index) == (b.arg_key, b.index) for a, b in pairs[1:])
    assert [a.comments for a, _ in pairs] == [b.comments for _, b in pairs]


def test_a_clone_is_detached_and_independent():
    tree = _tree()
    copied = clone(tree)
    assert copied.parent is None
    for node in copied.walk():
        for child in node.iter_expressions():
            assert child.parent is node  # every parent pointer is inside the clone
    copied.find(exp.Column).replace(exp.column("z"))
    copied.find(exp.Literal).meta["changed"] = True
    assert tree.sql() == sqlglot.parse_one(SQL).sql()
    assert "changed" not in tree.find(exp.Literal).meta
