import functools
import shutil
from pathlib import Path

import pytest
import sqlglot
from sqlglot import exp

from pipelines.contracts import Masker, TableMasking
from pipelines.lake.store import Lake
from pipelines.warehouse.build import WarehouseTable, build_table, portable_sql, tables_read
from pipelines.warehouse.engines.duckdb_engine import DuckDBEngine
from pipelines.warehouse.portability import (
    SchemaDifference,
    check_portability,
    output_schema,
    schema_differences,
)
from sql import ansi
from sql.paths import REPOSITORY_ROOT
from sql.translate import translate_file

# Every warehouse table's source: a legacy file (translated) or portable ANSI SQL.
WAREHOUSE_SOURCES = sorted((REPOSITORY_ROOT / "sql" / "legacy").glob("*/*.sql")) + sorted(
    (REPOSITORY_ROOT / "sql" / "ansi").glob("*.sql")
)

NATIONS_PER_REGION = """
SELECT "r"."r_name" AS "region", COUNT(*) AS "nations", SUM("n"."n_nationkey") AS "key_sum"
FROM "raw"."nation" AS "n"
JOIN "raw"."region" AS "r" ON "r"."r_regionkey" = "n"."n_regionkey"
GROUP BY "r"."r_name"
"""
TABLE = WarehouseTable("nations_per_region", ("raw.nation", "raw.region"))
# Name lengths: equal values on both engines, but BIGINT on DuckDB and INT on Spark.
NAME_LENGTHS = """
SELECT "r"."r_name" AS "region", CHAR_LENGTH("r"."r_name") AS "name_length"
FROM "raw"."region" AS "r"
"""

# No contract: every column of a sample is shown as a token.
MASKING = TableMasking.of(None, Masker(b"test key"))


@pytest.fixture
def lake(tmp_path, raw_lake_root):
    """A lake of its own holding copies of nation and region, so tests may republish them."""
    lake = Lake(tmp_path / "lake")
    for name in ("nation", "region"):
        with lake.stage("raw", name) as staging:
            for f in (raw_lake_root / "raw" / name).glob("*.parquet"):
                shutil.copy(f, staging / f.name)
            lake.publish("raw", name, staging, {"source": "copy"})
    return lake


@pytest.mark.parametrize(("max_input_rows", "sampled"), [(1_000_000, False), (10, True)])
def test_duckdb_and_spark_agree(lake, spark_engine, max_input_rows, sampled):
    built = build_table(lake, DuckDBEngine(), TABLE, NATIONS_PER_REGION)
    result = check_portability(
        lake,
        built.version,
        NATIONS_PER_REGION,
        DuckDBEngine(),
        spark_engine,
        file="nations.sql",
        masking=MASKING,
        max_input_rows=max_input_rows,
        sample_modulus=2,
    )
    assert result.passed, result.summary
    assert result.sampled is sampled
    assert result.digest == result.other_digest
    assert (result.digest == built.content_digest) is not sampled
    assert result.metadata["input_rows"] == 30


def test_a_table_whose_input_version_left_the_lake_must_be_rebuilt_first(lake, spark_engine):
    built = build_table(lake, DuckDBEngine(), TABLE, NATIONS_PER_REGION)
    read = lake.current("raw", "region")
    for _ in range(2):  # two newer versions: retention still keeps the one the table read
        with lake.stage("raw", "region") as staging:
            for f in read.files:
                shutil.copy(f, staging / f.name)
            lake.publish("raw", "region", staging, {"source": "republished"})
    check = functools.partial(
        check_portability,
        lake,
        built.version,
        NATIONS_PER_REGION,
        DuckDBEngine(),
        spark_engine,
        file="nations.sql",
        masking=MASKING,
        max_input_rows=1_000_000,
    )
    assert read.path.is_dir()
    assert check().passed
    shutil.rmtree(read.path)  # removed by hand, outside retention
    result = check()
    assert not result.passed
    assert "rebuild the table first" in result.summary


