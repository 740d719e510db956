"""GX's SQL engine on DuckDB: the upstream gaps gx_duckdb.py closes, and that it closes them.

The first two tests pin the upstream behaviour the workarounds exist for. When one of them
fails, duckdb-engine or GX has changed: check whether the workaround can go (and the pins
in pyproject.toml with it).
"""

from __future__ import annotations

import os
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
import sqlalchemy as sa

from pipelines.contracts import compile_contract, gx_duckdb, load_contract
from pipelines.contracts.validate import VALIDATION_MEMORY_LIMIT
from pipelines.contracts.validate import validate_parquet_gx as validate_parquet


@pytest.fixture
def database(tmp_path):
    import duckdb

    path = tmp_path / "t.duckdb"
    with duckdb.connect(str(path)) as connection:
        connection.execute("CREATE TABLE t AS SELECT range AS n FROM range(5)")
    return path


def test_duckdb_engine_drops_a_result_fetched_after_the_connection_is_released(database):
    # The root cause of GX issues #10738 and #11579: GX's execute_query fetches here.
    engine = sa.create_engine(f"duckdb:///{database}")
    with engine.connect() as connection:
        result = connection.execute(sa.text("SELECT n FROM t ORDER BY n"))
    assert result.fetchall() == [], "duckdb-engine now keeps the result: see gx_duckdb.py"
    with engine.connect() as connection:
        frozen = connection.execute(sa.text("SELECT n FROM t ORDER BY n")).freeze()
    assert frozen().fetchall() == [(0,), (1,), (2,), (3,), (4,)]
    engine.dispose()


def _batch(database):
    import great_expectations as gx

    context = gx.get_context(mode="ephemeral")
    datasource = context.data_sources.add_sql("t", connection_string=f"duckdb:///{database}")
    engine = datasource.get_execution_engine()
    batch = datasource.add_table_asset("t", table_name="t").add_batch_definition_whole_table(
        "whole"
    )
    return engine, batch


def _row_count(batch):
    import great_expectations as gx

    suite = gx.ExpectationSuite(
        name="rows", expectations=[gx.expectations.ExpectTableRowCountToBeBetween(min_value=5)]
    )
    [result] = batch.get_batch().validate(suite).results
    return result


def test_gx_sql_engine_on_duckdb_fails_without_buffered_results(database):
    engine, batch = _batch(database)
    result = _row_count(batch)
    engine.engine.dispose()
    assert not result.success, "GX fixed #10738/#11579: gx_duckdb.buffer_results may go"
    assert "list index out of range" in str(result.exception_info)


def test_buffered_results_make_gx_sql_engine_work_on_duckdb(database):
    engine, batch = _batch(database)
    gx_duckdb.buffer_results(engine)
    result = _row_count(batch)
    engine.engine.dispose()
    assert result.success
    assert result.result["observed_value"] == 5


def test_validate_parquet_relies_on_buffered_results(tmp_path, monkeypatch):
    from tests.pipelines.contracts.conftest import ORDERS, orders_columns, orders_table

    compiled = compile_contract(load_contract(ORDERS))
    path = tmp_path / "orders.parquet"
    pq.write_table(orders_table(orders_columns()), path)
    assert validate_parquet(compiled, path).passed
    # A session of its own, made without the workaround (the process's keeps it).
    monkeypatch.setattr(gx_duckdb, "buffer_results", lambda engine: None)
    monkeypatch.setattr(gx_duckdb, "_SESSIONS", {})
    broken = validate_parquet(compiled, path)
    gx_duckdb._SESSIONS.popitem()[1].close()
    assert not broken.passed
    assert any("list index out of range" in o.details for o in broken.outcomes)


