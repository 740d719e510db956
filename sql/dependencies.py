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
``_TABLE_SUFFIX`` bounds prune them). A name no table answers to is kept as the located error
the translation would give (``unresolved``), so that a project reports it when it loads
rather than when it runs.

A project's files read each other's tables (a chain of migrated queries): each table keeps
the names it reads as written, so that they can be resolved again once every file's tables
are known (``project_catalog``, ``resolve_reads``), and a cycle among them is found
(``find_cycle``) before anything runs.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass, replace

from sqlglot import exp

from sql.assumptions import Assumptions
from sql.catalog import Catalog, CatalogError, ProjectTable, fold, legacy_key
from sql.diagnostics import Diagnostic, TranslationError
from sql.rules import Context
from sql.source_dialects import semantics
from sql.translate import parse_script
from sql.wildcards import is_wildcard, wildcard_reads

# What a name no catalog table (or more than one) answers to is refused with.
NAME_RULES = frozenset({"NAME-UNKNOWN", "NAME-AMBIGUOUS"})

# A name as written: each part's text and whether it was quoted.
WrittenName = tuple[tuple[str, bool], ...]
# The zone a legacy file's tables are built in (its translations' ``zone``).
TABLE_ZONE = "warehouse"


@dataclass(frozen=True)
class NameRead:
    """A table name a query reads, as written, and where (in the file: a template's own
    line and column once relocated)."""

    parts: WrittenName
    line: int = 1
    col: int = 1


@dataclass(frozen=True)
class TableDependencies:
    name: str
    reads: tuple[str, ...]  # lake tables, "zone.table", sorted
    # What ``reads`` was resolved from, to resolve again among a project's tables: the
    # tables of the same script it reads (resolved once and for all) and every other name,
    # as written, where it is written.
    own: tuple[str, ...] = ()
    names: tuple[NameRead, ...] = ()
    # The name its script's CREATE TABLE (or INSERT INTO) wrote for it; () for a query.
    written: WrittenName = ()
    # Each name of ``names`` that no table answers to (NAME-UNKNOWN) or more than one does
    # (NAME-AMBIGUOUS), located: what translating it would refuse (``resolve_reads``).
    unresolved: tuple[Diagnostic, ...] = ()
    # The refusals of names resolved once and for all (a wildcard that matches no table).
    fixed_unresolved: tuple[Diagnostic, ...] = ()


@dataclass(frozen=True)
class DefinedTables:
    """One legacy file and the tables it defines, as ``project_catalog`` and
    ``find_cycle`` see it."""

    file: str  # as messages show it
    dialect: str
    tables: tuple[TableDependencies, ...]