def test_a_column_typed_differently_fails_the_check_and_is_named(lake, spark_engine):
    table = WarehouseTable("name_lengths", ("raw.region",))
    built = build_table(lake, DuckDBEngine(), table, NAME_LENGTHS)
    result = check_portability(
        lake,
        built.version,
        NAME_LENGTHS,
        DuckDBEngine(),
        spark_engine,
        file="name_lengths.sql",
        masking=MASKING,
        max_input_rows=1_000_000,
    )
    assert not result.passed
    assert result.digest == result.other_digest  # the values agree; only the type differs
    assert "name_length: BIGINT on duckdb, INTEGER on spark" in result.summary
    assert result.metadata["column_differences"] == [
        {"position": 2, "column": "name_length", "duckdb_type": "BIGINT", "spark_type": "INTEGER"}
    ]


@pytest.mark.parametrize(
    ("schema", "other", "expected"),
    [
        ([("a", "INTEGER")], [("a", "INTEGER")], []),
        (
            [("a", "BIGINT"), ("b", "VARCHAR")],
            [("a", "INTEGER"), ("b", "VARCHAR")],
            [SchemaDifference(1, "a", "a", "BIGINT", "INTEGER")],
        ),
        (
            [("a", "INTEGER"), ("b", "DATE")],
            [("b", "DATE"), ("a", "INTEGER")],
            [
                SchemaDifference(1, "a", "b", "INTEGER", "DATE"),
                SchemaDifference(2, "b", "a", "DATE", "INTEGER"),
            ],
        ),
        ([("a", "INTEGER")], [], [SchemaDifference(1, "a", None, "INTEGER", None)]),
    ],
    ids=["same", "type", "order", "missing"],
)
def test_schema_differences_are_by_position(schema, other, expected):
    assert schema_differences(schema, other) == expected


def test_a_renamed_or_missing_column_is_described_by_position():
    assert (
        SchemaDifference(2, "b", None, "DATE", None).describe("duckdb", "spark")
        == "column 2: b DATE on duckdb, nothing on spark"
    )


def _source_sql(path: Path) -> str:
    if path.parent.name == "ansi":
        return portable_sql(path)
    return translate_file(path).ansi_sql


def _no_rows(ansi_sql: str) -> str:
    """``SELECT * FROM (query) FETCH FIRST 0 ROWS ONLY``: the query's columns and types, which
    are fixed when it is planned, without the data work (Spark takes seconds per query)."""
    query = exp.Subquery(
        this=sqlglot.parse_one(ansi_sql, read=ansi.Ansi),
        alias=exp.TableAlias(this=exp.to_identifier("t", quoted=True)),
    )
    return ansi.generate(exp.select(exp.Star()).from_(query).limit(0))


@pytest.fixture(scope="module")
def warehouse_inputs(raw_lake_root, tmp_path_factory):
    """Lake tables by ``zone.table``: the raw ones, and warehouse tables built on DuckDB on
    first use (for the tables that read other warehouse tables)."""
    raw = {f"raw.{p.name}": p for p in (raw_lake_root / "raw").iterdir() if p.is_symlink()}
    out = tmp_path_factory.mktemp("warehouse_inputs")
    by_name = {p.stem: p for p in WAREHOUSE_SOURCES}

    @functools.cache
    def table(key: str) -> Path:
        if key in raw:
            return raw[key]
        source = by_name[key.split(".", 1)[1]]
        sql = _no_rows(_source_sql(source))
        folder = out / source.stem
        DuckDBEngine().build(sql, {k: table(k) for k in tables_read(sql)}, folder, file=str(source))
        return folder

    return table


@pytest.mark.parametrize("source", WAREHOUSE_SOURCES, ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_every_warehouse_table_has_the_same_columns_on_duckdb_and_spark(
    source, warehouse_inputs, spark_engine, tmp_path
):
    """Built from the same ANSI SQL over the same inputs, both engines write the same column
    names and types, in order (what PORTABLE-TYPE casts for). The builds keep no rows:
    types do not depend on the data, and test_corpus.py and the warehouse asset tests
    compare the rows."""
    sql = _no_rows(_source_sql(source))
    inputs = {key: warehouse_inputs(key) for key in tables_read(sql)}
    schemas = {}
    for engine in (DuckDBEngine(), spark_engine):
        engine.build(sql, inputs, tmp_path / engine.name, file=str(source))
        schemas[engine.name] = output_schema(tmp_path / engine.name)
    differences = schema_differences(schemas["duckdb"], schemas["spark"])
    assert not differences, [d.describe("duckdb", "spark") for d in differences]
