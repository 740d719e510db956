"""``warehouse/<name>``: tables built from ANSI SQL on the configured engine, write-audit-publish."""

from collections.abc import Sequence
from pathlib import Path

import dagster as dg

from assets.ansi import column_lineage_metadata
from pipelines.contracts import Contract, load_contract
from pipelines.resources import (
    AnsiStoreResource,
    ContractsResource,
    EngineResource,
    LakeResource,
)
from pipelines.translation.store import SourceDependencies, StoreError, legacy_dependencies
from pipelines.warehouse.build import (
    WAREHOUSE_ZONE,
    BlockingCheckFailed,
    CheckOutcome,
    WarehouseTable,
    build_table,
    contract_check,
    portable_sql,
    reconciliation_check,
    table_contracts,
    warehouse_tables,
)
from pipelines.warehouse.engines.base import OTHER_ENGINE, EngineError
from sql.catalog import Catalog, load_catalog
from sql.paths import LEGACY_ROOT


class PortabilityConfig(dg.Config):
    """Launch-time knobs of the portability checks."""

    # Above this many input rows (all inputs together) both engines run on a deterministic
    # 1-in-sample_modulus sample of the inputs instead.
    max_input_rows: int = 2_000_000
    sample_modulus: int = 10


class WarehouseBuildConfig(dg.Config):
    """Launch-time knobs of a warehouse build."""

    reconcile_relative_tolerance: float = 1e-9
    reconcile_max_unmatched_fraction: float = 0.0


def warehouse_key(table: str) -> dg.AssetKey:
    """The asset key of the warehouse table ``table`` (built from ``sql/legacy/*/<table>.sql``)."""
    return dg.AssetKey([WAREHOUSE_ZONE, table])


# The warehouse tables the model assets read: built here, like every warehouse table, from
# their legacy SQL; named here so the model assets depend on the keys this module makes.
TRAINING_SET = "training_set"
OPEN_LINES = "open_lines"
TRAINING_SET_KEY = warehouse_key(TRAINING_SET)
OPEN_LINES_KEY = warehouse_key(OPEN_LINES)


def _metadata(values: dict[str, object]) -> dict[str, object]:
    """Plain values as Dagster metadata: lists and dicts as JSON, the rest as they are."""
    return {
        key: dg.MetadataValue.json(value) if isinstance(value, list | dict) else value
        for key, value in values.items()
    }


def _check_result(outcome: CheckOutcome) -> dg.AssetCheckResult:
    return dg.AssetCheckResult(
        check_name=outcome.name,
        passed=outcome.passed,
        severity=dg.AssetCheckSeverity.ERROR,
        description=outcome.summary,
        metadata=_metadata(outcome.metadata),
    )


