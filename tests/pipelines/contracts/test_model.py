"""Loading ODCS files: the sample contract, and every way a file can be refused."""

from __future__ import annotations

import datetime as dt

import pytest

from pipelines.contracts import ContractError, load_contract, load_contracts
from pipelines.contracts.model import ColumnSpec


def test_orders_contract_loads(orders_contract):
    contract = orders_contract
    assert (contract.table, contract.version) == ("orders", "1.2.0")
    assert contract.owner == "warehouse-team"
    assert contract.description.startswith("One row per customer order")
    assert contract.primary_key == ("o_orderkey",)
    assert (contract.row_count_min, contract.row_count_max) == (2, 100)
    assert contract.odcs.schema_[0].name == "orders"
    assert [column.name for column in contract.columns][:3] == [
        "o_orderkey",
        "o_custkey",
        "o_orderstatus",
    ]
    assert contract.column("o_totalprice") == ColumnSpec(
        name="o_totalprice",
        logical_type="number",
        physical_type="DECIMAL(15,2)",
        required=False,
        unique=False,
        allowed_values=None,
        minimum=0,
        maximum=600000,
        pattern=None,
        description=None,
        strict_minimum=True,
        field="schema[0].properties[3]",
        quality=contract.column("o_totalprice").quality,
    )
    assert contract.column("o_orderkey").required  # primary key implies NOT NULL
    assert contract.column("o_orderstatus").allowed_values == ("F", "O", "P")
    orderdate = contract.column("o_orderdate")
    assert (orderdate.minimum, orderdate.maximum) == (
        dt.datetime(1992, 1, 1),
        dt.datetime(1998, 12, 31),
    )
    assert [rule.type for rule in contract.quality] == ["library", "sql"]


def _props(document):
    return document["schema"][0]["properties"]


def _set(path, value):
    """An edit that sets document[path...] = value."""

    def edit(document):
        target = document
        for key in path[:-1]:
            target = target[key]
        target[path[-1]] = value

    return edit


def _delete(*path):
    def edit(document):
        target = document
        for key in path[:-1]:
            target = target[key]
        del target[path[-1]]

    return edit


PROP = ("schema", 0, "properties")
TABLE_QUALITY = ("schema", 0, "quality")

BAD_CONTRACTS = [
    # (case, edit, field, message fragment)
    ("no version", _delete("version"), "version", "requires 'version'"),
    ("no id", _delete("id"), "id", "requires 'id'"),
    ("wrong kind", _set(("kind",), "DataProduct"), "kind", "DataContract"),
    ("v2 document", _set(("apiVersion",), "v2.2.2"), "apiVersion", "v3"),
    ("unknown top-level key", _set(("owner",), "me"), "owner", "Extra inputs"),
    ("schema not a list", _set(("schema",), 5), "schema", "valid list"),
    (
        "property of wrong type",
        _set((*PROP, 1, "required"), "sometimes"),
        "schema[0].properties[1].required",
        "boolean",
    ),
    ("two tables", lambda d: d["schema"].append(dict(d["schema"][0])), "schema", "exactly one"),
    ("no table name", _delete("schema", 0, "name"), "schema[0].name", "needs a name"),
    ("no columns", _set(("schema", 0, "properties"), []), "schema[0].properties", "one column"),
    (
        "no logical type",
        _delete(*PROP, 2, "logicalType"),
        "schema[0].properties[2].logicalType",
        "needs a logicalType",
    ),
    (
        "unknown logical type",
        _set((*PROP, 2, "logicalType"), "decimal"),
        "schema[0].properties[2].logicalType",
        "unknown logical type 'decimal'",
    ),
    (
        "nested logical type",
        _set((*PROP, 2, "logicalType"), "array"),
        "schema[0].properties[2].logicalType",
        "not a flat column type",
    ),
    (
        "misspelt key",
        _set((*PROP, 1, "requird"), True),
        "schema[0].properties[1].requird",
        "unknown ODCS field",
    ),
    (
        "misspelt table key",
        _set(("schema", 0, "qualty"), []),
        "schema[0].qualty",
        "unknown ODCS field",
    ),
    (
        "option GX cannot check",
        _set((*PROP, 1, "logicalTypeOptions"), {"multipleOf": 2}),
        "schema[0].properties[1].logicalTypeOptions.multipleOf",
        "cannot be expressed",
    ),
    (
        "date format",
        _set((*PROP, 4, "logicalTypeOptions"), {"format": "yyyy-MM-dd"}),
        "schema[0].properties[4].logicalTypeOptions.format",
        "cannot be expressed",
    ),
    (
        "date bound that is not a date",
        _set((*PROP, 4, "logicalTypeOptions"), {"minimum": "last year"}),
        "schema[0].properties[4].logicalTypeOptions.minimum",
        "ISO date",
    ),
    (
        "minimum and exclusiveMinimum",
        _set((*PROP, 3, "logicalTypeOptions"), {"minimum": 1, "exclusiveMinimum": 0}),
        "schema[0].properties[3].logicalTypeOptions",
        "not both",
    ),
    (
        "non-numeric bound",
        _set((*PROP, 1, "logicalTypeOptions"), {"minimum": "one"}),
        "schema[0].properties[1].logicalTypeOptions.minimum",
        "must be a number",
    ),
    (
        "negative length",
        _set((*PROP, 5, "logicalTypeOptions"), {"maxLength": -1}),
        "schema[0].properties[5].logicalTypeOptions.maxLength",
        "non-negative",
    ),
    (
        "duplicate column",
        _set((*PROP, 1, "name"), "o_orderkey"),
        "schema[0].properties[1].name",
        "duplicate column",
    ),
    (
        "text rule",
        _set((*TABLE_QUALITY, 0), {"type": "text", "description": "be nice"}),
        "schema[0].quality[0].type",
        "type 'text' cannot be checked",
    ),
    (
        "custom rule",
        _set((*TABLE_QUALITY, 0), {"type": "custom", "engine": "soda", "implementation": "x"}),
        "schema[0].quality[0].type",
        "type 'custom'",
    ),
    (
        "rule without operator",
        _set((*TABLE_QUALITY, 0), {"type": "library", "metric": "rowCount"}),
        "schema[0].quality[0]",
        "exactly one of",
    ),
    (
        "rule with two operators",
        _set((*TABLE_QUALITY, 0), {"metric": "rowCount", "mustBe": 5, "mustBeLessThan": 9}),
        "schema[0].quality[0]",
        "exactly one of",
    ),
    (
        "library rule without metric",
        _set((*TABLE_QUALITY, 0), {"type": "library", "mustBe": 0}),
        "schema[0].quality[0].metric",
        "needs a metric",
    ),
    (
        "sql rule without query",
        _set((*TABLE_QUALITY, 2), {"type": "sql", "mustBe": 0}),
        "schema[0].quality[2].query",
        "needs a query",
    ),
    (
        "fractional row count",
        _set((*TABLE_QUALITY, 0), {"metric": "rowCount", "mustBeGreaterThan": 1.5}),
        "schema[0].quality[0]",
        "whole numbers",
    ),
    (
        "row count not between",
        _set((*TABLE_QUALITY, 0), {"metric": "rowCount", "mustNotBeBetween": [1, 5]}),
        "schema[0].quality[0]",
        "cannot be expressed",
    ),
    (
        "empty row count range",
        lambda d: d["schema"][0]["quality"].append({"metric": "rowCount", "mustBeLessThan": 2}),
        "schema[0].quality[0]",
        "empty",
    ),
    (
        "row count on a column",
        _set((*PROP, 1, "quality"), [{"metric": "rowCount", "mustBe": 1}]),
        "schema[0].properties[1].quality[0]",
        "table-level",
    ),
    ("empty enum", _set((*PROP, 2, "enum"), []), "schema[0].properties[2].enum", "at least one"),
]