@pytest.mark.parametrize(
    ("pattern", "unexpected"),
    [
        # Anywhere in the value, as GX's pandas engine (str.contains) reads a pattern; not
        # DuckDB's `~`, which must match the whole value.
        ("URGENT", 2),
        ("-", 1),
        ("^[0-9]-", 1),
        ("^[0-9]-[A-Z]+$", 1),
        ("^[0-9]$", 3),
    ],
)
def test_regex_matches_anywhere_on_duckdb_as_on_pandas(tmp_path, pattern, unexpected):
    from pipelines.contracts.validate import validate_arrow

    path = tmp_path / "c.yaml"
    path.write_text(
        "apiVersion: v3.1.0\nkind: DataContract\nid: urn:t\nversion: 1.0.0\nstatus: active\n"
        "team: {name: t}\nschema:\n  - name: t\n    logicalType: object\n    properties:\n"
        f"      - name: p\n        logicalType: string\n        logicalTypeOptions:\n"
        f"          pattern: '{pattern}'\n"
    )
    compiled = compile_contract(load_contract(path))
    table = pa.table({"p": ["1-URGENT", "2-HIGH", None, "oops"]})
    pq.write_table(table, tmp_path / "t.parquet")
    on_duckdb = validate_parquet(compiled, tmp_path / "t.parquet")
    on_pandas = validate_arrow(compiled, table)
    [duck] = [o for o in on_duckdb.outcomes if o.name == "p.pattern"]
    [panda] = [o for o in on_pandas.outcomes if o.name == "p.pattern"]
    assert duck.observed == panda.observed
    assert duck.observed["unexpected_count"] == unexpected


# Each plain scalar type gx_duckdb maps, and two it leaves to duckdb-engine's reflection.
@pytest.mark.parametrize(
    "duckdb_type",
    [
        "BIGINT",
        "BOOLEAN",
        "DATE",
        "DECIMAL(15,2)",
        "DECIMAL(38,6)",
        "DOUBLE",
        "FLOAT",
        "HUGEINT",
        "INTEGER",
        "SMALLINT",
        "TINYINT",
        "UBIGINT",
        "UINTEGER",
        "USMALLINT",
        "UTINYINT",
        "VARCHAR",
    ],
)
def test_declared_column_types_are_what_duckdb_engine_reflects(tmp_path, duckdb_type):
    import duckdb

    path = tmp_path / "t.duckdb"
    with duckdb.connect(str(path)) as connection:
        connection.execute(f"CREATE VIEW v AS SELECT CAST(NULL AS {duckdb_type}) AS c, 1 AS n")
        described = [(row[0], row[1]) for row in connection.execute("DESCRIBE v").fetchall()]
    engine = sa.create_engine(f"duckdb:///{path}")
    reflected = sa.inspect(engine).get_columns("v")
    declared = gx_duckdb.column_metadata(engine.dialect, described)
    engine.dispose()
    assert [{**column, "type": repr(column["type"])} for column in declared] == [
        {**column, "type": repr(column["type"]), "primary_key": False} for column in reflected
    ]
    assert [type(column["type"]) for column in declared] == [
        type(column["type"]) for column in reflected
    ]


@pytest.mark.parametrize("duckdb_type", ["TIMESTAMP", "TIMESTAMP WITH TIME ZONE", "INTEGER[]"])
def test_other_column_types_are_left_to_reflection(duckdb_type):
    dialect = sa.create_engine("duckdb:///:memory:").dialect
    assert gx_duckdb.column_metadata(dialect, [("n", "BIGINT"), ("c", duckdb_type)]) is None


PLAIN_CONTRACT = """\
apiVersion: v3.1.0
kind: DataContract
id: urn:t
version: 1.0.0
status: active
team: {name: t}
schema:
  - name: t
    logicalType: object
    properties:
      - {name: k, logicalType: integer, required: true, primaryKey: true}
      - {name: s, logicalType: string, required: true, logicalTypeOptions: {maxLength: 3}}
      - {name: x, logicalType: number, logicalTypeOptions: {minimum: 0}}
      - {name: d, logicalType: date}
"""


def _plain(tmp_path, name, **columns):
    import datetime as dt

    rows = {
        "k": [1, 2, 3],
        "s": ["a", "b", "c"],
        "x": [0.5, 1.5, 2.5],
        "d": [dt.date(2020, 1, day) for day in (1, 2, 3)],
    }
    path = tmp_path / f"{name}.parquet"
    pq.write_table(pa.table({**rows, **columns}), path)
    return path


