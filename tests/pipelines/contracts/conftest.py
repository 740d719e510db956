"""Shared contract fixtures: the sample ``orders`` contract and data that keeps it."""

from __future__ import annotations

import copy
import datetime as dt
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
import yaml

from pipelines.contracts import (
    Contract,
    compile_contract,
    load_contract,
    validate_arrow,
    validate_parquet,
)

FIXTURES = Path(__file__).parent / "fixtures"
ORDERS = FIXTURES / "orders.yaml"


def orders_columns(rows: int = 3) -> dict[str, list]:
    """Column values of an orders table that satisfies every promise of orders.yaml."""
    statuses, priorities = ["F", "O", "P"], ["1-URGENT", "2-HIGH", "5-LOW"]
    return {
        "o_orderkey": list(range(1, rows + 1)),
        "o_custkey": [10 + index for index in range(rows)],
        "o_orderstatus": [statuses[index % 3] for index in range(rows)],
        "o_totalprice": [100.5 + index for index in range(rows)],
        "o_orderdate": [dt.date(1995, 1, 1) + dt.timedelta(days=index) for index in range(rows)],
        "o_orderpriority": [priorities[index % 3] for index in range(rows)],
        "o_clerk": [f"Clerk#{index:03d}" for index in range(rows)],
        "o_shippriority": [0] * (rows - 1) + [None],
        "o_is_open": [True, False] * (rows // 2) + [None] * (rows % 2),
        "o_updated_at": [dt.datetime(2020, 1, 1, 12, 30)] * rows,
    }


ORDERS_TYPES = {
    "o_orderkey": pa.int64(),
    "o_custkey": pa.int64(),
    "o_orderstatus": pa.string(),
    "o_totalprice": pa.decimal128(15, 2),
    "o_orderdate": pa.date32(),
    "o_orderpriority": pa.string(),
    "o_clerk": pa.string(),
    "o_shippriority": pa.int32(),
    "o_is_open": pa.bool_(),
    "o_updated_at": pa.timestamp("us"),
}


def orders_table(columns: dict[str, list]) -> pa.Table:
    """An Arrow table with DuckDB's types for the orders columns.

    A column whose values do not fit its usual type (a deliberately mistyped column) gets
    the type Arrow infers.
    """
    arrays = {}
    for name, values in columns.items():
        kind = ORDERS_TYPES.get(name)
        try:
            if kind is None:
                arrays[name] = pa.array(values)
            elif pa.types.is_decimal(kind):
                arrays[name] = pa.array(values, pa.float64()).cast(kind)
            else:
                arrays[name] = pa.array(values, kind)
        except (pa.ArrowInvalid, pa.ArrowTypeError, TypeError):
            arrays[name] = pa.array(values)
    return pa.table(arrays)


@pytest.fixture(autouse=True)
def masking_key(monkeypatch) -> bytes:
    """A fixed masking key: without one, masking a value would make a key in ./.plumbline."""
    monkeypatch.setenv("PLUMBLINE_MASKING_KEY", "contract-tests")
    return b"contract-tests"


@pytest.fixture(scope="session")
def make_columns() -> Callable[..., dict[str, list]]:
    return orders_columns


@pytest.fixture(scope="session")
def make_table() -> Callable[[dict[str, list]], pa.Table]:
    return orders_table


@pytest.fixture(scope="session")
def orders_contract() -> Contract:
    return load_contract(ORDERS)


@pytest.fixture(scope="session")
def orders_compiled(orders_contract):
    return compile_contract(orders_contract)


@pytest.fixture(scope="session")
def orders_document() -> dict[str, Any]:
    return yaml.safe_load(ORDERS.read_text())


@pytest.fixture
def write_contract(tmp_path, orders_document) -> Callable[..., Path]:
    """Write orders.yaml changed by ``edit(document)`` (or raw ``text``) and return its path."""

    def write(edit: Callable[[dict], Any] | None = None, text: str | None = None, name="c.yaml"):
        path = tmp_path / name
        if text is None:
            document = copy.deepcopy(orders_document)
            if edit is not None:
                edit(document)
            text = yaml.safe_dump(document, sort_keys=False)
        path.write_text(text)
        return path

    return write


@pytest.fixture(params=["duckdb", "pandas"])
def validate(request, tmp_path):
    """validate(compiled, arrow_table, masker=None) on one path: the Parquet file the table
    is written to, validated inside DuckDB; or the Arrow table itself, through pandas."""
    if request.param == "pandas":
        return validate_arrow

    def on_duckdb(compiled, table, masker=None):
        path = tmp_path / f"staged-{len(list(tmp_path.iterdir()))}.parquet"
        pq.write_table(table, path)
        return validate_parquet(compiled, path, masker)

    on_duckdb.path = "duckdb"
    return on_duckdb
