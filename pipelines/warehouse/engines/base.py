"""What every engine shares: binding lake tables into rendered SQL, errors, build results."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar

import sqlglot
from sqlglot import exp

from sql.diagnostics import TranslationError
from sql.engines import Engine
from sql.render import Schema, render

EngineName = Engine
# The engine a portability check compares against.
OTHER_ENGINE: dict[str, EngineName] = {"duckdb": "spark", "spark": "duckdb"}


class EngineError(RuntimeError):
    """The engine could not build or read a table. The message is the engine's own, which
    quotes the offending SQL line (DuckDB's ``LINE n:``, Spark's query context)."""


@dataclass(frozen=True)
class BuildResult:
    engine: str
    rendered_sql: str
    seconds: float


def table_name(zone: str, table: str) -> str:
    """``raw``, ``lineitem`` -> ``raw__lineitem``: the per-session view an engine registers."""
    return f"{zone}__{table}"


def bind_tables(
    ansi_sql: str,
    engine: EngineName,
    inputs: Mapping[str, Path],
    *,
    file: str,
    schema: Schema | None = None,
) -> str:
    """Render ``ansi_sql`` for ``engine`` and point its lake tables at session views.

    Rendering goes through ``sql.render`` so it is exact or refused; the tables are bound
    on the rendered tree, so the SQL is parsed and generated once. ``schema`` (the inputs'
    column types) lets the renderer use the engine's native forms of typed patterns.
    """
    try:
        return render(
            ansi_sql,
            engine,
            file=file,
            schema=schema,
            transform=lambda tree: _bind_tree(tree, inputs, file=file),
        )
    except TranslationError as exc:
        raise EngineError(str(exc)) from exc


def bind_views(sql: str, dialect: str, inputs: Mapping[str, Path], *, file: str) -> str:
    """Point each ``zone.table`` reference in ``sql`` (written in ``dialect``) at the view
    ``zone__table`` that engines register over the table's published Parquet files."""
    return _bind_tree(sqlglot.parse_one(sql, read=dialect), inputs, file=file).sql(
        dialect, pretty=True
    )


def _bind_tree(tree: exp.Expr, inputs: Mapping[str, Path], *, file: str) -> exp.Expr:
    ctes = {cte.alias_or_name for cte in tree.find_all(exp.CTE)}
    missing = []
    for node in list(tree.find_all(exp.Table)):
        if not node.db and node.name in ctes:
            continue
        key = f"{node.db}.{node.name}" if node.db else node.name
        if key not in inputs:
            missing.append(key)
            continue
        view = exp.to_identifier(table_name(node.db, node.name), quoted=True)
        alias = node.args.get("alias") or exp.TableAlias(
            this=exp.to_identifier(node.name, quoted=True)
        )
        node.replace(exp.Table(this=view, alias=alias))
    if missing:
        names = sorted(set(missing))
        raise EngineError(
            f"{file}: reads {', '.join(names)}, which {'is' if len(names) == 1 else 'are'} "
            f"not among its inputs ({', '.join(sorted(inputs)) or 'none'})"
        )
    return tree


class Engine(ABC):
    name: ClassVar[EngineName]

    @abstractmethod
    def build(
        self, ansi_sql: str, inputs: Mapping[str, Path], out_dir: Path, *, file: str
    ) -> BuildResult:
        """Run ``ansi_sql`` over ``inputs`` (``"zone.table"`` -> published folder) and write
        the result as Parquet into ``out_dir`` (created if missing, expected empty)."""
