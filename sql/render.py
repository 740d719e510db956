"""Render stored ANSI SQL for an engine (DuckDB or Spark), losslessly or not at all."""

from __future__ import annotations

from typing import Literal

import sqlglot
from sqlglot import exp
from sqlglot.errors import ErrorLevel, SqlglotError

from sql.ansi import Ansi
from sql.diagnostics import Diagnostic, TranslationError, node_offset, offset_to_line_col

Engine = Literal["duckdb", "spark"]


def _refuse(ansi_sql: str, file: str, node: exp.Expr | None, message: str) -> TranslationError:
    offset = node_offset(node)
    line, col = offset_to_line_col(ansi_sql, offset) if offset is not None else (1, 1)
    return TranslationError([Diagnostic("error", "RENDER", message, file, line, col)])


def _check_fetch(tree: exp.Expr, engine: Engine, ansi_sql: str, file: str) -> None:
    # sqlglot renders FETCH FIRST n PERCENT / WITH TIES as a plain LIMIT n for both engines,
    # which silently changes the rows returned.
    for fetch in tree.find_all(exp.Fetch):
        options = fetch.args.get("limit_options")
        if options is not None and (options.args.get("percent") or options.args.get("with_ties")):
            kind = "PERCENT" if options.args.get("percent") else "WITH TIES"
            raise _refuse(
                ansi_sql, file, fetch, f"FETCH FIRST ... {kind} has no exact {engine} form"
            )


def _distinct_listagg_for_spark(tree: exp.Expr) -> exp.Expr:
    """LISTAGG(DISTINCT v, sep) WITHIN GROUP (ORDER BY v) -> array_join over collect_set.

    Spark 4.3 fails at run time (ClassCastException in its distinct-aggregate rewrite) when
    such a LISTAGG shares a SELECT with another DISTINCT aggregate. The replacement is the
    same value: the distinct non-null strings, sorted (binary order, as Spark's ORDER BY
    sorts strings), joined; NULL when there are none, where array_join would give ''.
    """
    for node in list(tree.find_all(exp.GroupConcat)):
        order = node.this
        if not (isinstance(order, exp.Order) and isinstance(order.this, exp.Distinct)):
            continue
        values, keys = order.this.expressions, order.expressions
        if len(values) != 1 or len(keys) != 1 or keys[0].this != values[0]:
            continue
        value = values[0]
        ordered = exp.Anonymous(
            this="array_sort",
            expressions=[exp.Anonymous(this="collect_set", expressions=[value.copy()])],
        )
        if keys[0].args.get("desc"):
            ordered = exp.Anonymous(this="reverse", expressions=[ordered])
        separator = node.args.get("separator") or exp.Literal.string(",")
        joined = exp.Anonymous(this="array_join", expressions=[ordered, separator.copy()])
        none = exp.EQ(this=exp.Count(this=value.copy()), expression=exp.Literal.number(0))
        node.replace(exp.Case(ifs=[exp.If(this=none, true=exp.Null())], default=joined))
    return tree


def render(ansi_sql: str, engine: Engine, *, file: str = "<ansi>") -> str:
    """``ansi_sql`` in ``engine``'s dialect; raises ``TranslationError`` (rule RENDER)."""
    if engine not in ("duckdb", "spark"):
        raise TranslationError(
            [Diagnostic("error", "RENDER", f"unknown engine {engine!r}", file, 1, 1)]
        )
    try:
        tree = sqlglot.parse_one(ansi_sql, read=Ansi)
    except SqlglotError as error:
        raise TranslationError(
            [Diagnostic("error", "RENDER", f"not ANSI SQL: {error}", file, 1, 1)]
        ) from None
    _check_fetch(tree, engine, ansi_sql, file)
    if engine == "spark":
        tree = _distinct_listagg_for_spark(tree)
    try:
        return tree.sql(engine, pretty=True, unsupported_level=ErrorLevel.RAISE)
    except SqlglotError as error:
        raise _refuse(ansi_sql, file, tree, str(error)) from None
