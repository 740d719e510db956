"""``plumbline query``: one read-only DuckDB query over the published lake tables."""

from __future__ import annotations

import sys

import click

from pipelines.cli.environment import load_settings


@click.command()
@click.argument("sql")
@click.option("--csv", "as_csv", is_flag=True, help="Print CSV instead of a table.")
@click.option(
    "--max-rows", default=40, show_default=True, help="Rows shown in the table (CSV prints all)."
)
def query(sql: str, as_csv: bool, max_rows: int) -> None:
    """Run one read-only DuckDB query (SELECT or WITH) over the published lake tables, e.g.

    plumbline query "SELECT * FROM warehouse.customer_profile LIMIT 5"

    Tables are named zone.table (raw.orders, warehouse.<name>).
    """
    settings = load_settings()
    from pipelines.lake.store import Lake
    from pipelines.warehouse.query import ReadOnlyQueryError, run_read_only

    tables = Lake(settings.lake_root).published()
    try:
        result = run_read_only(sql, tables)
    except ReadOnlyQueryError as exc:
        click.echo(f"plumbline: error: {exc}", err=True)
        sys.exit(1)
    if as_csv:
        import pyarrow.csv as pacsv

        pacsv.write_csv(result, sys.stdout.buffer)
        return
    import duckdb

    click.echo(str(duckdb.from_arrow(result.slice(0, max_rows))).rstrip())
    if result.num_rows > max_rows:
        click.echo(f"({result.num_rows:,} rows, first {max_rows} shown; --csv prints all)")
