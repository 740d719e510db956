"""The one-scan DuckDB validation (scan.py) against GX's SQL engine on the same files.

Every case of test_validate.py, and the edges GX decides in ways of its own (an empty table,
all-NULL columns, ``mostly``, a bound or set of the wrong type, compound keys with NULLs, a
missing column), gives the same ``ContractResult`` on both paths: verdicts, observed values,
details (errors included) and failing rows. test_paths_agree.py does the same for every
contract of the repository on the tables it builds. Then: the scan is one query, and it
imports neither GX, pyspark nor pandas.
"""

from __future__ import annotations

import copy
import datetime as dt
import subprocess
import sys

import duckdb
import pyarrow.parquet as pq
import pytest
import sqlalchemy as sa
import yaml

from pipelines.contracts import Masker, compile_contract, load_contract
from pipelines.contracts.compile import TYPE_LISTS
from pipelines.contracts.scan import reflected_type, type_matches, validate_parquet
from pipelines.contracts.validate import validate_parquet_gx
from pipelines.lake.duckdb_limits import DuckDBLimits, limits, set_limits
from tests.pipelines.contracts.conftest import ORDERS, orders_columns, orders_table
from tests.pipelines.contracts.test_validate import (
    BREAKING_DATA,
    _columns,
    _everything_broken,
    _with_extra_sql_rules,
)

MASKER = Masker(b"scan")


def _edit(**values):
    def edit(columns):
        columns.update(values)
        return columns

    return edit


def _null_percent(document):
    """orders.yaml with its nullValues rule as 'at most 30 percent'."""
    for prop in document["schema"][0]["properties"]:
        for rule in prop.get("quality") or []:
            if rule.get("metric") == "nullValues":
                rule.pop("mustBe", None)
                rule.update(mustBeLessOrEqualTo=30, unit="percent")


# (case, contract edit, rows, edit of the columns): GX's own decisions at the edges.
EDGES = [
    ("empty table", None, 0, None),
    ("all null", None, 4, lambda c: {name: [None] * 4 for name in c}),
    ("text in a ranged column", None, 4, _edit(o_custkey=["a", "b", "c", "d"])),
    ("integers against a set of text", None, 4, _edit(o_orderstatus=[1, 2, 3, 4])),
    ("length and pattern of integers", None, 4, _edit(o_orderpriority=[1, 2, 3, 4])),
    ("compound key all null", None, 4, _edit(o_custkey=[None] * 4, o_orderdate=[None] * 4)),
    (
        "compound key partly null",
        None,
        4,
        _edit(
            o_custkey=[5, 5, None, None],
            o_orderdate=[None, None, dt.date(1995, 1, 1), dt.date(1995, 1, 1)],
        ),
    ),
    (
        "compound key column missing",
        None,
        4,
        lambda c: {k: v for k, v in c.items() if k != "o_orderdate"},
    ),
    ("unique with nulls", None, 4, _edit(o_clerk=["a", "a", None, None])),
    (
        "many duplicates",
        None,
        6,
        _edit(o_clerk=["a", "a", "b", "b", "b", "c"], o_orderkey=[1, 1, 2, 2, 3, 3]),
    ),
    ("mostly: none null", _null_percent, 5, None),
    ("mostly: 1 of 5 null", _null_percent, 5, _edit(o_totalprice=[None] + [100.0] * 4)),
    ("mostly: 2 of 5 null", _null_percent, 5, _edit(o_totalprice=[None] * 2 + [100.0] * 3)),
    ("mostly: all null", _null_percent, 5, _edit(o_totalprice=[None] * 5)),
]


def _case_table(rows, edit):
    if rows == 0:
        return orders_table(orders_columns(3)).slice(0, 0)
    columns = orders_columns(rows)
    return orders_table(edit(columns) if edit else columns)


def _capped():
    columns = orders_columns(60)
    columns["o_orderstatus"] = ["X"] * 60
    return columns


