"""Compiling contracts to GX suites: names, kinds, determinism, and refused rules."""

from __future__ import annotations

import json

import pytest

from pipelines.contracts import ContractError, compile_contract, load_contract
from pipelines.contracts.compile import SqlCheck


def test_every_promise_becomes_a_named_expectation(orders_compiled):
    kinds = {info.name: info.kind for info in orders_compiled.expectations}
    assert kinds["table.row_count"] == "row_count"
    assert kinds["table.primary_key"] == "primary_key"
    assert kinds["o_orderkey.exists"] == "column_exists"
    assert kinds["o_orderkey.type"] == "type"
    assert kinds["o_orderstatus.not_null"] == "not_null"
    assert kinds["o_clerk.unique"] == "unique"
    assert kinds["o_orderstatus.allowed_values"] == "allowed_values"
    assert kinds["o_totalprice.range"] == "range"
    assert kinds["o_orderpriority.length"] == "length"
    assert kinds["o_orderpriority.pattern"] == "pattern"
    assert kinds["table.duplicateValues"] == "library"
    assert kinds["o_totalprice.nullValues"] == "library"
    assert kinds["o_orderpriority.invalidValues.valid_values"] == "library"
    assert kinds["o_clerk.missingValues.null"] == "library"
    assert kinds["o_clerk.missingValues.values"] == "library"
    assert kinds["table.positive_revenue"] == "sql"
    # one GX expectation per non-sql promise, each carrying its name
    suite = orders_compiled.suite.to_json_dict()
    gx_names = [expectation["meta"]["name"] for expectation in suite["expectations"]]
    assert gx_names == [info.name for info in orders_compiled.expectations if info.kind != "sql"]
    assert len(set(kinds)) == len(orders_compiled.expectations)


def test_expectation_arguments(orders_compiled):
    by_name = {
        expectation["meta"]["name"]: expectation
        for expectation in orders_compiled.suite.to_json_dict()["expectations"]
    }
    assert by_name["table.row_count"]["type"] == "expect_table_row_count_to_be_between"
    assert by_name["table.row_count"]["kwargs"] == {"min_value": 2, "max_value": 100}
    price = by_name["o_totalprice.range"]["kwargs"]
    assert (price["min_value"], price["max_value"], price["strict_min"]) == (0, 600000, True)
    assert by_name["table.duplicateValues"]["kwargs"]["column_list"] == ["o_custkey", "o_orderdate"]
    # One list for every engine: pandas, Spark and SQLAlchemy (GX's SQL engine on DuckDB).
    assert {"Int64Dtype", "LongType", "Integer"} <= set(
        by_name["o_orderkey.type"]["kwargs"]["type_list"]
    )


def test_compilation_is_deterministic(orders_contract):
    first = compile_contract(orders_contract)
    second = compile_contract(load_contract(orders_contract.path))
    assert first.suite_json() == second.suite_json()
    assert first.expectations == second.expectations
    assert json.loads(first.suite_json())["name"] == "orders@1.2.0"


def _column_rule(index, rule):
    def edit(document):
        document["schema"][0]["properties"][index]["quality"] = [rule]

    return edit


def _table_rule(rule):
    def edit(document):
        document["schema"][0]["quality"].append(rule)

    return edit