def _views_and_assets():
    session = gx_duckdb.session(VALIDATION_MEMORY_LIMIT)
    with session.engine.connect() as sql:
        views = sql.exec_driver_sql("SELECT count(*) FROM duckdb_views() WHERE NOT internal")
        count = views.scalar()
    return count, [asset.name for asset in session.datasource.assets]


def test_validations_share_one_engine_and_reflect_no_column(tmp_path):
    # Before issue 34 (item 9) each validation built its own GX context and engine, and
    # duckdb-engine reflected the view's columns and primary key through pg_catalog.
    contract = tmp_path / "c.yaml"
    contract.write_text(PLAIN_CONTRACT)
    compiled = compile_contract(load_contract(contract))
    statements: list[str] = []

    def record(conn, cursor, statement, *args):
        statements.append(statement)

    engines: list[set[int]] = [set()]

    def connected(conn, *args):
        engines[-1].add(id(conn.engine))

    sa.event.listen(sa.engine.Engine, "before_cursor_execute", record)
    sa.event.listen(sa.engine.Engine, "engine_connect", connected)
    try:
        first = validate_parquet(compiled, _plain(tmp_path, "first"))
        engines.append(set())
        second = validate_parquet(compiled, _plain(tmp_path, "second", x=[1.0, -1.0, 2.0]))
    finally:
        sa.event.remove(sa.engine.Engine, "before_cursor_execute", record)
        sa.event.remove(sa.engine.Engine, "engine_connect", connected)
    assert first.passed
    assert [o.name for o in second.outcomes if not o.passed] == ["x.range"]
    # GX's datasource and its execution engine hold one SQLAlchemy engine each.
    assert engines[-1] and engines[-1] <= engines[-2]
    assert statements
    assert not [s for s in statements if "pg_catalog" in s or "duckdb_columns" in s]
    assert _views_and_assets() == (0, [])


def test_one_validation_does_not_change_the_next(tmp_path):
    # The same contract and table name on three files, in one session: a failing table,
    # a table that cannot be read, then the first one again.
    contract = tmp_path / "c.yaml"
    contract.write_text(PLAIN_CONTRACT)
    compiled = compile_contract(load_contract(contract))
    good = _plain(tmp_path, "good")
    before = validate_parquet(compiled, good)
    bad = validate_parquet(
        compiled, _plain(tmp_path, "bad", k=[1, 1, 2], s=["a", None, "long"], x=[-1.0, 0.0, 1.0])
    )
    broken = tmp_path / "broken.parquet"
    broken.write_bytes(b"not parquet")
    with pytest.raises(Exception, match=r"(?i)parquet"):
        validate_parquet(compiled, broken)
    after = validate_parquet(compiled, good)
    assert before.passed and not bad.passed
    assert {o.name for o in bad.outcomes if not o.passed} == {
        "table.primary_key",
        "s.not_null",
        "s.length",
        "x.range",
    }
    assert after == before
    assert _views_and_assets() == (0, [])


def _validate_in_child(contract: Path, parquet: Path, results) -> None:
    compiled = compile_contract(load_contract(contract))
    passed = validate_parquet(compiled, parquet).passed
    folder = gx_duckdb.session(VALIDATION_MEMORY_LIMIT).folder
    results.put((passed, os.getpid(), str(folder)))


def test_a_forked_process_validates_with_a_session_of_its_own(tmp_path):
    import multiprocessing

    contract = tmp_path / "c.yaml"
    contract.write_text(PLAIN_CONTRACT)
    good = _plain(tmp_path, "good")
    compiled = compile_contract(load_contract(contract))
    assert validate_parquet(compiled, good).passed
    parent = gx_duckdb.session(VALIDATION_MEMORY_LIMIT)
    fork = multiprocessing.get_context("fork")
    results = fork.Queue()
    child = fork.Process(target=_validate_in_child, args=(contract, good, results))
    child.start()
    passed, pid, folder = results.get(timeout=120)
    child.join(timeout=60)
    assert child.exitcode == 0
    assert passed and pid != os.getpid()
    assert folder != str(parent.folder)
    assert not Path(folder).exists()  # the child's session was closed as it ended
    assert gx_duckdb.session(VALIDATION_MEMORY_LIMIT) is parent
    assert validate_parquet(compiled, good).passed
