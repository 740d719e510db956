"""A translated script as one script an engine runs as it is.

Each table a legacy script defines is translated on its own, and a later table reads an
earlier one as the lake table ``zone.name``. Rendered for DuckDB or Spark, the script
therefore builds every table it defines, in order, before the statements that read them:

- ``CREATE SCHEMA IF NOT EXISTS zone`` for each zone the script writes, first;
- a table (``CREATE TABLE ... AS``, ``INSERT INTO``): ``CREATE OR REPLACE TABLE zone.name AS
  query`` on DuckDB; on Spark, whose session catalog cannot replace a table in one
  statement (REPLACE TABLE AS SELECT needs a v2 catalog such as Delta), ``DROP TABLE IF
  EXISTS zone.name`` then ``CREATE TABLE zone.name AS query``;
- a view (``CREATE VIEW``): ``CREATE OR REPLACE VIEW zone.name AS query``, still a view, as
  the source made it (its readers see the tables it reads as they are when they read it);
- a bare query: the query itself.

Temporary helpers (``#temp``, ``SELECT ... INTO #t``, volatile tables, tables the script
drops again) are not among them: translation folds each into the queries that read it as a
CTE. Statements are built as sqlglot trees around each rendered query.
"""

from __future__ import annotations

from collections.abc import Callable

from sqlglot import exp

from sql.render import Engine, Schema, render
from sql.translate import ScriptTranslation, Translation

SchemaOf = Callable[[Translation], Schema | None]


def _name(table: Translation) -> exp.Table:
    return exp.table_(table.name, db=table.zone, quoted=True)


def _wrapped(table: Translation, engine: Engine) -> Callable[[exp.Expr], exp.Expr]:
    """The transform that makes a rendered query the statement that defines ``table``."""

    def wrap(query: exp.Expr) -> exp.Expr:
        if table.defines == "query":
            return query
        kind = "VIEW" if table.defines == "view" else "TABLE"
        replace = kind == "VIEW" or engine == "duckdb"
        return exp.Create(kind=kind, this=_name(table), expression=query, replace=replace)

    return wrap


def engine_statements(
    script: ScriptTranslation,
    engine: Engine,
    *,
    file: str = "<ansi>",
    schema_of: SchemaOf | None = None,
) -> list[tuple[Translation | None, str]]:
    """The statements of ``script`` rendered for ``engine``, in order, each with the table
    it defines (None for a CREATE SCHEMA); raises ``TranslationError`` (RENDER)."""
    statements: list[tuple[Translation | None, str]] = []
    zones = dict.fromkeys(t.zone for t in script.tables if t.defines != "query")
    for zone in zones:
        create = exp.Create(kind="SCHEMA", this=exp.table_(zone, quoted=True), exists=True)
        statements.append((None, create.sql(engine)))
    for table in script.tables:
        if engine == "spark" and table.defines == "table":
            drop = exp.Drop(kind="TABLE", tables=[_name(table)], exists=True)
            statements.append((table, drop.sql(engine)))
        rendered = render(
            table.ansi_sql,
            engine,
            file=file,
            schema=schema_of(table) if schema_of is not None else None,
            transform=_wrapped(table, engine),
        )
        statements.append((table, rendered))
    return statements


def engine_script(
    script: ScriptTranslation,
    engine: Engine,
    *,
    file: str = "<ansi>",
    schema_of: SchemaOf | None = None,
) -> str:
    """``script`` as one script ``engine`` runs as it is (see the module's docstring), each
    table's statements under a ``-- zone.table`` line (a bare query's under its name). A script of one table is its query
    alone, as ``ScriptTranslation.script_sql`` prints it."""
    if len(script.tables) == 1:
        [table] = script.tables
        schema = schema_of(table) if schema_of is not None else None
        return render(table.ansi_sql, engine, file=file, schema=schema).rstrip()
    blocks: list[str] = []
    current: Translation | None = None
    for table, statement in engine_statements(script, engine, file=file, schema_of=schema_of):
        text = f"{statement.rstrip()};"
        if table is not None and table is not current:
            label = table.name if table.defines == "query" else f"{table.zone}.{table.name}"
            text = f"-- {label}\n{text}"
            current = table
        blocks.append(text)
    return "\n\n".join(blocks)


__all__ = ["SchemaOf", "engine_script", "engine_statements"]
