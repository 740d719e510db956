from decimal import Decimal

import pyarrow as pa
import pytest

from pipelines.warehouse.build import shown_measure
from pipelines.warehouse.reconcile import Thresholds, reconcile

REFERENCE = pa.table(
    {
        "k": [1, 2, 3],
        "price": pa.array([Decimal("1.50"), Decimal("2.50"), None], pa.decimal128(15, 2)),
        "name": ["a", "b", "c"],
    }
)


def test_same_rows_in_another_order_and_type_reconcile():
    table = pa.table({"k": [3, 1, 2], "price": [None, 1.5, 2.5], "name": ["c", "a", "b"]})
    result = reconcile(table, REFERENCE)
    assert result.passed, result.summary()
    assert result.summary().startswith("reconciled: 3 rows")


@pytest.mark.parametrize(
    ("table", "column", "measure"),
    [
        (
            pa.table({"k": [1, 2, 3], "price": [1.5, 2.75, None], "name": ["a", "b", "c"]}),
            "price",
            "sum",
        ),
        (
            pa.table({"k": [1, 2, 3], "price": [1.5, 2.5, 0.0], "name": ["a", "b", "c"]}),
            "price",
            "nulls",
        ),
        (
            pa.table({"k": [1, 2, 3], "price": [1.5, 2.5, None], "name": ["a", "B", "c"]}),
            "name",
            "min",
        ),
    ],
)
def test_a_difference_names_the_column_and_the_measure(table, column, measure):
    result = reconcile(table, REFERENCE)
    assert not result.passed
    assert result.columns_differing == [column]
    assert measure in {d.measure for d in result.differences}
    assert result.only_in_table == 1 and result.only_in_reference == 1
    assert len(result.sample_only_in_table) == 1


def test_missing_and_extra_columns_and_row_counts():
    table = pa.table({"k": [1, 2], "name": ["a", "b"], "extra": [0, 0]})
    result = reconcile(table, REFERENCE)
    assert not result.passed
    kinds = {(d.column, d.measure) for d in result.differences}
    assert ("price", "missing") in kinds and ("extra", "extra") in kinds
    assert (result.actual_rows, result.expected_rows) == (2, 3)
    assert "2 rows vs 3 in the reference" in result.summary()


def test_float_noise_below_twelve_digits_is_not_a_difference():
    noisy = pa.table({"k": [1, 2, 3], "price": [1.5 + 1e-12, 2.5, None], "name": ["a", "b", "c"]})
    assert reconcile(noisy, REFERENCE).passed


def test_a_tolerated_fraction_of_unmatched_rows():
    one_off = pa.table({"k": [1, 2, 3], "price": [1.5, 2.75, None], "name": ["a", "b", "c"]})
    assert not reconcile(one_off, REFERENCE).passed
    assert reconcile(one_off, REFERENCE, Thresholds(max_unmatched_fraction=0.34)).passed
    assert not reconcile(one_off, REFERENCE, Thresholds(max_unmatched_fraction=0.2)).passed


def test_thresholds_are_validated():
    with pytest.raises(ValueError, match="max_unmatched_fraction"):
        Thresholds(max_unmatched_fraction=1.5)


def test_every_measure_is_compared_on_both_sides():
    table = pa.table({"k": [1, 2, 3], "price": [1.5, 2.75, None], "name": ["a", "b", "c"]})
    result = reconcile(table, REFERENCE)
    by_measure = {(c.column, c.measure): c for c in result.comparisons}
    assert set(by_measure) == {
        (None, "rows"),
        (None, "unmatched rows"),
        *{
            (column, m)
            for column in ("k", "price")
            for m in ("count", "min", "max", "sum", "nulls")
        },
        *{("name", m) for m in ("count", "min", "max", "nulls")},
        # The row k=2, equal in every other column, pairs with its reference row: its
        # price is the value that differs (a DOUBLE, within no tolerance).
        ("price", "values"),
    }
    values = by_measure[("price", "values")]
    assert (values.built, values.reference, values.passed) == (2.75, 2.5, False)
    price = by_measure[("price", "sum")]
    assert (price.built, price.reference, price.passed) == (4.25, 4.0, False)
    assert price.difference == pytest.approx(0.25)
    assert by_measure[("name", "max")].passed and by_measure[("name", "max")].difference is None
    rows = by_measure[(None, "rows")]
    assert (rows.built, rows.reference, rows.passed) == (3, 3, True)
    unmatched = by_measure[(None, "unmatched rows")]
    assert (unmatched.built, unmatched.reference, unmatched.passed) == (1, 1, False)
    failed = {(c.column, c.measure) for c in result.comparisons if not c.passed}
    assert failed - {(None, "unmatched rows")} == {
        (d.column, d.measure) for d in result.differences
    }


def test_a_missing_column_is_a_failed_comparison():
    table = pa.table({"k": [1, 2, 3], "name": ["a", "b", "c"]})
    [present] = [c for c in reconcile(table, REFERENCE).comparisons if c.measure == "present"]
    assert (present.column, present.built, present.reference, present.passed) == (
        "price",
        False,
        True,
        False,
    )


@pytest.mark.parametrize(
    ("value", "measure", "shown"),
    [
        (584805, "rows", "584,805"),
        (1200, "unmatched rows", "1,200"),
        (12, "nulls", "12"),
        (98765432, "sum", "98,765,432"),
        (1995, "max", 1995),  # a min or max keeps the column's own form
        (2.5, "sum", 2.5),
        (True, "present", True),
        (None, "count", None),
    ],
)
def test_a_reconciliation_count_reads_with_thousands_separators(value, measure, shown):
    assert shown_measure(value, measure) == shown
