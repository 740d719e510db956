"""Which tables a legacy script defines, and which lake tables each of them reads: found by
parsing alone, without translating.

This is what the Dagster code location needs to draw the asset graph. It is a fraction of a
translation's work (no qualification, typing, rules or generation), so the graph of a
migration with thousands of files loads in seconds; each file is translated when its
``ansi/<name>`` asset materializes.

A table's reads are the names its query reads, resolved in the catalog as the translation
resolves them (a helper table folded in as a CTE, Oracle's ``DUAL``, a table function and a
CTE read nothing), so they equal the translation's ``source_tables`` whenever it succeeds
(``tests/pipelines/test_definitions.py`` holds the two equal over the legacy corpus); a
BigQuery wildcard reads every table it matches, where the translation may read fewer (its
``_TABLE_SUFFIX`` bounds prune them). A name
the catalog does not resolve is kept as the located error the translation would give
(``unresolved``), so that a project reports it when it loads rather than when it runs.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from sqlglot import exp

from sql.assumptions import Assumptions
from sql.catalog import Catalog, legacy_key
from sql.diagnostics import Diagnostic, TranslationError
from sql.rules import Context
from sql.source_dialects import semantics
from sql.translate import parse_script
from sql.wildcards import is_wildcard, wildcard_reads

# What a name no catalog table (or more than one) answers to is refused with.
NAME_RULES = frozenset({"NAME-UNKNOWN", "NAME-AMBIGUOUS"})


@dataclass(frozen=True)
class TableDependencies:
    name: str
    reads: tuple[str, ...]  # lake tables, "zone.table", sorted
    # Each name the query reads that no catalog table answers to (NAME-UNKNOWN) or more than
    # one does (NAME-AMBIGUOUS), located in the text parsed, in text order: what translating
    # it would refuse.
    unresolved: tuple[Diagnostic, ...] = ()


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

    Raises ``TranslationError`` when the text does not parse. A name the catalog does not
    resolve is no dependency: it is kept, located, in ``unresolved``; anything else the
    translation would refuse is left to it.
    """
    script = parse_script(sql, dialect, file=file, name=name, assumptions=assumptions)
    tables = []
    # The legacy names are copied once and added to in place: a copy per defined table made
    # a long script's scan quadratic.
    legacy = {d: dict(names) for d, names in catalog.legacy.items()}
    catalog = replace(catalog, legacy=legacy)
    for definition, table_name in zip(script.definitions, script.names, strict=True):
        reads, unresolved = _reads(definition.query, catalog, script.ctx)
        tables.append(TableDependencies(table_name, reads, unresolved))
        if definition.name_parts:
            key = legacy_key(definition.name_parts, dialect)
            legacy.setdefault(dialect, {})[key] = f"{zone}.{table_name}"
    return tuple(tables)


def _reads(
    query: exp.Query, catalog: Catalog, ctx: Context
) -> tuple[tuple[str, ...], tuple[Diagnostic, ...]]:
    ctes = {cte.alias_or_name.lower() for cte in query.find_all(exp.CTE)}
    found: set[str] = set()
    unresolved: dict[Diagnostic, None] = {}
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
        if is_wildcard(table, ctx.dialect):
            tables, errors = wildcard_reads(table, parts, catalog, ctx)
            found.update(tables)
            unresolved.update(dict.fromkeys(d for d in errors if d.rule in NAME_RULES))
            continue
        line, col = ctx.locate(table)
        try:
            resolution = catalog.resolve_name(
                parts, ctx.dialect, ctx.file, line, col, assumptions=ctx.assumptions
            )
        except TranslationError as error:
            unresolved.update(dict.fromkeys(error.diagnostics))
            continue
        found.add(resolution.lake_table)
    located = sorted(unresolved, key=lambda d: (d.line, d.col))
    return tuple(sorted(found)), tuple(located)
