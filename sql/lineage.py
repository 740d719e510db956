"""Column lineage of a translation: which lake columns each output column is computed from."""

from __future__ import annotations

import functools

import sqlglot
from sqlglot import exp
from sqlglot.lineage import lineage
from sqlglot.schema import MappingSchema

from sql.ansi import Ansi, JsonTable
from sql.catalog import Catalog
from sql.client_commands import read_bteq
from sql.source_dialects import SOURCE_DIALECTS, semantics
from sql.translate import Translation
from sql.tree import range_source


def column_lineage(translation: Translation, catalog: Catalog) -> dict[str, list[tuple[str, str]]]:
    """Output column -> sorted unique (lake table "zone.table", column) pairs it reads.

    Columns computed from no lake column (constants, COUNT(*)) map to an empty list.
    """
    return column_sources(
        translation.ansi_sql,
        list(translation.columns),
        catalog.schema(translation.source_tables),
    )


def column_sources(
    ansi_sql: str, columns: list[str], schema: dict[str, dict[str, dict[str, str]]]
) -> dict[str, list[tuple[str, str]]]:
    """Like :func:`column_lineage` for any ANSI query over tables ``schema`` describes
    ({zone: {table: {column: type}}}): output column -> (zone.table, column) pairs."""
    mapping = MappingSchema(schema, dialect=Ansi, normalize=False)
    graphs = lineage(None, ansi_sql, schema=mapping, dialect=Ansi)
    result: dict[str, list[tuple[str, str]]] = {}
    for column in columns:
        graph = graphs.get(column)
        found: set[tuple[str, str]] = set()
        for node in graph.walk() if graph is not None else ():
            table = node.expression
            if isinstance(table, exp.Table) and isinstance(table.this, JsonTable):
                found |= _json_table_sources(table)
            elif isinstance(table, exp.Table) and table.db:
                source = exp.to_column(node.name, dialect=Ansi).name
                found.add((f"{table.db}.{table.name}", source))
        result[column] = sorted(found)
    return result


def _json_table_sources(table: exp.Table) -> set[tuple[str, str]]:
    """The lake columns a JSON_TABLE's rows come from (the columns of its JSON input, or of
    the JSON_TABLE those come from): sqlglot's lineage stops at a table function."""
    found: set[tuple[str, str]] = set()
    for column in table.this.this.find_all(exp.Column):
        source = range_source(column)
        if not isinstance(source, exp.Table):
            continue
        if isinstance(source.this, JsonTable):
            found |= _json_table_sources(source)
        elif source.db:
            found.add((f"{source.db}.{source.name}", column.name))
    return found


def projection_lines(
    sql_text: str, dialect: str | None, column: str, table: str | None = None
) -> tuple[int, int, str] | None:
    """Where the outermost SELECT of ``sql_text`` defines ``column`` (case-insensitive):
    (first line, last line, the source text of those lines); None when it is not found.

    In a script, the SELECT is that of the statement that creates ``table`` (else of the
    last statement that has one)."""
    if dialect and semantics(dialect).DOT_COMMANDS:
        sql_text = read_bteq(sql_text).text  # no BTEQ command line is ever shown
    select = _defining_select(sql_text, dialect, table)
    if select is None:
        return None
    previous_end: int | None = None
    for projection in select.selects:
        identifiers = [
            node.meta
            for node in projection.walk()
            if isinstance(node, exp.Identifier) and "line" in node.meta
        ]
        ends = [meta["end"] for meta in identifiers if "end" in meta]
        if projection.alias_or_name.lower() != column.lower():
            previous_end = max(ends, default=previous_end)
            continue
        lines = [meta["line"] for meta in identifiers]
        if not lines:
            return None
        first, last = min(lines), max(lines)
        starts = [meta["start"] for meta in identifiers if "start" in meta]
        if previous_end is not None and starts:
            # A projection may open with a keyword (CASE, CAST) on a line of its own, which
            # carries no position: it starts after the comma that ends the one before.
            comma = sql_text.find(",", previous_end + 1, min(starts))
            if comma != -1:
                opening = len(sql_text) - len(sql_text[comma + 1 :].lstrip())
                first = min(first, sql_text.count("\n", 0, opening) + 1)
        text = "\n".join(sql_text.splitlines()[first - 1 : last])
        return first, last, text.strip()
    return None


@functools.lru_cache(maxsize=16)
def _parsed(sql_text: str, dialect: str | None) -> tuple[exp.Expression | None, ...]:
    # Parsed once for all the columns of a file (a view asks for each); callers only read
    # the trees. A source dialect is read by the parser translation used (it reads syntax
    # sqlglot's does not, such as Teradata's `x (CASESPECIFIC)`).
    read = SOURCE_DIALECTS.get(dialect, dialect) if dialect else dialect
    return tuple(sqlglot.parse(sql_text, read=read))


def _defining_select(sql_text: str, dialect: str | None, table: str | None) -> exp.Query | None:
    selects: list[tuple[str | None, exp.Query]] = []
    for tree in _parsed(sql_text, dialect):
        if tree is None:
            continue
        select = tree if isinstance(tree, exp.Query) else tree.find(exp.Query)
        if select is None:
            continue
        target = tree.this if isinstance(tree, exp.Create | exp.Insert) else None
        if isinstance(target, exp.Schema):
            target = target.this
        name = target.name.lower() if isinstance(target, exp.Table) else None
        selects.append((name, select))
    for name, select in selects:
        if table is not None and name == table.lower():
            return select
    return selects[-1][1] if selects else None
