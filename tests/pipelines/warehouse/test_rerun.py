"""When a rerun skips a warehouse table: the live version stands for the code version and the
input data versions Dagster recorded, and for what the lake holds now; any difference is the
reason it is built again."""

from dataclasses import replace
from pathlib import Path

import pytest

from pipelines.lake.store import TableVersion
from pipelines.translation.store import sha256_text
from pipelines.warehouse.build import WarehouseTable, snapshot_digest
from pipelines.warehouse.rerun import (
    LastMaterialization,
    code_version,
    verdicts_of_live_version,
    why_rebuild,
)
from pipelines.warehouse.snapshot import Snapshot

SQL = 'SELECT "k" FROM "raw"."orders"'
VERSION = "20261201T000000.000000000-0123456789ab"
INPUTS = {"raw/orders": "d-orders", "ansi/t": "d-ansi"}


def live_manifest(**changes) -> dict:
    return {
        "data_version": "d-t",
        "engine": "duckdb",
        "ansi_sha256": sha256_text(SQL),
        "checks": {
            "t_contract": {"passed": True, "contract_version": "1.2.0", "result_digest": "r"},
        },
        **changes,
    }


@pytest.fixture
def table(tmp_path) -> WarehouseTable:
    contract = tmp_path / "t.yaml"
    contract.write_text("contract")
    return WarehouseTable("t", ("raw.orders",), contract_path=contract)


def reason(table, *, live="default", last="default", **changes):
    if live == "default":
        live = TableVersion("warehouse", "t", Path("/lake") / VERSION, live_manifest())
    if last == "default":
        last = LastMaterialization("d-t", "c1", dict(INPUTS))
    arguments = {
        "code_version": "c1",
        "input_data_versions": dict(INPUTS),
        "ansi_sql": SQL,
        "engine": "duckdb",
        "intact": lambda version: True,
        **changes,
    }
    return why_rebuild(table, live, last, **arguments)


def test_a_table_whose_code_and_inputs_are_those_of_its_live_version_is_skipped(table):
    assert reason(table) is None


@pytest.mark.parametrize(
    ("case", "expected"),
    [
        ({"live": None}, "it has no published version"),
        ({"last": None}, "Dagster records no materialization of it"),
        ({"code_version": "c2"}, "its code version changed"),
        ({"input_data_versions": {**INPUTS, "raw/orders": "d-new"}}, "raw/orders has a new"),
        ({"input_data_versions": {**INPUTS, "raw/orders": None}}, "raw/orders has no data"),
        ({"input_data_versions": {**INPUTS, "raw/customer": "d"}}, "raw/customer has a new"),
        ({"input_data_versions": {"raw/orders": "d-orders"}}, "reads other inputs"),
        ({"ansi_sql": SQL + " WHERE 1 = 1"}, "its ANSI SQL is not the SQL the live version"),
        ({"engine": "spark"}, "was built on duckdb"),
        # The catalog now says other columns or types of an input than the build was held to.
        ({"catalog": "d-other"}, "the catalog says otherwise of its inputs"),
        ({"intact": lambda version: False}, "no longer match their digest"),
        ({"last": LastMaterialization("d-old", "c1", INPUTS)}, "is not of the live version"),
    ],
)
def test_any_difference_is_the_reason_it_is_built(table, case, expected):
    assert expected in reason(table, **case)


@pytest.mark.parametrize(
    ("manifest", "expected"),
    [
        # Published before data versions were exact: built once more, then skipped.
        ({"data_version": None}, "records no exact data version"),
        ({"checks": {}}, "was not published under t_contract"),
        ({"checks": {"t_contract": {"passed": False}}}, "a blocking check did not pass"),
    ],
)
def test_a_live_version_that_cannot_stand_is_built_again(table, manifest, expected):
    live = TableVersion("warehouse", "t", Path("/lake") / VERSION, live_manifest(**manifest))
    assert expected in reason(table, live=live)


def test_a_snapshot_is_checked_against_the_one_the_live_version_was_reconciled_with(tmp_path):
    snapshot = tmp_path / "t.csv"
    snapshot.write_text("k\n1\n")
    table = WarehouseTable("t", ("raw.orders",), snapshot=Snapshot(snapshot))
    checks = {
        "t_reconciled": {"passed": True, "reference_sha256": snapshot_digest(Snapshot(snapshot))}
    }
    live = TableVersion("warehouse", "t", tmp_path / VERSION, live_manifest(checks=checks))
    assert reason(table, live=live) is None
    snapshot.write_text("k\n2\n")  # the legacy output exported again, other rows
    assert "its snapshot t.csv changed" in reason(table, live=live)


def test_the_code_version_follows_the_sql_the_contract_and_the_engine(tmp_path, table):
    sql = tmp_path / "t.sql"
    sql.write_text(SQL)
    portable = replace(table, sql_path=sql)
    first = code_version(portable, "duckdb")
    assert code_version(portable, "duckdb") == first
    assert code_version(portable, "spark") != first
    sql.write_text(SQL + " WHERE 1 = 1")
    assert code_version(portable, "duckdb") != first
    changed = code_version(portable, "duckdb")
    table.contract_path.write_text("contract, version 2")
    assert code_version(portable, "duckdb") != changed


def test_a_skipped_tables_checks_report_the_live_versions_verdict_not_re_run():
    live = TableVersion("warehouse", "t", Path("/lake") / VERSION, live_manifest())
    [outcome] = verdicts_of_live_version(live)
    assert (outcome.name, outcome.passed) == ("t_contract", True)
    assert outcome.summary.startswith("Not re-run")
    assert f"its live version {VERSION} was published" in outcome.summary
    assert "(contract 1.2.0)" in outcome.summary
    assert outcome.metadata == {
        "re_run": False,
        "verdict_of_version": VERSION,
        "contract_version": "1.2.0",
        "result_digest": "r",
    }
