"""Column lineage of a translation: which lake columns each output column is computed from."""

from __future__ import annotations

from sqlglot import exp
from sqlglot.lineage import lineage
from sqlglot.schema import MappingSchema

from sql.ansi import Ansi
from sql.catalog import Catalog
from sql.translate import Translation


def column_lineage(translation: Translation, catalog: Catalog) -> dict[str, list[tuple[str, str]]]:
    """Output column -> sorted unique (lake table "zone.table", column) pairs it reads.

    Columns computed from no lake column (constants, COUNT(*)) map to an empty list.
    """
    schema = MappingSchema(catalog.schema(), dialect=Ansi, normalize=False)
    graphs = lineage(None, translation.ansi_sql, schema=schema, dialect=Ansi)
    result: dict[str, list[tuple[str, str]]] = {}
    for column in translation.columns:
        graph = graphs.get(column)
        found: set[tuple[str, str]] = set()
        for node in graph.walk() if graph is not None else ():
            table = node.expression
            if isinstance(table, exp.Table) and table.db:
                source = exp.to_column(node.name, dialect=Ansi).name
                found.add((f"{table.db}.{table.name}", source))
        result[column] = sorted(found)
    return result
