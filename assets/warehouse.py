"""``warehouse/<name>``: tables built from ANSI SQL on the configured engine, write-audit-publish."""

import functools
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import dagster as dg

from assets.metadata import code_references, lineage_metadata, records_table, rounded
from pipelines.contracts import Contract, load_contract
from pipelines.contracts.describe import describe_columns
from pipelines.instance import DATA_VERSION_TAG
from pipelines.lake.catalog import published_columns
from pipelines.lake.store import Lake, LakeError, TableVersion
from pipelines.probes import Facts, Rerun, attach_probe, provenance
from pipelines.resources import (
    AnsiStoreResource,
    ContractsResource,
    EngineResource,
    LakeResource,
)
from pipelines.settings import shown_path
from pipelines.step_usage import StepUsage
from pipelines.translation.store import LegacySql, StoreError
from pipelines.warehouse.build import (
    WAREHOUSE_ZONE,
    BlockingCheckFailed,
    CheckedTable,
    CheckOutcome,
    ResultTable,
    WarehouseTable,
    build_with_checks,
    catalog_sha256,
    table_contracts,
    table_sql,
    warehouse_tables,
)
from pipelines.warehouse.engines.base import OTHER_ENGINE, EngineError
from pipelines.warehouse.lineage_view import markdown_text
from pipelines.warehouse.rerun import (
    LastMaterialization,
    code_version,
    verdicts_of_live_version,
    why_rebuild,
)
from pipelines.warehouse.snapshot import Snapshot
from sql.catalog import Catalog, CatalogError
from sql.paths import repository_relative


class PortabilityConfig(dg.Config):
    """Launch-time knobs of the portability checks."""

    # Above this many input rows (all inputs together) both engines run on a deterministic
    # 1-in-sample_modulus sample of the inputs instead.
    max_input_rows: int = 2_000_000
    sample_modulus: int = 10


class WarehouseBuildConfig(dg.Config):
    """Launch-time knobs of a warehouse build."""

    # Relative tolerance of floating-point (REAL, DOUBLE) columns whose table declares none:
    # their last bits depend on the order of summation. Integers, decimals, text and dates
    # compare exactly unless the table declares a tolerance; 0: floats exactly as stored.
    reconcile_relative_tolerance: float = 1e-9
    reconcile_max_unmatched_fraction: float = 0.0
    # Build and check the table even when its live version stands for the same code version
    # and input data versions (`plumbline run --force`).
    rebuild: bool = False


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
    """Plain values as Dagster metadata: floats rounded, lists of rows as tables, other
    lists as Markdown lists, mappings as two-column tables, the rest as they are (None
    left out)."""
    shown: dict[str, object] = {}
    for key, value in values.items():
        if isinstance(value, float):
            shown[key] = dg.MetadataValue.float(rounded(value))
        elif isinstance(value, list | tuple) and value and all(isinstance(v, dict) for v in value):
            names = list(dict.fromkeys(name for row in value for name in row))
            shown[key] = records_table(value, [(name, "string", "") for name in names])
        elif isinstance(value, list | tuple):
            shown[key] = dg.MetadataValue.md(
                "\n".join(f"- {markdown_text(str(item))}" for item in value) or "none"
            )
        elif isinstance(value, dict):
            shown[key] = records_table(
                [{"name": k, "value": v} for k, v in value.items()],
                [("name", "string", ""), ("value", "string", "")],
            )
        elif value is not None:
            shown[key] = value
    return shown


def _tables(tables: Mapping[str, ResultTable]) -> dict[str, dg.TableMetadataValue]:
    return {key: records_table(table.rows, table.columns) for key, table in tables.items()}


def _check_result(outcome: CheckOutcome) -> dg.AssetCheckResult:
    seconds = {"seconds": outcome.seconds} if outcome.seconds is not None else {}
    return dg.AssetCheckResult(
        check_name=outcome.name,
        passed=outcome.passed,
        severity=dg.AssetCheckSeverity.ERROR,
        description=outcome.summary,
        metadata={**_metadata({**outcome.metadata, **seconds}), **_tables(outcome.tables)},
    )