def warehouse_asset(
    table: WarehouseTable, engine_name: str, contract: Contract | None = None
) -> dg.AssetsDefinition:
    key = warehouse_key(table.name)
    deps = [dg.AssetKey(read.split(".")) for read in table.reads]
    if table.legacy is not None:
        deps.append(dg.AssetKey(["ansi", table.name]))
    check_specs = []
    if table.reference_path is not None:
        check_specs.append(
            dg.AssetCheckSpec(
                f"{table.name}_reconciled",
                asset=key,
                blocking=True,
                description=(
                    "Row counts, per-column aggregates and the multiset of rows match the "
                    f"independent reference query {table.reference_path.name}; checked on "
                    "staging, before publish."
                ),
            )
        )

    description = (
        f"Built from `{table.source_file.relative_to(table.source_file.parents[2])}`. Promise: "
        "written to staging and published only when its blocking checks pass (its contract; "
        "for translated SQL, the hand-written reference query's rows); otherwise the last "
        "good version stays and nothing downstream runs. Its manifest records the digests of "
        "its files, inputs and SQL."
    )
    owners: list[str] = []
    asset_metadata: dict[str, object] = {}
    if contract is not None:
        check_specs.append(
            dg.AssetCheckSpec(
                f"{table.name}_contract",
                asset=key,
                blocking=True,
                description=(
                    f"Data contract {table.contract_path.name} ({contract.version}), compiled "
                    "to Great Expectations and validated on staging, before publish."
                ),
            )
        )
        if contract.description:
            description = f"{contract.description}\n\n{description}"
        owners = [f"team:{contract.owner}"] if contract.owner else []
        asset_metadata = {
            "contract": dg.MetadataValue.path(str(table.contract_path)),
            "contract_version": contract.version,
        }

    @dg.asset(
        key=key,
        deps=deps,
        group_name=WAREHOUSE_ZONE,
        kinds={"parquet", engine_name},
        check_specs=check_specs,
        description=description,
        owners=owners,
        metadata=asset_metadata,
        tags={"plumbline/zone": WAREHOUSE_ZONE},
    )
    def _table(
        context: dg.AssetExecutionContext,
        config: WarehouseBuildConfig,
        lake: LakeResource,
        warehouse_engine: EngineResource,
        ansi_store: AnsiStoreResource,
        contracts: ContractsResource,
    ):
        # DuckDB's modules: imported when a table is built, not when the code location loads.
        from pipelines.warehouse.reconcile import Thresholds

        checks = []
        engine = warehouse_engine.build_engine()
        masker = contracts.masker()
        if contract is not None:
            checks.append(contract_check(table, engine, contracts.published(), masker=masker))
        if table.reference_path is not None:
            thresholds = Thresholds(
                relative_tolerance=config.reconcile_relative_tolerance,
                max_unmatched_fraction=config.reconcile_max_unmatched_fraction,
            )
            checks.append(reconciliation_check(table, thresholds, masker=masker))
        try:
            ansi_sql = (
                ansi_store.read_sql(table.name) if table.legacy else portable_sql(table.sql_path)
            )
            built = build_table(
                lake.lake(), engine, table, ansi_sql, checks=checks, catalog=ansi_store.catalog()
            )
        except BlockingCheckFailed as exc:
            for outcome in exc.outcomes:
                yield _check_result(outcome)
            raise dg.Failure(description=str(exc)) from exc
        except (EngineError, StoreError) as exc:
            # The message names the file; an engine's quotes the offending SQL line.
            raise dg.Failure(description=str(exc)) from exc
        if contract is not None:
            # Published under this contract: it is the baseline for breaking changes now.
            contracts.published().record(load_contract(table.contract_path))
        lineage = (
            {
                "dagster/column_lineage": column_lineage_metadata(
                    ansi_store.read_manifest(table.name).column_lineage
                )
            }
            if table.legacy
            else {}
        )
        context.log.info(
            f"warehouse/{table.name}: {built.stats.row_count:,} rows on {engine.name} "
            f"in {built.build.seconds:.2f}s"
        )
        yield dg.MaterializeResult(
            metadata={
                "dagster/row_count": dg.MetadataValue.int(built.stats.row_count),
                "dagster/column_schema": dg.TableSchema(
                    columns=[dg.TableColumn(n, t) for n, t, _ in built.stats.schema]
                ),
                "bytes": dg.MetadataValue.int(built.stats.bytes),
                "engine": dg.MetadataValue.text(engine.name),
                "build_seconds": dg.MetadataValue.float(round(built.build.seconds, 3)),
                "content_digest": dg.MetadataValue.text(f"sha256:{built.content_digest}"),
                "file_digest": dg.MetadataValue.text(f"sha256:{built.version.digest}"),
                "inputs": dg.MetadataValue.json(built.inputs),
                "path": dg.MetadataValue.path(
                    str(lake.lake().table_path(WAREHOUSE_ZONE, table.name))
                ),
                "rendered_sql": dg.MetadataValue.md(f"```sql\n{built.build.rendered_sql}\n```"),
                **lineage,
            },
            data_version=dg.DataVersion(built.content_digest),
            check_results=[_check_result(o) for o in built.checks],
        )

    return _table


