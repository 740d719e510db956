"""Catalogs from a lake's Parquet schemas, and the build's check of a catalog against the lake."""

from __future__ import annotations

import shutil
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from click.testing import CliRunner

from pipelines.cli.main import main
from pipelines.lake.catalog import (
    LakeCatalogError,
    ansi_type,
    import_lake,
    schema_differences,
    types_match,
)
from pipelines.lake.store import Lake
from pipelines.warehouse.build import WarehouseTable, build_table
from pipelines.warehouse.engines.base import EngineError
from pipelines.warehouse.engines.duckdb_engine import DuckDBEngine
from sql.catalog import Catalog, load_catalog

ARROW_TYPES = [
    (pa.int16(), "SMALLINT"),
    (pa.int32(), "INTEGER"),
    (pa.int64(), "BIGINT"),
    (pa.decimal128(15, 2), "DECIMAL(15,2)"),
    (pa.decimal128(38, 0), "DECIMAL(38,0)"),
    (pa.decimal256(40, 2), None),  # more digits than any engine holds
    (pa.string(), "VARCHAR"),
    (pa.large_string(), "VARCHAR"),
    (pa.string_view(), "VARCHAR"),
    (pa.dictionary(pa.int32(), pa.string()), "VARCHAR"),
    (pa.date32(), "DATE"),
    (pa.timestamp("us"), "TIMESTAMP"),
    (pa.timestamp("ms"), "TIMESTAMP(3)"),
    (pa.timestamp("ns"), "TIMESTAMP(9)"),
    (pa.timestamp("us", tz="UTC"), "TIMESTAMP WITH TIME ZONE"),
    (pa.time64("us"), "TIME(6)"),
    (pa.bool_(), "BOOLEAN"),
    (pa.float64(), "DOUBLE PRECISION"),
    (pa.float32(), "REAL"),
    (pa.binary(), "VARBINARY"),
    (pa.binary(16), "BINARY(16)"),
    (pa.int8(), None),  # ANSI has no 8-bit integer
    (pa.uint32(), None),  # nor unsigned ones
    (pa.list_(pa.int64()), "BIGINT ARRAY"),
    (pa.large_list(pa.string()), "VARCHAR ARRAY"),
    (pa.struct([("x", pa.int64()), ("Y", pa.date32())]), 'ROW("x" BIGINT, "Y" DATE)'),
    (pa.list_(pa.struct([("a", pa.list_(pa.float64()))])), 'ROW("a" DOUBLE PRECISION ARRAY) ARRAY'),
    (pa.list_(pa.uint8()), None),  # an element with no exact form
    (pa.struct([]), None),
    (pa.map_(pa.string(), pa.int64()), None),
]


@pytest.mark.parametrize(("arrow", "expected"), ARROW_TYPES)
def test_arrow_types_map_to_exact_ansi_types(arrow, expected):
    assert ansi_type(arrow) == expected


def write_table(folder: Path, schema: pa.Schema, name: str = "part-0.parquet") -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    pq.write_table(schema.empty_table(), folder / name)
    return folder


def test_a_plain_lake_folder_imports_with_opaque_columns_reported(tmp_path):
    schema = pa.schema([("id", pa.int64()), ("tags", pa.uint32()), ("at", pa.timestamp("us"))])
    folder = write_table(tmp_path / "raw" / "events", schema)
    write_table(tmp_path / "raw" / "small", pa.schema([("n", pa.int32())]))
    (tmp_path / "raw" / ".hidden").mkdir()
    imported = import_lake(tmp_path)
    assert imported.tables == {
        "raw.events": {"id": "BIGINT", "tags": "uint32", "at": "TIMESTAMP"},
        "raw.small": {"n": "INTEGER"},
    }
    assert imported.opaque == {"raw.events": {"tags": "uint32"}}
    assert imported.warnings == (
        f"{folder}: warning[CATALOG-OPAQUE]: column raw.events.tags has type uint32 "
        "with no exact ANSI form; expressions over it will be refused",
    )


