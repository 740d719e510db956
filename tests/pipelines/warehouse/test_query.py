"""`plumbline query` reads the published lake and nothing else: every way out is refused with
one line, and the lake's bytes stay as they were."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from click.testing import CliRunner

from pipelines.cli.main import main
from pipelines.lake.store import Lake
from pipelines.warehouse.query import ReadOnlyQueryError, run_read_only, sandboxed
from pipelines.warehouse.query_masking import QueryMasking

NO_MASKING = QueryMasking({})


@pytest.fixture
def lake(tmp_path) -> Lake:
    lake = Lake(tmp_path / "lake")
    with lake.stage("warehouse", "top_customers") as staging:
        table = pa.table({"customer_label": ["a", "b"], "revenue": [3.5, 1.0]})
        pq.write_table(table, staging / "part-0.parquet")
        lake.publish("warehouse", "top_customers", staging, {})
    (tmp_path / "outside.csv").write_text("secret\nhunter2\n")
    return lake


def lake_bytes(root: Path) -> dict[str, str]:
    """Every file under the lake (links included) by its content digest."""
    return {
        str(p.relative_to(root)): hashlib.sha256(p.read_bytes()).hexdigest()
        if p.is_file()
        else "dir"
        for p in sorted(root.rglob("*"))
    }


def test_a_select_over_published_tables_runs(lake):
    result = run_read_only(
        "WITH t AS (SELECT * FROM warehouse.top_customers) SELECT sum(revenue) AS r FROM t",
        lake.published(),
        masking=NO_MASKING,
    )
    assert result.to_pylist() == [{"r": 4.5}]


@pytest.mark.parametrize(
    ("sql", "refusal"),
    [
        (
            "COPY (SELECT 'pwned' AS customer_label) TO "
            "'{lake}/warehouse/top_customers/part-0.parquet' (FORMAT parquet)",
            "COPY is not a query",
        ),
        ("ATTACH '{tmp}/new.duckdb' AS other", "ATTACH is not a query"),
        ("INSTALL httpfs", "not a query"),
        ("CREATE TABLE t AS SELECT 1 AS x", "CREATE is not a query"),
        ("SET enable_external_access = true", "not a query"),
        ("SELECT * FROM read_csv('{tmp}/outside.csv')", "reads outside the lake"),
        ("SELECT * FROM read_csv('/etc/passwd')", "reads outside the lake"),
        ("SELECT 1; SELECT 2", "2 statements"),
        ("SELEC 1", "line 1"),
        ("'", "cannot read the text"),  # an unclosed string (found by the CLI fuzz test)
        ("SELECT * FROM warehouse.no_such_table", "no_such_table"),
    ],
)
def test_anything_but_one_read_of_the_lake_is_refused_in_one_line(lake, tmp_path, sql, refusal):
    before = lake_bytes(lake.root)
    statement = sql.format(lake=lake.root, tmp=tmp_path)
    with pytest.raises(ReadOnlyQueryError) as refused:
        run_read_only(statement, lake.published(), masking=NO_MASKING)
    assert refusal in str(refused.value)
    assert "\n" not in str(refused.value)
    assert lake_bytes(lake.root) == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["lake", "outside.csv"]


@pytest.mark.parametrize(
    "sql",
    [
        "SELECT * FROM read_csv('{tmp}/outside.csv')",
        "SELECT * FROM '/etc/passwd'",
        "ATTACH '{tmp}/new.duckdb' AS other",
        "INSTALL httpfs",
        "SET enable_external_access = true",
        "SELECT * FROM read_parquet('{lake}/warehouse/.versions/top_customers/*/*.parquet')",
    ],
)
def test_the_sandbox_alone_refuses_what_the_statement_check_would(lake, tmp_path, sql):
    # The second lock on its own: raw SQL on the sandboxed connection, no statement check.
    import duckdb

    published = lake.published()
    unpublished = lake.root / "warehouse" / ".versions" / "top_customers" / "old"
    unpublished.mkdir()
    pq.write_table(pa.table({"x": [1]}), unpublished / "part-0.parquet")
    with sandboxed(published) as con:
        assert con.sql('SELECT count(*) FROM "warehouse__top_customers"').fetchall() == [(2,)]
        with pytest.raises(duckdb.Error):
            con.sql(sql.format(lake=lake.root, tmp=tmp_path)).fetchall()
    assert not (tmp_path / "new.duckdb").exists()


def test_the_command_exits_1_with_one_line(lake, tmp_path, monkeypatch):
    monkeypatch.setenv("PLUMBLINE_HOME", str(tmp_path))
    runner = CliRunner()
    refused = runner.invoke(main, ["query", "INSTALL httpfs"])
    assert refused.exit_code == 1
    assert refused.stderr.strip().count("\n") == 0 and "not a query" in refused.stderr
    ran = runner.invoke(main, ["query", "SELECT count(*) AS n FROM warehouse.top_customers"])
    assert ran.exit_code == 0, ran.output
    assert "2" in ran.stdout
