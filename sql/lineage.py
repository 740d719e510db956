"""Column lineage of a translation: which lake columns each output column is computed from."""

from __future__ import annotations

import sqlglot
from sqlglot import exp
from sqlglot.lineage import lineage
from sqlglot.schema import MappingSchema

from sql.ansi import Ansi, JsonTable
from sql.catalog import Catalog
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


def projection_lines(sql_text: str, dialect: str, column: str) -> tuple[int, int, str] | None:
    """Where the outermost SELECT of ``sql_text`` defines ``column`` (case-insensitive):
    (first line, last line, the source text of those lines); None when it is not found."""
    tree = sqlglot.parse_one(sql_text, read=dialect)
    select = tree if isinstance(tree, exp.Query) else tree.find(exp.Query)
    if select is None:
        return None
    for projection in select.selects:
        if projection.alias_or_name.lower() != column.lower():
            continue
        lines = [
            node.meta["line"]
            for node in projection.walk()
            if isinstance(node, exp.Identifier) and "line" in node.meta
        ]
        if not lines:
            return None
        first, last = min(lines), max(lines)
        text = "\n".join(sql_text.splitlines()[first - 1 : last])
        return first, last, text.strip()
    return None