# The seconds each kind of blocking check took, as the table's materialization shows them
# (the scale benchmark compares them with build_seconds).
CHECK_SECONDS = {"_contract": "validate_seconds", "_reconciled": "reconcile_seconds"}


def check_seconds(outcomes: Sequence[CheckOutcome]) -> dict[str, dg.MetadataValue]:
    """``validate_seconds`` and ``reconcile_seconds`` of the checks that ran."""
    shown = {}
    for outcome in outcomes:
        for suffix, key in CHECK_SECONDS.items():
            if outcome.name.endswith(suffix) and outcome.seconds is not None:
                shown[key] = dg.MetadataValue.float(outcome.seconds)
    return shown


NOT_RECONCILED = (
    "Not reconciled: there is no snapshot of the legacy warehouse's output of this table "
    "(declare one under reconciliation, or put <table>.parquet or <table>.csv in the snapshots "
    "folder) and no reference query. Shown as a warning until there is; never passed."
)
NO_CONTRACT = (
    "No data contract: the table is published unguarded. Draft one with `plumbline contracts "
    "init TABLE`, review it, and `plumbline contracts lint` passes again."
)


def _unguarded(table: WarehouseTable, contract: bool, reconciled: bool) -> list:
    """The warnings of a table published without a contract, or translated and not
    reconciled against anything: visible in the UI, never a pass."""
    results = []
    if not contract:
        results.append(
            dg.AssetCheckResult(
                check_name=f"{table.name}_contract",
                passed=False,
                severity=dg.AssetCheckSeverity.WARN,
                description=f"warehouse/{table.name} has no data contract",
            )
        )
    if not reconciled and table.legacy is not None:
        results.append(
            dg.AssetCheckResult(
                check_name=f"{table.name}_reconciled",
                passed=False,
                severity=dg.AssetCheckSeverity.WARN,
                description=f"warehouse/{table.name} is not reconciled: no legacy snapshot "
                "and no reference query",
            )
        )
    return results


def contract_column_schema(
    contract: Contract, built: Sequence[tuple[str, str]] | None = None
) -> dg.TableSchema:
    """The columns as the UI's Columns section shows them: each with the description and
    constraints its contract gives (nullable, unique, "primary key (1)", "one of ...",
    "between 1 and 7", "classification: restricted"). ``built`` (name, type) are the
    columns a build wrote, with their engine types; without it, the contract's columns."""
    described = {column.name: column for column in describe_columns(contract)}
    names = built if built is not None else [(c.name, c.type) for c in described.values()]
    columns = []
    for name, kind in names:
        column = described.get(name)
        if column is None:
            columns.append(dg.TableColumn(name, kind, description="not in the contract"))
            continue
        columns.append(
            dg.TableColumn(
                name,
                kind,
                description=column.description,
                constraints=dg.TableColumnConstraints(
                    nullable=column.nullable, unique=column.unique, other=list(column.other)
                ),
            )
        )
    return dg.TableSchema(columns=columns)


