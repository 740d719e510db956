"""Annotating only what the rules changed gives every node the type that annotating the whole
tree gives it: checked before every phase of every translation of the rule catalog's
examples and the legacy corpus, and (when ``../shared/corpora`` is present) a sample of real
queries; so does the first annotation, which types what children decide without sqlglot's
walk."""

from __future__ import annotations

import contextlib
from pathlib import Path

import pytest
import sqlglot
from sqlglot import exp
from sqlglot.optimizer.annotate_types import TypeAnnotator, annotate_types

import sql.retype
import sql.scopes
import sql.translate
from benchmarks.corpora import (
    build_catalog,
    corpora_root,
    corpus_queries,
    query_text,
    with_own_ddl,
)
from benchmarks.corpus_bench import sample_queries
from sql.assumptions import Assumptions
from sql.diagnostics import TranslationError
from sql.retype import retype, stale_nodes
from sql.rules import RULES, load_all
from sql.translate import translate_script

REPO_ROOT = Path(__file__).resolve().parents[2]
CORPORA = corpora_root()
LEGACY_FILES = sorted((REPO_ROOT / "sql" / "legacy").glob("*/*.sql"))

load_all()


def _types(tree: exp.Expr) -> list[tuple[str, str]]:
    def name(node: exp.Expr) -> str:
        kind = node.type
        return "UNKNOWN" if kind is None else kind.sql()

    return [(node.key, name(node)) for node in tree.walk()]


@pytest.fixture
def checked_retype(monkeypatch) -> dict[str, list]:
    """``retype`` inside the translator, each call compared with annotating a copy of the
    same tree as a whole. Differences are collected, not raised: the translator turns an
    exception inside it into a refusal."""
    seen: dict[str, list] = {"calls": [], "differences": []}

    def compared(root, rewritten, schema, dialect, **known):
        # ``known``: the scopes and walk the translator passes on (sql/scopes.py): reused
        # scopes must type like scopes built afresh.
        whole = annotate_types(root.copy(), schema=schema, dialect=dialect)
        result = retype(root, rewritten, schema, dialect, **known)
        seen["calls"].append(result)
        if _types(result) != _types(whole):
            differing = [
                (mine, theirs)
                for mine, theirs in zip(_types(result), _types(whole), strict=True)
                if mine != theirs
            ]
            seen["differences"].append((dialect, result.sql(), differing))
        return result

    # The first annotation too (sql/translate.py types what children decide before it:
    # retype.type_by_children over the whole tree).
    annotate = sql.scopes.annotate

    def first_compared(annotator, root, scopes):
        result = annotate(annotator, root, scopes)
        whole = annotate_types(root.copy(), schema=annotator.schema, dialect=annotator.dialect)
        seen["first"].append(result)
        if _types(result) != _types(whole):
            seen["differences"].append(("first", result.sql(), None))
        return result

    seen["first"] = []
    monkeypatch.setattr(sql.translate, "retype", compared)
    monkeypatch.setattr(sql.scopes, "annotate", first_compared)
    return seen


def _translate(source: str, dialect: str) -> None:
    # A refusal is fine here: what is compared are the types on the way to it.
    with contextlib.suppress(TranslationError):
        translate_script(source, dialect)


def test_rule_examples_and_legacy_corpus_retype_like_a_whole_annotation(checked_retype):
    for rule in RULES.values():
        for dialect, source, _ in rule.examples:
            _translate(source, dialect)
    for path in LEGACY_FILES:
        _translate(path.read_text(), path.parent.name)
    assert checked_retype["differences"] == []
    assert len(checked_retype["calls"]) >= len(LEGACY_FILES) // 2  # the comparison ran
    assert len(checked_retype["first"]) >= len(LEGACY_FILES)


@pytest.mark.skipif(not CORPORA.is_dir(), reason=f"no corpora at {CORPORA}")
def test_real_queries_retype_like_a_whole_annotation(checked_retype):
    # Two queries per corpus and dialect, those with the smallest schemas.
    for query in sample_queries(corpus_queries(CORPORA), 2):
        built = build_catalog(query.catalog)
        text = query_text(CORPORA, query)
        catalog = (
            with_own_ddl(built, text, query.dialect, query.file) if query.own_ddl else built.catalog
        )
        with contextlib.suppress(TranslationError):
            translate_script(
                text,
                query.dialect,
                catalog=catalog,
                assumptions=Assumptions().with_overrides(dict(query.assumptions)),
            )
    assert checked_retype["differences"] == []
    assert checked_retype["calls"]


def test_only_what_a_rewrite_reaches_is_stale():
    tree = sqlglot.parse_one(
        "WITH c AS (SELECT a + 1 AS x, b AS y FROM t) SELECT c.x, c.y, 2 * 3 AS z FROM c",
        read="duckdb",
    )
    annotate_types(tree, schema={"t": {"a": "INT", "b": "INT"}})
    added = next(tree.find_all(exp.Add))
    stale = {id(node) for node in stale_nodes(tree, [added])}
    outer_x = next(c for c in tree.find_all(exp.Column) if c.table == "c" and c.name == "x")
    outer_y = next(c for c in tree.find_all(exp.Column) if c.table == "c" and c.name == "y")
    assert id(added) in stale and id(added.this) in stale  # the rewrite and what is in it
    assert id(tree) in stale  # its ancestors
    assert id(outer_x) in stale  # what reads the output column it changed
    assert id(outer_y) not in stale  # what reads an output column it did not
    assert id(next(tree.find_all(exp.Mul))) not in stale


