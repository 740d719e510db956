"""GX's SQL engine on DuckDB: the upstream gaps gx_duckdb.py closes, and that it closes them.

The first two tests pin the upstream behaviour the workarounds exist for. When one of them
fails, duckdb-engine or GX has changed: check whether the workaround can go (and the pins
in pyproject.toml with it).
"""

from __future__ import annotations

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
import sqlalchemy as sa

from pipelines.contracts import compile_contract, gx_duckdb, load_contract, validate_parquet


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
    monkeypatch.setattr(gx_duckdb, "buffer_results", lambda engine: None)
    broken = validate_parquet(compiled, path)
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