@pytest.mark.parametrize(
    ("edit", "field", "fragment"),
    [case[1:] for case in BAD_CONTRACTS],
    ids=[case[0] for case in BAD_CONTRACTS],
)
def test_bad_contract_names_file_and_field(write_contract, edit, field, fragment):
    path = write_contract(edit)
    with pytest.raises(ContractError) as caught:
        load_contract(path)
    error = caught.value
    assert (error.file, error.field) == (str(path), field)
    assert fragment in error.message
    assert str(error) == f"{path}:{field}: {error.message}"


@pytest.mark.parametrize(
    ("text", "field", "fragment"),
    [
        ("schema: [unclosed\n", "line 2, column 1", "malformed YAML"),
        ("apiVersion: v3.1.0\n  kind: : x\n", "line 2, column 7", "malformed YAML"),
        ("- just\n- a list\n", "<document>", "YAML mapping"),
    ],
)
def test_malformed_yaml(write_contract, text, field, fragment):
    path = write_contract(text=text)
    with pytest.raises(ContractError) as caught:
        load_contract(path)
    assert caught.value.field == field
    assert fragment in caught.value.message


def test_missing_file(tmp_path):
    with pytest.raises(ContractError, match="cannot read"):
        load_contract(tmp_path / "absent.yaml")


def test_load_contracts_by_table(write_contract, orders_contract):
    path = write_contract(name="orders.yaml")
    assert load_contracts(path.parent) == {"orders": load_contract(path)}


def test_load_contracts_lists_every_bad_file(write_contract):
    write_contract(name="good.yaml")
    first = write_contract(_delete("version"), name="a.yaml")
    second = write_contract(_set((*PROP, 0, "logicalType"), "uuid"), name="b.yaml")
    with pytest.raises(ContractError) as caught:
        load_contracts(first.parent)
    message = str(caught.value)
    assert "2 bad contracts" in message
    assert f"{first}:version:" in message
    assert f"{second}:schema[0].properties[0].logicalType:" in message


def test_load_contracts_refuses_two_contracts_for_one_table(write_contract):
    write_contract(name="a.yaml")
    second = write_contract(name="b.yaml")
    with pytest.raises(ContractError) as caught:
        load_contracts(second.parent)
    assert (caught.value.file, caught.value.field) == (str(second), "schema[0].name")


def test_load_contracts_needs_a_folder(tmp_path):
    with pytest.raises(ContractError, match="no such contracts folder"):
        load_contracts(tmp_path / "absent")


def test_a_contract_that_is_not_utf8_is_refused_by_name(tmp_path):
    # Found by tests/pipelines/cli/test_fuzz.py (`contracts lint` of random bytes).
    path = tmp_path / "orders.yaml"
    path.write_bytes(b"apiVersion: v3.0.2\n\x80")
    with pytest.raises(ContractError) as caught:
        load_contract(path)
    assert (caught.value.file, caught.value.field) == (str(path), "byte 19")
    assert "not UTF-8 text" in caught.value.message