CASES = [
    (name, "orders", lambda edit=edit: _columns(orders_columns, edit))
    for name, edit, _ in BREAKING_DATA
] + [
    ("good", "orders", orders_columns),
    ("everything broken", "strict", lambda: _everything_broken(orders_columns)),
    ("failing rows capped", "orders", _capped),
]


@pytest.fixture(scope="module")
def contracts(tmp_path_factory):
    """orders.yaml compiled as it is, with more sql rules, and with a percent threshold."""
    folder = tmp_path_factory.mktemp("contracts")
    compiled = {}
    for name, edit in (
        ("orders", None),
        ("strict", _with_extra_sql_rules),
        ("mostly", _null_percent),
    ):
        document = copy.deepcopy(yaml.safe_load(ORDERS.read_text()))
        if edit is not None:
            edit(document)
        path = folder / f"{name}.yaml"
        path.write_text(yaml.safe_dump(document, sort_keys=False))
        compiled[name] = compile_contract(load_contract(path))
    return compiled


@pytest.fixture(autouse=True)
def masking_key(monkeypatch):
    monkeypatch.setenv("PLUMBLINE_MASKING_KEY", "scan-tests")


def _both(compiled, table, path):
    pq.write_table(table, path)
    return validate_parquet(compiled, path, MASKER), validate_parquet_gx(compiled, path, MASKER)


@pytest.mark.parametrize(("name", "contract", "columns"), CASES, ids=[case[0] for case in CASES])
def test_same_result_as_gx_on_every_validation_case(contracts, tmp_path, name, contract, columns):
    scan, gx = _both(contracts[contract], orders_table(columns()), tmp_path / "t.parquet")
    assert scan == gx


@pytest.mark.parametrize(("name", "edit", "rows", "columns"), EDGES, ids=[e[0] for e in EDGES])
def test_same_result_as_gx_at_the_edges(contracts, tmp_path, name, edit, rows, columns):
    compiled = contracts["mostly" if edit is _null_percent else "orders"]
    scan, gx = _both(compiled, _case_table(rows, columns), tmp_path / "t.parquet")
    assert scan == gx


# Every DuckDB type a column may have: the plain scalars, the variants of each, and nested
# and unusual types duckdb-engine does not recognise.
DUCKDB_TYPES = [
    "BIGINT", "BIT", "BLOB", "BOOLEAN", "DATE", "DECIMAL(15,2)", "DECIMAL(38,6)", "DOUBLE",
    "ENUM('a', 'b')", "FLOAT", "HUGEINT", "INTEGER", "INTERVAL", "JSON", "SMALLINT", "TIME",
    "TIME WITH TIME ZONE", "TIMESTAMP", "TIMESTAMP WITH TIME ZONE", "TIMESTAMP_MS",
    "TIMESTAMP_NS", "TIMESTAMP_S", "TINYINT", "UBIGINT", "UHUGEINT", "UINTEGER", "USMALLINT",
    "UTINYINT", "UUID", "VARCHAR", "INTEGER[]", "VARCHAR[]", "STRUCT(a INTEGER)",
    "MAP(VARCHAR, INTEGER)", "UNION(a INTEGER, b VARCHAR)",
]  # fmt: skip


def test_column_types_are_what_gx_sees_through_duckdb_engine(tmp_path):
    """reflected_type and type_matches against duckdb-engine's reflection of each type and
    GX's own comparison with each logical type's list."""
    from great_expectations.expectations.type_comparison import compare_column_type_list

    from pipelines.contracts.gx_duckdb import session
    from pipelines.contracts.validate import VALIDATION_MEMORY_LIMIT

    path = tmp_path / "t.duckdb"
    with duckdb.connect(str(path)) as connection:
        columns = ", ".join(f"CAST(NULL AS {t}) AS c{i}" for i, t in enumerate(DUCKDB_TYPES))
        connection.execute(f"CREATE VIEW v AS SELECT {columns}")
        described = [row[1] for row in connection.execute("DESCRIBE v").fetchall()]
    engine = sa.create_engine(f"duckdb:///{path}")
    reflected = [column["type"] for column in sa.inspect(engine).get_columns("v")]
    engine.dispose()
    execution_engine = session(VALIDATION_MEMORY_LIMIT).execution_engine
    for duckdb_type, actual in zip(described, reflected, strict=True):
        ours = reflected_type(duckdb_type)
        assert (ours.name, ours.sql) == (type(actual).__name__, str(actual)), duckdb_type
        for logical, type_list in TYPE_LISTS.items():
            gx, _ = compare_column_type_list(execution_engine, actual, type_list)
            assert type_matches(ours, type_list) == gx, (duckdb_type, logical)


