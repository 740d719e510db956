"""Validation on every engine: each expectation kind with keeping and breaking data.

The DuckDB-built tables' path (``validate_parquet``: GX's SQL engine inside DuckDB) and the
pandas path (``validate_arrow``) run the same cases through the ``validate`` fixture."""

from __future__ import annotations

import dataclasses
import datetime as dt

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from pipelines.contracts import compile_contract, load_contract, validate_arrow, validate_parquet
from pipelines.contracts.validate import MAX_FAILING_ROWS, validate_spark


def _failed(result) -> set[str]:
    return {outcome.name for outcome in result.outcomes if not outcome.passed}


def _change(**values):
    """An edit of the column dict: whole columns, or {index: value} patches."""

    def edit(columns):
        for name, value in values.items():
            if value is None:
                del columns[name]
            elif isinstance(value, dict):
                for index, item in value.items():
                    columns[name][index] = item
            else:
                columns[name] = value

    return edit


LONG_PRIORITY = "1-URGENTTTTTTTTTTTT"

# (case, edit of three good rows, names of the expectations that must fail)
BREAKING_DATA = [
    ("too few rows", "rows=1", {"table.row_count"}),
    ("too many rows", "rows=101", {"table.row_count"}),
    ("duplicate primary key", _change(o_orderkey={1: 1}), {"table.primary_key"}),
    (
        "missing column",
        _change(o_shippriority=None),
        {"o_shippriority.exists", "o_shippriority.type"},
    ),
    (
        "text in an integer column",
        _change(o_shippriority=["a", "b", None]),
        {"o_shippriority.type"},
    ),
    ("text in a timestamp column", _change(o_updated_at=["x"] * 3), {"o_updated_at.type"}),
    ("integer in a boolean column", _change(o_is_open=[1, 0, 1]), {"o_is_open.type"}),
    ("null in a required column", _change(o_orderstatus={1: None}), {"o_orderstatus.not_null"}),
    (
        "duplicate in a unique column",
        _change(o_clerk={1: "Clerk#000"}),
        {"o_clerk.unique", "o_clerk.duplicateValues"},
    ),
    ("value outside the enum", _change(o_orderstatus={1: "X"}), {"o_orderstatus.allowed_values"}),
    ("below the minimum", _change(o_custkey={0: 0}), {"o_custkey.range"}),
    ("at an exclusive minimum", _change(o_totalprice={0: 0.0}), {"o_totalprice.range"}),
    ("above the maximum", _change(o_totalprice={0: 600000.01}), {"o_totalprice.range"}),
    (
        "date before the minimum",
        _change(o_orderdate={2: dt.date(1991, 12, 31)}),
        {"o_orderdate.range"},
    ),
    (
        "too long",
        _change(o_orderpriority={0: LONG_PRIORITY}),
        {"o_orderpriority.length", "o_orderpriority.invalidValues.valid_values"},
    ),
    (
        "pattern mismatch",
        _change(o_orderpriority={0: "x-URGENT"}),
        {"o_orderpriority.pattern", "o_orderpriority.invalidValues.valid_values"},
    ),
    (
        "invalid value",
        _change(o_orderpriority={0: "1-CRITICAL"}),
        {"o_orderpriority.invalidValues.valid_values"},
    ),
    ("null values", _change(o_totalprice={0: None}), {"o_totalprice.nullValues"}),
    ("missing value null", _change(o_clerk={0: None}), {"o_clerk.missingValues.null"}),
    ("missing value marker", _change(o_clerk={0: "N/A"}), {"o_clerk.missingValues.values"}),
    (
        "duplicate compound key",
        _change(o_custkey={1: 10}, o_orderdate={1: None}),
        {"table.duplicateValues"},
    ),
    (
        "sql rule",
        _change(o_totalprice=[None, None, None]),
        {"o_totalprice.nullValues", "table.positive_revenue"},
    ),
]


def _columns(make_columns, edit):
    if isinstance(edit, str):
        return make_columns(int(edit.removeprefix("rows=")))
    columns = make_columns()
    if edit is _change:
        return columns
    edit(columns)
    if columns.get("o_orderdate") and columns["o_orderdate"][1] is None:
        columns["o_orderdate"][1] = columns["o_orderdate"][0]
    return columns