def script_dependencies(
    sql: str,
    dialect: str,
    *,
    catalog: Catalog,
    file: str = "<stdin>",
    name: str | None = None,
    assumptions: Assumptions | None = None,
    zone: str = TABLE_ZONE,
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
    own: set[str] = set()
    for definition, table_name in zip(script.definitions, script.names, strict=True):
        # Each statement's names resolve under the settings in force where it stands (a USE
        # db before it: sql/session.py).
        ctx = replace(script.ctx, assumptions=definition.assumptions or script.ctx.assumptions)
        names, wildcards = _names(definition.query, ctx)
        found: set[str] = set()
        ours: set[str] = set()
        others: list[NameRead] = []
        fixed: dict[Diagnostic, None] = {}
        for table, parts in wildcards:
            # Raw tables only (a wildcard never matches a project table): resolved for good.
            matched, errors = wildcard_reads(table, parts, catalog, ctx)
            found.update(matched)
            ours.update(matched)
            fixed.update(dict.fromkeys(d for d in errors if d.rule in NAME_RULES))
        for parts, (line, col) in names:
            lake = _resolved(parts, catalog, ctx)
            if lake is not None:
                found.add(lake)
            if lake in own:
                ours.add(lake)
            else:
                others.append(NameRead(_written(parts), line, col))
        tables.append(
            TableDependencies(
                table_name,
                tuple(sorted(found)),
                own=tuple(sorted(ours)),
                names=tuple(dict.fromkeys(others)),
                written=_written(definition.name_parts),
                fixed_unresolved=tuple(fixed),
            )
        )
        if definition.name_parts:
            key = legacy_key(definition.name_parts, dialect)
            legacy.setdefault(dialect, {})[key] = f"{zone}.{table_name}"
            own.add(f"{zone}.{table_name}")
    return tuple(tables)


def _written(parts: Sequence[exp.Identifier]) -> WrittenName:
    return tuple((p.name, bool(p.quoted)) for p in parts)


def _identifiers(name: WrittenName) -> list[exp.Identifier]:
    return [exp.Identifier(this=text, quoted=quoted) for text, quoted in name]


def _resolved(parts: Sequence[exp.Identifier], catalog: Catalog, ctx: Context) -> str | None:
    try:
        resolution = catalog.resolve_name(
            parts, ctx.dialect, ctx.file, 1, 1, assumptions=ctx.assumptions
        )
    except TranslationError:
        return None  # unknown or ambiguous: the translation refuses it, located
    return resolution.lake_table


def _names(
    query: exp.Query, ctx: Context
) -> tuple[
    list[tuple[list[exp.Identifier], tuple[int, int]]], list[tuple[exp.Table, list[exp.Identifier]]]
]:
    """The table names ``query`` reads, as written, and where: not its CTEs, Oracle's DUAL
    or a table function; and apart, its BigQuery wildcard tables with their names."""
    ctes = {cte.alias_or_name.lower() for cte in query.find_all(exp.CTE)}
    found: list[tuple[list[exp.Identifier], tuple[int, int]]] = []
    wildcards: list[tuple[exp.Table, list[exp.Identifier]]] = []
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
            wildcards.append((table, parts))
            continue
        found.append((parts, ctx.locate(table)))
    return found, wildcards


def resolve_reads(
    table: TableDependencies,
    catalog: Catalog,
    dialect: str,
    assumptions: Assumptions | None = None,
    file: str = "<stdin>",
) -> TableDependencies:
    """``table`` (of a ``dialect`` file) with its names resolved in ``catalog`` (which holds
    the project's tables: ``project_catalog``): ``reads``, and ``unresolved``, each name
    that is no dependency, as the located refusal its translation gives."""
    found = set(table.own)
    unresolved: dict[Diagnostic, None] = dict.fromkeys(table.fixed_unresolved)
    for name in table.names:
        try:
            resolution = catalog.resolve_name(
                _identifiers(name.parts), dialect, file, name.line, name.col, assumptions
            )
        except TranslationError as error:
            unresolved.update(dict.fromkeys(d for d in error.diagnostics if d.rule in NAME_RULES))
            continue
        found.add(resolution.lake_table)
    located = sorted(unresolved, key=lambda d: (d.line, d.col))
    return replace(table, reads=tuple(sorted(found)), unresolved=tuple(located))


def project_catalog(files: Iterable[DefinedTables], zone: str = TABLE_ZONE) -> Catalog:
    """The names of the tables ``files`` define, as a catalog (no columns: each table's
    come from its translation): every table is a ``ProjectTable``, and a table a script's
    CREATE TABLE named is also a legacy name of its dialect. Raises ``CatalogError`` when
    two files write the same legacy name for different tables."""
    project: dict[str, ProjectTable] = {}
    legacy: dict[str, dict[tuple[str, ...], str]] = {}
    origin: dict[tuple[str, tuple[str, ...]], str] = {}
    for defined in files:
        for table in defined.tables:
            lake = f"{zone}.{table.name}"
            if not table.written:
                project[lake] = ProjectTable(table.name, defined.file)
                continue
            text, quoted = table.written[-1]
            project[lake] = ProjectTable(text, defined.file, defined.dialect, quoted)
            key = legacy_key(_identifiers(table.written), defined.dialect)
            known = legacy.setdefault(defined.dialect, {})
            if known.get(key, lake) != lake:
                raise CatalogError(
                    f"{defined.file}: creates {'.'.join(key)}, which "
                    f"{origin[(defined.dialect, key)]} creates too ({known[key]})"
                )
            known[key] = lake
            origin[(defined.dialect, key)] = defined.file
    return Catalog(tables={}, legacy=legacy, project=project)


def names_for(
    project: Catalog,
    tables: Iterable[TableDependencies],
    dialect: str,
    exclude: Collection[str] = (),
) -> Catalog:
    """Of ``project`` (``project_catalog``), the tables the names ``tables`` read (in a
    ``dialect`` file) can mean: those whose table name is the last part of one of them,
    but not those of ``exclude`` (the file's own: ``without_tables``)."""
    last = {
        fold(exp.Identifier(this=text, quoted=quoted), dialect)
        for table in tables
        for name in table.names
        for text, quoted in name.parts[-1:]
    }
    kept = {
        lake: table
        for lake, table in project.project.items()
        if lake not in exclude
        and fold(exp.Identifier(this=table.name, quoted=table.quoted), dialect) in last
    }
    legacy = {
        d: {key: lake for key, lake in names.items() if lake in kept}
        for d, names in project.legacy.items()
    }
    return Catalog(tables={}, legacy={d: n for d, n in legacy.items() if n}, project=kept)


def without_tables(catalog: Catalog, lakes: Collection[str]) -> Catalog:
    """``catalog`` without the project tables ``lakes``, by any name: what a file that
    builds them resolves its own names in. A file never reads a table it builds itself (a
    query named after the source it cleans reads the source), so that its name means
    whatever else it can."""
    return replace(
        catalog,
        project={t: p for t, p in catalog.project.items() if t not in lakes},
        legacy={
            d: {key: lake for key, lake in names.items() if lake not in lakes}
            for d, names in catalog.legacy.items()
        },
    )


def find_cycle(files: Sequence[DefinedTables], zone: str = TABLE_ZONE) -> list[str] | None:
    """The files of a cycle among ``files`` (each reading a table the next one defines, the
    first again at the end), or None. Files, not tables: a file is translated in one piece,
    after every file whose tables any of its tables read, so a script whose first table
    reads a file that reads its second is a cycle too; a table reading an earlier table of
    its own script (``own``) is not."""
    defined_by = {f"{zone}.{t.name}": f.file for f in files for t in f.tables}
    reads: dict[str, list[str]] = {
        f.file: sorted(
            {defined_by[r] for t in f.tables for r in t.reads if r in defined_by and r not in t.own}
        )
        for f in files
    }
    state: dict[str, int] = {}  # 1: on the path being walked, 2: done
    for start in reads:
        if state.get(start):
            continue
        path, stack = [start], [iter(reads[start])]
        state[start] = 1
        while stack:
            step = next(stack[-1], None)
            if step is None:
                state[path.pop()] = 2
                stack.pop()
            elif state.get(step) == 1:
                return [*path[path.index(step) :], step]
            elif not state.get(step):
                state[step] = 1
                path.append(step)
                stack.append(iter(reads[step]))
    return None