def portability_checks(tables: list[WarehouseTable], engine_name: str) -> dg.AssetChecksDefinition:
    """``<table>_portable`` for every warehouse table, in one step so that the other engine
    (a Spark JVM, or DuckDB) starts once for all of them."""
    other_name = OTHER_ENGINE[engine_name]
    by_check = {f"{t.name}_portable": t for t in tables}

    @dg.multi_asset_check(
        specs=[
            dg.AssetCheckSpec(
                name,
                asset=warehouse_key(table.name),
                description=(
                    f"The same ANSI SQL on {other_name} over the same inputs returns the same "
                    "column names and types, and the same rows (order-insensitive content "
                    "digest)."
                ),
            )
            for name, table in by_check.items()
        ],
        can_subset=True,
        name="warehouse_portability_checks",
    )
    def _portable(
        context: dg.AssetCheckExecutionContext,
        config: PortabilityConfig,
        lake: LakeResource,
        warehouse_engine: EngineResource,
        ansi_store: AnsiStoreResource,
        contracts: ContractsResource,
    ):
        from pipelines.contracts import TableMasking
        from pipelines.warehouse.portability import check_portability

        engine = warehouse_engine.build_engine()
        other = warehouse_engine.build_engine(OTHER_ENGINE[warehouse_engine.engine])
        for check_key in sorted(context.selected_asset_check_keys, key=lambda k: k.name):
            table = by_check[check_key.name]
            version = lake.lake().current(WAREHOUSE_ZONE, table.name)
            if version is None:
                yield dg.AssetCheckResult(
                    check_name=check_key.name,
                    asset_key=check_key.asset_key,
                    passed=False,
                    description=f"warehouse/{table.name} has no published table yet",
                )
                continue
            ansi_sql = (
                ansi_store.read_sql(table.name) if table.legacy else portable_sql(table.sql_path)
            )
            result = check_portability(
                lake.lake(),
                version,
                ansi_sql,
                engine,
                other,
                file=str(table.source_file),
                max_input_rows=config.max_input_rows,
                sample_modulus=config.sample_modulus,
                masking=TableMasking.of(
                    load_contract(table.contract_path) if table.contract_path else None,
                    contracts.masker(),
                ),
            )
            yield dg.AssetCheckResult(
                check_name=check_key.name,
                asset_key=check_key.asset_key,
                passed=result.passed,
                description=result.summary,
                metadata=_metadata(
                    {
                        "engine": result.engine,
                        "other_engine": result.other_engine,
                        "digest": result.digest,
                        "other_digest": result.other_digest,
                        "sampled": result.sampled,
                        **result.metadata,
                    }
                ),
            )

    return _portable


def build_warehouse_definitions(
    engine_name: str,
    legacy: Path | Sequence[SourceDependencies] = LEGACY_ROOT,
    catalog: Catalog | None = None,
    **roots: Path,
) -> dg.Definitions:
    """The warehouse assets and their portability checks: ``legacy`` is a tree to parse with
    ``catalog``, or its files as already parsed (``legacy_dependencies``). Nothing is
    translated or planned; a contract that does not load stops the load (``BrokenContracts``),
    and whether the SQL produces what it says is checked by ``plumbline contracts lint``
    and the table's blocking contract check."""
    catalog = catalog or load_catalog()
    if isinstance(legacy, Path):
        legacy = legacy_dependencies(legacy, catalog)
    tables = warehouse_tables(catalog, legacy, **roots)
    contracts, problems = table_contracts(tables)
    if problems:
        # Imported only to report: the module plans SQL on DuckDB, which a load must not.
        from pipelines.warehouse.contract_lint import BrokenContracts

        raise BrokenContracts(problems)
    return dg.Definitions(
        assets=[warehouse_asset(table, engine_name, contracts.get(table.name)) for table in tables],
        asset_checks=[portability_checks(tables, engine_name)],
    )