def test_a_plumbline_lake_imports_its_published_versions(tmp_path):
    lake = Lake(tmp_path)
    with lake.stage("raw", "orders") as staging:
        write_table(staging, pa.schema([("o_orderkey", pa.int64()), ("o_comment", pa.string())]))
        lake.publish("raw", "orders", staging, {})
    assert import_lake(tmp_path).tables == {
        "raw.orders": {"o_orderkey": "BIGINT", "o_comment": "VARCHAR"}
    }


def test_files_of_one_table_must_agree(tmp_path):
    folder = write_table(tmp_path / "raw" / "t", pa.schema([("a", pa.int64())]))
    write_table(folder, pa.schema([("a", pa.int32())]), name="part-1.parquet")
    with pytest.raises(LakeCatalogError, match=r"part-1\.parquet: its schema differs"):
        import_lake(tmp_path)


@pytest.mark.parametrize(
    ("catalog", "lake", "same"),
    [
        ("VARCHAR(25)", "VARCHAR", True),  # Parquet strings carry no length
        ("CHAR(10)", "VARCHAR", True),
        ("VARCHAR", "BIGINT", False),
        ("DECIMAL(15,2)", "DECIMAL(15,2)", True),
        ("DECIMAL(15, 2)", "DECIMAL(15,2)", True),
        ("DECIMAL(12,2)", "DECIMAL(15,2)", False),  # precision and scale are exact
        ("DECIMAL", "DECIMAL(15,2)", False),
        ("NUMERIC(15,2)", "DECIMAL(15,2)", True),
        ("INTEGER", "BIGINT", False),  # integers are exact width
        ("INT", "INTEGER", True),
        ("DOUBLE PRECISION", "DOUBLE PRECISION", True),
        ("FLOAT", "DOUBLE PRECISION", True),
        ("REAL", "DOUBLE PRECISION", False),
        ("TIMESTAMP", "TIMESTAMP", True),
        ("TIMESTAMP(3)", "TIMESTAMP", True),  # the lake may keep more digits than declared
        ("TIMESTAMP(9)", "TIMESTAMP", False),  # but not fewer
        ("TIMESTAMP", "TIMESTAMP WITH TIME ZONE", False),
        ("TIMESTAMP(0) WITH TIME ZONE", "TIMESTAMP WITH TIME ZONE", True),
        ("DATE", "TIMESTAMP", False),
        ("VARBINARY(16)", "VARBINARY", True),
        # arrays and rows: element by element, field by field
        ("VARCHAR(3) ARRAY", "VARCHAR ARRAY", True),
        ("INTEGER ARRAY", "BIGINT ARRAY", False),
        ("BIGINT ARRAY", "BIGINT", False),
        ('ROW("x" BIGINT, "y" DATE) ARRAY', 'ROW("x" BIGINT, "y" DATE) ARRAY', True),
        ('ROW("x" BIGINT, "y" DATE)', 'ROW("x" BIGINT, "z" DATE)', False),
        ('ROW("x" BIGINT)', 'ROW("x" BIGINT, "y" DATE)', False),
        ('ROW("x" TIMESTAMP(3))', 'ROW("x" TIMESTAMP)', True),
        ("ROW(", "BIGINT ARRAY", False),  # not a type
    ],
)
def test_catalog_types_match_lake_types_exactly_except_string_lengths(catalog, lake, same):
    assert types_match(catalog, lake) is same


