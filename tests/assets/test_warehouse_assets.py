"""warehouse/<name>: every table builds on DuckDB and reconciles; write-audit-publish holds."""

import json

import dagster as dg
import pyarrow.parquet as pq
import pytest
import yaml

from assets.ansi import build_ansi_assets
from assets.metadata import CODE_REFERENCES
from assets.raw import raw_assets
from assets.warehouse import build_warehouse_definitions
from pipelines.contracts import compile_contract, load_contract
from pipelines.lake.store import Lake
from pipelines.resources import (
    EngineResource,
    resources_for,
)
from pipelines.settings import Settings
from pipelines.translation.store import sha256_text
from pipelines.warehouse.build import WAREHOUSE_ZONE, tables_read
from pipelines.warehouse.contract_lint import BrokenContracts
from sql.paths import ANSI_SQL_ROOT, CONTRACTS_ROOT, LEGACY_ROOT
from tests.legacy import demo_legacy

TABLE = "customer_profile"  # snowflake/customer_profile.sql, with a reference query


@pytest.fixture(scope="module")
def home(tmp_path_factory, raw_lake_root):
    """raw (shared, scale 0.01) + ansi + warehouse materialized once on DuckDB."""
    root = tmp_path_factory.mktemp("home")
    (root / "lake").mkdir()
    (root / "lake" / "raw").symlink_to(raw_lake_root / "raw")
    return root


def resources(home):
    return resources_for(Settings(home=home, scale=0.01))


@pytest.fixture(scope="module")
def warehouse_defs():
    return build_warehouse_definitions("duckdb", demo_legacy())


@pytest.fixture(scope="module")
def warehouse_assets(warehouse_defs):
    return list(warehouse_defs.assets)


@pytest.fixture(scope="module")
def first_build(home, warehouse_assets):
    return dg.materialize(
        [*raw_assets, *build_ansi_assets(demo_legacy()), *warehouse_assets],
        resources=resources(home),
    )


def materialize_one(home, warehouse_assets, name, **kwargs):
    selected = [a for a in warehouse_assets if a.key.path[-1] == name]
    return dg.materialize(selected, resources=resources(home), **kwargs)


def _failure_metadata(result) -> dict:
    """The metadata of the run's one step failure (what the UI shows under the error)."""
    [failure] = result.get_step_failure_events()
    return failure.event_specific_data.user_failure_data.metadata


def _assert_names_the_live_version(result, live):
    """A failed build says which version stays live, and since when."""
    metadata = _failure_metadata(result)
    assert metadata["live_version"].value == live.path.name
    assert metadata["live_since"].value == Lake.published_at(live.path.name).timestamp()


def test_dependencies_are_the_tables_the_sql_reads(first_build, home, warehouse_assets):
    for assets_def in warehouse_assets:
        name = assets_def.key.path[-1]
        translated = home / "ansi" / f"{name}.sql"
        portable = ANSI_SQL_ROOT / f"{name}.sql"  # written portable, no translation step
        sql = (translated if translated.is_file() else portable).read_text()
        expected = {dg.AssetKey(t.split(".")) for t in tables_read(sql)}
        if translated.is_file():
            expected.add(dg.AssetKey(["ansi", name]))
        [spec] = assets_def.specs
        assert {dep.asset_key for dep in spec.deps} == expected, name


def test_tables_read_skips_ctes():
    sql = 'WITH "late" AS (SELECT * FROM "raw"."lineitem") SELECT * FROM "late" JOIN "warehouse"."x" ON TRUE'
    assert tables_read(sql) == ("raw.lineitem", "warehouse.x")


def test_every_table_builds_on_duckdb_and_reconciles(first_build, home):
    assert first_build.success
    materialized = {
        e.materialization.asset_key.path[-1]: e.materialization.metadata
        for e in first_build.get_asset_materialization_events()
        if e.materialization.asset_key.path[0] == WAREHOUSE_ZONE
    }
    assert len(materialized) >= 24
    for name, metadata in materialized.items():
        assert metadata["engine"].value == "duckdb"
        assert metadata["content_digest"].value.startswith("sha256:")
        assert metadata["dagster/row_count"].value > 0, name
        assert pq.read_table(home / "lake" / WAREHOUSE_ZONE / name).num_rows == (
            metadata["dagster/row_count"].value
        )
    checks = first_build.get_asset_check_evaluations()
    translated = [name for name in materialized if (home / "ansi" / f"{name}.sql").is_file()]
    assert {c.check_name for c in checks} == {f"{name}_reconciled" for name in translated} | {
        f"{name}_contract" for name in materialized
    }
    assert all(c.passed for c in checks), [c.check_name for c in checks if not c.passed]


