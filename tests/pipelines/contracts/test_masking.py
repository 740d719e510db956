"""Restricted columns: classified in the contracts, masked wherever a contract check reports.

The end-to-end tests build warehouse tables holding a distinctive name and phone number that
break their contracts, run the real GX validation and the real blocking asset checks on a
DuckDB lake in ``tmp_path``, and look for the raw values in everything the run left: the
Dagster event log, the check results and the console.
"""

from __future__ import annotations

import json
import re
import stat
from pathlib import Path

import dagster as dg
import jsonschema
import open_data_contract_standard
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
import yaml

from assets.warehouse import build_warehouse_definitions
from pipelines.contracts import ContractError, compile_contract, load_contract, validate_arrow
from pipelines.contracts.masking import (
    Masker,
    MaskingKeyError,
    masked_columns,
    stored_key,
)
from pipelines.contracts.model import CLASSIFICATIONS
from pipelines.contracts.validate import validate_spark
from pipelines.lake.store import Lake
from pipelines.resources import resources_for
from pipelines.settings import Settings
from pipelines.translation.store import LegacySql, translate_sources
from pipelines.warehouse.build import warehouse_tables
from pipelines.warehouse.contract_lint import warehouse_sql
from sql.catalog import load_catalog
from sql.lineage import column_sources
from sql.paths import CONTRACTS_ROOT, LEGACY_ROOT

SECRET_NAME = "Customer#SECRET-4242"
SECRET_PHONE = "555-SECRET-0101"
TOKEN = re.compile(r"^masked:[0-9a-f]{12}$")

# --- the masker ------------------------------------------------------------------------


def test_a_token_is_stable_and_keyed():
    masker = Masker(b"key one")
    token = masker.token(SECRET_NAME)
    assert TOKEN.match(token)
    assert Masker(b"key one").token(SECRET_NAME) == token
    assert Masker(b"key two").token(SECRET_NAME) != token
    assert masker.token("Customer#SECRET-4243") != token
    assert masker.token(None) is None  # a missing value reveals nothing


def test_the_key_is_never_shown():
    assert "secret key" not in repr(Masker(b"secret key"))
    with pytest.raises(MaskingKeyError):
        Masker(b"")


def test_the_home_key_is_made_once_and_only_its_owner_reads_it(tmp_path):
    path = Settings(home=tmp_path).masking_key_path
    key = stored_key(path)
    assert len(key) == 32
    assert stored_key(path) == key
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert [p.name for p in tmp_path.iterdir()] == [path.name]  # no candidate file left
    assert stored_key(tmp_path / "other" / path.name) != key


@pytest.mark.parametrize("content", [b"c0ffee-not-hex", b"", b"\xff\xfe"])
def test_a_broken_home_key_names_its_file_and_not_its_content(tmp_path, content):
    path = tmp_path / "masking.key"
    path.write_bytes(content)
    with pytest.raises(MaskingKeyError, match=re.escape(str(path))) as raised:
        stored_key(path)
    assert "c0ffee" not in str(raised.value)


def test_without_a_key_a_value_to_mask_fails_closed():
    with pytest.raises(MaskingKeyError, match="given no masking key"):
        Masker().token("Customer#000000001")
    assert Masker().token(None) is None  # nothing to mask: no key needed


def test_the_contracts_resource_masks_with_the_settings_key_and_never_holds_it(
    tmp_path, monkeypatch
):
    monkeypatch.setenv("PLUMBLINE_MASKING_KEY", "deployment key")
    settings = Settings.from_env(
        {"PLUMBLINE_HOME": str(tmp_path), "PLUMBLINE_MASKING_KEY": "deployment key"}
    )
    contracts = resources_for(settings)["contracts"]
    assert Masker(b"deployment key").token(SECRET_NAME) == contracts.masker().token(SECRET_NAME)
    # Dagster shows a resource's config in its UI: the path is there, the key is not.
    assert "deployment key" not in json.dumps(contracts.model_dump())
    assert "deployment key" not in repr(contracts) + repr(settings)
    assert not settings.masking_key_path.exists()


def test_without_a_deployment_key_the_resource_uses_the_home_key(tmp_path, monkeypatch):
    monkeypatch.delenv("PLUMBLINE_MASKING_KEY")
    settings = Settings(home=tmp_path / "home")
    masker = resources_for(settings)["contracts"].masker()
    assert not settings.masking_key_path.exists()  # nothing masked yet, nothing made
    token = masker.token(SECRET_NAME)
    assert token == Masker(stored_key(settings.masking_key_path)).token(SECRET_NAME)


# --- classification in the contracts -----------------------------------------------------


def _classify(column: int, value: str):
    def edit(document: dict) -> None:
        document["schema"][0]["properties"][column]["classification"] = value

    return edit


