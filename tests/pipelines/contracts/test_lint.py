"""Lint: a contract against the output schema of the SQL that builds its table."""

from __future__ import annotations

import pytest

from pipelines.contracts import LintError, lint_contract
from pipelines.contracts.lint import logical_type_of

ORDERS_OUTPUT = {
    "o_orderkey": "BIGINT",
    "o_custkey": "BIGINT",
    "o_orderstatus": "VARCHAR",
    "o_totalprice": "DECIMAL(15,2)",
    "o_orderdate": "DATE",
    "o_orderpriority": "VARCHAR",
    "o_clerk": "VARCHAR",
    "o_shippriority": "INTEGER",
    "o_is_open": "BOOLEAN",
    "o_updated_at": "TIMESTAMP WITH TIME ZONE",
}


def test_matching_sql_is_clean(orders_contract):
    assert lint_contract(orders_contract, ORDERS_OUTPUT) == []


def _output(**changes):
    output = dict(ORDERS_OUTPUT)
    for name, sql_type in changes.items():
        if sql_type is None:
            del output[name]
        else:
            output[name] = sql_type
    return output


@pytest.mark.parametrize(
    ("output", "field", "fragment"),
    [
        (_output(o_clerk=None), "schema[0].properties[6].name", "not produced by the table's SQL"),
        (
            _output(o_custkey="DOUBLE"),
            "schema[0].properties[1].logicalType",
            "integer in the contract but the SQL produces DOUBLE (number)",
        ),
        (
            _output(o_orderdate="TIMESTAMP"),
            "schema[0].properties[4].logicalType",
            "date in the contract",
        ),
        (
            _output(o_totalprice="DECIMAL(18,0)"),  # still compared as number, see lint.py
            None,
            None,
        ),
        (
            _output(o_is_open="STRUCT(a INT)"),
            "schema[0].properties[8].logicalType",
            "a type contracts cannot check",
        ),
        (
            _output(o_comment="VARCHAR"),
            "schema[0].properties",
            "produces column 'o_comment' (VARCHAR) that the contract does not declare",
        ),
    ],
    ids=["missing column", "wrong type", "date vs timestamp", "decimal scale 0", "nested", "extra"],
)
def test_each_lint_error_names_file_and_field(orders_contract, output, field, fragment):
    errors = lint_contract(orders_contract, output)
    if field is None:
        assert errors == []
        return
    assert len(errors) == 1
    (error,) = errors
    assert (error.file, error.field) == (str(orders_contract.path), field)
    assert fragment in error.message
    assert error.format() == f"{orders_contract.path}:{field}: {error.message}"


def test_all_errors_are_reported_together(orders_contract):
    errors = lint_contract(orders_contract, _output(o_clerk=None, o_custkey="VARCHAR", extra="INT"))
    assert [error.field for error in errors] == [
        "schema[0].properties[1].logicalType",
        "schema[0].properties[6].name",
        "schema[0].properties",
    ]


@pytest.mark.parametrize(
    ("sql_type", "logical"),
    [
        ("BIGINT", "integer"),
        ("int", "integer"),
        ("HUGEINT", "integer"),
        ("DECIMAL(15,2)", "number"),
        ("DOUBLE", "number"),
        ("VARCHAR(25)", "string"),
        ("CHAR(1)", "string"),
        ("STRING", "string"),
        ("DATE", "date"),
        ("TIMESTAMP", "timestamp"),
        ("TIMESTAMP WITH TIME ZONE", "timestamp"),
        ("TIMESTAMP_NTZ", "timestamp"),
        ("BOOLEAN", "boolean"),
        ("BLOB", None),
        ("INTEGER[]", None),
        ("", None),
    ],
)
def test_sql_type_to_logical_type(sql_type, logical):
    assert logical_type_of(sql_type) == logical


def test_lint_error_format():
    assert LintError("a.yaml", "version", "bump it").format() == "a.yaml:version: bump it"
