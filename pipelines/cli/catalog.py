"""``plumbline catalog import``: a catalog file from legacy DDL or from a lake's Parquet.

The catalog goes to stdout (or ``-o OUT``) and the command exits 0; diagnostics go to
stderr as ``FILE:LINE:COL: severity[RULE]: message``, and a statement that cannot be
parsed (or tables that cannot be told apart) exits 1 with nothing written.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Sequence
from pathlib import Path

import click

from pipelines.lake.catalog import LakeCatalogError, import_lake
from pipelines.lake.files import write_atomic
from pipelines.lake.sources import Source, SourceError, describe
from sql.catalog_import import TYPES, CatalogImportError, DdlImport, catalog_yaml, import_ddl
from sql.source_limits import SourceTooLarge, decoded, read_source

ZONE = re.compile(r"[a-z][a-z0-9_]*")


class CatalogUsageError(Exception):
    """The command line asks for something impossible; the message is one line."""


def run_import(
    dialect: str | None,
    files: Sequence[str],
    *,
    from_lake: Path | None,
    out: Path | None,
    zone: str,
    sources: Sequence[Source] | None = None,
) -> int:
    """Import and write the catalog; returns the exit code (0, 1 when refused, 2 for a DDL
    file over the size limits).
    Raises ``CatalogUsageError`` for a command line that cannot run.

    With ``sources`` (a project's declared raw sources), the tables are the sources' own
    columns and types; DDL given as well is checked against them (one line per column or
    type that differs, naming both, and nothing written) and contributes its legacy names."""
    if sources is not None:
        if from_lake is not None:
            raise CatalogUsageError("give either --from-sources or --from-lake DIR, not both")
        if dialect is not None and not files:
            raise CatalogUsageError("with --from-sources, DDL to check is --from DIALECT FILE...")
    elif from_lake is not None and (files or dialect is not None):
        raise CatalogUsageError("give either --from DIALECT FILE... or --from-lake DIR, not both")
    elif from_lake is None and (dialect is None or not files):
        raise CatalogUsageError(
            "give --from DIALECT and at least one DDL FILE, --from-lake DIR or --from-sources"
        )
    if dialect is not None and dialect not in TYPES:
        raise CatalogUsageError(
            f"--from: unknown dialect {dialect!r}; expected one of {', '.join(sorted(TYPES))}"
        )
    if not ZONE.fullmatch(zone):
        raise CatalogUsageError(f"--zone: {zone!r} is not a lake zone name (a-z, 0-9, _)")
    if out is not None and not out.parent.is_dir():
        raise CatalogUsageError(f"-o: no such folder {out.parent}")
    try:
        if sources is not None:
            text = _from_sources(sources, _ddl_groups(dialect, files), zone)
        elif from_lake is not None:
            text = _from_lake(from_lake)
        else:
            assert dialect is not None
            text = _from_ddl(dialect, files, zone)
    except SourceTooLarge as exc:
        # Bad input, refused before its text is parsed (sql/source_limits.py).
        for diagnostic in exc.diagnostics:
            click.echo(diagnostic.format(), err=True)
        return 2
    if text is None:
        return 1
    if out is None:
        click.echo(text, nl=False)
    else:
        write_atomic(out, text)
    return 0


def _read(file: str) -> str:
    """The DDL file's text; ``SourceTooLarge`` from its size, before it is read."""
    try:
        return decoded(read_source(Path(file), file))
    except (OSError, UnicodeDecodeError) as exc:
        reason = exc.strerror if isinstance(exc, OSError) else "not UTF-8 text"
        raise CatalogUsageError(f"cannot read {file}: {reason}") from None


def _import_ddl(dialect: str, files: Sequence[str], zone: str) -> DdlImport | None:
    """The DDL files imported, their diagnostics on stderr; None when a statement is refused."""
    sources = [(file, _read(file)) for file in files]
    # sqlglot logs a warning when it falls back to an opaque Command for a statement it does
    # not parse; such statements are reported as skipped, so the log is noise.
    logging.getLogger("sqlglot").setLevel(logging.ERROR)
    try:
        imported = import_ddl(sources, dialect, zone=zone)
    except CatalogImportError as exc:
        for diagnostic in exc.diagnostics:
            click.echo(diagnostic.format(), err=True)
        return None
    for diagnostic in imported.diagnostics:
        click.echo(diagnostic.format(), err=True)
    return imported


def _from_ddl(dialect: str, files: Sequence[str], zone: str) -> str | None:
    imported = _import_ddl(dialect, files, zone)
    if imported is None:
        return None
    columns = sum(len(t.columns) for t in imported.tables.values())
    opaque = sum(len(c) for c in imported.catalog_opaque().values())
    click.echo(
        f"catalog import: {len(imported.tables)} tables, {columns} columns ({opaque} opaque) "
        f"from {len(files)} {dialect} file(s)",
        err=True,
    )
    return imported.yaml()


def _from_lake(root: Path) -> str | None:
    if not root.is_dir():
        raise CatalogUsageError(f"--from-lake: no such folder {root}")
    try:
        imported = import_lake(root)
    except LakeCatalogError as exc:
        click.echo(f"plumbline: error: {exc}", err=True)
        return None
    for warning in imported.warnings:
        click.echo(warning, err=True)
    columns = sum(len(c) for c in imported.tables.values())
    opaque = sum(len(c) for c in imported.opaque.values())
    click.echo(
        f"catalog import: {len(imported.tables)} tables, {columns} columns ({opaque} opaque) "
        f"from the lake at {root}",
        err=True,
    )
    return catalog_yaml(imported.tables, opaque=imported.opaque, source="a lake's Parquet schemas")


def _ddl_groups(dialect: str | None, files: Sequence[str]) -> list[tuple[str, list[str]]]:
    """The DDL files by dialect: all of ``dialect``, or without it each file of the dialect
    its folder is named for (``ddl/oracle/*.sql``), as legacy SQL is laid out."""
    if dialect is not None:
        return [(dialect, list(files))] if files else []
    groups: dict[str, list[str]] = {}
    for file in files:
        folder = Path(file).parent.name.lower()
        if folder not in TYPES:
            raise CatalogUsageError(
                f"{file}: give --from DIALECT, or put each DDL file in a folder named for its "
                f"dialect ({', '.join(sorted(TYPES))})"
            )
        groups.setdefault(folder, []).append(file)
    return sorted(groups.items())


def _from_sources(
    sources: Sequence[Source], ddl_groups: Sequence[tuple[str, Sequence[str]]], zone: str
) -> str | None:
    """The catalog of the declared sources. With legacy DDL, each column takes the DDL's
    type (the legacy semantics translation reasons with) and its declared text, and the
    source's type where it is another (``lake:``) once the source's data shows the reading
    loses nothing; a lossy one is refused, naming both types, the column and a count."""
    from pipelines.lake.ingest import catalog_agreement, count_values, source_catalog

    if not sources:
        raise CatalogUsageError("--from-sources: the project declares no sources")
    try:
        derived = source_catalog(sources)
    except SourceError as exc:
        click.echo(f"plumbline: error: {exc}", err=True)
        return None
    for warning in derived.warnings:
        click.echo(warning, err=True)
    if not ddl_groups:
        columns = sum(len(c) for c in derived.tables.values())
        click.echo(
            f"catalog import: {len(derived.tables)} tables, {columns} columns from "
            f"{len(sources)} declared source(s)",
            err=True,
        )
        return catalog_yaml(derived.tables, opaque=derived.opaque, source="the declared sources")
    imports: list[DdlImport] = []
    for dialect, files in ddl_groups:
        imported = _import_ddl(dialect, files, zone)
        if imported is None:
            return None
        imports.append(imported)
    ddl_tables: dict[str, dict[str, str]] = {}
    ddl_opaque: dict[str, dict[str, str]] = {}
    declared_by: dict[str, DdlImport] = {}
    for imported in imports:
        for table, columns in imported.catalog_tables().items():
            if table in declared_by:
                raise CatalogUsageError(
                    f"{table} is declared by the {declared_by[table].dialect} and the "
                    f"{imported.dialect} DDL: import each dialect into its own catalog "
                    f"(--from {imported.dialect} ... -o catalog_{imported.dialect}.yaml) and "
                    "list them all under catalogs, where each dialect reads it with its types"
                )
            declared_by[table] = imported
            ddl_tables[table] = columns
        ddl_opaque.update(imported.catalog_opaque())
    shown = "; ".join(f"the {d} DDL ({', '.join(f)})" for d, f in ddl_groups)
    described = {s.lake_table: describe(s) for s in sources}
    agreement = catalog_agreement(
        ddl_tables, derived, ddl_opaque=ddl_opaque, ddl_source=shown, derived_source=described
    )
    problems = list(agreement.problems)
    if not problems:
        problems = _data_problems(sources, agreement, ddl_tables, declared_by, count_values)
    for line in problems:
        click.echo(f"error[CATALOG-DIFFERS]: {line}", err=True)
    if problems:
        click.echo(
            f"catalog import: the sources and the DDL differ in {len(problems)} place(s); "
            "nothing written",
            err=True,
        )
        return None
    return _agreed_catalog(sources, derived, agreement, imports, ddl_opaque, shown)


def _data_problems(sources, agreement, ddl_tables, declared_by, count_values) -> list[str]:
    """One line per column whose source values its legacy type cannot all hold."""
    problems = []
    checks = agreement.data_checks()
    for source in sources:
        table = source.lake_table
        if table not in checks:
            continue
        try:
            counts = count_values(source, checks[table])
        except SourceError as exc:
            problems.append(str(exc))
            continue
        for column, count in counts.items():
            if not count:
                continue
            name, read = agreement.columns[table][column]
            dialect = declared_by[table].dialect
            written = _declared_text(declared_by[table], table, name)
            problems.append(
                f"{table}.{column}: {written} in the {dialect} DDL ({read.legacy}) but "
                f"{read.lake} in {describe(source)}: {count:,} value(s) the legacy type "
                f"cannot hold (it needs: {read.note or 'the same type'})"
            )
    return problems


def _declared_text(imported: DdlImport, table: str, column: str) -> str:
    declared = imported.catalog_declared().get(table, {}).get(column)
    return declared[1] if declared else imported.catalog_tables()[table][column]


def _agreed_catalog(sources, derived, agreement, imports, ddl_opaque, shown) -> str:
    tables: dict[str, dict[str, str]] = {}
    opaque: dict[str, dict[str, str]] = {}
    physical: dict[str, dict[str, str]] = {}
    declared: dict[str, dict[str, tuple[str, str]]] = {}
    notes: dict[str, dict[str, str]] = {}
    required: dict[str, set[str]] = {}
    casespecific: dict[str, dict[str, bool]] = {}
    legacy: dict[str, dict[str, str]] = {}
    by_table = {t: i for i in imports for t in i.tables}
    for imported in imports:
        for dialect, names in imported.catalog_legacy().items():
            legacy.setdefault(dialect, {}).update(names)
    for table, columns in agreement.columns.items():
        imported = by_table[table]
        ddl = imported.catalog_tables()[table]
        ddl_declared = imported.catalog_declared().get(table, {})
        ddl_required = imported.catalog_required().get(table, frozenset())
        ddl_case = imported.catalog_casespecific().get(table, {})
        tables[table] = {}
        for column, (name, read) in columns.items():
            if read is None:  # opaque in the DDL
                tables[table][column] = ddl_opaque[table][name]
                opaque.setdefault(table, {})[column] = ddl_opaque[table][name]
            else:
                tables[table][column] = ddl[name]
                if read.cast:
                    physical.setdefault(table, {})[column] = read.lake
                if read.cast or read.offending is not None:
                    dialect, written = ddl_declared.get(name, (imported.dialect, ddl[name]))
                    stored = f"stored as {read.lake}"
                    checked = " (checked on the data)" if read.offending is not None else ""
                    notes.setdefault(table, {})[column] = (
                        f"{dialect} {written} ({ddl[name]}) {stored}: {read.note}{checked}"
                    )
            if name in ddl_declared:
                declared.setdefault(table, {})[column] = ddl_declared[name]
            if name in ddl_required:
                required.setdefault(table, set()).add(column)
            if name in ddl_case:
                casespecific.setdefault(table, {})[column] = ddl_case[name]
    for table in agreement.undeclared:
        tables[table] = dict(derived.tables[table])
        if table in derived.opaque:
            opaque[table] = dict(derived.opaque[table])
        click.echo(
            f"catalog import: {table}: not in {shown}: typed as its source holds it, with no "
            "legacy name (another dialect's DDL may declare it: import that into its own "
            "catalog)",
            err=True,
        )
    for table, columns in sorted(notes.items()):
        for column, note in columns.items():
            click.echo(f"catalog import: {table}.{column}: {note}", err=True)
    count = sum(len(c) for c in tables.values())
    click.echo(
        f"catalog import: {len(tables)} tables, {count} columns from {len(sources)} declared "
        f"source(s), checked against {shown}",
        err=True,
    )
    return catalog_yaml(
        tables,
        opaque=opaque,
        legacy=legacy,
        required=required,
        casespecific=casespecific,
        declared=declared,
        physical=physical,
        notes=notes,
        source="the declared sources and " + ", ".join(f"the {i.dialect} DDL" for i in imports),
    )
