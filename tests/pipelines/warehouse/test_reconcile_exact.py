"""Exact verdicts: values compare exactly unless a tolerance is declared, whichever engine
wrote the built table (DuckDB or Spark), and a changed value in a large table is still
caught and named, in bounded memory.

Where these verdicts differ from the reconciliation before aggregates and hashes (numbers
compared as DOUBLE within 1e-9, rows as 12 significant digits), the test says so.
"""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path

import duckdb
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from pipelines.warehouse.reconcile import SnapshotFiles, Thresholds, reconcile


def _table(sql: str) -> pa.Table:
    with duckdb.connect() as con:
        return con.sql(sql).to_arrow_table()


@pytest.mark.parametrize(
    ("built", "reference", "passed", "differing"),
    [
        # An integer and a decimal of the same value are the same value.
        ("SELECT 7::INTEGER AS v", "SELECT 7::DECIMAL(10,0) AS v", True, []),
        ("SELECT 7::BIGINT AS v", "SELECT 7.00::DECIMAL(12,2) AS v", True, []),
        ("SELECT 1.5::DECIMAL(12,2) AS v", "SELECT 1.5::DECIMAL(38,4) AS v", True, []),
        # A decimal exported as a double holding its value.
        ("SELECT 250.10::DECIMAL(12,2) AS v", "SELECT 250.1::DOUBLE AS v", True, []),
        # Decimals to the last digit: once equal under 12 significant digits.
        (
            "SELECT 12345678901234.56::DECIMAL(38,2) AS v",
            "SELECT 12345678901234.57::DECIMAL(38,2) AS v",
            False,
            ["v"],
        ),
        # Integers to the last digit, whatever the relative size: once within 1e-9.
        ("SELECT 1000000000001::BIGINT AS v", "SELECT 1000000000000::BIGINT AS v", False, ["v"]),
        # NULL is not ''.
        ("SELECT NULL::VARCHAR AS v", "SELECT ''::VARCHAR AS v", False, ["v"]),
        # Text byte for byte.
        ("SELECT 'Lima ' AS v", "SELECT 'Lima' AS v", False, ["v"]),
        ("SELECT 'é' AS v", "SELECT 'e' || chr(769) AS v", False, ["v"]),
        # A DATE is not a TIMESTAMP at midnight: the type changed.
        (
            "SELECT DATE '2024-01-02' AS v",
            "SELECT TIMESTAMP '2024-01-02 00:00:00' AS v",
            False,
            ["v"],
        ),
        # The same instant at another precision.
        (
            "SELECT TIMESTAMP '2024-01-02 03:04:05' AS v",
            "SELECT '2024-01-02 03:04:05'::TIMESTAMP_NS AS v",
            True,
            [],
        ),
        # Floating point: within the run's tolerance (1e-9) where none is declared.
        ("SELECT 0.1::DOUBLE + 0.2::DOUBLE AS v", "SELECT 0.3::DOUBLE AS v", True, []),
        ("SELECT 0.3001::DOUBLE AS v", "SELECT 0.3::DOUBLE AS v", False, ["v"]),
    ],
)
def test_values_compare_exactly_unless_a_tolerance_applies(built, reference, passed, differing):
    result = reconcile(_table(built), _table(reference))
    assert result.passed is passed, result.summary()
    assert result.columns_differing == differing
    if not passed:
        assert (result.only_in_table, result.only_in_reference) == (1, 1)


def test_floating_point_compares_exactly_as_stored_with_no_tolerance():
    noisy, exact = _table("SELECT 0.1::DOUBLE + 0.2::DOUBLE AS v"), _table("SELECT 0.3 AS v")
    assert not reconcile(noisy, exact, Thresholds(relative_tolerance=0)).passed
    # A tolerance the table declares is the column's own.
    assert reconcile(noisy, exact, Thresholds(relative_tolerance=0), tolerance={"v": 1e-12}).passed


def test_a_declared_tolerance_on_an_exact_column_is_honoured():
    built = _table("SELECT 100.00::DECIMAL(12,2) AS v")
    reference = _table("SELECT 100.01::DECIMAL(12,2) AS v")
    assert not reconcile(built, reference).passed
    assert reconcile(built, reference, tolerance={"v": 1e-3}).passed


def test_duplicates_count_and_floats_pair_within_groups():
    built = _table("SELECT * FROM (VALUES (1, 1.0::DOUBLE), (1, 2.0), (2, 5.0), (2, 5.0)) t(k, v)")
    reference = _table(
        "SELECT * FROM (VALUES (1, 2.0 + 1e-12::DOUBLE), (1, 1.0), (2, 5.0), (3, 5.0)) t(k, v)"
    )
    result = reconcile(built, reference)
    assert (result.only_in_table, result.only_in_reference) == (1, 1)
    assert result.sample_only_in_table == [{"k": "2", "v": "5.0"}]
    assert result.sample_only_in_reference == [{"k": "3", "v": "5.0"}]