def test_schema_differences_name_position_names_and_types(tmp_path):
    folder = write_table(
        tmp_path / "orders",
        pa.schema(
            [
                ("o_orderkey", pa.int64()),
                ("o_orderstatus", pa.string()),
                ("o_total", pa.decimal128(15, 2)),
            ]
        ),
    )
    expected = {
        "o_orderkey": "BIGINT",
        "o_custkey": "BIGINT",
        "o_total": "DECIMAL(12,2)",
        "o_comment": "VARCHAR",
    }
    assert schema_differences(expected, folder, catalog_source="c.yaml") == [
        f"column 2 is o_custkey BIGINT in the catalog (c.yaml) but o_orderstatus VARCHAR in the lake ({folder})",
        f"column 3 is o_total DECIMAL(12,2) in the catalog (c.yaml) but o_total DECIMAL(15,2) in the lake ({folder})",
        f"column 4 is o_comment VARCHAR in the catalog (c.yaml) but the lake table has only 3 columns ({folder})",
    ]
    assert schema_differences({"o_orderkey": "BIGINT"}, folder, catalog_source="c.yaml")[0] == (
        f"column 2 is o_orderstatus VARCHAR in the lake ({folder}) but the catalog lists only 1 columns (c.yaml)"
    )


def test_opaque_catalog_columns_are_compared_by_name_only(tmp_path):
    folder = write_table(tmp_path / "t", pa.schema([("payload", pa.uint64())]))
    assert schema_differences({"payload": "VARIANT"}, folder, opaque={"payload"}) == []
    assert schema_differences({"payload": "VARIANT"}, folder) == [
        f"column 1 is payload VARIANT in the catalog (the catalog) but payload uint64 "
        f"(no exact ANSI form) in the lake ({folder})"
    ]


def test_the_project_catalog_matches_the_tpch_lake_the_generator_writes(raw_lake_root):
    catalog = load_catalog()
    published = Lake(raw_lake_root).published()
    for table, columns in catalog.tables.items():
        assert schema_differences(columns, published[table]) == [], table


def test_a_catalog_imported_from_the_tpch_lake_is_the_project_catalog(raw_lake_root, tmp_path):
    out = tmp_path / "lake.yaml"
    result = CliRunner().invoke(
        main, ["catalog", "import", "--from-lake", str(raw_lake_root), "-o", str(out)]
    )
    assert result.exit_code == 0, result.stderr
    assert load_catalog(out).tables == load_catalog().tables


def test_a_build_reading_a_table_whose_columns_differ_is_refused(raw_lake_root, tmp_path):
    # A lake of our own holding raw.orders, so that the build can publish into it.
    lake = Lake(tmp_path / "lake")
    with lake.stage("raw", "orders") as staging:
        for path in Lake(raw_lake_root).current("raw", "orders").files:
            shutil.copy(path, staging / path.name)
        lake.publish("raw", "orders", staging, {})
    table = WarehouseTable("top_customers", ("raw.orders",), sql_path=Path("top_customers.sql"))
    sql = 'SELECT "o_custkey", COUNT(*) AS "orders" FROM "raw"."orders" GROUP BY "o_custkey"'
    good = load_catalog()
    first = build_table(lake, DuckDBEngine(threads=1), table, sql, catalog=good)

    # The catalog lists raw.orders' second and third columns the other way round.
    columns = list(good.tables["raw.orders"].items())
    columns[1], columns[2] = columns[2], columns[1]
    wrong = Catalog(tables={**good.tables, "raw.orders": dict(columns)}, sources=good.sources)
    pinned = lake.current("raw", "orders").path
    with pytest.raises(EngineError) as refused:
        build_table(lake, DuckDBEngine(threads=1), table, sql, catalog=wrong)
    assert str(refused.value).startswith(
        "warehouse/top_customers reads raw.orders: column 2 is o_orderstatus VARCHAR in the "
        f"catalog (sql/catalog.yaml) but o_custkey BIGINT in the lake ({pinned}); "
        "warehouse/top_customers reads raw.orders: column 3 is o_custkey BIGINT in the catalog "
        f"(sql/catalog.yaml) but o_orderstatus VARCHAR in the lake ({pinned})"
    )
    assert lake.current("warehouse", "top_customers").path == first.version.path
    versions = lake.root / "warehouse" / ".versions" / "top_customers"
    # The one version (beside the table's lock and its journal of what retention removed).
    assert [p.name for p in versions.iterdir() if not p.name.startswith(".")] == [
        first.version.path.name
    ]
