"""``sql/translate.py:_qualified`` skips sqlglot's ``normalize_identifiers``, which
``_fold_identifiers`` makes redundant: after folding, normalizing must change no name, and the
column paths' original names (``dot_parts``) recorded without it must be the ones it records."""

from __future__ import annotations

import pytest
import sqlglot
from sqlglot import exp
from sqlglot.optimizer.normalize_identifiers import normalize_identifiers
from sqlglot.optimizer.qualify import qualify

from sql.catalog import load_catalog
from sql.source_dialects import DIALECTS, SOURCE_DIALECTS
from sql.translate import _fold_identifiers, _qualified, _typed_schema
from sql.tree import preorder

# Names in every spelling a dialect treats differently: unquoted, quoted, mixed, upper, lower,
# a column path into a row, a non-ASCII name.
QUERY = (
    'SELECT Orders.O_OrderKey, "Mixed"."Case", "lower", "UPPER", t.Payload.Field.Inner, '
    "Größe FROM Sales.Orders AS Orders, Raw.T AS t"
)


def _folded(dialect: str, query: str = QUERY) -> exp.Expr:
    tree = sqlglot.parse_one(query, read=SOURCE_DIALECTS[dialect])
    _fold_identifiers([n for n in preorder(tree) if isinstance(n, exp.Identifier)], dialect)
    return tree


def _paths(tree: exp.Expr) -> list[exp.Expr]:
    return [
        n
        for n in preorder(tree)
        if isinstance(n, exp.Column | exp.Dot) and not isinstance(n.parent, exp.Dot)
    ]


def _names_and_paths(tree: exp.Expr) -> list[tuple[str, object]]:
    return [
        (n.sql(), n.meta.get("dot_parts")) if isinstance(n, exp.Column) else (n.sql(), None)
        for n in preorder(tree)
        if isinstance(n, exp.Identifier | exp.Column)
    ]


@pytest.mark.parametrize("dialect", DIALECTS)
def test_normalizing_folded_names_changes_none(dialect):
    folded = _folded(dialect)
    names = [n.sql() for n in preorder(folded) if isinstance(n, exp.Identifier)]
    normalized = normalize_identifiers(
        folded.copy(), dialect=SOURCE_DIALECTS[dialect], store_original_column_identifiers=True
    )
    assert [n.sql() for n in preorder(normalized) if isinstance(n, exp.Identifier)] == names


@pytest.mark.parametrize(
    "query", [QUERY, "SELECT o_orderkey, o_totalprice * 2 AS doubled FROM raw.orders"]
)
@pytest.mark.parametrize("dialect", DIALECTS)
def test_qualified_like_sqlglot_qualify(dialect, query):
    schema = _typed_schema(load_catalog(), dialect, ["raw.orders"])
    expected = qualify(
        _folded(dialect, query),
        dialect=dialect,
        schema=schema,
        validate_qualify_columns=False,
        quote_identifiers=True,
        identify=True,
    )
    tree = _folded(dialect, query)
    actual = _qualified(tree, schema, dialect, _paths(tree))
    assert actual.sql() == expected.sql()
    assert actual == expected
    assert _names_and_paths(actual) == _names_and_paths(expected)
