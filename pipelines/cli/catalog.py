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
    """Import and write the catalog; returns the exit code (0, or 1 when refused).
    Raises ``CatalogUsageError`` for a command line that cannot run.

    With ``sources`` (a project's declared raw sources), the tables are the sources' own
    columns and types; DDL given as well is checked against them (one line per column or
    type that differs, naming both, and nothing written) and contributes its legacy names."""
    if sources is not None:
        if from_lake is not None:
            raise CatalogUsageError("give either --from-sources or --from-lake DIR, not both")
        if (dialect is None) != (not files):
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
    if sources is not None:
        text = _from_sources(sources, dialect, files, zone)
    elif from_lake is not None:
        text = _from_lake(from_lake)
    else:
        assert dialect is not None
        text = _from_ddl(dialect, files, zone)
    if text is None:
        return 1
    if out is None:
        click.echo(text, nl=False)
    else:
        write_atomic(out, text)
    return 0


def _read(file: str) -> str:
    try:
        return Path(file).read_text()
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


def _from_sources(
    sources: Sequence[Source], dialect: str | None, files: Sequence[str], zone: str
) -> str | None:
    from pipelines.lake.ingest import catalog_differences, source_catalog

    if not sources:
        raise CatalogUsageError("--from-sources: the project declares no sources")
    try:
        derived = source_catalog(sources)
    except SourceError as exc:
        click.echo(f"plumbline: error: {exc}", err=True)
        return None
    for warning in derived.warnings:
        click.echo(warning, err=True)
    legacy = None
    if dialect is not None:
        ddl = _import_ddl(dialect, files, zone)
        if ddl is None:
            return None
        differences = catalog_differences(
            ddl.catalog_tables(),
            derived,
            ddl_source=f"the {dialect} DDL ({', '.join(files)})",
            derived_source={s.lake_table: describe(s) for s in sources},
        )
        for line in differences:
            click.echo(f"error[CATALOG-DIFFERS]: {line}", err=True)
        if differences:
            click.echo(
                f"catalog import: the sources and the DDL differ in {len(differences)} "
                "place(s); nothing written",
                err=True,
            )
            return None
        legacy = ddl.catalog_legacy()
    columns = sum(len(c) for c in derived.tables.values())
    click.echo(
        f"catalog import: {len(derived.tables)} tables, {columns} columns from "
        f"{len(sources)} declared source(s)"
        + (f", checked against the {dialect} DDL" if dialect else ""),
        err=True,
    )
    return catalog_yaml(
        derived.tables, opaque=derived.opaque, legacy=legacy, source="the declared sources"
    )