def _rewrite_stored_translation(home, name, new_sql):
    """Stand in for a translator bug: a consistent but wrong stored translation."""
    sql_path, manifest_path = home / "ansi" / f"{name}.sql", home / "ansi" / f"{name}.json"
    manifest = json.loads(manifest_path.read_text())
    sql_path.write_text(new_sql)
    manifest["ansi_sha256"] = sha256_text(new_sql)
    manifest_path.write_text(json.dumps(manifest))
    return sql_path


@pytest.fixture
def restore_translation(home):
    saved = {p: p.read_text() for p in (home / "ansi").glob(f"{TABLE}.*")}
    yield
    for path, text in saved.items():
        path.write_text(text)


def test_a_wrong_translation_fails_reconciliation_naming_the_column(
    first_build, home, warehouse_assets, restore_translation
):
    before = Lake(home / "lake").current(WAREHOUSE_ZONE, TABLE)
    good_sql = (home / "ansi" / f"{TABLE}.sql").read_text()
    # COUNT(column) -> COUNT(*): customers without orders now count one order. The kind of
    # slip an inexact translator makes, and it runs without error.
    column = "order_count"
    wrong = good_sql.replace('COUNT("o"."o_orderkey")', "COUNT(*)", 1)
    assert wrong != good_sql
    _rewrite_stored_translation(home, TABLE, wrong)

    result = materialize_one(home, warehouse_assets, TABLE, raise_on_error=False)
    assert not result.success
    evaluation = _evaluation(result, f"{TABLE}_reconciled")
    assert not evaluation.passed
    assert column in evaluation.metadata["columns_differing"].value.split(", ")
    results = _records(evaluation.metadata["reconciliation_results"])
    differing = {(r["column"], r["measure"]) for r in results if not r["passed"]}
    assert (column, "sum") in differing or (column, "max") in differing
    [rows] = [r for r in results if r["measure"] == "rows"]
    assert rows["column"] == "(table)" and rows["passed"] is True
    after = Lake(home / "lake").current(WAREHOUSE_ZONE, TABLE)
    assert after.path == before.path, "a failed blocking check must not publish"
    assert not result.get_asset_materialization_events()
    _assert_names_the_live_version(result, before)


def test_a_runtime_error_names_the_file_and_keeps_the_last_good_table(
    first_build, home, warehouse_assets, restore_translation
):
    lake = Lake(home / "lake")
    before = lake.current(WAREHOUSE_ZONE, TABLE)
    rows_before = pq.read_table(lake.table_path(WAREHOUSE_ZONE, TABLE)).num_rows
    good_sql = (home / "ansi" / f"{TABLE}.sql").read_text()
    broken = good_sql.replace("SELECT", "SELECT CAST('not a number' AS INTEGER) AS \"boom\",", 1)
    _rewrite_stored_translation(home, TABLE, broken)

    result = materialize_one(home, warehouse_assets, TABLE, raise_on_error=False)
    assert not result.success
    message = str(result.get_step_failure_events()[0].event_specific_data.error)
    assert f"{TABLE}.sql: duckdb: Conversion Error" in message
    assert lake.current(WAREHOUSE_ZONE, TABLE).path == before.path
    _assert_names_the_live_version(result, before)
    assert pq.read_table(lake.table_path(WAREHOUSE_ZONE, TABLE)).num_rows == rows_before
    assert not list((home / "lake" / WAREHOUSE_ZONE / ".versions" / TABLE).glob(".staging-*"))


def test_a_missing_upstream_table_is_named(home, warehouse_assets, tmp_path):
    empty = tmp_path / "empty"
    (empty / "lake").mkdir(parents=True)
    (empty / "ansi").mkdir()
    for suffix in (".sql", ".json"):
        (empty / "ansi" / f"{TABLE}{suffix}").write_text(
            (home / "ansi" / f"{TABLE}{suffix}").read_text()
        )
    result = materialize_one(empty, warehouse_assets, TABLE, raise_on_error=False)
    message = str(result.get_step_failure_events()[0].event_specific_data.error)
    assert "which has no published table" in message and "materialize raw/" in message
    assert _failure_metadata(result)["live_version"].value == "none: never published"


