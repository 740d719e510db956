"""``plumbline query``: one read-only DuckDB query over the published lake tables."""

from __future__ import annotations

import sys

import click

from pipelines.cli.environment import load_settings
from pipelines.cli.errors import fail_usage


@click.command()
@click.argument("sql")
@click.option("--csv", "as_csv", is_flag=True, help="Print CSV instead of a table.")
@click.option(
    "--max-rows", default=40, show_default=True, help="Rows shown in the table (CSV prints all)."
)
@click.option(
    "--reveal",
    "reveal",
    multiple=True,
    metavar="COLUMN",
    help="Show a masked column in the clear (COLUMN or zone.table.COLUMN; repeatable). A "
    "restricted one needs PLUMBLINE_ALLOW_REVEAL=1. Each reveal is logged in "
    "$PLUMBLINE_HOME/logs/access.jsonl.",
)
def query(sql: str, as_csv: bool, max_rows: int, reveal: tuple[str, ...]) -> None:
    """Run one read-only DuckDB query (SELECT or WITH) over the published lake tables, e.g.

    plumbline query "SELECT * FROM warehouse.customer_profile LIMIT 5"

    Tables are named zone.table (raw.orders, warehouse.<name>). Columns their contracts
    classify restricted or confidential (and what raw columns they come from) are shown
    masked, as in check results, unless --reveal names them.
    """
    settings = load_settings()
    from pipelines.contracts.masking import Masker
    from pipelines.lake.store import Lake
    from pipelines.warehouse.query import ReadOnlyQueryError, run_read_only, tables_read
    from pipelines.warehouse.query_masking import (
        QueryMasking,
        RevealError,
        masked_columns,
        record_access,
    )

    lake = Lake(settings.lake_root)
    tables = lake.published()
    try:
        read = tables_read(sql)
    except ReadOnlyQueryError as exc:
        click.echo(f"plumbline: error: {exc}", err=True)
        sys.exit(1)
    masker = Masker(
        settings.masking_key.encode() if settings.masking_key else None,
        key_file=settings.masking_key_path,
    )
    masking = QueryMasking(
        masked_columns(lake, settings.published_contracts_root, settings.ansi_root), masker
    )
    try:
        masking, revealed = masking.revealing(reveal, read, allow_restricted=settings.allow_reveal)
    except RevealError as exc:
        fail_usage(str(exc))
    if revealed:
        try:
            record_access(settings.access_log, sql, revealed)
        except OSError as exc:
            fail_usage(f"{settings.access_log}: cannot record the reveal: {exc.strerror}")
    try:
        result = run_read_only(sql, tables, masking=masking)
    except ReadOnlyQueryError as exc:
        click.echo(f"plumbline: error: {exc}", err=True)
        sys.exit(1)
    hidden = sorted(f"{t}.{c}" for t in read for c in masking.columns.get(t, {}))
    if hidden:
        shown = ", ".join(hidden[:8]) + (", ..." if len(hidden) > 8 else "")
        click.echo(
            f"plumbline: note: masked as their contracts classify them: {shown} "
            "(--reveal COLUMN shows one, and is logged)",
            err=True,
        )
    if as_csv:
        import pyarrow.csv as pacsv

        pacsv.write_csv(_flat(result), sys.stdout.buffer)
        return
    import duckdb

    click.echo(str(duckdb.from_arrow(result.slice(0, max_rows))).rstrip())
    if result.num_rows > max_rows:
        click.echo(f"({result.num_rows:,} rows, first {max_rows} shown; --csv prints all)")


def _flat(result):
    """``result`` with its nested columns (a struct, a list, a map: CSV has no such field)
    as DuckDB writes them as text."""
    import duckdb
    import pyarrow as pa
    from sqlglot import exp

    if not any(pa.types.is_nested(f.type) for f in result.schema):
        return result
    columns = [
        exp.alias_(exp.cast(exp.column(f.name, quoted=True), "VARCHAR"), f.name, quoted=True)
        if pa.types.is_nested(f.type)
        else exp.column(f.name, quoted=True)
        for f in result.schema
    ]
    query = exp.select(*columns).from_(exp.to_identifier("result", quoted=True))
    return duckdb.from_arrow(result).query("result", query.sql("duckdb")).to_arrow_table()