@pytest.mark.parametrize("value", CLASSIFICATIONS)
def test_each_known_classification_loads(write_contract, value):
    contract = load_contract(write_contract(_classify(6, value)))
    assert contract.column("o_clerk").classification == value
    masked = {"o_clerk"} if value in ("restricted", "confidential") else set()
    assert masked_columns(contract) == masked


@pytest.mark.parametrize("value", ["restriced", "Restricted", "3", "secret"])
def test_an_unknown_classification_is_refused_naming_the_field(write_contract, value):
    with pytest.raises(ContractError) as raised:
        load_contract(write_contract(_classify(6, value)))
    assert raised.value.field == "schema[0].properties[6].classification"
    assert "restricted" in raised.value.message


@pytest.fixture(scope="module")
def odcs_validator():
    schema_path = Path(open_data_contract_standard.__file__).parent / "schema.json"
    schema = json.loads(schema_path.read_text())
    return jsonschema.validators.validator_for(schema)(schema)


@pytest.mark.parametrize("path", sorted(CONTRACTS_ROOT.rglob("*.yaml")), ids=lambda p: p.stem)
def test_the_odcs_schema_accepts_every_contract(odcs_validator, path):
    document = json.loads(json.dumps(yaml.safe_load(path.read_text()), default=str))
    errors = [error.message for error in odcs_validator.iter_errors(document)]
    assert not errors, errors


# Raw TPC-H columns that identify or describe a customer or supplier in free text.
PERSONAL = re.compile(r"^(c|s)_(name|phone|address)$|_comment$")


def test_every_column_computed_from_personal_data_is_classified():
    """Lineage, not names: a column derived from c_name or c_phone under any alias must say
    whether its values may be shown (restricted, or an explicit ``internal`` for a derived
    value that identifies nobody, such as a phone's country code)."""
    catalog = load_catalog()
    unclassified, restricted = [], set()
    for table in warehouse_tables(translate_sources(LEGACY_ROOT, catalog)):
        if table.contract_path is None:
            continue
        contract = load_contract(table.contract_path)
        sources = column_sources(
            warehouse_sql(table), [c.name for c in contract.columns], catalog.schema(table.reads)
        )
        for column in contract.columns:
            if any(PERSONAL.search(name) for _, name in sources[column.name]):
                if column.classification is None:
                    unclassified.append(f"{table.name}.{column.name}")
                if column.classification == "restricted":
                    restricted.add(f"{table.name}.{column.name}")
    assert not unclassified
    assert {"customer_profile.customer_name", "supplier_scorecard.supplier_name"} <= restricted


# --- validation --------------------------------------------------------------------------


def _contract_document(table: str, name_pattern: bool, phone_pattern: bool) -> dict:
    def string(name: str, pattern: str | None) -> dict:
        column = {
            "name": name,
            "logicalType": "string",
            "physicalType": "VARCHAR",
            "classification": "restricted",
            "required": True,
        }
        if pattern:
            column["logicalTypeOptions"] = {"pattern": pattern}
        return column

    quality = [
        {
            "type": "sql",
            "name": "first_name",
            "query": "SELECT MAX(customer_name) FROM ${table}",
            "mustBe": "Customer#000000002",
        }
    ]
    return {
        "apiVersion": "v3.1.0",
        "kind": "DataContract",
        "id": f"urn:plumbline:contract:{table}",
        "name": table,
        "version": "1.0.0",
        "status": "active",
        "team": {"name": "crm-team"},
        "schema": [
            {
                "name": table,
                "logicalType": "object",
                "quality": quality if name_pattern else [],
                "properties": [
                    {
                        "name": "contact_key",
                        "logicalType": "integer",
                        "physicalType": "BIGINT",
                        "primaryKey": True,
                    },
                    string("customer_name", "^Customer#[0-9]{9}$" if name_pattern else None),
                    string(
                        "phone", "^[0-9]{2}-[0-9]{3}-[0-9]{3}-[0-9]{4}$" if phone_pattern else None
                    ),
                    {"name": "segment", "logicalType": "string", "physicalType": "VARCHAR"},
                ],
            }
        ],
    }


CONTACTS = pa.table(
    {
        "contact_key": pa.array([1, 2, 3], pa.int64()),
        "customer_name": ["Customer#000000001", SECRET_NAME, "Customer#000000002"],
        "phone": ["25-989-741-2988", SECRET_PHONE, "23-768-687-3665"],
        "segment": ["BUILDING", "MACHINERY", "AUTOMOBILE"],
    }
)


def _compiled(tmp_path: Path, table: str, name_pattern=True, phone_pattern=True):
    path = tmp_path / f"{table}.yaml"
    path.write_text(yaml.safe_dump(_contract_document(table, name_pattern, phone_pattern)))
    return compile_contract(load_contract(path))


def _assert_masked(text: str) -> None:
    assert SECRET_NAME not in text
    assert SECRET_PHONE not in text