def test_every_table_is_portable_to_spark(first_build, home, warehouse_defs, spark_engine):
    """The other engine (Spark, local) over the same inputs returns the same rows."""
    [checks_def] = warehouse_defs.asset_checks
    defs = dg.Definitions(
        assets=warehouse_defs.assets,
        asset_checks=warehouse_defs.asset_checks,
        jobs=[dg.define_asset_job("portability", selection=dg.AssetSelection.checks(checks_def))],
        resources=resources(home),
    )
    result = defs.resolve_job_def("portability").execute_in_process(raise_on_error=False)
    evaluations = result.get_asset_check_evaluations()
    assert len(evaluations) == len(checks_def.check_keys)
    failed = {e.check_name: e.description for e in evaluations if not e.passed}
    assert not failed


def test_the_same_asset_builds_on_spark_with_the_same_content_digest(
    first_build, home, warehouse_assets, spark_engine, tmp_path
):
    """PLUMBLINE_ENGINE=spark: the asset builds on Spark (reusing the session's JVM) and
    publishes a table whose content digest equals the DuckDB build's."""
    [duckdb_digest] = [
        e.materialization.metadata["content_digest"].value
        for e in first_build.get_asset_materialization_events()
        if e.materialization.asset_key == dg.AssetKey([WAREHOUSE_ZONE, TABLE])
    ]
    spark_home = tmp_path / "spark_home"
    (spark_home / "lake").mkdir(parents=True)
    (spark_home / "lake" / "raw").symlink_to(home / "lake" / "raw")
    (spark_home / "ansi").symlink_to(home / "ansi")
    on_spark = {**resources(spark_home), "warehouse_engine": EngineResource(engine="spark")}
    selected = [a for a in warehouse_assets if a.key.path[-1] == TABLE]
    result = dg.materialize(selected, resources=on_spark)
    [event] = result.get_asset_materialization_events()
    assert event.materialization.metadata["engine"].value == "spark"
    assert event.materialization.metadata["content_digest"].value == duckdb_digest
    # The contract is validated on the Spark DataFrame, through GX's Spark datasource.
    checks = {c.check_name: c.passed for c in result.get_asset_check_evaluations()}
    assert checks == {f"{TABLE}_contract": True, f"{TABLE}_reconciled": True}


def _records(table: dg.TableMetadataValue) -> list[dict]:
    """The rows of a table metadata value, as the UI shows them."""
    return [record.data for record in table.records]


def _evaluation(result, name):
    [evaluation] = [e for e in result.get_asset_check_evaluations() if e.check_name == name]
    return evaluation


def test_contract_checks_report_each_expectation_and_record_the_contract(
    first_build, home, warehouse_defs
):
    evaluation = _evaluation(first_build, f"{TABLE}_contract")
    assert evaluation.passed and evaluation.severity == dg.AssetCheckSeverity.ERROR
    metadata = evaluation.metadata
    assert metadata["contract_version"].value == "1.1.0"
    assert metadata["result_digest"].value.startswith("sha256:")
    results = _records(metadata["contract_results"])
    compiled = compile_contract(load_contract(CONTRACTS_ROOT / f"{TABLE}.yaml"))
    assert len(results) == metadata["expectations"].value == len(compiled.expectations) > 10
    assert all(r["passed"] for r in results)
    assert [r["column"] for r in results] == [
        info.column or "(table)" for info in compiled.expectations
    ]
    assert {"column", "rule", "threshold", "observed", "passed"} <= set(results[0])
    assert metadata["contract"].value == f"sql/contracts/{TABLE}.yaml"
    # The contract that guarded the publish is kept, and the lake manifest names it.
    assert (home / "contracts" / TABLE / "1.1.0.yaml").read_bytes() == (
        CONTRACTS_ROOT / f"{TABLE}.yaml"
    ).read_bytes()
    manifest = Lake(home / "lake").current(WAREHOUSE_ZONE, TABLE).manifest
    assert manifest["checks"][f"{TABLE}_contract"]["contract_version"] == "1.1.0"
    # Owner and description from the contract show in the UI.
    [spec] = next(a for a in warehouse_defs.assets if a.key.path[-1] == TABLE).specs
    assert spec.owners == ["team:warehouse-team"]
    assert spec.description.startswith("Every customer with nation")
    assert spec.metadata["contract_version"] == "1.1.0"


