"""plumbline contracts lint: ODCS, the SQL's output, coverage, drafts and the breaking-change
guard."""

import datetime as dt
import decimal
import re
import shutil

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from click.testing import CliRunner

from pipelines.cli.main import main
from pipelines.contracts import load_contract
from pipelines.contracts.registry import PublishedContracts
from pipelines.lake.store import Lake
from pipelines.translation.store import translate_sources
from pipelines.warehouse.build import WAREHOUSE_ZONE, warehouse_tables
from pipelines.warehouse.contract_lint import lint_contracts, output_types
from sql.catalog import load_catalog
from sql.paths import CONTRACTS_ROOT, LEGACY_ROOT

TABLE = "shipping_performance"


@pytest.fixture(scope="module")
def catalog():
    return load_catalog()


@pytest.fixture(scope="module")
def tables(catalog):
    return warehouse_tables(translate_sources(LEGACY_ROOT, catalog))


@pytest.fixture(scope="module")
def types(tables, catalog):
    found, errors = output_types(tables, catalog)
    assert not errors
    return found


@pytest.fixture
def contracts(tmp_path):
    root = tmp_path / "contracts"
    shutil.copytree(CONTRACTS_ROOT, root)
    return root


def lint(root, tables, catalog, types, **kwargs):
    report = lint_contracts(root, tables, catalog, types=types, **kwargs)
    return [error.format().replace(f"{root}/", "") for error in report.errors]


def edit(path, old, new):
    text = path.read_text()
    assert old in text, f"{old!r} not in {path}"
    path.write_text(text.replace(old, new, 1))


def test_every_warehouse_table_has_a_contract_that_matches_its_sql(tables, catalog, types):
    report = lint_contracts(CONTRACTS_ROOT, tables, catalog, types=types)
    assert report.passed, [e.format() for e in report.errors]
    assert report.tables == len(tables) >= 38
    assert report.contracts == report.tables + 1  # + scores/batch_scores, not built by SQL


def test_output_types_are_what_the_engine_writes(types):
    # SUM over integers is HUGEINT in DuckDB; the engine writes it as BIGINT, like Spark.
    assert types["supplier_region_on_time"]["late_lines"] == "BIGINT"
    assert types["supplier_region_on_time"]["late_rate"] == "DOUBLE"
    assert types["customer_profile"]["first_order_date"] == "DATE"


def test_a_column_the_sql_does_not_produce_is_named(contracts, tables, catalog, types):
    edit(contracts / f"{TABLE}.yaml", "- name: late_lines", "- name: late_line")
    assert lint(contracts, tables, catalog, types) == [
        f"{TABLE}.yaml:schema[0].properties[2].name: column 'late_line' is not produced by "
        "the table's SQL",
        f"{TABLE}.yaml:schema[0].properties: the SQL produces column 'late_lines' (BIGINT) "
        "that the contract does not declare",
    ]


def test_a_type_the_sql_does_not_produce_is_named(contracts, tables, catalog, types):
    path = contracts / f"{TABLE}.yaml"
    typed = "delivery date.\n        logicalType: integer"  # late_lines's, after its description
    edit(path, typed, typed.replace("integer", "string"))
    # (without its numeric minimum, which a string column cannot have)
    edit(
        path,
        "        logicalTypeOptions:\n          minimum: 0\n      - name: late_pct",
        "      - name: late_pct",
    )
    assert lint(contracts, tables, catalog, types) == [
        f"{TABLE}.yaml:schema[0].properties[2].logicalType: column 'late_lines' is string in "
        "the contract but the SQL produces BIGINT (integer)"
    ]


def test_invalid_odcs_and_missing_or_stray_contracts(contracts, tables, catalog, types):
    edit(contracts / f"{TABLE}.yaml", "logicalType: integer", "logicalType: intger")
    (contracts / "customer_profile.yaml").unlink()
    shutil.copy(contracts / "monthly_revenue.yaml", contracts / "no_such_table.yaml")
    errors = lint(contracts, tables, catalog, types)
    assert len(errors) == 3
    assert errors[0] == "no_such_table.yaml:<file>: no warehouse table 'no_such_table'"
    assert errors[1].startswith(f"{TABLE}.yaml:schema[0].properties[")
    assert "intger" in errors[1]
    assert errors[2].startswith("customer_profile.yaml:<file>: warehouse table 'customer_profile'")
    assert errors[2].endswith("has no contract")


def test_a_breaking_change_needs_a_major_version_bump(contracts, tmp_path, tables, catalog, types):
    baseline = tmp_path / "main"
    shutil.copytree(CONTRACTS_ROOT, baseline)
    path = contracts / f"{TABLE}.yaml"
    edit(path, "version: 1.1.0", "version: 1.2.0")
    edit(path, "          - value: TRUCK\n", "")  # the ship-mode enum loses a value: narrower
    [error] = lint(contracts, tables, catalog, types, against=baseline)
    assert error.startswith(
        f"{TABLE}.yaml:version: breaking changes need a major version bump from 1.1.0 (got 1.2.0)"
    )
    edit(path, "version: 1.2.0", "version: 2.0.0")
    assert lint(contracts, tables, catalog, types, against=baseline) == []


def test_a_compatible_change_still_needs_a_higher_version(
    contracts, tmp_path, tables, catalog, types
):
    baseline = tmp_path / "main"
    shutil.copytree(CONTRACTS_ROOT, baseline)
    edit(
        contracts / f"{TABLE}.yaml",
        "- value: TRUCK\n",
        "- value: TRUCK\n          - value: DRONE\n",
    )
    [error] = lint(contracts, tables, catalog, types, against=baseline)
    assert "the contract changed but its version 1.1.0 is not above 1.1.0" in error