def test_validation_masks_restricted_values_in_rows_details_and_sql_results(
    validate, tmp_path, masking_key
):
    result = validate(_compiled(tmp_path, "contacts"), CONTACTS, Masker(masking_key))
    token = Masker(masking_key).token(SECRET_NAME)
    failed = {o.name: o for o in result.outcomes if not o.passed}
    assert set(failed) == {"customer_name.pattern", "phone.pattern", "table.first_name"}
    _assert_masked(result.canonical_json())
    assert token in failed["customer_name.pattern"].details
    assert failed["table.first_name"].observed == token
    [row] = result.failing_rows
    assert row["customer_name"] == token
    assert row["phone"] == Masker(masking_key).token(SECRET_PHONE)
    assert (row["contact_key"], row["segment"]) == (2, "MACHINERY")  # public: shown as is


def test_a_column_the_contract_does_not_declare_is_masked(validate, tmp_path, masking_key):
    table = CONTACTS.append_column("c_address", pa.array(["a", "IvhzIApeRb ot,c,E", "c"]))
    [row] = validate(_compiled(tmp_path, "contacts"), table, Masker(masking_key)).failing_rows
    assert row["c_address"] == Masker(masking_key).token("IvhzIApeRb ot,c,E")


def test_a_passing_validation_needs_no_key(tmp_path, monkeypatch):
    monkeypatch.delenv("PLUMBLINE_MASKING_KEY")
    monkeypatch.setenv("PLUMBLINE_HOME", str(tmp_path / "home"))
    good = CONTACTS.filter(pa.array([True, False, False]))
    compiled = _compiled(tmp_path, "contacts", name_pattern=False)
    assert validate_arrow(compiled, good).passed
    assert not (tmp_path / "home").exists()


@pytest.mark.slow
def test_spark_validation_masks_restricted_values(spark_engine, tmp_path, masking_key):
    frame = spark_engine.session().createDataFrame(CONTACTS.to_pandas())
    result = validate_spark(_compiled(tmp_path, "contacts"), frame, Masker(masking_key))
    _assert_masked(result.canonical_json())
    token = Masker(masking_key).token(SECRET_NAME)
    assert {"contact_key": 2, "customer_name": token} in result.failing_rows


# --- the blocking asset checks -----------------------------------------------------------

SELECT_CONTACTS = (
    'SELECT "contact_key", "customer_name", "phone", "segment" FROM "raw"."crm_contact"\n'
)


@pytest.fixture
def contacts_home(tmp_path) -> tuple[Path, Path, Path]:
    """A home whose lake holds raw/crm_contact, and two warehouse tables over it: one whose
    contract breaks on the name, one on the phone (both rows show the name)."""
    home, ansi, contracts = tmp_path / "home", tmp_path / "ansi", tmp_path / "contracts"
    lake = Lake(home / "lake")
    with lake.stage("raw", "crm_contact") as staging:
        pq.write_table(CONTACTS, staging / "part-0.parquet")
        lake.publish("raw", "crm_contact", staging, {})
    ansi.mkdir()
    contracts.mkdir()
    for table, name_pattern in (("contact_names", True), ("contact_phones", False)):
        (ansi / f"{table}.sql").write_text(SELECT_CONTACTS)
        document = _contract_document(table, name_pattern, phone_pattern=not name_pattern)
        (contracts / f"{table}.yaml").write_text(yaml.safe_dump(document))
    return home, ansi, contracts


def _event_log_text(instance: dg.DagsterInstance, run_id: str) -> str:
    return "\n".join(dg.serialize_value(entry) for entry in instance.all_logs(run_id))


def test_failing_contract_checks_show_no_restricted_value(contacts_home, capfd, masking_key):
    home, ansi, contracts = contacts_home
    defs = build_warehouse_definitions(
        "duckdb", legacy=LegacySql(()), ansi_root=ansi, contracts_root=contracts
    )
    with dg.instance_for_test() as instance:
        result = dg.materialize(
            list(defs.assets),
            resources=resources_for(Settings(home=home, scale=0.01)),
            instance=instance,
            raise_on_error=False,
        )
        log = _event_log_text(instance, result.run_id)
    console = capfd.readouterr()
    assert not result.success
    evaluations = {e.check_name: e for e in result.get_asset_check_evaluations()}
    assert {name: e.passed for name, e in evaluations.items()} == {
        "contact_names_contract": False,
        "contact_phones_contract": False,
    }
    token = Masker(masking_key).token(SECRET_NAME)
    for text in (log, console.out, console.err):
        _assert_masked(text)
    # Both checks show the same row under the same token: a reviewer can match them.
    for evaluation in evaluations.values():
        [row] = [record.data for record in evaluation.metadata["failing_rows"].records]
        assert row["customer_name"] == token and row["contact_key"] == 2
    assert token in evaluations["contact_names_contract"].description
    assert token in log
    assert token in console.err  # the console shows the checks' failures, masked
    assert Lake(home / "lake").current("warehouse", "contact_names") is None