def test_a_contract_violation_blocks_publish_and_downstream(
    first_build, home, warehouse_assets, restore_translation
):
    before = Lake(home / "lake").current(WAREHOUSE_ZONE, TABLE)
    good_sql = (home / "ansi" / f"{TABLE}.sql").read_text()
    _rewrite_stored_translation(home, TABLE, good_sql.replace("'IN_DEBT'", "'in debt'", 1))

    @dg.asset(deps=[dg.AssetKey([WAREHOUSE_ZONE, TABLE])])
    def downstream() -> None:
        raise AssertionError("must not run on a table that broke its contract")

    selected = [a for a in warehouse_assets if a.key.path[-1] == TABLE]
    result = dg.materialize(
        [*selected, downstream], resources=resources(home), raise_on_error=False
    )
    assert not result.success
    evaluation = _evaluation(result, f"{TABLE}_contract")
    assert not evaluation.passed
    results = _records(evaluation.metadata["contract_results"])
    failed = [r for r in results if not r["passed"]]
    assert [(r["column"], r["rule"]) for r in failed] == [("credit_flag", "in set")]
    assert failed[0]["threshold"] == "IN_DEBT, OK"
    assert failed[0]["observed"].split(" of ")[0].isdigit()
    assert evaluation.metadata["expectations_failed"].value == 1
    rows = _records(evaluation.metadata["failing_rows"])
    assert 0 < len(rows) <= 20 and all(r["credit_flag"] == "in debt" for r in rows)
    assert Lake(home / "lake").current(WAREHOUSE_ZONE, TABLE).path == before.path
    assert "downstream" not in {
        e.step_key for e in result.all_events if e.event_type == dg.DagsterEventType.STEP_SUCCESS
    }


def _contracts_with(tmp_path, name, edit):
    """A copy of sql/contracts with ``name``'s contract edited."""
    root = tmp_path / "contracts"
    root.mkdir(parents=True)
    for path in CONTRACTS_ROOT.glob("*.yaml"):
        text = path.read_text()
        (root / path.name).write_text(edit(text) if path.stem == name else text)
    return root


def _materialize_with_contracts(home, contracts_root, name):
    defs = build_warehouse_definitions("duckdb", demo_legacy(), contracts_root=contracts_root)
    selected = [a for a in defs.assets if a.key.path[-1] == name]
    return dg.materialize(selected, resources=resources(home), raise_on_error=False)


def test_a_breaking_contract_change_needs_a_major_version(first_build, home, tmp_path):
    unbounded = "          minimum: 0\n      - name: first_order_date\n"
    assert unbounded in (CONTRACTS_ROOT / f"{TABLE}.yaml").read_text()

    def tighten(version):
        # lifetime_value gains an upper bound the data meets: compatible data, breaking contract.
        def edit(text):
            text = text.replace("version: 1.1.0", f"version: {version}", 1)
            return text.replace(
                unbounded, unbounded.replace("0\n", "0\n          maximum: 100000000\n", 1)
            )

        return edit

    minor = _contracts_with(tmp_path / "minor", TABLE, tighten("1.2.0"))
    result = _materialize_with_contracts(home, minor, TABLE)
    evaluation = _evaluation(result, f"{TABLE}_contract")
    assert not evaluation.passed
    assert "breaking changes need a major version bump from 1.1.0" in evaluation.description
    assert "lifetime_value" in evaluation.description

    major = _contracts_with(tmp_path / "major", TABLE, tighten("2.0.0"))
    result = _materialize_with_contracts(home, major, TABLE)
    assert result.success and _evaluation(result, f"{TABLE}_contract").passed
    assert (home / "contracts" / TABLE / "2.0.0.yaml").is_file()


@pytest.mark.parametrize(
    ("old", "new", "line"),
    [
        (
            "logicalType: integer",
            "logicalType: intger",
            f"{TABLE}.yaml:schema[0].properties[0].logicalType: ",
        ),
        ("schema:\n", "schema: [\n", f"{TABLE}.yaml:"),  # malformed YAML
    ],
)
def test_a_contract_that_does_not_load_stops_the_pipeline_from_loading(tmp_path, old, new, line):
    broken = _contracts_with(tmp_path, TABLE, lambda text: text.replace(old, new, 1))
    with pytest.raises(BrokenContracts) as raised:
        build_warehouse_definitions("duckdb", demo_legacy(), contracts_root=broken)
    [error] = raised.value.errors
    assert error.format().startswith(f"{broken}/{line}")


