"""Reconciliation against the legacy warehouse's exported output: keyed rows, per-column
tolerances, and snapshots read from CSV and Parquet the way a legacy export writes them."""

from decimal import Decimal

import duckdb
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from pipelines.warehouse.reconcile import read_snapshot, reconcile

BUILT = pa.table(
    {
        "store": [1, 2, 3, 4],
        "revenue": pa.array(
            [Decimal("100.00"), Decimal("250.10"), Decimal("99.99"), None], pa.decimal128(12, 2)
        ),
        "city": ["Oslo", "Lima", "Pune", "Kobe"],
    }
)


def legacy(**changes: list) -> pa.Table:
    """The legacy warehouse's output: DOUBLE revenue (as an export typically holds it)."""
    columns = {
        "store": [1, 2, 3, 4],
        "revenue": [100.0, 250.1, 99.99, None],
        "city": ["Oslo", "Lima", "Pune", "Kobe"],
    }
    return pa.table({**columns, **changes})


def test_the_same_rows_in_another_type_and_order_reconcile_by_key():
    reference = legacy().take([3, 1, 0, 2])
    result = reconcile(BUILT, reference, key=["store"])
    assert result.passed, result.summary()
    assert (result.only_in_table, result.only_in_reference) == (0, 0)


@pytest.mark.parametrize(
    ("tolerance", "passed"),
    [({}, False), ({"revenue": 1e-3}, True), ({"revenue": 1e-6}, False)],
)
def test_a_numeric_column_matches_within_its_own_tolerance(tolerance, passed):
    # 250.10 against 250.15: a relative difference of 2e-4.
    reference = legacy(revenue=[100.0, 250.15, 99.99, None])
    result = reconcile(BUILT, reference, key=["store"], tolerance=tolerance)
    assert result.passed is passed, result.summary()
    if not passed:
        assert (result.only_in_table, result.only_in_reference) == (1, 1)
        assert result.sample_only_in_table == [{"store": "2", "revenue": "250.1", "city": "Lima"}]
        assert result.sample_only_in_reference[0]["revenue"] == "250.15"


def test_a_key_on_one_side_only_and_a_changed_text_are_unmatched_rows():
    reference = legacy(store=[1, 2, 3, 5], city=["Oslo", "Lima", "PUNE", "Kobe"])
    result = reconcile(BUILT, reference, key=["store"], tolerance={"revenue": 0.01})
    assert not result.passed
    assert result.only_in_table == 2 and result.only_in_reference == 2
    assert [row["store"] for row in result.sample_only_in_table] == ["3", "4"]
    assert [row["store"] for row in result.sample_only_in_reference] == ["3", "5"]


def test_null_against_a_number_is_a_difference_even_with_a_tolerance():
    reference = legacy(revenue=[100.0, 250.1, 99.99, 0.0])
    result = reconcile(BUILT, reference, key=["store"], tolerance={"revenue": 1.0})
    assert not result.passed
    assert result.sample_only_in_table == [{"store": "4", "revenue": None, "city": "Kobe"}]


def test_a_key_that_repeats_or_is_missing_fails_and_says_so():
    repeated = legacy(store=[1, 1, 3, 4])
    result = reconcile(BUILT, repeated, key=["store"])
    assert not result.passed
    [unique] = [c for c in result.comparisons if c.measure == "unique key"]
    assert (unique.built, unique.reference) == (True, False)

    missing = reconcile(BUILT, legacy(), key=["shop"])
    assert not missing.passed
    assert [(c.column, c.measure) for c in missing.comparisons if not c.passed] == [("shop", "key")]


@pytest.mark.parametrize(
    ("changes", "tolerance", "unmatched"),
    [
        # Within the declared tolerance, rows equal in every other column are the same rows.
        ({"revenue": [100.0, 250.15, 99.99, None]}, {"revenue": 1e-3}, 0),
        # Without one, exactly: 250.10 is not 250.15.
        ({"revenue": [100.0, 250.15, 99.99, None]}, {}, 1),
        # Beyond it.
        ({"revenue": [100.0, 250.15, 99.99, None]}, {"revenue": 1e-6}, 1),
        # A NULL is no number, whatever the tolerance.
        ({"revenue": [100.0, 250.1, 99.99, 0.0]}, {"revenue": 1.0}, 1),
        # Another column differs: no row of the other side to be near.
        ({"city": ["Oslo", "Lima", "PUNE", "Kobe"]}, {"revenue": 1e-3}, 1),
    ],
)
def test_without_a_key_rows_pair_within_a_declared_tolerance_only(changes, tolerance, unmatched):
    result = reconcile(BUILT, legacy(**changes), tolerance=tolerance)
    assert result.passed is (unmatched == 0), result.summary()
    assert (result.only_in_table, result.only_in_reference) == (unmatched, unmatched)


@pytest.mark.parametrize("form", ["csv", "parquet file", "parquet folder"])
def test_snapshots_read_from_what_legacy_exports_write(tmp_path, form):
    if form == "csv":
        path = tmp_path / "revenue.csv"
        path.write_text("store,revenue,city\n4,,Kobe\n1,100.00,Oslo\n2,250.10,Lima\n3,99.99,Pune\n")
    else:
        folder = tmp_path / "revenue"
        folder.mkdir()
        path = folder / "part-0.parquet" if form == "parquet file" else folder
        pq.write_table(legacy().slice(0, 2), folder / "part-0.parquet")
        if form == "parquet folder":
            pq.write_table(legacy().slice(2), folder / "part-1.parquet")
        else:
            pq.write_table(legacy(), path)
    snapshot = read_snapshot(path)
    assert snapshot.num_rows == 4
    assert reconcile(BUILT, snapshot, key=["store"]).passed


def test_reconciling_large_tables_by_key_counts_every_unmatched_row():
    with duckdb.connect() as con:
        built = con.sql("SELECT i AS k, i * 1.5 AS v FROM range(100000) t(i)").to_arrow_table()
        reference = con.sql(
            "SELECT i AS k, CASE WHEN i % 1000 = 0 THEN i * 1.5 + 1 ELSE i * 1.5 END AS v "
            "FROM range(100000) t(i)"
        ).to_arrow_table()
    result = reconcile(built, reference, key=["k"], tolerance={"v": 1e-12})
    assert (result.only_in_table, result.only_in_reference) == (100, 100)
