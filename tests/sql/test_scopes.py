"""Scopes built once per statement (sql/scopes.py): the validation over them raises what
sqlglot's does, they are reused until a rule writes a query or a table, and translating with
them reused gives what building them afresh gives."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import sqlglot
from sqlglot.errors import OptimizeError
from sqlglot.optimizer.qualify import qualify
from sqlglot.optimizer.qualify_columns import validate_qualify_columns
from sqlglot.optimizer.scope import traverse_scope

import sql.retype
import sql.rules.portable_types
import sql.scopes
from sql.diagnostics import TranslationError
from sql.rules import RULES, load_all
from sql.translate import translate, translate_script

REPO_ROOT = Path(__file__).resolve().parents[2]
LEGACY_FILES = sorted((REPO_ROOT / "sql" / "legacy").glob("*/*.sql"))
SCHEMA = {"t": {"a": "INT", "b": "INT"}, "u": {"a": "INT", "c": "INT"}}

load_all()


def _error(check, tree) -> str | None:
    try:
        check(tree)
    except OptimizeError as error:
        return str(error)
    return None


@pytest.mark.parametrize(
    "query",
    [
        "SELECT a, b FROM t",
        "SELECT t.a, u.c FROM t JOIN u ON t.a = u.a",
        "SELECT nope FROM t",  # unresolved
        "SELECT nope FROM t JOIN u ON t.a = u.a",
        "SELECT a FROM t JOIN u ON t.b = u.c",  # ambiguous
        "SELECT x.a FROM t",  # unknown table
        "SELECT a FROM t WHERE EXISTS (SELECT 1 FROM u WHERE u.c = t.b)",  # correlated
        "WITH w AS (SELECT a FROM t) SELECT w.a, x.a FROM w",
        "SELECT a FROM (SELECT a, b FROM t) AS d UNION ALL SELECT c FROM u WHERE q = 1",
    ],
)
def test_validation_over_built_scopes_raises_what_sqlglot_raises(query):
    tree = qualify(
        sqlglot.parse_one(query), schema=SCHEMA, validate_qualify_columns=False, identify=True
    )
    mine = _error(lambda t: sql.scopes.validate_columns(traverse_scope(t)), tree)
    theirs = _error(validate_qualify_columns, tree)
    # The same message without sqlglot's "Line: n, Col: m" (the diagnostic states ours).
    assert mine == (theirs and re.sub(r" Line: \d+, Col: \d+$", "", theirs))


@pytest.mark.parametrize(
    ("source", "hint"),
    [
        # a bare field of the STRUCT elements of a named UNNEST whose element type is unknown
        (
            "SELECT type FROM (SELECT [STRUCT('a' AS type, mystery.fn(1) AS position)] AS arr)"
            " AS c, UNNEST(c.arr) AS picked",
            "(picked.type)",
        ),
        # a name that no known element type has: no hint
        ("SELECT nope FROM sales.customer AS c", None),
    ],
)
def test_an_unresolved_bare_name_beside_a_named_unnest_says_how_to_reach_a_field(source, hint):
    with pytest.raises(TranslationError) as raised:
        translate(source, "bigquery")
    [diagnostic] = raised.value.diagnostics
    assert diagnostic.rule == "COLUMN-UNKNOWN"
    if hint is None:
        assert "UNNEST" not in diagnostic.message
    else:
        assert hint in diagnostic.message and "bare name" in diagnostic.message


@pytest.fixture
def builds(monkeypatch) -> list[object]:
    """Every scope build during a translation (each is a walk per scope)."""
    built: list[object] = []
    real = sql.scopes.build

    def counted(root):
        built.append(root)
        return real(root)

    monkeypatch.setattr(sql.scopes, "build", counted)
    monkeypatch.setattr(sql.rules.portable_types, "build_scopes", counted)
    monkeypatch.setattr(sql.retype, "build_scopes", counted)
    return built


def test_scopes_are_built_once_when_no_rule_writes_a_query(builds):
    # The portable-type rule reads the CTE's column through the scopes: the same ones.
    translation = translate(
        "WITH c AS (SELECT DATEPART(year, o_orderdate) AS y FROM dbo.orders) SELECT y FROM c",
        "tsql",
    )
    assert "PORTABLE-TYPE" in translation.rules_applied
    assert len(builds) == 1


def test_a_rule_that_writes_a_query_has_the_scopes_built_again(builds):
    # FN-NVL's COALESCE holds the subquery now: the scopes of the old tree may not serve.
    translation = translate(
        "WITH c AS (SELECT NVL((SELECT MAX(o_totalprice) FROM sales.orders), 0) AS m "
        "FROM sales.orders) SELECT m FROM c",
        "oracle",
    )
    assert "FN-NVL" in translation.rules_applied
    assert len(builds) == 2


def _translations() -> list[object]:
    results: list[object] = []
    cases = [(source, dialect) for r in RULES.values() for dialect, source, _ in r.examples]
    cases += [(path.read_text(), path.parent.name) for path in LEGACY_FILES]
    for source, dialect in cases:
        try:
            script = translate_script(source, dialect)
        except TranslationError as error:
            results.append(("refused", [str(d) for d in error.diagnostics]))
            continue
        results.append(
            [(t.ansi_sql, t.rules_applied, [str(d) for d in t.diagnostics]) for t in script.tables]
        )
    return results


def test_reusing_scopes_translates_like_building_them_afresh(monkeypatch):
    reused = _translations()
    with monkeypatch.context() as patched:  # sql/translate.py reads it from the module
        patched.setattr(sql.scopes, "current", lambda scopes, root: None)
        patched.setattr(sql.rules.portable_types, "current_scopes", lambda scopes, root: None)
        fresh = _translations()
    assert reused == fresh
    assert len(reused) >= len(LEGACY_FILES)
