import shutil

import pytest

from pipelines.engines.duckdb_engine import DuckDBEngine
from pipelines.lake import Lake
from pipelines.portability import check_portability
from pipelines.warehouse import WarehouseTable, build_table

NATIONS_PER_REGION = """
SELECT "r"."r_name" AS "region", COUNT(*) AS "nations", SUM("n"."n_nationkey") AS "key_sum"
FROM "raw"."nation" AS "n"
JOIN "raw"."region" AS "r" ON "r"."r_regionkey" = "n"."n_regionkey"
GROUP BY "r"."r_name"
"""
TABLE = WarehouseTable("nations_per_region", ("raw.nation", "raw.region"))


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
        max_input_rows=max_input_rows,
        sample_modulus=2,
    )
    assert result.passed, result.summary
    assert result.sampled is sampled
    assert result.digest == result.other_digest
    assert (result.digest == built.content_digest) is not sampled
    assert result.metadata["input_rows"] == 30


def test_a_table_whose_inputs_were_republished_must_be_rebuilt_first(lake, spark_engine):
    built = build_table(lake, DuckDBEngine(), TABLE, NATIONS_PER_REGION)
    for _ in range(2):  # two newer versions push the one the table read out of the lake
        current = lake.current("raw", "region")
        with lake.stage("raw", "region") as staging:
            for f in current.files:
                shutil.copy(f, staging / f.name)
            lake.publish("raw", "region", staging, {"source": "republished"})
    result = check_portability(
        lake,
        built.version,
        NATIONS_PER_REGION,
        DuckDBEngine(),
        spark_engine,
        file="nations.sql",
        max_input_rows=1_000_000,
    )
    assert not result.passed
    assert "rebuild the table first" in result.summary
