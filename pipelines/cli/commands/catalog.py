"""``plumbline catalog import``: a catalog from DDL, a lake or the project's sources; the
import itself is :mod:`pipelines.cli.catalog`'s."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from pipelines.cli.errors import fail_usage


@click.group()
def catalog() -> None:
    """Catalogs: legacy names -> lake tables, with their columns (sql/catalog.yaml's format)."""


@catalog.command("import")
@click.option("--from", "dialect", metavar="DIALECT", help="Dialect of the DDL FILEs.")
@click.option(
    "--from-lake",
    "from_lake",
    type=click.Path(path_type=Path),
    metavar="DIR",
    help="Read the Parquet schemas of a lake root (<zone>/<table>/ folders) instead of DDL.",
)
@click.option(
    "-o",
    "--out",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Write the catalog to this file (atomically) instead of stdout.",
)
@click.option("--zone", default="raw", show_default=True, help="Lake zone of imported DDL tables.")
@click.option(
    "--from-sources",
    "from_sources",
    is_flag=True,
    help="Read the project's declared sources (its defs.yaml) instead; with --from DIALECT "
    "DDL..., check the DDL against them and take its legacy names.",
)
@click.argument("files", nargs=-1, metavar="[FILE]...")
def catalog_import(
    dialect: str | None,
    from_lake: Path | None,
    out: Path | None,
    zone: str,
    from_sources: bool,
    files: tuple[str, ...],
) -> None:
    """Write a catalog from the legacy warehouse's CREATE TABLE DDL, a lake, or the sources.

    Types map to exact ANSI types; a type with none is kept as {opaque: TYPE} and reported
    as FILE:LINE:COL: warning[CATALOG-OPAQUE]. Other statements are skipped (info lines).
    An unparseable statement, or DDL that differs from the sources, exits 1 and writes
    nothing; usage errors exit 2.
    """
    from pipelines.cli.catalog import CatalogUsageError, run_import

    sources = None
    if from_sources:
        from pipelines.cli.location import LocationError, find_location

        try:
            _, project = find_location(Path.cwd()).migration(check_catalogs=False)
        except LocationError as exc:
            fail_usage(str(exc))
        sources = project.sources
    try:
        code = run_import(dialect, files, from_lake=from_lake, out=out, zone=zone, sources=sources)
    except CatalogUsageError as exc:
        fail_usage(str(exc))
    sys.exit(code)