def _check_specs(
    table: WarehouseTable, key: dg.AssetKey, contract: Contract | None
) -> list[dg.AssetCheckSpec]:
    """The table's checks: blocking where there is something to check against (its
    contract, the legacy output or a reference query), else a warning that says so."""
    specs = []
    if table.reconciled:
        what = (
            table.snapshot.describe()
            if table.snapshot is not None
            else f"the independent reference query {table.reference_path.name}"  # type: ignore[union-attr]
        )
        rows = (
            f"the rows matched by {', '.join(table.snapshot.key)}"
            if table.snapshot is not None and table.snapshot.key
            else "the multiset of rows"
        )
        specs.append(
            dg.AssetCheckSpec(
                f"{table.name}_reconciled",
                asset=key,
                blocking=True,
                description=(
                    f"Row counts, schema, per-column aggregates and {rows} match {what}; "
                    "checked on staging, before publish."
                ),
            )
        )
    elif table.legacy is not None:
        specs.append(
            dg.AssetCheckSpec(f"{table.name}_reconciled", asset=key, description=NOT_RECONCILED)
        )
    if contract is not None:
        specs.append(
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
    else:
        specs.append(
            dg.AssetCheckSpec(f"{table.name}_contract", asset=key, description=NO_CONTRACT)
        )
    return specs


def _description(table: WarehouseTable, contract: Contract | None) -> str:
    promise = (
        f"Built from `{table.source_file.relative_to(table.source_file.parents[2])}`. Promise: "
        "written to staging and published only when its blocking checks pass (its contract; "
        "for translated SQL, its reconciliation against the legacy output); otherwise the last "
        "good version stays and nothing downstream runs. Its manifest records the digests of "
        "its files, inputs and SQL."
    )
    if contract is not None and contract.description:
        return f"{contract.description}\n\n{promise}"
    return promise


def _definition_metadata(table: WarehouseTable, contract: Contract | None) -> dict[str, object]:
    # "Source code": the SQL the table is built from, the legacy file (or portable SQL).
    source = code_references(table.source_file)
    if contract is None:
        return {"contract": dg.MetadataValue.text("none"), **source}
    return {
        **source,
        "contract": dg.MetadataValue.path(repository_relative(table.contract_path)),
        "contract_version": contract.version,
        # On the definition: the UI's Columns section shows it before any run.
        "dagster/column_schema": contract_column_schema(contract),
    }


def published_metadata(version: TableVersion) -> dict[str, dg.MetadataValue]:
    """Which version of the table a build published, and when. A failed build publishes
    nothing, so the latest materialization of ``warehouse/<name>`` names the version that
    is live: the asset page shows these entries, with their time, beside a later attempt's
    "Failed"."""
    metadata = {"published_version": dg.MetadataValue.text(version.path.name)}
    published_at = Lake.published_at(version.path.name)
    if published_at is not None:
        metadata["published_at"] = dg.MetadataValue.timestamp(published_at)
    return metadata


def live_metadata(lake: Lake, table: str) -> dict[str, dg.MetadataValue]:
    """What readers of ``warehouse/<table>`` get now, for a failed build to say that it
    changed nothing: the live version and since when, or that there is none."""
    try:
        live = lake.current(WAREHOUSE_ZONE, table)
    except LakeError as exc:  # the failure being reported matters more than this one
        return {"live_version": dg.MetadataValue.text(f"unknown: {exc}")}
    if live is None:
        return {"live_version": dg.MetadataValue.text("none: never published")}
    metadata = {"live_version": dg.MetadataValue.text(live.path.name)}
    published_at = Lake.published_at(live.path.name)
    if published_at is not None:
        metadata["live_since"] = dg.MetadataValue.timestamp(published_at)
    return metadata


INPUT_COLUMNS = [
    ("table", "string", "the lake table read"),
    ("version", "string", "the published version it was read from"),
    ("path", "string", "where that version lies"),
]


def _materialization_metadata(
    checked: CheckedTable, contract: Contract | None, path: Path, home: str | None
) -> dict[str, object]:
    """What a build shows: its size, digests, the inputs it read, its SQL and lineage."""
    built = checked.built
    return {
        "dagster/row_count": dg.MetadataValue.int(built.stats.row_count),
        "dagster/column_schema": (
            contract_column_schema(contract, checked.columns)
            if contract is not None
            else dg.TableSchema(columns=[dg.TableColumn(n, t) for n, t in checked.columns])
        ),
        "bytes": dg.MetadataValue.int(built.stats.bytes),
        "engine": dg.MetadataValue.text(checked.engine),
        "build_seconds": dg.MetadataValue.float(rounded(built.build.seconds)),
        "content_digest": dg.MetadataValue.text(f"sha256:{built.content_digest}"),
        "data_version": dg.MetadataValue.text(f"sha256:{built.data_version}"),
        "file_digest": dg.MetadataValue.text(f"sha256:{built.version.digest}"),
        **published_metadata(built.version),
        "inputs": records_table(
            [
                {"table": i.table, "version": i.version, "path": shown_path(i.path, home)}
                for i in checked.inputs
            ],
            INPUT_COLUMNS,
        ),
        "path": dg.MetadataValue.path(shown_path(path, home)),
        "rendered_sql": dg.MetadataValue.md(f"```sql\n{built.build.rendered_sql}\n```"),
        **lineage_metadata(checked.lineage),
    }


# What a skipped table's materialization sets (pipelines/cli/run.py reads it for the summary).
SKIPPED_FLAG = "skipped_unchanged_inputs"
# What a skipped table does not carry over from the materialization of its live version: the
# times of checks it did not run.
SKIP_DROPS = tuple(CHECK_SECONDS.values())


def skip_reason(
    facts: Facts,
    table: WarehouseTable,
    *,
    code: str,
    deps: Sequence[dg.AssetKey],
    lake: Lake,
    ansi_root: Path,
    engine: str,
    catalog: Callable[[], Catalog],
) -> tuple[str | None, TableVersion | None, dict[str, dg.MetadataValue]]:
    """Why ``table`` is built (None: it is skipped, :func:`why_rebuild`), its live version and
    the metadata of its latest materialization. ``code`` is the asset's code version, ``deps``
    its inputs, ``catalog`` gives the catalog a build holds them to. Read from what the
    Dagster instance recorded and the lake only: the step asks it, and so does ``plumbline
    run`` before it starts a run (:class:`TableProbe`)."""
    key = warehouse_key(table.name)
    try:
        live = lake.current(WAREHOUSE_ZONE, table.name)
        ansi_sql = table_sql(table, ansi_root)
        said = catalog_sha256(catalog(), table.reads)
    except (LakeError, StoreError, EngineError, CatalogError) as exc:
        # The build says what is wrong, naming the file.
        return f"its live version or its SQL cannot be read ({exc})", None, {}
    latest = facts.latest([key, *deps])
    own = latest.get(key)
    recorded = provenance(own) if own is not None else None
    last = (
        None
        if own is None or recorded is None
        else LastMaterialization(
            data_version=own.asset_event.tags.get(DATA_VERSION_TAG),
            code_version=recorded.code_version,
            input_data_versions={
                k.to_user_string(): v.value for k, v in recorded.input_data_versions.items()
            },
        )
    )
    reason = why_rebuild(
        table,
        live,
        last,
        code_version=code,
        input_data_versions={
            dep.to_user_string(): (
                latest[dep].asset_event.tags.get(DATA_VERSION_TAG) if dep in latest else None
            )
            for dep in deps
        },
        ansi_sql=ansi_sql,
        engine=engine,
        catalog=said,
        intact=lake.verify,
    )
    return reason, live, dict(own.asset_event.metadata) if own is not None else {}


def _catalog(
    table: WarehouseTable, project: LegacySql | None, ansi_store: AnsiStoreResource, lake: Lake
) -> Catalog:
    """The catalog a build of ``table`` holds its inputs to: a translated file of ``project``
    reads the columns of another file's table as that file's translation gives them."""
    read = ansi_store.catalog()
    if project is not None and table.legacy is not None:
        return project.catalog_for(
            table.name,
            read,
            ansi_store.path(),
            published=functools.partial(published_columns, lake),
        )
    return read


@dataclass(frozen=True)
class TableProbe:
    """The question a warehouse table's step asks first, askable before a run: ``plumbline
    run`` starts no step for a table its step would skip (pipelines/probes.py)."""

    table: WarehouseTable
    code: str
    deps: tuple[dg.AssetKey, ...]
    project: LegacySql | None
    contract: Contract | None

    def ask(self, facts: Facts, resources: Mapping[str, object]) -> Rerun:
        """The step's own answer, from the Definitions' ``resources`` (``lake``,
        ``ansi_store``, ``warehouse_engine``) as they are configured."""
        lake_resource = resources["lake"]
        ansi_store = resources["ansi_store"]
        engine = resources["warehouse_engine"]
        assert isinstance(lake_resource, LakeResource)
        assert isinstance(ansi_store, AnsiStoreResource)
        assert isinstance(engine, EngineResource)
        lake = lake_resource.lake()
        reason, live, metadata = skip_reason(
            facts,
            self.table,
            code=self.code,
            deps=self.deps,
            lake=lake,
            ansi_root=ansi_store.path(),
            engine=engine.engine,
            catalog=lambda: _catalog(self.table, self.project, ansi_store, lake),
        )
        if reason is not None or live is None:
            return Rerun(reason or "it has no published version")
        return Rerun(
            None,
            {warehouse_key(self.table.name): metadata},
            _skipped_checks(self.table, live, self.contract),
        )


def _skipped_checks(
    table: WarehouseTable, live: TableVersion, contract: Contract | None
) -> list[dg.AssetCheckResult]:
    """A skipped table's check results: its blocking checks' verdicts as its live version
    was published under them, not re-run, and the warnings of what it is not guarded by."""
    return [_check_result(o) for o in verdicts_of_live_version(live)] + _unguarded(
        table, contract is not None, table.reconciled
    )


def _skipped(
    table: WarehouseTable,
    live: TableVersion,
    metadata: dict[str, dg.MetadataValue],
    contract: Contract | None,
    usage: StepUsage,
) -> dg.MaterializeResult:
    """A skipped table's materialization: its live version again (the same data version and
    the metadata it was materialized with, but this step's usage), flagged as skipped, with
    its blocking checks' verdicts as that version was published under them, not re-run."""
    kept = {k: v for k, v in metadata.items() if k not in ("pruned_versions", *SKIP_DROPS)}
    return dg.MaterializeResult(
        metadata={
            **kept,
            **usage.metadata(),
            SKIPPED_FLAG: dg.MetadataValue.bool(True),
            "skipped_because": dg.MetadataValue.text(
                f"its code version and every input's data version are those its live version "
                f"{live.path.name} was materialized from: not rebuilt, not re-validated"
            ),
        },
        data_version=dg.DataVersion(live.manifest["data_version"]),
        check_results=_skipped_checks(table, live, contract),
    )


def warehouse_asset(
    table: WarehouseTable,
    engine_name: str,
    contract: Contract | None = None,
    project: LegacySql | None = None,
) -> dg.AssetsDefinition:
    """``warehouse/<name>``: :func:`~pipelines.warehouse.build.build_with_checks`, its
    verdicts as check results and its build as metadata. A table translated from a file of
    ``project`` checks the inputs it reads against the catalog it was translated with (the
    columns of another file's table as that file's translation gives them)."""
    key = warehouse_key(table.name)
    deps = [dg.AssetKey(read.split(".")) for read in table.reads]
    if table.legacy is not None:
        deps.append(dg.AssetKey(["ansi", table.name]))
    code = code_version(table, engine_name)

    @dg.asset(
        key=key,
        deps=deps,
        group_name=WAREHOUSE_ZONE,
        kinds={"parquet", engine_name},
        check_specs=_check_specs(table, key, contract),
        description=_description(table, contract),
        owners=[f"team:{contract.owner}"] if contract is not None and contract.owner else [],
        metadata=_definition_metadata(table, contract),
        tags={"plumbline/zone": WAREHOUSE_ZONE},
        code_version=code,
    )
    def _table(
        context: dg.AssetExecutionContext,
        config: WarehouseBuildConfig,
        lake: LakeResource,
        warehouse_engine: EngineResource,
        ansi_store: AnsiStoreResource,
        contracts: ContractsResource,
    ):
        usage = StepUsage.start()
        # DuckDB's modules: imported when a table is built, not when the code location loads.
        from pipelines.warehouse.reconcile import Thresholds

        home = lake.home or None

        def catalog() -> Catalog:
            return _catalog(table, project, ansi_store, lake.lake())

        reason, live, metadata = (
            ("its config says rebuild (plumbline run --force)", None, {})
            if config.rebuild
            else skip_reason(
                Facts(context.instance),
                table,
                code=code,
                deps=deps,
                lake=lake.lake(),
                ansi_root=ansi_store.path(),
                engine=warehouse_engine.engine,
                catalog=catalog,
            )
        )
        if reason is None and live is not None:
            # Said by the materialization's metadata: no log line, one event fewer a table.
            yield _skipped(table, live, metadata, contract, usage)
            return
        try:
            checked = build_with_checks(
                lake.lake(),
                warehouse_engine.build_engine(),
                table,
                ansi_root=ansi_store.path(),
                catalog=catalog(),
                published=contracts.published(),
                masker=contracts.masker(),
                thresholds=Thresholds(
                    relative_tolerance=config.reconcile_relative_tolerance,
                    max_unmatched_fraction=config.reconcile_max_unmatched_fraction,
                ),
                shown=lambda path: shown_path(path, home),
            )
        except BlockingCheckFailed as exc:
            for outcome in exc.outcomes:
                yield _check_result(outcome)
            raise dg.Failure(
                description=str(exc), metadata=live_metadata(lake.lake(), table.name)
            ) from exc
        except (EngineError, StoreError, CatalogError) as exc:
            # The message names the file; an engine's quotes the offending SQL line.
            raise dg.Failure(
                description=str(exc), metadata=live_metadata(lake.lake(), table.name)
            ) from exc
        built = checked.built
        context.log.info(
            f"warehouse/{table.name}: built as {reason}: {built.stats.row_count:,} rows on "
            f"{checked.engine} in {built.build.seconds:.2f}s; "
            + (
                f"the same table as its live version {built.version.path.name}, which stays"
                if built.kept
                else f"published as {built.version.path.name}"
            )
            + (f"; retention removed {', '.join(built.pruned)}" if built.pruned else "")
        )
        pruned = {"pruned_versions": list(built.pruned)} if built.pruned else {}
        yield dg.MaterializeResult(
            metadata={
                **_materialization_metadata(
                    checked, contract, lake.lake().table_path(WAREHOUSE_ZONE, table.name), home
                ),
                **check_seconds(built.checks),
                **_metadata(pruned),
                **usage.metadata(),
            },
            data_version=dg.DataVersion(built.data_version),
            check_results=[_check_result(o) for o in checked.built.checks]
            + _unguarded(table, contract is not None, table.reconciled),
        )

    # What `plumbline run` asks before it starts a run (pipelines/probes.py).
    return attach_probe(_table, TableProbe(table, code, tuple(deps), project, contract))


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
                    "digest). Not part of Materialize all (it starts the other engine): it "
                    "runs only in the `check_portability_job` (launch it from the Jobs page) "
                    "or with `plumbline run --portability`; until then the UI shows it as "
                    "not evaluated."
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
            ansi_sql = table_sql(table, ansi_store.path())
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
    legacy: LegacySql,
    snapshot_of: Callable[[str], Snapshot | None] | None = None,
    **roots: Path | None,
) -> dg.Definitions:
    """The warehouse assets and their portability checks, a table per table the legacy
    files define (and per portable file under ``roots['ansi_root']``). Nothing is
    translated or planned; a contract that does not load stops the load (``BrokenContracts``),
    and whether the SQL produces what it says is checked by ``plumbline contracts lint``
    and the table's blocking contract check."""
    tables = warehouse_tables(legacy.files, snapshot_of=snapshot_of, **roots)
    contracts, problems = table_contracts(tables)
    if problems:
        # Imported only to report: the module plans SQL on DuckDB, which a load must not.
        from pipelines.warehouse.contract_lint import BrokenContracts

        raise BrokenContracts(problems)
    return dg.Definitions(
        assets=[
            warehouse_asset(table, engine_name, contracts.get(table.name), legacy)
            for table in tables
        ],
        asset_checks=[portability_checks(tables, engine_name)] if tables else [],
    )
