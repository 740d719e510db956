"""A contract's columns and results as people read them: constraints, and one results row
per expectation."""

from __future__ import annotations

import pytest

from pipelines.contracts import compile_contract, load_contract, validate_arrow
from pipelines.contracts.describe import (
    column_constraints,
    contract_result_rows,
    describe_columns,
    observed_text,
)


def test_columns_carry_the_contracts_description_and_constraints(write_contract):
    def edit(document):
        properties = document["schema"][0]["properties"]
        properties[0]["description"] = "The order | its key"
        properties[2]["classification"] = "restricted"

    contract = load_contract(write_contract(edit))
    columns = {c.name: c for c in describe_columns(contract)}
    key = columns["o_orderkey"]
    assert (key.description, key.type, key.nullable, key.unique) == (
        "The order | its key",
        "BIGINT",
        False,
        True,
    )
    assert key.other == ("primary key (1)", "classification: public")
    assert columns["o_orderstatus"].other == ("one of F, O, P", "classification: restricted")
    assert columns["o_custkey"].nullable is False
    assert columns["o_shippriority"].nullable is True
    assert [c.name for c in describe_columns(contract)] == [c.name for c in contract.columns]


@pytest.mark.parametrize(
    ("column", "expected"),
    [
        ("o_custkey", ">= 1"),
        ("o_totalprice", "> 0 and <= 600000"),
        ("o_orderdate", "between 1992-01-01 00:00:00 and 1998-12-31 00:00:00"),
    ],
)
def test_bounds_read_as_words(orders_contract, column, expected):
    assert expected in column_constraints(orders_contract, orders_contract.column(column))


def test_one_result_row_per_expectation_with_rule_threshold_and_observed(
    orders_contract, make_columns, make_table
):
    compiled = compile_contract(orders_contract)
    columns = make_columns()
    columns["o_orderstatus"][1] = "X"
    result = validate_arrow(compiled, make_table(columns))
    rows = contract_result_rows(compiled, result)
    assert len(rows) == len(compiled.expectations) == len(result.outcomes)
    by_name = {row["name"]: row for row in rows}
    status = by_name["o_orderstatus.allowed_values"]
    assert status == {
        "column": "o_orderstatus",
        "rule": "in set",
        "threshold": "F, O, P",
        "observed": "1 of 3 values unexpected (33.3%)",
        "passed": False,
        "expectation": "ExpectColumnValuesToBeInSet",
        "name": "o_orderstatus.allowed_values",
    }
    assert by_name["o_custkey.not_null"]["rule"] == "not null"
    assert by_name["o_custkey.range"]["threshold"] == ">= 1"
    assert by_name["table.row_count"]["column"] == "(table)"
    assert by_name["table.row_count"]["observed"] == "3"
    # The contract's logical type, with the engine's own name for what it found.
    assert by_name["o_orderkey.type"]["observed"] == "integer (engine: int64)"
    nulls = by_name["o_totalprice.nullValues"]
    assert (nulls["rule"], nulls["threshold"], nulls["passed"]) == ("null values", "= 0", True)
    assert [row["name"] for row in rows if not row["passed"]] == ["o_orderstatus.allowed_values"]


@pytest.mark.parametrize(
    ("observed", "details", "expected"),
    [
        (
            {"element_count": 10, "unexpected_count": 0, "unexpected_percent": 0.0},
            "",
            "0 of 10 values unexpected",
        ),
        (None, "error: no such column", "error: no such column"),
        (["a", "b"], "", "['a', 'b']"),
        (1.5, "", "1.5"),
        (584805, "", "584,805"),
        (0.98891854, "", "0.9889"),
        (True, "", True),
        (
            {"element_count": 584805, "unexpected_count": 1200, "unexpected_percent": 0.2052},
            "",
            "1,200 of 584,805 values unexpected (0.205%)",
        ),
    ],
)
def test_observed_text(observed, details, expected):
    assert observed_text(observed, details) == expected
