"""Warehouse tables: which exist, what they read, and how one is built (write, audit, publish:
:func:`build_with_checks`, the whole build of one table with its blocking checks).

Pure logic over the lake and an engine; the ``warehouse/<name>`` assets are thin shells.
Which tables exist and what they read is decided when the code location loads, which
starts no engine: DuckDB (and the reconciliation over it) is imported where a table is built.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from decimal import Decimal
from pathlib import Path
from typing import TYPE_CHECKING

import sqlglot
from sqlglot import exp
from sqlglot.errors import SqlglotError

from pipelines.contracts import (
    Contract,
    ContractError,
    LintError,
    Masker,
    TableMasking,
    compile_contract,
    load_contract,
    validate_parquet,
    validate_spark,
)
from pipelines.contracts.describe import contract_result_rows
from pipelines.contracts.registry import PublishedContracts
from pipelines.lake.catalog import schema_differences
from pipelines.lake.store import Lake, TableStats, TableVersion, digest_files, table_stats
from pipelines.translation.store import (
    LegacySource,
    SourceDependencies,
    TranslatedSource,
    read_stored_manifest,
    read_stored_sql,
    sha256_text,
)
from pipelines.warehouse.engines.base import BuildResult, Engine, EngineError
from pipelines.warehouse.lineage_view import LineageRow, lineage_rows, portable_sources
from sql import ansi
from sql.ansi import Ansi
from sql.catalog import Catalog
from sql.paths import ANSI_SQL_ROOT, CONTRACTS_ROOT, REFERENCE_ROOT, repository_relative

if TYPE_CHECKING:
    from pipelines.warehouse.reconcile import Thresholds
    from pipelines.warehouse.snapshot import Snapshot

WAREHOUSE_ZONE = "warehouse"


@dataclass(frozen=True)
class WarehouseTable:
    name: str
    reads: tuple[str, ...]  # lake tables, "zone.table"
    legacy: LegacySource | None = None  # built from the translation stored by ansi/<name>
    sql_path: Path | None = None  # or from portable SQL written in sql/ansi/
    reference_path: Path | None = None  # independent reference query (DuckDB SQL)
    # or the legacy warehouse's own output of the same SQL, exported
    snapshot: Snapshot | None = None
    contract_path: Path | None = None  # ODCS data contract, sql/contracts/<name>.yaml
    # The translation when the graph was loaded (None if refused); a build reads the one
    # stored by ansi/<name> instead.
    ansi_sql: str | None = field(default=None, compare=False, repr=False)

    @property
    def source_file(self) -> Path:
        return self.legacy.path if self.legacy else self.sql_path  # type: ignore[return-value]

    @property
    def reconciled_against(self) -> Path | None:
        """The file the table is reconciled against: the legacy snapshot when one is given,
        else the hand-written reference query; None: none (see :attr:`reconciled`)."""
        if self.snapshot is not None:
            return self.snapshot.path
        return self.reference_path

    @property
    def reconciled(self) -> bool:
        """Whether the table is reconciled: against a snapshot, the legacy database itself
        or a reference query."""
        return self.snapshot is not None or self.reference_path is not None


def portable_sql(path: Path) -> str:
    """The text of a ``sql/ansi/*.sql`` file, once the strict ANSI generator accepts it:
    SQL written "portable from the start" is held to the same allow-list as translations."""
    text = path.read_text()
    try:
        ansi.generate(sqlglot.parse_one(text, read=Ansi))
    except SqlglotError as exc:
        raise EngineError(f"{path}: not portable ANSI SQL: {str(exc).splitlines()[0]}") from exc
    return text


def table_sql(table: WarehouseTable, ansi_root: Path) -> str:
    """The ANSI SQL ``table`` is built from: the translation ``ansi/<name>`` stored under
    ``ansi_root`` (checked against its manifest), or its portable ANSI file."""
    if table.legacy is not None:
        return read_stored_sql(ansi_root, table.name)
    assert table.sql_path is not None
    return portable_sql(table.sql_path)


def tables_read(ansi_sql: str) -> tuple[str, ...]:
    """The lake tables an ANSI query reads: every ``"zone"."table"`` that is not a CTE."""
    tree = sqlglot.parse_one(ansi_sql, read=Ansi)
    ctes = {cte.alias_or_name for cte in tree.find_all(exp.CTE)}
    return tuple(
        sorted(
            {f"{t.db}.{t.name}" for t in tree.find_all(exp.Table) if t.db and t.name not in ctes}
        )
    )


def warehouse_tables(
    files: Sequence[SourceDependencies] | Sequence[TranslatedSource],
    ansi_root: Path | None = ANSI_SQL_ROOT,
    reference_root: Path | None = REFERENCE_ROOT,
    contracts_root: Path = CONTRACTS_ROOT,
    snapshot_of: Callable[[str], Snapshot | None] | None = None,
) -> list[WarehouseTable]:
    """One table per table a legacy file defines and per ``sql/ansi/*.sql``; dependencies
    from the SQL itself. ``snapshot_of`` gives a translated table's legacy output to
    reconcile against (``Project.snapshot``), if any.

    ``files`` are the legacy files as parsed (``LegacySql.files``, the code location's
    graph) or as translated (``translate_sources``, for ``plumbline contracts lint``, which
    plans each table's SQL). A file that does not parse, or is refused, reads nothing here,
    and its ansi/<name> asset fails with the diagnostics.
    """
    tables = []
    for file in files:
        source = file.source
        for name, reads, ansi_sql in _definitions(file):
            reference = (
                _existing(reference_root / source.dialect / f"{name}.sql")
                if reference_root is not None
                else None
            )
            tables.append(
                WarehouseTable(
                    name,
                    reads,
                    legacy=source,
                    reference_path=reference,
                    snapshot=snapshot_of(name) if snapshot_of is not None else None,
                    contract_path=_existing(contracts_root / f"{name}.yaml"),
                    ansi_sql=ansi_sql,
                )
            )
    names = {t.name: t.source_file for t in tables}
    for path in sorted(ansi_root.glob("*.sql")) if ansi_root is not None else ():
        name = path.stem.lower()
        if name in names:
            raise ValueError(f"{path}: table {name!r} is already defined by {names[name]}")
        tables.append(
            WarehouseTable(
                name,
                tables_read(path.read_text()),
                sql_path=path,
                contract_path=_existing(contracts_root / f"{name}.yaml"),
            )
        )
    return tables


def build_order(tables: Sequence[WarehouseTable], available: Iterable[str]) -> list[WarehouseTable]:
    """``tables`` in an order that builds each after the warehouse tables it reads, given
    the tables ``available`` already (qualified ``zone.table`` names); an error names those
    that read something neither available nor among ``tables``."""
    known = set(available)
    pending, ordered = list(tables), []
    while pending:
        ready = [t for t in pending if set(t.reads) <= known]
        if not ready:
            raise ValueError(
                f"cannot order {sorted(t.name for t in pending)}: they read tables not built"
            )
        for table in ready:
            pending.remove(table)
            ordered.append(table)
            known.add(f"{WAREHOUSE_ZONE}.{table.name}")
    return ordered


def _definitions(
    file: SourceDependencies | TranslatedSource,
) -> list[tuple[str, tuple[str, ...], str | None]]:
    """(name, reads, ANSI SQL when translated) of each table ``file`` defines; the file's
    stem, reading nothing, when it does not parse or is refused."""
    if isinstance(file, TranslatedSource):
        defined = [(t.name, t.source_tables, t.ansi_sql) for t in file.tables]
    else:
        defined = [(t.name, t.reads, None) for t in file.tables]
    return defined or [(file.source.name, (), None)]


def _existing(path: Path) -> Path | None:
    return path if path.is_file() else None


def table_contracts(
    tables: Sequence[WarehouseTable],
) -> tuple[dict[str, Contract], list[LintError]]:
    """Each table's contract, loaded (ODCS and plumbline's rules; no SQL, no engine): what
    the assets show (owner, description, version) and the checks they declare; and one
    problem per contract that does not load or describes another table. Whether the SQL
    produces what a contract says is for ``plumbline contracts lint`` and the table's
    blocking ``<table>_contract`` check."""
    errors: list[LintError] = []
    contracts: dict[str, Contract] = {}
    for table in tables:
        if table.contract_path is None:
            continue
        try:
            contract = load_contract(table.contract_path)
        except ContractError as exc:
            errors.append(LintError(exc.file, exc.field, exc.message))
            continue
        if contract.table != table.name:
            errors.append(
                LintError(
                    str(table.contract_path),
                    "schema[0].name",
                    f"the contract for table {table.name!r} describes {contract.table!r}",
                )
            )
            continue
        contracts[table.name] = contract
    return contracts, errors


@dataclass(frozen=True)
class ResultTable:
    """Rows a check reports, shown as a table: ``columns`` are (name, type, description),
    with Dagster's table column types (string, int, float, bool)."""

    columns: tuple[tuple[str, str, str], ...]
    rows: tuple[Mapping[str, object], ...]


@dataclass(frozen=True)
class CheckOutcome:
    """A blocking check's verdict on the staged table: scalars in ``metadata``, rows in
    ``tables`` (metadata key -> table)."""

    name: str
    passed: bool
    summary: str
    metadata: dict[str, object] = field(default_factory=dict)
    tables: dict[str, ResultTable] = field(default_factory=dict)
    # Wall seconds the check took on the staged table (build_table times it); None for a
    # verdict read back from a manifest.
    seconds: float | None = None


CONTRACT_RESULT_COLUMNS = (
    ("column", "string", "the column the rule is on; (table) for a table rule"),
    ("rule", "string", "what the contract requires"),
    ("threshold", "string", "the contract's bound, set or type"),
    ("observed", "string", "what the data shows (masked columns stay masked)"),
    ("passed", "bool", "whether the rule holds"),
    ("expectation", "string", "the Great Expectations expectation that checked it"),
)
RECONCILIATION_RESULT_COLUMNS = (
    ("column", "string", "the column; (table) for the row counts"),
    (
        "measure",
        "string",
        "rows, unmatched rows, present, key, unique key, count, nulls, min, max, sum, or "
        "values (a column that differs between rows matched by key or by every other column)",
    ),
    ("built", "string", "on the table built from the translation"),
    (
        "reference",
        "string",
        "on the reference: the legacy snapshot or database, or the reference query",
    ),
    ("difference", "float", "built - reference, for numbers"),
    ("passed", "bool", "whether the measure matches within the thresholds"),
)


def rows_table(rows: Sequence[Mapping[str, object]]) -> ResultTable:
    """Sample rows as a table over every column any of them has, in first-seen order."""
    names: dict[str, None] = {}
    for row in rows:
        names.update(dict.fromkeys(row))
    return ResultTable(tuple((name, "string", "") for name in names), tuple(rows))


# What a published table's manifest keeps of each blocking check, for the audit trail.
CHECK_PROVENANCE = ("contract_version", "result_digest", "reference", "reference_sha256")

# A blocking check sees the staged table's folder and the pinned inputs it was built from.
BlockingCheck = Callable[[Path, Mapping[str, Path]], CheckOutcome]


class BlockingCheckFailed(RuntimeError):
    def __init__(self, table: str, outcomes: Sequence[CheckOutcome]) -> None:
        self.outcomes = list(outcomes)
        failed = [o for o in outcomes if not o.passed]
        super().__init__(
            f"warehouse/{table} was not published: "
            + "; ".join(f"{o.name}: {o.summary}" for o in failed)
        )


@dataclass(frozen=True)
class BuiltTable:
    version: TableVersion
    stats: TableStats
    content_digest: str
    build: BuildResult
    checks: list[CheckOutcome]
    inputs: dict[str, str]  # input table -> published version folder it was read from
    # The exact digest of the table (its Dagster data version; engines.digest.table_digests).
    data_version: str
    # True when the build held what the live version holds: that version stays, nothing new.
    kept: bool
    pruned: tuple[str, ...]  # versions retention removed when this one was published


def pin_inputs(lake: Lake, reads: Sequence[str], *, file: str) -> dict[str, Path]:
    """Each input's currently published version folder: a build reads one consistent
    snapshot even if an upstream table is republished meanwhile."""
    pinned = {}
    for key in reads:
        zone, table = key.split(".", 1)
        current = lake.current(zone, table)
        if current is None:
            raise EngineError(
                f"{file}: reads {key}, which has no published table at "
                f"{lake.table_path(zone, table)}; materialize {zone}/{table} first"
            )
        pinned[key] = current.path
    return pinned


def check_inputs(table: WarehouseTable, inputs: Mapping[str, Path], catalog: Catalog) -> None:
    """Raise ``EngineError`` unless every catalog table ``table`` reads has, in its pinned
    version, the columns the catalog says (names, order, types): the translation was typed
    against the catalog, so SQL run over a different lake table would mean something else."""
    shown = ", ".join(repository_relative(Path(s)) for s in catalog.sources) or "the catalog"
    problems = []
    for key, folder in inputs.items():
        if key in catalog.tables:
            # A table of the project: typed by its own translation, which the build must match.
            built_by = catalog.project.get(key)
            differences = schema_differences(
                catalog.lake_columns(key),
                folder,
                opaque=catalog.opaque.get(key, {}),
                catalog_source=shown if built_by is None else f"translation of {built_by.file}",
            )
            problems.extend(f"warehouse/{table.name} reads {key}: {d}" for d in differences)
    if problems:
        raise EngineError("; ".join(problems))


# What a warehouse version stands for besides its data: the same data built from the same SQL
# on the same engine and held to the same contract and reference is the same version. (Not
# its inputs' versions: an input republished with other rows that the SQL does not read
# gives the same table. Nor the contract check's result digest: the same rows stored in
# another order can differ in a float aggregate's last bit.)
VERSION_IDENTITY = ("data_version", "engine", "ansi_sha256", "catalog_sha256", "row_count")
CHECK_IDENTITY = ("passed", "contract_version", "reference", "reference_sha256")


def same_table(lake: Lake) -> Callable[[TableVersion, Mapping[str, object]], bool]:
    """Whether a live version already holds a build (its new manifest): the same exact data
    (not the same bytes: DuckDB writes the rows of a parallel query in whichever order its
    threads finish) and the same :data:`VERSION_IDENTITY` and checks, and its files intact.
    Such a build publishes nothing (``Lake.publish_version``), so a rebuild keeps the version."""

    def checks(manifest: Mapping[str, object]) -> dict[str, dict[str, object]]:
        recorded = manifest.get("checks")
        if not isinstance(recorded, dict):
            return {}
        return {
            name: {k: v for k, v in verdict.items() if k in CHECK_IDENTITY}
            for name, verdict in recorded.items()
            if isinstance(verdict, dict)
        }

    def same(live: TableVersion, manifest: Mapping[str, object]) -> bool:
        return (
            all(live.manifest.get(k) == manifest.get(k) for k in VERSION_IDENTITY)
            and checks(live.manifest) == checks(manifest)
            and lake.verify(live)
        )

    return same


def catalog_sha256(catalog: Catalog, reads: Sequence[str]) -> str:
    """sha256 of what ``catalog`` says of the tables ``reads`` (their columns and types, the
    opaque ones too): what a build holds its pinned inputs to (:func:`check_inputs`), so the
    manifest records it and a changed catalog is not taken for an unchanged table."""
    said = {
        key: {
            "columns": list(catalog.tables[key].items()),
            "opaque": sorted(catalog.opaque.get(key, {}).items()),
        }
        for key in sorted(reads)
        if key in catalog.tables
    }
    return sha256_text(json.dumps(said, sort_keys=True))


def _timed(check: BlockingCheck, staged: Path, inputs: Mapping[str, Path]) -> CheckOutcome:
    started = time.perf_counter()
    outcome = check(staged, inputs)
    return dataclasses.replace(outcome, seconds=round(time.perf_counter() - started, 3))


def build_table(
    lake: Lake,
    engine: Engine,
    table: WarehouseTable,
    ansi_sql: str,
    *,
    checks: Sequence[BlockingCheck] = (),
    catalog: Catalog | None = None,
) -> BuiltTable:
    """Write to staging, run the blocking checks there, publish only if all pass.

    With ``catalog``, the pinned inputs are first checked against it (``check_inputs``).
    Any failure (a schema that differs, engine error, failed check, interrupted write)
    leaves the last published table untouched and removes the staging folder. A build that
    holds what the live version holds (:func:`same_table`) keeps that version.
    """
    from pipelines.warehouse.engines.digest import table_digests

    file = str(table.source_file)
    inputs = pin_inputs(lake, table.reads, file=file)
    if catalog is not None:
        check_inputs(table, inputs, catalog)
    with lake.stage(WAREHOUSE_ZONE, table.name) as staging:
        started = time.perf_counter()
        build = engine.build(ansi_sql, inputs, staging, file=file)
        stats = table_stats(staging)
        digests = table_digests(staging)
        outcomes = [_timed(check, staging, inputs) for check in checks]
        if not all(o.passed for o in outcomes):
            raise BlockingCheckFailed(table.name, outcomes)
        manifest = {
            "engine": engine.name,
            "ansi_sha256": sha256_text(ansi_sql),
            "content_digest": digests.content,
            "data_version": digests.exact,
            **(
                {"catalog_sha256": catalog_sha256(catalog, table.reads)}
                if catalog is not None
                else {}
            ),
            "row_count": stats.row_count,
            "build_seconds": round(time.perf_counter() - started, 3),
            "inputs": {key: path.name for key, path in inputs.items()},
            "checks": {
                o.name: {
                    "passed": o.passed,
                    **{k: o.metadata[k] for k in CHECK_PROVENANCE if k in o.metadata},
                }
                for o in outcomes
            },
        }
        published = lake.publish_version(
            WAREHOUSE_ZONE, table.name, staging, manifest, same=same_table(lake)
        )
    version = published.version
    return BuiltTable(
        version=version,
        stats=table_stats(version.path),
        content_digest=version.manifest.get("content_digest", digests.content),
        build=build,
        checks=outcomes,
        # A kept version was built from the inputs its manifest names: it is what they read.
        inputs={
            key: str(lake.version_path(*key.split(".", 1), name))
            for key, name in version.manifest.get("inputs", {}).items()
        }
        if published.kept
        else {key: str(path) for key, path in inputs.items()},
        data_version=digests.exact,
        kept=published.kept,
        pruned=published.pruned,
    )


# Reconciliation measures that count or total: shown with thousands separators (584,805);
# a min or max keeps the column's own form (a year stays 1995).
GROUPED_MEASURES = frozenset({"rows", "unmatched rows", "count", "nulls", "sum"})


def shown_measure(value: object, measure: str) -> object:
    """A compared value as a table cell: a count with thousands separators, other numbers as
    they are, anything else as text."""
    if isinstance(value, int | Decimal) and not isinstance(value, bool):
        if measure in GROUPED_MEASURES:
            return f"{value:,}"
        return str(value) if isinstance(value, Decimal) else value
    if value is None or isinstance(value, bool | int | float | str):
        return value
    return str(value)


def _contract_or_none(table: WarehouseTable) -> Contract | None:
    """The table's contract, or None when it has none or it does not load (its own
    ``<table>_contract`` check reports why)."""
    if table.contract_path is None:
        return None
    try:
        return load_contract(table.contract_path)
    except ContractError:
        return None


def snapshot_digest(snapshot: Snapshot) -> str:
    """sha256 of a snapshot's bytes (a file), or over its Parquet files (a folder): the
    manifest keeps it, so the legacy output a table was reconciled against is on record."""
    assert snapshot.path is not None
    if snapshot.path.is_dir():
        return digest_files(snapshot.path)
    with snapshot.path.open("rb") as f:
        return hashlib.file_digest(f, "sha256").hexdigest()


def reconciliation_check(
    table: WarehouseTable,
    thresholds: Thresholds,
    masker: Masker | None = None,
    *,
    scratch: Path | None = None,
    environ: Mapping[str, str] | None = None,
) -> BlockingCheck:
    """``<table>_reconciled``: the staged table against the legacy warehouse's own output
    (its snapshot, or the legacy database itself through ``environ``'s URL: matched by its
    key, numbers within its tolerances, when declared), or else against its independent
    reference query, run on DuckDB over the same pinned inputs. DuckDB spills under
    ``scratch`` (a folder under the home) beyond its memory limit.

    What it reports of the data (sample rows, a text column's minimum and maximum) is
    masked by the table's contract through ``masker``: a column the contract classifies
    restricted or confidential, or does not declare (every column, without a contract),
    shows tokens."""
    from pipelines.warehouse.reconcile import (
        ReconcileError,
        ReferenceQuery,
        SnapshotFiles,
        reconcile,
    )

    assert table.reconciled
    snapshot = table.snapshot
    reference_path = table.reference_path

    def check(staged: Path, inputs: Mapping[str, Path]) -> CheckOutcome:
        if snapshot is not None and snapshot.database is not None:
            from pipelines.warehouse.legacy_database import DatabaseSide

            expected: object = DatabaseSide(
                snapshot.database, os.environ if environ is None else environ
            )
            reference = snapshot.describe()
        elif snapshot is not None:
            assert snapshot.path is not None
            expected = SnapshotFiles(snapshot.path)
            reference = repository_relative(snapshot.path)
        else:
            assert reference_path is not None
            expected = ReferenceQuery(reference_path.read_text(), inputs, str(reference_path))
            reference = repository_relative(reference_path)
        key, tolerance = (snapshot.key, snapshot.tolerance) if snapshot else ((), {})
        masking = TableMasking.of(_contract_or_none(table), masker)
        provenance = {
            # Repository-relative: the manifest (and the audit chain over it) must not
            # depend on where the checkout lies.
            "reference": reference,
            **(
                {"reference_sha256": snapshot_digest(snapshot)}
                if snapshot is not None and snapshot.path is not None
                else {}
            ),
        }
        try:
            result = reconcile(
                staged, expected, thresholds, key=key, tolerance=tolerance, scratch=scratch
            ).masked(masking)
        except ReconcileError as error:
            return CheckOutcome(
                name=f"{table.name}_reconciled",
                passed=False,
                summary=f"not reconciled: {error}",
                metadata=provenance,
            )
        comparisons = tuple(
            {
                "column": c.column or "(table)",
                "measure": c.measure,
                "built": shown_measure(c.built, c.measure),
                "reference": shown_measure(c.reference, c.measure),
                "difference": c.difference,
                "passed": c.passed,
            }
            for c in result.comparisons
        )
        tables = {"reconciliation_results": ResultTable(RECONCILIATION_RESULT_COLUMNS, comparisons)}
        for name, sample in (
            ("sample_only_in_table", result.sample_only_in_table),
            ("sample_only_in_reference", result.sample_only_in_reference),
        ):
            if sample:
                tables[name] = rows_table(sample)
        return CheckOutcome(
            name=f"{table.name}_reconciled",
            passed=result.passed,
            summary=result.summary(),
            metadata={
                **provenance,
                "rows": result.actual_rows,
                "reference_rows": result.expected_rows,
                "columns_differing": ", ".join(result.columns_differing),
                "rows_only_in_table": result.only_in_table,
                "rows_only_in_reference": result.only_in_reference,
                "compared_by": result.compared_by,
            },
            tables=tables,
        )

    return check


def contract_check(
    table: WarehouseTable,
    engine: Engine,
    published: PublishedContracts,
    masker: Masker | None = None,
) -> BlockingCheck:
    """``<table>_contract``: the staged table against its ODCS contract, validated on the
    engine that built it (inside DuckDB in one aggregate scan, GX's verdicts without GX; or
    through GX on a Spark DataFrame). A contract that
    cannot be loaded, or that changes a published version without the right version bump,
    fails the check too: nothing is published under a contract that does not hold.

    ``masker`` (``ContractsResource.masker()``) masks the values of restricted and
    confidential columns in what the check reports."""
    assert table.contract_path is not None
    name = f"{table.name}_contract"
    path = table.contract_path

    shown = repository_relative(path)

    def failed(summary: str, **metadata: object) -> CheckOutcome:
        return CheckOutcome(name, False, summary, {"contract": shown, **metadata})

    def check(staged: Path, inputs: Mapping[str, Path]) -> CheckOutcome:
        try:
            contract = load_contract(path)
            compiled = compile_contract(contract)
        except ContractError as exc:
            return failed(str(exc))
        if contract.table != table.name:
            return failed(
                f"{path}:schema[0].name: the contract describes {contract.table!r}, "
                f"not {table.name!r}"
            )
        problems = published.problems(contract)
        if problems:
            return failed("; ".join(p.format() for p in problems), version=contract.version)
        if engine.name == "spark":
            frame = engine.session().read.parquet(str(staged))
            result = validate_spark(compiled, frame, masker)
        else:
            result = validate_parquet(compiled, staged, masker)
        failures = [o for o in result.outcomes if not o.passed]
        plain = json.loads(result.canonical_json())
        tables = {
            "contract_results": ResultTable(
                CONTRACT_RESULT_COLUMNS, tuple(contract_result_rows(compiled, result))
            )
        }
        if plain["failing_rows"]:
            # Up to 20 rows that violate the contract, restricted columns masked.
            tables["failing_rows"] = rows_table(plain["failing_rows"])
        summary = (
            f"{len(result.outcomes)} expectations of contract {contract.version} hold"
            if result.passed
            else f"{len(failures)} of {len(result.outcomes)} expectations of contract "
            f"{contract.version} fail: " + "; ".join(f"{o.name}: {o.details}" for o in failures[:5])
        )
        return CheckOutcome(
            name,
            result.passed,
            summary,
            {
                "contract": shown,
                "contract_version": contract.version,
                "owner": contract.owner,
                "result_digest": f"sha256:{result.digest()}",
                "expectations": len(result.outcomes),
                "expectations_failed": len(failures),
            },
            tables=tables,
        )

    return check


@dataclass(frozen=True)
class InputVersion:
    """A lake table a build read (``raw/orders``), the published version it read, and
    where that version lies (through the lake's own layout)."""

    table: str
    version: str
    path: Path


@dataclass(frozen=True)
class CheckedTable:
    """A warehouse table built, checked and published: what :func:`build_with_checks`
    hands the ``warehouse/<name>`` asset to show."""

    built: BuiltTable
    engine: str
    ansi_sql: str
    inputs: tuple[InputVersion, ...]
    lineage: tuple[LineageRow, ...]

    @property
    def columns(self) -> list[tuple[str, str]]:
        """(name, engine type) of each column written."""
        return [(name, kind) for name, kind, _ in self.built.stats.schema]


def blocking_checks(table: WarehouseTable) -> list[str]:
    """The names of the blocking checks :func:`build_with_checks` runs on ``table``: its
    contract's when it has one, its reconciliation's when it has something to reconcile
    against."""
    checks = []
    if table.contract_path is not None:
        checks.append(f"{table.name}_contract")
    if table.reconciled:
        checks.append(f"{table.name}_reconciled")
    return checks


def build_with_checks(
    lake: Lake,
    engine: Engine,
    table: WarehouseTable,
    *,
    ansi_root: Path,
    catalog: Catalog | None = None,
    published: PublishedContracts,
    masker: Masker | None = None,
    thresholds: Thresholds | None = None,
    shown: Callable[[Path], str] = str,
) -> CheckedTable:
    """Build ``table`` with its blocking checks (its contract when it has one, its
    reconciliation when it has something to reconcile against) and publish it
    (:func:`build_table`); record the contract it was published under as the baseline for
    breaking changes; and return what was built with each output column's lineage.

    Its SQL is the translation ``ansi/<name>`` stored under ``ansi_root``, or its portable
    ANSI file. ``shown`` writes a file's location as the lineage view shows it. Raises
    ``BlockingCheckFailed`` (the outcomes on it), ``EngineError`` or ``StoreError``; the
    last published version then stays.
    """
    from pipelines.warehouse.reconcile import Thresholds

    checks: list[BlockingCheck] = []
    if table.contract_path is not None:
        checks.append(contract_check(table, engine, published, masker=masker))
    if table.reconciled:
        checks.append(
            reconciliation_check(
                table, thresholds or Thresholds(), masker=masker, scratch=lake.scratch_root
            )
        )
    ansi_sql = table_sql(table, ansi_root)
    built = build_table(lake, engine, table, ansi_sql, checks=checks, catalog=catalog)
    if table.contract_path is not None:
        # Published under this contract: it is the baseline for breaking changes now.
        published.record(load_contract(table.contract_path))
    return CheckedTable(
        built=built,
        engine=engine.name,
        ansi_sql=ansi_sql,
        inputs=tuple(
            InputVersion(
                key.replace(".", "/", 1),
                Path(path).name,
                # Through the lake's own layout: a zone linked from elsewhere (a shared raw
                # lake) still reads as under the home.
                lake.version_path(*key.split(".", 1), Path(path).name),
            )
            for key, path in sorted(built.inputs.items())
        ),
        lineage=tuple(_lineage(table, built, ansi_sql, ansi_root, shown)),
    )


def _lineage(
    table: WarehouseTable,
    built: BuiltTable,
    ansi_sql: str,
    ansi_root: Path,
    shown: Callable[[Path], str],
) -> list[LineageRow]:
    """Each output column's lineage: in the legacy file, as its stored translation
    recorded it; in portable SQL, over the input versions the build read."""
    columns = [name for name, _, _ in built.stats.schema]
    if table.legacy is not None:
        stored = read_stored_manifest(ansi_root, table.name)
        return lineage_rows(
            columns,
            stored.column_lineage,
            # A Jinja template is not SQL to find a column's lines in (assets.ansi).
            "" if stored.rendered_sha256 is not None else table.legacy.path.read_text(),
            table.legacy.dialect,
            shown(table.legacy.path),
            table=table.name,
        )
    return lineage_rows(
        columns,
        portable_sources(ansi_sql, columns, {k: Path(v) for k, v in built.inputs.items()}),
        ansi_sql,
        None,
        shown(table.source_file),
    )