REFUSED = [
    # (case, edit, field, fragment)
    (
        "invalid regex",
        lambda d: d["schema"][0]["properties"][5]["logicalTypeOptions"].update(pattern="(["),
        "schema[0].properties[5].logicalTypeOptions.pattern",
        "invalid regular expression",
    ),
    (
        "unknown metric",
        _column_rule(1, {"metric": "freshness", "mustBe": 0}),
        "schema[0].properties[1].quality[0].metric",
        "cannot be expressed",
    ),
    (
        "null count threshold",
        _column_rule(1, {"metric": "nullValues", "mustBeLessThan": 10}),
        "schema[0].properties[1].quality[0]",
        "cannot be expressed exactly",
    ),
    (
        "duplicate count threshold",
        _column_rule(1, {"metric": "duplicateValues", "mustBeLessThan": 3}),
        "schema[0].properties[1].quality[0]",
        "mustBe: 0",
    ),
    (
        "missing values threshold",
        _column_rule(1, {"metric": "missingValues", "mustBeLessThan": 3}),
        "schema[0].properties[1].quality[0]",
        "mustBe: 0",
    ),
    (
        "invalid values without arguments",
        _column_rule(1, {"metric": "invalidValues", "mustBe": 0}),
        "schema[0].properties[1].quality[0].arguments",
        "validValues or pattern",
    ),
    (
        "invalid values with a bad pattern",
        _column_rule(2, {"metric": "invalidValues", "arguments": {"pattern": "["}, "mustBe": 0}),
        "schema[0].properties[2].quality[0].arguments.pattern",
        "invalid regular expression",
    ),
    (
        "table duplicates without columns",
        _table_rule({"metric": "duplicateValues", "mustBe": 0}),
        "schema[0].quality[3].arguments.properties",
        "needs arguments.properties",
    ),
    (
        "table duplicates of an unknown column",
        _table_rule({"metric": "duplicateValues", "arguments": {"properties": ["x"]}, "mustBe": 0}),
        "schema[0].quality[3].arguments.properties",
        "unknown column 'x'",
    ),
    (
        "column metric at table level",
        _table_rule({"metric": "nullValues", "mustBe": 0}),
        "schema[0].quality[3].metric",
        "needs a column",
    ),
    (
        "sql that does not parse",
        _table_rule({"type": "sql", "query": "SELECT FROM WHERE (", "mustBe": 0}),
        "schema[0].quality[3].query",
        "cannot parse",
    ),
    (
        "sql returning two values",
        _table_rule({"type": "sql", "query": "SELECT 1, 2 FROM ${table}", "mustBe": 0}),
        "schema[0].quality[3].query",
        "exactly one value",
    ),
    (
        "sql not reading the table",
        _table_rule({"type": "sql", "query": "SELECT COUNT(*) FROM other", "mustBe": 0}),
        "schema[0].quality[3].query",
        "${table}",
    ),
    (
        "sql statement that is not a query",
        _table_rule({"type": "sql", "query": "DELETE FROM ${table}", "mustBe": 0}),
        "schema[0].quality[3].query",
        "one SELECT",
    ),
    (
        "column placeholder at table level",
        _table_rule({"type": "sql", "query": "SELECT MAX(${column}) FROM ${table}", "mustBe": 0}),
        "schema[0].quality[3].query",
        "${column}",
    ),
    (
        "sql compared with text",
        _table_rule({"type": "sql", "query": "SELECT 1 FROM ${table}", "mustBeLessThan": "x"}),
        "schema[0].quality[3].mustBeLessThan",
        "valid number",
    ),
]


@pytest.mark.parametrize(
    ("edit", "field", "fragment"),
    [case[1:] for case in REFUSED],
    ids=[case[0] for case in REFUSED],
)
def test_rules_gx_cannot_express_are_refused(write_contract, edit, field, fragment):
    path = write_contract(edit)
    with pytest.raises(ContractError) as caught:
        compile_contract(load_contract(path))
    assert (caught.value.file, caught.value.field) == (str(path), field)
    assert fragment in caught.value.message


def test_percent_thresholds_become_mostly(write_contract):
    path = write_contract(
        _column_rule(1, {"metric": "nullValues", "mustBeLessOrEqualTo": 5, "unit": "percent"})
    )
    compiled = compile_contract(load_contract(path))
    (expectation,) = [
        e
        for e in compiled.suite.to_json_dict()["expectations"]
        if e["meta"]["name"] == "o_custkey.nullValues"
    ]
    assert expectation["kwargs"]["mostly"] == pytest.approx(0.95)


def test_sql_check_renders_per_engine(write_contract):
    path = write_contract(
        _column_rule(
            1, {"type": "sql", "query": "SELECT MAX(${column}) FROM ${table}", "mustBe": 9}
        )
    )
    compiled = compile_contract(load_contract(path))
    (check,) = [c for c in compiled.sql_checks if c.name == "o_custkey.sql"]
    assert check.render("duckdb", "staged") == 'SELECT MAX("o_custkey") FROM staged'
    assert check.render("spark", "staged") == "SELECT MAX(`o_custkey`) FROM staged"


@pytest.mark.parametrize(
    ("operator", "value", "observed", "holds"),
    [
        ("mustBe", 3, 3, True),
        ("mustBe", 3, 4, False),
        ("mustNotBe", 3, 4, True),
        ("mustBeGreaterThan", 3, 3, False),
        ("mustBeGreaterOrEqualTo", 3, 3, True),
        ("mustBeLessThan", 3, 3, False),
        ("mustBeLessOrEqualTo", 3, 3, True),
        ("mustBeBetween", [1, 3], 3, True),
        ("mustBeBetween", [1, 3], 4, False),
        ("mustNotBeBetween", [1, 3], 2, False),
        ("mustNotBeBetween", [1, 3], 0, True),
        ("mustBeGreaterThan", 0, None, False),  # SUM over no rows is NULL: not > 0
    ],
)
def test_sql_check_comparison(operator, value, observed, holds):
    assert SqlCheck("c", None, operator, value).holds(observed) is holds