def test_keeping_data_passes(validate, orders_compiled, make_columns, make_table):
    result = validate(orders_compiled, make_table(make_columns()))
    assert _failed(result) == set()
    assert result.passed
    assert result.failing_rows == ()
    assert (result.table, result.contract_version) == ("orders", "1.2.0")
    assert len(result.outcomes) == len(orders_compiled.expectations)
    revenue = next(o for o in result.outcomes if o.name == "table.positive_revenue")
    assert revenue.observed == "304.50"  # DuckDB sums the DECIMAL(15,2) column exactly


@pytest.mark.parametrize(
    ("edit", "expected"),
    [case[1:] for case in BREAKING_DATA],
    ids=[case[0] for case in BREAKING_DATA],
)
def test_breaking_data_fails_exactly_its_expectations(
    validate, orders_compiled, make_columns, make_table, edit, expected
):
    result = validate(orders_compiled, make_table(_columns(make_columns, edit)))
    assert not result.passed
    assert _failed(result) == expected


def test_outcomes_carry_observed_values(validate, orders_compiled, make_columns, make_table):
    table = make_table(_columns(make_columns, _change(o_orderstatus={1: "X"})))
    result = validate(orders_compiled, table)
    outcomes = {outcome.name: outcome for outcome in result.outcomes}
    enum = outcomes["o_orderstatus.allowed_values"]
    assert enum.column == "o_orderstatus"
    assert enum.observed["unexpected_count"] == 1
    assert "['X']" in enum.details
    assert outcomes["table.row_count"].observed == 3
    # The engine's own type: numpy's on pandas, the reflected SQLAlchemy type on DuckDB.
    expected_type = "BigInteger" if getattr(validate, "path", "") == "duckdb" else "int64"
    assert outcomes["o_orderkey.type"].observed == expected_type
    assert [row["o_orderstatus"] for row in result.failing_rows] == ["X"]
    assert result.failing_rows[0]["o_orderkey"] == 2


def test_missing_column_is_an_outcome_not_a_crash(
    validate, orders_compiled, make_columns, make_table
):
    result = validate(orders_compiled, make_table(_columns(make_columns, _change(o_clerk=None))))
    outcomes = {outcome.name: outcome for outcome in result.outcomes}
    assert not outcomes["o_clerk.exists"].passed
    assert outcomes["o_clerk.unique"].details.startswith("error:")


def test_failing_rows_are_capped(validate, orders_compiled, make_columns, make_table):
    columns = make_columns(60)
    columns["o_orderstatus"] = ["X"] * 60
    result = validate(orders_compiled, make_table(columns))
    assert len(result.failing_rows) == MAX_FAILING_ROWS
    assert [row["o_orderkey"] for row in result.failing_rows] == list(range(1, 21))


def test_digest_is_stable_and_sensitive(validate, orders_compiled, make_columns, make_table):
    good = validate(orders_compiled, make_table(make_columns()))
    again = validate(orders_compiled, make_table(make_columns()))
    bad = validate(orders_compiled, make_table(_columns(make_columns, _change(o_custkey={0: 0}))))
    assert good.digest() == again.digest()
    assert len(good.digest()) == 64
    assert bad.digest() != good.digest()
    assert dataclasses.replace(good, contract_version="2.0.0").digest() != good.digest()


def test_validate_parquet_folder(orders_compiled, make_columns, make_table, tmp_path):
    table = make_table(make_columns(4))
    pq.write_table(table.slice(0, 2), tmp_path / "part-0.parquet")
    pq.write_table(table.slice(2), tmp_path / "part-1.parquet")
    result = validate_parquet(orders_compiled, tmp_path)
    assert result.passed
    assert next(o for o in result.outcomes if o.name == "table.row_count").observed == 4


def _with_extra_sql_rules(document):
    document["schema"][0]["quality"].append(
        {
            "type": "sql",
            "name": "at_most_100_rows",
            "query": "SELECT COUNT(*) FROM ${table}",
            "mustBeLessOrEqualTo": 100,
        }
    )
    document["schema"][0]["properties"][1]["quality"] = [
        {
            "type": "sql",
            "name": "min_key",
            "query": "SELECT MIN(${column}) FROM ${table}",
            "mustBeGreaterOrEqualTo": 1,
        }
    ]


def test_sql_rule_that_cannot_run_fails(validate, write_contract, make_columns, make_table):
    def edit(document):
        document["schema"][0]["quality"][2]["query"] = "SELECT SUM(no_such_column) FROM ${table}"

    compiled = compile_contract(load_contract(write_contract(edit)))
    result = validate(compiled, make_table(make_columns()))
    outcome = next(o for o in result.outcomes if o.name == "table.positive_revenue")
    assert not outcome.passed
    assert outcome.details.startswith("error:")
    assert "no_such_column" in outcome.details