def test_equal_tables_are_settled_by_their_aggregates_alone():
    table = _table("SELECT i, i * 1.5 AS v, i::VARCHAR AS s FROM range(1000) t(i)")
    shuffled = table.take(list(reversed(range(1000))))
    assert reconcile(table, shuffled).compared_by == "aggregates"
    assert reconcile(table, shuffled, key=["i"]).compared_by == "rows"


@pytest.mark.parametrize("key", [(), ("order_key",)])
def test_a_changed_value_in_a_large_table_is_caught_and_named_in_bounded_memory(
    tmp_path: Path, key
):
    rows = 300_000
    generated = (
        "SELECT i AS order_key, (i % 7)::INTEGER AS line_number, "
        "['AIR', 'MAIL', 'SHIP'][i % 3 + 1] AS ship_mode, (i % 50 + 1)::BIGINT AS quantity, "
        "(i * 0.01)::DECIMAL(15,2) AS price, DATE '1995-01-01' + (i % 2000)::INTEGER AS day "
        f"FROM range({rows}) t(i)"
    )
    with duckdb.connect() as con:
        con.sql(generated).write_parquet(str(tmp_path / "built.parquet"))
        changed = generated.replace(
            "(i * 0.01)::DECIMAL(15,2) AS price",
            "CASE WHEN i = 123457 THEN 1234.58 ELSE (i * 0.01) END::DECIMAL(15,2) AS price",
        )
        # As a legacy export writes it: CSV, where the price reads back as a DOUBLE.
        con.sql(changed).write_csv(str(tmp_path / "snapshot.csv"))
    scratch = tmp_path / "scratch"
    result = reconcile(
        tmp_path / "built.parquet",
        SnapshotFiles(tmp_path / "snapshot.csv"),
        key=key,
        scratch=scratch,
        memory_limit="64MB",
    )
    assert not result.passed
    # The sum is within the run's tolerance (the export's price is a DOUBLE): named by the
    # rows, matched by key or, without one, paired by every other column.
    assert result.columns_differing == ["price"]
    [values] = [c for c in result.comparisons if c.measure == "values"]
    assert {str(values.built), str(values.reference)} == {"1234.57", "1234.58"}
    assert (result.only_in_table, result.only_in_reference) == (1, 1)
    assert result.sample_only_in_table[0]["price"] == "1234.57"
    assert result.sample_only_in_reference[0]["price"] == "1234.58"
    assert result.sample_only_in_table[0]["order_key"] == "123457"
    # The reconciliation's own folder is gone once it is done.
    assert list(scratch.iterdir()) == []


VALUES = (
    "SELECT * FROM VALUES "
    "(1, CAST(10.50 AS DECIMAL(12,2)), 'Oslo', DATE'2024-01-02', TIMESTAMP'2024-01-02 03:04:05', 0.1D),"
    "(2, CAST(NULL AS DECIMAL(12,2)), '', DATE'2024-01-03', TIMESTAMP'2024-01-03 00:00:00', 2.5D),"
    "(3, CAST(-0.25 AS DECIMAL(12,2)), NULL, NULL, NULL, NULL) "
    "AS t(id, amount, city, day, stamp, share)"
)


@pytest.mark.parametrize(
    ("change", "passed", "differing"),
    [
        ({}, True, []),
        ({"amount": [Decimal("10.50"), Decimal("0.00"), Decimal("-0.25")]}, False, ["amount"]),
        ({"city": ["Oslo", None, None]}, False, ["city"]),
        ({"share": [0.1 + 1e-13, 2.5, None]}, True, []),
    ],
)
def test_a_table_spark_built_has_the_verdict_duckdb_gives(
    spark_engine, tmp_path: Path, change, passed, differing
):
    """Spark writes its own Parquet types (INT, DECIMAL, TIMESTAMP with its zone): the
    verdicts are DuckDB's against the same reference."""
    spark = spark_engine.session()
    built = tmp_path / "spark"
    spark.sql(VALUES).write.parquet(str(built))
    with duckdb.connect() as con:
        con.execute("SET TimeZone = 'UTC'")
        duckdb_sql = (
            VALUES.replace("SELECT * FROM VALUES ", "SELECT * FROM (VALUES ")
            .replace(" AS t(", ") AS t(")
            .replace("0.1D", "0.1::DOUBLE")
            .replace("2.5D", "2.5::DOUBLE")
        )
        reference = con.sql(duckdb_sql).to_arrow_table()
    for column, values in change.items():
        index = reference.schema.get_field_index(column)
        reference = reference.set_column(
            index, column, pa.array(values, reference.schema.field(column).type)
        )
    for built_by in (built, pq.read_table(built)):
        result = reconcile(built_by, reference)
        assert result.passed is passed, result.summary()
        assert result.columns_differing == differing
