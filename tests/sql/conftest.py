"""Fixtures for the SQL tests: TPC-H generated once per session, queried through DuckDB."""

from collections.abc import Iterator
from pathlib import Path

import duckdb
import pytest
from sqlglot import exp

from pipelines.lake.tpch import TPCH_TABLES
from pipelines.warehouse.engines.duckdb_engine import connect_duckdb


def _parquet_view(table: str, path: Path) -> str:
    """`CREATE VIEW raw.<table>` over one Parquet file, built as an AST (DDL takes no bind
    parameters, and the path must be quoted as a literal whatever characters it holds)."""
    select = exp.select("*").from_(exp.func("read_parquet", exp.Literal.string(str(path))))
    view = exp.Create(this=exp.table_(table, db="raw"), kind="VIEW", expression=select)
    return view.sql(dialect="duckdb")


@pytest.fixture(scope="session")
def tpch_parquet_dir(raw_lake_root: Path) -> Path:
    """The eight TPC-H tables as `<table>/<table>.parquet`: the session's raw lake, generated
    once for the whole suite by the real raw assets (tests/conftest.py)."""
    return raw_lake_root / "raw"


@pytest.fixture
def tpch_duckdb(tpch_parquet_dir: Path) -> Iterator[duckdb.DuckDBPyConnection]:
    """An in-memory DuckDB with schema `raw` and one view per TPC-H table over its Parquet file."""
    con = connect_duckdb()
    con.execute("CREATE SCHEMA raw")
    for table in TPCH_TABLES:
        con.execute(_parquet_view(table, tpch_parquet_dir / table / f"{table}.parquet"))
    try:
        yield con
    finally:
        con.close()