def _everything_broken(make_columns) -> dict[str, list]:
    """101 rows that break every kind of promise at once (see the expected names below)."""
    columns = make_columns(101)
    del columns["o_is_open"]
    columns["o_shippriority"] = ["p"] * 101
    columns["o_updated_at"] = ["noon"] * 101
    patches = {
        "o_orderkey": {1: 1},
        "o_orderstatus": {0: None, 1: "X"},
        "o_clerk": {2: "Clerk#003", 4: "N/A", 5: None},
        "o_custkey": {6: 0, 11: 99},
        "o_totalprice": {7: 0.0, 8: None},
        "o_orderpriority": {9: LONG_PRIORITY, 10: "x-URGENT"},
    }
    for name, patch in patches.items():
        for index, value in patch.items():
            columns[name][index] = value
    columns["o_custkey"][12] = 99
    columns["o_orderdate"][12] = columns["o_orderdate"][11]
    columns["o_orderdate"][13] = dt.date(1999, 1, 1)
    return columns


EVERYTHING_BROKEN = {
    "table.row_count",
    "table.primary_key",
    "o_is_open.exists",
    "o_is_open.type",
    "o_shippriority.type",
    "o_updated_at.type",
    "o_orderstatus.not_null",
    "o_orderstatus.allowed_values",
    "o_clerk.unique",
    "o_clerk.duplicateValues",
    "o_clerk.missingValues.values",
    "o_clerk.missingValues.null",
    "o_custkey.range",
    "o_totalprice.range",
    "o_totalprice.nullValues",
    "o_orderdate.range",
    "o_orderpriority.length",
    "o_orderpriority.pattern",
    "o_orderpriority.invalidValues.valid_values",
    "table.duplicateValues",
    "table.at_most_100_rows",
    "o_custkey.min_key",
}


@pytest.fixture(scope="module")
def strict_compiled(tmp_path_factory, orders_document):
    import copy

    import yaml

    document = copy.deepcopy(orders_document)
    _with_extra_sql_rules(document)
    path = tmp_path_factory.mktemp("strict") / "orders.yaml"
    path.write_text(yaml.safe_dump(document, sort_keys=False))
    return compile_contract(load_contract(path))


def test_everything_broken(validate, strict_compiled, make_columns, make_table):
    result = validate(strict_compiled, make_table(_everything_broken(make_columns)))
    assert _failed(result) == EVERYTHING_BROKEN
    assert 0 < len(result.failing_rows) <= MAX_FAILING_ROWS


@pytest.mark.slow
def test_spark_keeping_data_passes(spark_engine, strict_compiled, make_columns, make_table):
    frame = spark_engine.session().createDataFrame(make_table(make_columns()))
    result = validate_spark(strict_compiled, frame)
    assert _failed(result) == set()
    assert result.failing_rows == ()
    outcomes = {outcome.name: outcome for outcome in result.outcomes}
    assert outcomes["o_orderkey.type"].observed == "LongType"
    assert outcomes["table.at_most_100_rows"].observed == 3


@pytest.mark.slow
def test_spark_breaking_data_fails_every_kind(
    spark_engine, strict_compiled, make_columns, make_table
):
    table = make_table(_everything_broken(make_columns))
    frame = spark_engine.session().createDataFrame(table)
    result = validate_spark(strict_compiled, frame)
    assert _failed(result) == EVERYTHING_BROKEN
    # the same verdicts as on the DuckDB/Arrow path
    arrow = validate_arrow(strict_compiled, table)
    assert [(o.name, o.passed) for o in result.outcomes] == [
        (o.name, o.passed) for o in arrow.outcomes
    ]
    # Spark rows are identified by the primary key
    assert 0 < len(result.failing_rows) <= MAX_FAILING_ROWS
    assert {"o_orderkey": 1, "o_orderstatus": "X"} in result.failing_rows


def test_string_view_columns_are_strings(validate, orders_compiled, make_columns, make_table):
    # tpchgen-cli and recent Arrow writers produce string_view rather than string
    table = make_table(make_columns())
    index = table.schema.get_field_index("o_orderstatus")
    table = table.set_column(
        index, "o_orderstatus", table.column("o_orderstatus").cast(pa.string_view())
    )
    assert validate(orders_compiled, table).passed
