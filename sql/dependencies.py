"""Which tables a legacy script defines, and which lake tables each of them reads: found by
parsing alone, without translating.

This is what the Dagster code location needs to draw the asset graph. It is a fraction of a
translation's work (no qualification, typing, rules or generation), so the graph of a
migration with thousands of files loads in seconds; each file is translated when its
``ansi/<name>`` asset materializes.

A table's reads are the names its query reads, resolved in the catalog as the translation
resolves them (a helper table folded in as a CTE, Oracle's ``DUAL``, a table function and a
CTE read nothing), so they equal the translation's ``source_tables`` whenever it succeeds
(``tests/pipelines/test_definitions.py`` holds the two equal over the legacy corpus).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from sqlglot import exp

from sql.assumptions import Assumptions
from sql.catalog import Catalog, legacy_key
from sql.diagnostics import TranslationError
from sql.rules import Context
from sql.source_dialects import semantics
from sql.translate import parse_script


@dataclass(frozen=True)
class TableDependencies:
    name: str
    reads: tuple[str, ...]  # lake tables, "zone.table", sorted


def script_dependencies(
    sql: str,
    dialect: str,
    *,
    catalog: Catalog,
    file: str = "<stdin>",
    name: str | None = None,
    assumptions: Assumptions | None = None,
    zone: str = "warehouse",
) -> tuple[TableDependencies, ...]:
    """Every table the script ``sql`` defines, in order, with the lake tables it reads; a
    table defined earlier in the script is read as ``<zone>.<name>``.

    Raises ``TranslationError`` when the text does not parse. Anything else the translation
    would refuse is left to it: a name the catalog does not resolve is no dependency here,
    and translating the file reports it at its line and column.
    """
    script = parse_script(sql, dialect, file=file, name=name, assumptions=assumptions)
    tables = []
    # The legacy names are copied once and added to in place: a copy per defined table made
    # a long script's scan quadratic.
    legacy = {d: dict(names) for d, names in catalog.legacy.items()}
    catalog = replace(catalog, legacy=legacy)
    for definition, table_name in zip(script.definitions, script.names, strict=True):
        # Each statement's names resolve under the settings in force where it stands (a
        # USE db before it: sql/session.py).
        settings = definition.assumptions or script.ctx.assumptions
        reads = _reads(definition.query, catalog, script.ctx, settings)
        tables.append(TableDependencies(table_name, reads))
        if definition.name_parts:
            key = legacy_key(definition.name_parts, dialect)
            legacy.setdefault(dialect, {})[key] = f"{zone}.{table_name}"
    return tuple(tables)


def _reads(
    query: exp.Query, catalog: Catalog, ctx: Context, assumptions: Assumptions
) -> tuple[str, ...]:
    ctes = {cte.alias_or_name.lower() for cte in query.find_all(exp.CTE)}
    found: set[str] = set()
    for table in query.find_all(exp.Table):
        if not isinstance(table.this, exp.Identifier):
            continue  # IDENTIFIER(...), a table function, UNNEST: no catalog name
        parts = [p for p in (table.args.get("catalog"), table.args.get("db"), table.this) if p]
        if len(parts) == 1 and table.name.lower().lstrip("#") in ctes:
            continue
        if (
            semantics(ctx.dialect).DUAL_IS_NO_TABLE
            and len(parts) == 1
            and table.name.upper() == "DUAL"
        ):
            continue
        try:
            resolution = catalog.resolve_name(
                parts, ctx.dialect, ctx.file, 1, 1, assumptions=assumptions
            )
        except TranslationError:
            continue  # unknown or ambiguous: the translation refuses it, located
        found.add(resolution.lake_table)
    return tuple(sorted(found))