class _Recording:
    """A DuckDB connection that records the statements it runs."""

    def __init__(self, connection, statements):
        self.connection, self.statements = connection, statements

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.connection.close()

    def execute(self, sql, *args):
        self.statements.append(sql)
        return self.connection.execute(sql, *args)

    def read_parquet(self, *args, **kwargs):
        return self.connection.read_parquet(*args, **kwargs)


@pytest.fixture
def recorded(monkeypatch, tmp_path):
    """The statements and connect-time configs of the validations' DuckDB connections, the
    process held to a memory limit and a spill folder under ``tmp_path``."""
    seen = {"statements": [], "configs": []}
    connect = duckdb.connect

    def recording(*args, config=None, **kwargs):
        seen["configs"].append(dict(config or {}))
        return _Recording(connect(*args, config=config, **kwargs), seen["statements"])

    monkeypatch.setattr(duckdb, "connect", recording)
    before = limits()
    set_limits(DuckDBLimits("123MB", tmp_path / "spill"))
    yield seen
    set_limits(before)


def test_a_passing_table_is_one_scan_in_bounded_memory(recorded, contracts, tmp_path):
    path = tmp_path / "t.parquet"
    pq.write_table(orders_table(orders_columns(50)), path)
    compiled = contracts["strict"]
    result = validate_parquet(compiled, path, MASKER)
    assert result.passed and len(result.outcomes) == 42
    scans = [s for s in recorded["statements"] if not s.startswith("DESCRIBE")]
    # The 39 compiled expectations in one query; each of the 3 ODCS sql rules its own.
    assert len(scans) == 1 + len(compiled.sql_checks) == 4
    [config] = recorded["configs"]
    assert config["memory_limit"] == "123MB"
    assert config["temp_directory"].startswith(str(tmp_path / "spill"))


def test_only_what_fails_costs_more(recorded, contracts, tmp_path):
    columns = orders_columns(50)
    columns["o_orderstatus"][3] = "X"
    path = tmp_path / "t.parquet"
    pq.write_table(orders_table(columns), path)
    result = validate_parquet(contracts["orders"], path, MASKER)
    assert {o.name for o in result.outcomes if not o.passed} == {"o_orderstatus.allowed_values"}
    scans = [s for s in recorded["statements"] if not s.startswith("DESCRIBE")]
    # The scan, the failed expectation's unexpected values, the failing rows, the sql rule.
    assert len(scans) == 4


def test_a_validation_imports_neither_gx_nor_pyspark_nor_pandas(tmp_path):
    path = tmp_path / "t.parquet"
    pq.write_table(orders_table(orders_columns(3)), path)
    code = (
        "import sys; from pathlib import Path\n"
        "from pipelines.contracts import Masker, compile_contract, load_contract, validate_parquet\n"
        f"compiled = compile_contract(load_contract(Path({str(ORDERS)!r})))\n"
        f"assert validate_parquet(compiled, Path({str(path)!r}), Masker(b'k')).passed\n"
        "heavy = {'great_expectations', 'pyspark', 'pandas'} & set(sys.modules)\n"
        "assert not heavy, heavy\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


def test_types_of_bounds_are_gx_s(contracts):
    """A numeric bound is a float in GX's configuration (its Comparable field), a date a
    datetime: the scan binds what GX binds."""
    import great_expectations as gx

    for compiled in contracts.values():
        for spec in compiled.specs:
            made = getattr(gx.expectations, spec.type)(**spec.kwargs)
            for name, value in spec.kwargs.items():
                assert getattr(made, name) == value and type(getattr(made, name)) is type(value), (
                    spec.name,
                    name,
                )
