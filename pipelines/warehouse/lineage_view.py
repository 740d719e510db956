"""Column lineage as a person reads it in the Dagster UI: one row per output column,
``column <- expression at file:line <- upstream columns``. Pure: rows in, table cells out;
the facts come from :mod:`sql.lineage` (``projection_lines``, ``column_sources``)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from pipelines.lake.store import table_stats
from sql.lineage import column_sources, projection_lines

# Characters of an expression the table shows; the file and line point at the rest.
MAX_EXPRESSION = 120


@dataclass(frozen=True)
class LineageRow:
    """One output column: the expression that computes it, where that expression is written
    (``sql/legacy/<dialect>/<file>.sql:<line>`` or ``sql/ansi/<file>.sql:<line>``, empty when
    unknown), and the upstream columns it reads (``raw/lineitem.l_shipdate``)."""

    column: str
    expression: str = ""
    location: str = ""
    sources: Sequence[str] = field(default_factory=tuple)


def markdown_text(text: str) -> str:
    """``text`` safe inside a Markdown table cell: one line, ``|`` and backticks escaped
    (SQL from a user may hold both), and ``<`` so that no HTML is rendered."""
    flat = " ".join(text.split())
    for raw, escaped in (("\\", "\\\\"), ("|", "\\|"), ("`", "\\`"), ("<", "&lt;")):
        flat = flat.replace(raw, escaped)
    return flat


def short_expression(expression: str, limit: int = MAX_EXPRESSION) -> str:
    """``expression`` on one line (without the comma that ends a projection), cut to ``limit`` characters with an ellipsis."""
    flat = " ".join(expression.split()).rstrip(",").rstrip()
    return flat if len(flat) <= limit else flat[: limit - 1].rstrip() + "…"


def lineage_records(rows: Sequence[LineageRow]) -> list[dict[str, str]]:
    """One record per output column (``column``, ``expression`` on one line and cut short,
    ``defined at``, ``reads``), the cells of the lineage table the Dagster UI shows; a column
    that reads no upstream column (a constant) says so."""
    return [
        {
            "column": row.column,
            "expression": short_expression(row.expression) if row.expression else "",
            "defined at": row.location,
            "reads": ", ".join(row.sources) or "(no column)",
        }
        for row in rows
    ]


def upstream_name(table: str, column: str) -> str:
    """A lake column as the UI names assets: ``raw/lineitem.l_shipdate``."""
    return f"{table.replace('.', '/', 1)}.{column}"


def lineage_rows(
    columns: Sequence[str],
    sources: Mapping[str, Sequence[Sequence[str]]],
    defining_sql: str,
    dialect: str | None,
    location: str,
    table: str | None = None,
) -> list[LineageRow]:
    """A row per output column: where ``defining_sql`` (the legacy file in ``dialect``, or
    portable ANSI SQL with ``dialect`` None; ``location`` its repository path) computes it,
    and the (lake table, column) pairs ``sources`` (``sql.lineage.column_sources``) says it
    reads. In a script, ``table`` names the statement that defines the table."""
    rows = []
    for column in columns:
        found = projection_lines(defining_sql, dialect, column, table)
        expression, at = "", location
        if found is not None:
            first, last, expression = found
            at = f"{location}:{first}" if first == last else f"{location}:{first}-{last}"
        rows.append(
            LineageRow(
                column,
                expression,
                at,
                tuple(upstream_name(t, c) for t, c in sources.get(column, ())),
            )
        )
    return rows


def portable_sources(
    ansi_sql: str, columns: Sequence[str], inputs: Mapping[str, Path]
) -> dict[str, list[tuple[str, str]]]:
    """Output column -> (lake table, column) pairs of portable ANSI SQL (``sql/ansi/``),
    over the columns of the pinned ``inputs`` ({"zone.table": version folder}) it read."""
    schema: dict[str, dict[str, dict[str, str]]] = {}
    for key, folder in inputs.items():
        zone, table = key.split(".", 1)
        # Lineage resolves names only; every column reads as text so that an engine type
        # the ANSI dialect does not spell (a Parquet timestamp unit) cannot stop it.
        schema.setdefault(zone, {})[table] = {
            name: "TEXT" for name, _, _ in table_stats(folder).schema
        }
    return column_sources(ansi_sql, list(columns), schema)