def test_a_column_read_from_a_set_operation_that_is_not_stale_keeps_its_type():
    # A BigQuery wildcard reads a UNION ALL of its tables; a rule rewriting an UNNEST of one
    # of its columns makes the columns reading that column stale, not the UNION: they are
    # typed from the branches' projections (lite__bq002 and bq008 were refused DIV-INTEGER).
    hits = "ARRAY<STRUCT<n BIGINT>>"
    schema = {"t1": {"id": "BIGINT", "hits": hits}, "t2": {"id": "BIGINT", "hits": hits}}
    tree = sqlglot.parse_one(
        "SELECT u.id AS id, x.h AS e FROM (SELECT t1.id AS id, t1.hits AS hits FROM t1 UNION ALL "
        "SELECT t2.id AS id, t2.hits AS hits FROM t2) AS u CROSS JOIN UNNEST(u.hits) AS x(h)",
        read="duckdb",
    )
    annotate_types(tree, schema=schema, dialect="duckdb")
    unnest = next(tree.find_all(exp.Unnest))
    rewritten = unnest.expressions[0].replace(exp.column("hits", "u"))
    retype(tree, [rewritten], schema, "duckdb")
    whole = annotate_types(tree.copy(), schema=schema, dialect="duckdb")
    assert _types(tree) == _types(whole)
    assert rewritten.type.sql("duckdb") == "STRUCT(n BIGINT)[]"
    element = next(c for c in tree.find_all(exp.Column) if c.table == "x")
    assert element.type.sql("duckdb") == "STRUCT(n BIGINT)"


@pytest.mark.parametrize(
    "dialect", ["snowflake", "tsql", "teradata", "oracle", "bigquery", "redshift"]
)
def test_what_rules_write_whose_type_is_its_own_types_like_a_whole_annotation(dialect):
    # Literals, units, type names, intervals of a literal amount, CASTs and EXTRACTs over
    # what they copied are typed without the annotator's walk (sql/retype.py:
    # type_by_children); their parents too (the next case).
    schema = {"t": {"a": "INT", "d": "DATE"}}
    tree = sqlglot.parse_one("SELECT t.a AS a, t.d AS d FROM t AS t", read="duckdb")
    annotate_types(tree, schema=schema, dialect=dialect)
    for node in tree.walk():
        node.meta["source"] = True  # parsed, as the translator marks it
    a, d = (projection.this for projection in tree.selects)
    cast = exp.Cast(this=a.copy(), to=exp.DataType.build("DECIMAL(10, 2)"))
    extract = exp.Extract(this=exp.var("DAY"), expression=d.copy())
    written = [
        a.replace(exp.Add(this=cast, expression=exp.Literal.number("1.5"))),
        d.replace(
            exp.Add(
                this=d.copy(),
                expression=exp.Interval(this=exp.Literal.string("3"), unit=exp.var("DAY")),
            )
        ),
    ]
    tree.select(extract.as_("e"), exp.Literal.string("x").as_("s"), exp.true().as_("b"), copy=False)
    written.extend(projection.this for projection in tree.selects[2:])
    retype(tree, written, schema, dialect)
    whole = annotate_types(tree.copy(), schema=schema, dialect=dialect)
    assert _types(tree) == _types(whole)
    extract = tree.selects[2].this  # (as_ aliased a copy)
    assert cast.type is cast.to and extract.type.this == exp.DType.INT  # as annotation gives
    literals = list(tree.find_all(exp.Literal))
    assert len(literals) == 5 and all(literal.meta.get("nonnull") for literal in literals)


@pytest.mark.parametrize(
    ("dialect", "depth"),
    # One chain deeper than Python's recursion limit (a long concatenation a rule wrote).
    [
        ("snowflake", 1100),
        ("tsql", 2),
        ("teradata", 2),
        ("oracle", 2),
        ("bigquery", 2),
        ("redshift", 2),
    ],
)
def test_what_rules_write_over_typed_operands_is_typed_without_the_annotators_walk(
    dialect, depth, monkeypatch
):
    # Operators, CASEs, COALESCEs, parentheses and aliases a rule wrote over what is typed
    # are typed by sqlglot's own annotator function for each, children before parents
    # (sql/retype.py: type_by_children), NULLs included. Only the column the rule wrote
    # is left to the annotator's walk.
    schema = {"t": {"a": "INT", "s": "VARCHAR"}}
    tree = sqlglot.parse_one("SELECT t.a AS a, t.s AS s FROM t AS t", read="duckdb")
    annotate_types(tree, schema=schema, dialect=dialect)
    for node in tree.walk():
        node.meta["source"] = True  # parsed, as the translator marks it
    a, s = (projection.this for projection in tree.selects)
    chain: exp.Expr = a.copy()
    for _ in range(depth):
        chain = exp.Add(this=chain, expression=exp.Literal.number(1))
    case = exp.Case(
        ifs=[exp.If(this=exp.GT(this=a.copy(), expression=exp.Literal.number(1)), true=chain)],
        default=exp.Paren(this=exp.Coalesce(this=exp.Null(), expressions=[a.copy()])),
    )
    written = [a.replace(case), s.replace(exp.Column(this=exp.to_identifier("s", quoted=True)))]
    typed_first: list[set[int]] = []  # what is typed when the annotator's walk starts

    class Annotator(TypeAnnotator):
        def annotate_expression(self, expression, scope=None):
            typed_first.append(set(self._visited))
            return super().annotate_expression(expression, scope)

    monkeypatch.setattr(sql.retype, "TypeAnnotator", Annotator)
    retype(tree, written, schema, dialect)
    whole = annotate_types(tree.copy(), schema=schema, dialect=dialect)
    assert _types(tree) == _types(whole)
    assert tree.selects[0].type.this == exp.DType.INT
    # The walk starts from the query (a column is typed from its scope) with the CASE and
    # everything in it typed already.
    assert typed_first and {id(node) for node in case.walk()} <= typed_first[0]