def test_a_contract_the_sql_does_not_meet_loads_and_blocks_the_publish(first_build, home, tmp_path):
    """Holding a contract to its table's SQL means planning the query: `plumbline contracts
    lint` does (tests/pipelines/warehouse/test_contract_lint.py), and the blocking check
    before publish, never the load."""

    def rename(text):
        # A renamed column is a breaking change: a major version, so the check validates.
        text = text.replace("version: 1.1.0", "version: 3.0.0", 1)
        return text.replace("- name: nation\n", "- name: nation_name\n", 1)

    renamed = _contracts_with(tmp_path, TABLE, rename)
    before = Lake(home / "lake").current(WAREHOUSE_ZONE, TABLE)
    result = _materialize_with_contracts(home, renamed, TABLE)
    evaluation = _evaluation(result, f"{TABLE}_contract")
    assert not evaluation.passed
    results = _records(evaluation.metadata["contract_results"])
    failed = [(r["column"], r["rule"]) for r in results if not r["passed"]]
    assert ("nation_name", "exists") in failed
    assert Lake(home / "lake").current(WAREHOUSE_ZONE, TABLE).path == before.path
    assert not (home / "contracts" / TABLE / "3.0.0.yaml").exists()


def _materialized(result, name):
    [metadata] = [
        e.materialization.metadata
        for e in result.get_asset_materialization_events()
        if e.materialization.asset_key == dg.AssetKey([WAREHOUSE_ZONE, name])
    ]
    return metadata


def _described(text):
    """customer_profile's contract with descriptions on two properties (YAML re-written,
    whatever descriptions it already has)."""
    document = yaml.safe_load(text)
    for prop in document["schema"][0]["properties"]:
        if prop["name"] == "customer_key":
            prop["description"] = "The customer's TPC-H key"
        if prop["name"] == "credit_flag":
            prop["description"] = "IN_DEBT when the account balance is negative"
    return yaml.safe_dump(document, sort_keys=False)


def test_the_column_schema_shows_the_contracts_descriptions_and_constraints(tmp_path):
    defs = build_warehouse_definitions(
        "duckdb", demo_legacy(), contracts_root=_contracts_with(tmp_path, TABLE, _described)
    )
    [spec] = next(a for a in defs.assets if a.key.path[-1] == TABLE).specs
    columns = {c.name: c for c in spec.metadata["dagster/column_schema"].columns}
    key, flag = columns["customer_key"], columns["credit_flag"]
    assert key.description == "The customer's TPC-H key"
    assert key.type == "BIGINT"
    assert (key.constraints.nullable, key.constraints.unique) == (False, True)
    assert "primary key (1)" in key.constraints.other
    assert flag.description == "IN_DEBT when the account balance is negative"
    assert flag.constraints.nullable is False
    assert "one of IN_DEBT, OK" in flag.constraints.other
    assert "classification: restricted" in columns["customer_name"].constraints.other
    contract = load_contract(CONTRACTS_ROOT / f"{TABLE}.yaml")
    assert list(columns) == [c.name for c in contract.columns]


def test_each_materialization_carries_the_contract_column_schema(first_build):
    contract = load_contract(CONTRACTS_ROOT / f"{TABLE}.yaml")
    schema = _materialized(first_build, TABLE)["dagster/column_schema"].schema
    built = {c.name: c for c in schema.columns}
    assert list(built) == [c.name for c in contract.columns]
    for column in contract.columns:
        shown = built[column.name]
        assert shown.description == column.description
        assert shown.constraints.nullable is (not column.required)
        assert f"classification: {column.classification or 'public'}" in shown.constraints.other
    assert built["customer_key"].type == "int64"  # the type the engine wrote


def test_each_materialization_names_the_version_it_published_and_when(first_build, home):
    """A failed build publishes nothing, so the latest materialization's entries are the
    live version: the asset page shows them beside a later attempt's "Failed"."""
    lake = Lake(home / "lake")
    metadata = _materialized(first_build, TABLE)
    version = metadata["published_version"].value
    manifest = lake.manifest(WAREHOUSE_ZONE, TABLE, version)
    assert f"sha256:{manifest['digest']}" == metadata["file_digest"].value
    assert metadata["published_at"].value == Lake.published_at(version).timestamp()


