"""A reconciliation shows rows and text aggregates of the data: masked by the table's contract.

The blocking ``<table>_reconciled`` check runs for real on DuckDB: a staged table whose one
row differs from the reference query by a restricted customer name, a contract classifying
the columns, and the outcome's summary, metadata and failure message (what becomes the
check's description, its metadata and the console's text) searched for the raw name.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
import yaml

from pipelines.contracts import Masker, TableMasking, load_contract
from pipelines.warehouse.build import BlockingCheckFailed, WarehouseTable, reconciliation_check
from pipelines.warehouse.reconcile import Thresholds, reconcile

SECRET_NAME = "Customer#SECRET-4242"
KEY = b"reconcile-tests"
TOKEN = re.compile(r"^masked:[0-9a-f]{12}$")

REFERENCE = pa.table(
    {
        "customer_key": pa.array([1, 2], pa.int64()),
        "customer_name": ["Customer#000000001", "Customer#000000002"],
        "segment": ["BUILDING", "MACHINERY"],
    }
)
# Row 2 holds another name than the reference's: one row only in each side.
BUILT = REFERENCE.set_column(1, "customer_name", pa.array(["Customer#000000001", SECRET_NAME]))

CONTRACT = {
    "apiVersion": "v3.1.0",
    "kind": "DataContract",
    "id": "urn:plumbline:contract:contacts",
    "name": "contacts",
    "version": "1.0.0",
    "status": "active",
    "schema": [
        {
            "name": "contacts",
            "logicalType": "object",
            "properties": [
                {"name": "customer_key", "logicalType": "integer", "physicalType": "BIGINT"},
                {
                    "name": "customer_name",
                    "logicalType": "string",
                    "physicalType": "VARCHAR",
                    "classification": "restricted",
                },
                {
                    "name": "segment",
                    "logicalType": "string",
                    "physicalType": "VARCHAR",
                    "classification": "public",
                },
            ],
        }
    ],
}


def test_sample_rows_are_structured():
    result = reconcile(BUILT, REFERENCE)
    assert result.sample_only_in_table == [
        {"customer_key": "2", "customer_name": SECRET_NAME, "segment": "MACHINERY"}
    ]
    assert result.sample_only_in_reference == [
        {"customer_key": "2", "customer_name": "Customer#000000002", "segment": "MACHINERY"}
    ]


def test_nulls_stay_none_and_still_match():
    table = pa.table({"k": [1, None], "v": [None, "x"]})
    result = reconcile(table, table.take([1, 0]))
    assert result.passed
    shifted = reconcile(pa.table({"k": [1, None], "v": ["x", None]}), table)
    assert {"k": "1", "v": None} in shifted.sample_only_in_reference


@pytest.fixture
def contacts(tmp_path) -> tuple[Path, dict[str, Path], Path]:
    """The staged table, the pinned inputs the reference reads, and the contract's path."""
    staged, raw, contract = tmp_path / "staged", tmp_path / "raw", tmp_path / "contacts.yaml"
    staged.mkdir()
    raw.mkdir()
    pq.write_table(BUILT, staged / "part-0.parquet")
    pq.write_table(REFERENCE, raw / "part-0.parquet")
    contract.write_text(yaml.safe_dump(CONTRACT))
    return staged, {"raw.crm_contact": raw}, contract


def _reconciled(tmp_path: Path, staged: Path, inputs, contract_path: Path | None):
    reference = tmp_path / "contacts_reference.sql"
    reference.write_text("SELECT customer_key, customer_name, segment FROM raw.crm_contact\n")
    table = WarehouseTable(
        "contacts",
        ("raw.crm_contact",),
        sql_path=tmp_path / "contacts.sql",
        reference_path=reference,
        contract_path=contract_path,
    )
    return reconciliation_check(table, Thresholds(), Masker(KEY))(staged, inputs)


def _shown(outcome) -> str:
    """Everything of the outcome the asset turns into the check's result and the failure."""
    failure = BlockingCheckFailed("contacts", [outcome])
    tables = {key: table.rows for key, table in outcome.tables.items()}
    return "\n".join(
        [
            outcome.summary,
            json.dumps(outcome.metadata, default=str),
            json.dumps(tables, default=str),
            str(failure),
        ]
    )


def test_a_restricted_value_in_a_mismatch_is_shown_as_its_token(tmp_path, contacts):
    staged, inputs, contract_path = contacts
    outcome = _reconciled(tmp_path, staged, inputs, contract_path)
    assert not outcome.passed
    token = Masker(KEY).token(SECRET_NAME)
    assert SECRET_NAME not in _shown(outcome)
    [row] = outcome.tables["sample_only_in_table"].rows
    # Public columns are shown as they are; the token matches the contract check's.
    assert row == {"customer_key": "2", "customer_name": token, "segment": "MACHINERY"}
    # The name's maximum differs too, and is masked like the rows.
    [maximum] = [
        row
        for row in outcome.tables["reconciliation_results"].rows
        if (row["column"], row["measure"]) == ("customer_name", "max")
    ]
    assert maximum["built"] == token and not maximum["passed"]
    assert SECRET_NAME not in str(maximum["reference"])


def test_without_a_contract_every_value_is_masked(tmp_path, contacts):
    staged, inputs, _ = contacts
    outcome = _reconciled(tmp_path, staged, inputs, None)
    [row] = outcome.tables["sample_only_in_reference"].rows
    assert set(row) == {"customer_key", "customer_name", "segment"}
    assert all(TOKEN.match(value) for value in row.values())
    assert "MACHINERY" not in _shown(outcome)


def test_counts_are_not_masked(contacts):
    _, _, contract_path = contacts
    masking = TableMasking.of(load_contract(contract_path), Masker(KEY))
    table = BUILT.append_column("extra", pa.array([0, 0]))
    shown = reconcile(table, REFERENCE.slice(0, 1)).masked(masking)
    assert (shown.actual_rows, shown.expected_rows, shown.only_in_table) == (2, 1, 1)
    counts = {d.measure: d for d in shown.differences if d.column == "customer_name"}
    assert (counts["count"].actual, counts["count"].expected) == (2, 1)
    assert TOKEN.match(counts["max"].actual)


def test_a_restricted_value_named_by_rows_matched_by_key_is_masked(contacts):
    _, _, contract_path = contacts
    masking = TableMasking.of(load_contract(contract_path), Masker(KEY))
    result = reconcile(BUILT, REFERENCE, key=["customer_key"])
    [values] = [c for c in result.comparisons if c.measure == "values"]
    assert (values.column, values.built) == ("customer_name", SECRET_NAME)
    shown = result.masked(masking)
    [values] = [c for c in shown.comparisons if c.measure == "values"]
    assert TOKEN.match(values.built) and TOKEN.match(values.reference)
    assert SECRET_NAME not in repr(shown)