def test_a_published_version_is_immutable(contracts, tmp_path, tables, catalog, types):
    published = PublishedContracts(tmp_path / "published")
    published.record(load_contract(CONTRACTS_ROOT / f"{TABLE}.yaml"))
    assert lint(contracts, tables, catalog, types, published=published) == []
    edit(contracts / f"{TABLE}.yaml", "purpose: >-", "purpose: >-\n    Edited.")
    [error] = lint(contracts, tables, catalog, types, published=published)
    assert error.startswith(f"{TABLE}.yaml:version: version 1.1.0 was already published")


def test_cli_exits_1_with_one_line_per_problem(contracts, tmp_path, monkeypatch):
    monkeypatch.setenv("PLUMBLINE_HOME", str(tmp_path / "home"))
    runner = CliRunner()
    ok = runner.invoke(main, ["contracts", "lint", "--contracts", str(contracts)])
    assert ok.exit_code == 0, ok.output
    edit(contracts / f"{TABLE}.yaml", "- name: late_lines", "- name: late_line")
    bad = runner.invoke(main, ["contracts", "lint", "--contracts", str(contracts)])
    assert bad.exit_code == 1
    lines = [line for line in bad.stdout.splitlines() if line]
    assert len(lines) == 2 and all(line.startswith(f"{contracts}/{TABLE}.yaml:") for line in lines)
    assert "2 problem(s)" in bad.stderr


def test_contracts_of_tables_not_built_by_sql_are_held_to_odcs(contracts, tables, catalog, types):
    edit(contracts / "scores" / "batch_scores.yaml", "logicalType: number", "logicalType: numbr")
    [error] = lint(contracts, tables, catalog, types)
    assert error.startswith("scores/batch_scores.yaml:schema[0].properties[2].logicalType")


def test_a_draft_contract_is_named_until_reviewed(contracts, tables, catalog, types):
    edit(contracts / f"{TABLE}.yaml", "status: active", "status: draft")
    assert lint(contracts, tables, catalog, types) == [
        f"{TABLE}.yaml:status: the contract is a draft to review: describe the table and its "
        "columns, check each drafted rule and classification, then set the status to active"
    ]


def arrow_column(sql_type: str, rows: int) -> pa.Array:
    """``rows`` values of a DuckDB output type, as Arrow writes them to Parquet."""
    decimal_type = re.fullmatch(r"DECIMAL\((\d+),(\d+)\)", sql_type)
    if decimal_type:
        precision, scale = map(int, decimal_type.groups())
        return pa.array([decimal.Decimal(i) for i in range(rows)], pa.decimal128(precision, scale))
    values = {
        "BIGINT": (list(range(rows)), pa.int64()),
        "INTEGER": (list(range(rows)), pa.int32()),
        "DOUBLE": ([i + 0.5 for i in range(rows)], pa.float64()),
        "VARCHAR": ([f"v{i}" for i in range(rows)], pa.string()),
        "DATE": ([dt.date(1995, 1, 1 + i) for i in range(rows)], pa.date32()),
        "BOOLEAN": ([i % 2 == 0 for i in range(rows)], pa.bool_()),
    }
    data, kind = values[sql_type]
    return pa.array(data, kind)


def test_a_missing_contract_drafted_by_init_lints_once_reviewed(
    contracts, tmp_path, tables, catalog, types
):
    table = "customer_profile"
    (contracts / f"{table}.yaml").unlink()
    [missing] = lint(contracts, tables, catalog, types)
    assert missing.startswith(f"{table}.yaml:<file>: warehouse table '{table}'")
    assert missing.endswith("has no contract")
    # The table as a build writes it: the SQL's output columns and types.
    lake = Lake(tmp_path / "lake")
    columns = types[table]
    with lake.stage(WAREHOUSE_ZONE, table) as staging:
        pq.write_table(
            pa.table({name: arrow_column(kind, 3) for name, kind in columns.items()}),
            staging / "part-0.parquet",
        )
        lake.publish(WAREHOUSE_ZONE, table, staging, {})
    result = CliRunner().invoke(
        main, ["contracts", "init", table, "--contracts", str(contracts), "--lake", str(lake.root)]
    )
    assert result.exit_code == 0, result.output
    [draft] = lint(contracts, tables, catalog, types)
    assert draft.startswith(f"{table}.yaml:status: the contract is a draft to review")
    edit(contracts / f"{table}.yaml", "status: draft", "status: active")
    assert lint(contracts, tables, catalog, types) == []


def test_a_refused_file_names_the_catalog_the_lint_searched(tmp_path):
    # A project's own catalog, not this repository's sql/catalog.yaml.
    (tmp_path / "catalog.yaml").write_text("tables:\n  raw.orders:\n    id: INTEGER\n")
    legacy = tmp_path / "legacy" / "oracle"
    legacy.mkdir(parents=True)
    (legacy / "top_items.sql").write_text("SELECT item_id\nFROM sales.items\n")
    catalog = load_catalog(tmp_path / "catalog.yaml")
    tables = warehouse_tables(translate_sources(tmp_path / "legacy", catalog), ansi_root=None)
    _, errors = output_types(tables, catalog)
    [error] = errors
    assert error.message.endswith(
        "top_items.sql:2:6: error[NAME-UNKNOWN]: table 'sales.items' is not in the catalog for "
        f"dialect oracle (searched: {tmp_path / 'catalog.yaml'}); add it, or import one with "
        "`plumbline catalog import`"
    )