def test_source_code_is_the_sql_the_table_is_built_from(warehouse_defs):
    specs = {
        key.path[-1]: spec for a in warehouse_defs.assets for key, spec in a.specs_by_key.items()
    }
    [legacy] = LEGACY_ROOT.glob(f"*/{TABLE}.sql")
    for name, file in ((TABLE, legacy), ("training_set", ANSI_SQL_ROOT / "training_set.sql")):
        references = specs[name].metadata[CODE_REFERENCES].code_references
        assert [(r.file_path, r.line_number) for r in references] == [(str(file), 1)]


def test_a_table_from_portable_ansi_has_column_lineage_and_a_lineage_view(first_build):
    metadata = _materialized(first_build, "training_set")
    deps = metadata["dagster/column_lineage"].value.deps_by_column
    features = dg.AssetKey([WAREHOUSE_ZONE, "delay_features"])
    assert deps["order_key"] == [dg.TableColumnDep(asset_key=features, column_name="order_key")]
    assert {d.column_name for d in deps["split"]} == {"order_key", "line_number"}
    assert set(deps) == {c.name for c in metadata["dagster/column_schema"].schema.columns}
    view = {r.data["column"]: r.data for r in metadata["lineage"].records}
    assert view["split"]["expression"].startswith("CASE WHEN MOD(")
    assert view["split"]["defined at"].startswith("sql/ansi/training_set.sql:")
    assert "warehouse/delay_features.line_number" in view["split"]["reads"]


def test_the_lineage_view_names_the_legacy_file_and_line(first_build):
    source = "sql/legacy/oracle/customer_contact_sheet.sql"
    view = _materialized(first_build, "customer_contact_sheet")["lineage"]
    [line] = [r.data for r in view.records if r.data["column"] == "account_line"]
    # c.c_name || ' / ' || o.o_clerk AS account_line: line 6 of the file.
    assert line["defined at"] == f"{source}:6"
    assert line["expression"] == "c.c_name || ' / ' || o.o_clerk AS account_line"
    assert "raw/customer.c_name" in line["reads"] and "raw/orders.o_clerk" in line["reads"]
    lineage = _materialized(first_build, "customer_contact_sheet")["dagster/column_lineage"]
    assert (
        dg.TableColumnDep(asset_key=dg.AssetKey(["raw", "customer"]), column_name="c_name")
        in lineage.value.deps_by_column["account_line"]
    )


def _values(value):
    """Every text a metadata value holds, tables and schemas included."""
    if isinstance(value, dg.TableMetadataValue):
        return [str(cell) for record in value.records for cell in record.data.values()]
    if isinstance(value, dg.TableSchemaMetadataValue):
        return [str(c) for c in value.schema.columns]
    if isinstance(value, dg.TableColumnLineageMetadataValue):
        return [str(value.column_lineage)]
    return [str(getattr(value, "value", value))]


def test_no_metadata_holds_an_absolute_path_under_the_home(first_build, home):
    checked = 0
    for event in first_build.get_asset_materialization_events():
        if event.asset_key.path[0] not in (WAREHOUSE_ZONE, "ansi"):
            continue  # the raw assets are another module's
        for key, value in event.materialization.metadata.items():
            for text in _values(value):
                assert str(home) not in text, (event.asset_key, key)
                checked += 1
    for evaluation in first_build.get_asset_check_evaluations():
        for key, value in evaluation.metadata.items():
            for text in _values(value):
                assert str(home) not in text, (evaluation.check_name, key)
                checked += 1
    assert checked > 1000
    metadata = _materialized(first_build, TABLE)
    assert metadata["path"].value == f"$PLUMBLINE_HOME/lake/{WAREHOUSE_ZONE}/{TABLE}"
    inputs = _records(metadata["inputs"])
    assert {r["table"] for r in inputs} >= {"raw/customer", "raw/orders"}
    manifest = Lake(home / "lake").current(WAREHOUSE_ZONE, TABLE).manifest
    for row in inputs:
        version = manifest["inputs"][row["table"].replace("/", ".", 1)]
        assert row["version"] == version
        assert row["path"] == f"$PLUMBLINE_HOME/lake/raw/.versions/{row['table'][4:]}/{version}"


def test_portability_checks_say_how_they_run(warehouse_defs):
    [checks_def] = warehouse_defs.asset_checks
    for spec in checks_def.check_specs:
        assert "check_portability_job" in spec.description
        assert "plumbline run --portability" in spec.description
