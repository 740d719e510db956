"""``plumbline.MigrationComponent``: a legacy warehouse migration as a Dagster Component.

A data engineer points one ``defs.yaml`` at their legacy SQL, catalogs, raw sources, contracts
and the legacy warehouse's exported output; the component builds the same graph the TPC-H demo
has (``raw/`` → ``ansi/`` → ``warehouse/`` with contract and reconciliation checks, and models
where the project names any). ``dg scaffold defs plumbline.MigrationComponent NAME`` writes an
instance; ``plumbline init DIR`` writes a whole new project around one.

Paths in the YAML are relative to the project root (the folder of its ``pyproject.toml``).
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import Literal

import dagster as dg
from pydantic import Field, ValidationError

from pipelines.project import (
    SCAFFOLD_ATTRIBUTES,
    Problem,
    Project,
    ProjectError,
    ProjectProblems,
    TableReconciliation,
    composition_problems,
)
from pipelines.settings import Engine, Settings, SettingsError, parse_folder
from sql.templating import TemplateBudget

NUL = "\x00"
NUL_PROBLEM = "a path cannot hold a NUL character"


class FilesSourceModel(dg.Model):
    files: str = Field(
        description="A glob or folder of Parquet or CSV files, relative to the project root "
        "(what COPY INTO @stage, a BigQuery export or bcp produces)."
    )
    format: Literal["parquet", "csv"] | None = Field(
        default=None, description="parquet or csv; default: from the files' extension."
    )
    columns: dict[str, str] = Field(
        default_factory=dict,
        description="CSV only: ANSI types of columns whose detected type would be another "
        "(amount: DECIMAL(12,2)).",
    )


class DatabaseModel(dg.Model):
    url_env: str = Field(
        description="The environment variable holding the connection URL "
        "(postgresql://user:password@host:port/database); never written in the YAML."
    )
    table: str = Field(description="schema.table in that database.")


class DatabaseSourceModel(dg.Model):
    database: DatabaseModel


class ReconciliationDatabaseModel(dg.Model):
    url_env: str = Field(
        description="The environment variable holding the legacy database's URL "
        "(postgresql://user:password@host:port/database); never written in the YAML."
    )
    query: str | None = Field(
        default=None,
        description="The legacy query as written, in the database's own SQL: run there, only "
        "aggregates and row hashes come back.",
    )
    table: str | None = Field(default=None, description="Or a schema.table (or view) there.")
    driver: Literal["postgresql"] = Field(default="postgresql")


class TableReconciliationModel(dg.Model):
    snapshot: str | None = Field(
        default=None,
        description="The legacy warehouse's output of this table (Parquet file or folder, or "
        "CSV), relative to the project root; default: <snapshots>/<table>.parquet|.csv.",
    )
    key: list[str] = Field(
        default_factory=list,
        description="Columns that identify a row: rows are matched by key and numbers "
        "compared within their tolerance.",
    )
    tolerance: dict[str, float] = Field(
        default_factory=dict,
        description="Relative tolerance per numeric column; without one, integers and "
        "decimals compare exactly.",
    )
    database: ReconciliationDatabaseModel | None = Field(
        default=None,
        description="Reconcile against the legacy database itself instead of a snapshot.",
    )


class ReconciliationModel(dg.Model):
    tables: dict[str, TableReconciliationModel] = Field(default_factory=dict)


_BUDGET = TemplateBudget()


class TemplateBudgetModel(dg.Model):
    """What rendering one Jinja-templated legacy file may take (``sql.template_sandbox``):
    over it, that file is refused (a located error[TEMPLATE]) and nothing else. Each a
    number > 0."""

    seconds: float = Field(default=_BUDGET.seconds, description="Wall time of one render.")
    output: int = Field(default=_BUDGET.output, description="Characters the file renders to.")
    value: int = Field(
        default=_BUDGET.value,
        description="Characters (or items) of any one string or list built on the way.",
    )
    memory: int = Field(
        default=_BUDGET.memory,
        description="Characters and items of every string and list built, in all.",
    )
    iterations: int = Field(default=_BUDGET.iterations, description="Loop iterations, in all.")


class MigrationScaffolder(dg.Scaffolder):
    """``dg scaffold defs plumbline.MigrationComponent NAME``: a defs.yaml over the layout
    ``plumbline init`` creates (legacy/, contracts/, snapshots/, catalog.yaml)."""

    def scaffold(self, request: dg.ScaffoldRequest) -> None:
        dg.scaffold_component(request, SCAFFOLD_ATTRIBUTES)


@dg.scaffold_with(MigrationScaffolder)
class MigrationComponent(dg.Component, dg.Model, dg.Resolvable):
    """A legacy warehouse migration: legacy SQL translated to ANSI SQL, built into warehouse
    tables over the project's raw sources, each held to its data contract and reconciled
    against the legacy warehouse's own output, with column lineage back to the legacy files."""

    legacy: str | None = Field(
        default=None,
        description="Folder of legacy SQL, <dialect>/<name>.sql (snowflake, tsql, teradata, "
        "oracle, bigquery, redshift). Default: PLUMBLINE_LEGACY_ROOT.",
    )
    catalogs: list[str] | None = Field(
        default=None,
        description="Catalog files (plumbline catalog import writes them from DDL, a lake or "
        "the sources). Default: PLUMBLINE_CATALOG.",
    )
    contracts: str = Field(
        default="contracts", description="Folder of ODCS data contracts, <table>.yaml."
    )
    portable_sql: str | None = Field(
        default=None, description="Folder of tables written in ANSI SQL from the start."
    )
    references: str | None = Field(
        default=None,
        description="Folder of hand-written reference queries, <dialect>/<name>.sql "
        "(DuckDB SQL over the same inputs), one way of producing a snapshot.",
    )
    snapshots: str | None = Field(
        default=None,
        description="Folder of the legacy warehouse's exported output per table: "
        "<table>.parquet, <table>.csv or <table>/.",
    )
    reconciliation: ReconciliationModel = Field(default_factory=ReconciliationModel)
    sources: dict[str, FilesSourceModel | DatabaseSourceModel] = Field(
        default_factory=dict,
        description="The raw tables: name -> files or a database table; each becomes raw/<name>.",
    )
    tpch: bool = Field(
        default=False,
        description="Generate the raw zone with tpchgen-cli at PLUMBLINE_SCALE (the demo).",
    )
    engine: Engine | None = Field(
        default=None, description="duckdb or spark; default: PLUMBLINE_ENGINE."
    )
    template_vars: dict[str, str | int | float | bool | list[str | int | float | bool]] = Field(
        default_factory=dict,
        description="Variables of Jinja-templated legacy files ({{ name }}, var('name'), "
        "is_incremental()): name -> string, number, boolean or list. Recorded in every stored "
        "translation's manifest and the audit trail: never a secret.",
    )
    template_budget: TemplateBudgetModel = Field(
        default_factory=TemplateBudgetModel,
        description="What rendering one templated legacy file may take, when the project "
        "loads and when it is translated; over it, only that file's assets fail.",
    )
    allowed_paths: list[str] = Field(
        default_factory=list,
        description="Absolute folders outside the project folder that its paths may lead to "
        "(a shared export folder): every path it names, and every link under its folders, "
        "must otherwise stay inside the project folder once links are followed.",
    )
    models: list[str] = Field(
        default_factory=list,
        description="Models trained on the warehouse (the demo's: delivery_delay); none: "
        "only data assets.",
    )

    def project(self, root: Path, settings: Settings, *, check_catalogs: bool = True) -> Project:
        """The project this configuration describes, paths taken from ``root``. Without
        ``check_catalogs``, catalog files need not exist yet (``plumbline catalog import
        --from-sources`` is what writes them). Raises ``ProjectProblems`` naming every
        attribute at fault, not only the first."""
        from pipelines.project_check import outside_problems

        project, problems = self._project(root, settings, check_catalogs=check_catalogs)
        if project is not None:
            problems += outside_problems(project)
        if problems or project is None:
            raise ProjectProblems(problems)
        return project

    def _project(
        self, root: Path, settings: Settings, *, check_catalogs: bool = True
    ) -> tuple[Project | None, list[Problem]]:
        """The project, and every attribute at fault. A refused source or reconciliation
        entry is left out of the project (so that the load can still find the mistakes
        elsewhere); any other problem leaves no project to load (None)."""
        from pipelines.lake.sources import SourcesError, parse_sources

        problems: list[Problem] = []

        def path(value: str, name: str) -> Path:
            if NUL in value:  # no file has such a name; the OS would raise, not refuse
                problems.append(Problem(name, NUL_PROBLEM))
                value = value.replace(NUL, "")
            return (root / value).absolute()

        def folder(value: str | None, name: str) -> Path | None:
            if value is None:
                return None
            try:
                return parse_folder(path(value, name), name)
            except SettingsError:
                problems.append(Problem(name, f"an existing folder; got {path(value, name)}"))
                return None

        catalogs = settings.catalog
        if self.catalogs is not None:
            catalogs = tuple(path(c, f"catalogs.{i}") for i, c in enumerate(self.catalogs))
            missing = [str(c) for c in catalogs if not c.is_file()]
            if not catalogs:
                problems.append(Problem("catalogs", "name at least one catalog file"))
            elif missing and check_catalogs:
                problems.append(Problem("catalogs", f"no such file: {', '.join(missing)}"))
        legacy_root = folder(self.legacy, "legacy")
        roots = {
            name: folder(value, name)
            for name, value in (
                ("portable_sql", self.portable_sql),
                ("references", self.references),
                ("snapshots", self.snapshots),
            )
        }
        contracts_root = path(self.contracts, "contracts")
        allowed = self._allowed_roots(root, settings, problems)
        sources = []
        names = list(self.sources)
        problems += composition_problems(self.models, names, self.tpch)
        unusable = bool(problems)
        # Each source on its own, so that every refused one is reported.
        for name, declared in self.sources.items():
            try:
                sources.extend(parse_sources({name: _declared(declared)}, root, allowed=allowed))
            except SourcesError as exc:
                problems.append(Problem(exc.field, exc.problem))
        reconciliation = {}
        for table, entry in self.reconciliation.tables.items():
            try:
                reconciliation[table] = _reconciliation(entry, root)
            except ProjectError as exc:
                problems.append(Problem(f"reconciliation.tables.{table}.{exc.field}", exc.problem))
        try:
            budget = TemplateBudget(**self.template_budget.model_dump())
        except ValueError as exc:  # "template_budget.seconds: a number > 0; got 0"
            field, _, problem = str(exc).partition(": ")
            problems.append(Problem(field, problem))
            budget = TemplateBudget()
        if unusable:
            return None, problems
        project = Project(
            legacy_root=legacy_root or settings.legacy_root,
            catalogs=catalogs,
            contracts_root=contracts_root,
            portable_root=roots["portable_sql"],
            reference_root=roots["references"],
            snapshots_root=roots["snapshots"],
            reconciliation=reconciliation,
            sources=tuple(sources),
            tpch=self.tpch,
            models=tuple(self.models),
            engine=self.engine,
            template_vars=dict(self.template_vars),
            template_budget=budget,
            allowed_roots=allowed,
        )
        return project, problems

    def _allowed_roots(
        self, root: Path, settings: Settings, problems: list[Problem]
    ) -> tuple[Path, ...]:
        """Where the project's paths may lead: its folder, its ``allowed_paths`` (each an
        absolute folder, else a problem), and what the environment names for an attribute
        left out (``PLUMBLINE_LEGACY_ROOT``, ``PLUMBLINE_CATALOG``): the operator's choice,
        not the project file's."""
        allowed = [root]
        for index, value in enumerate(self.allowed_paths):
            if NUL in value or not os.path.isabs(value):
                problems.append(
                    Problem(f"allowed_paths.{index}", f"expected an absolute folder; got {value}")
                )
                continue
            allowed.append(Path(value))
        if self.legacy is None:
            allowed.append(settings.legacy_root)
        if self.catalogs is None:
            allowed.extend(settings.catalog)
        return tuple(Path(p).resolve() for p in allowed)

    def build_defs(self, context: dg.ComponentLoadContext) -> dg.Definitions:
        from pipelines.definitions import build_definitions

        settings = Settings.from_env()
        # `dg dev`'s code server and run workers start here, not through the CLI: the MLflow
        # credentials move from the URI to the environment in this process too.
        settings.export_credentials()
        root = context.project_root
        try:
            project, problems = self._project(root, settings)
            if project is None:
                raise ProjectProblems(problems)
            declared_in = context.path / "defs.yaml"
            if declared_in.is_file():
                project = replace(project, declared_in=declared_in)
            return build_definitions(settings, project, problems=problems)
        except ProjectError as exc:
            # Every mistake, each as FILE:FIELD: message, for `dg check defs` and the UI;
            # `plumbline run` finds this error under Dagster's and shows the same lines.
            defs_file = context.path / "defs.yaml" if context.path.is_dir() else context.path
            raise ProjectProblems.of(exc).located(defs_file, root) from None

    @classmethod
    def get_code_references_for_yaml(
        cls, yaml_path: Path, source_position: object, context: dg.ComponentLoadContext
    ) -> Sequence:
        """None: each asset names its own source (``build_definitions``: the legacy file of
        ``legacy/``, ``ansi/`` and ``warehouse/``, a source's defs.yaml, a model's Python).
        Dagster's default adds this defs.yaml to every asset, and the UI's "Source code"
        lists every reference: a translated table would offer defs.yaml beside its SQL."""
        return []

    @classmethod
    def from_attributes(cls, attributes: object) -> MigrationComponent:
        """The component a ``defs.yaml``'s ``attributes`` describe; raises ``ProjectProblems``
        with one problem per field the model refuses."""
        try:
            return cls.model_validate(attributes)
        except ValidationError as exc:
            raise ProjectProblems(validation_problems(exc)) from None


def _declared(source: FilesSourceModel | DatabaseSourceModel) -> dict[str, object]:
    """A source as ``pipelines.lake.sources.parse_sources`` reads it."""
    if isinstance(source, DatabaseSourceModel):
        return {"database": source.database.model_dump()}
    return {
        "files": source.files,
        **({"format": source.format} if source.format else {}),
        **({"columns": source.columns} if source.columns else {}),
    }


# The members of the one union among the attributes (a source is files or a database):
# pydantic names the member in each error's location.
_UNION_MEMBERS = (FilesSourceModel.__name__, DatabaseSourceModel.__name__)


def validation_problems(error: ValidationError) -> list[Problem]:
    """One problem per error pydantic found in the attributes, at its field. Where a source
    matches neither member of its union, only the errors of the member it comes closer to
    (fewer errors) are shown: a files source missing ``database`` is no news."""
    errors = error.errors(include_url=False)
    by_member: dict[tuple[object, ...], dict[str, int]] = {}
    for err in errors:
        loc = err["loc"]
        for i, part in enumerate(loc):
            if part in _UNION_MEMBERS:
                counts = by_member.setdefault(loc[:i], {})
                counts[str(part)] = counts.get(str(part), 0) + 1
    chosen = {
        prefix: min(counts, key=lambda m: (counts[m], _UNION_MEMBERS.index(m)))
        for prefix, counts in by_member.items()
    }
    problems = []
    for err in errors:
        loc = err["loc"]
        member = next((i for i, part in enumerate(loc) if part in _UNION_MEMBERS), None)
        if member is not None and loc[member] != chosen[loc[:member]]:
            continue
        field = ".".join(str(part) for part in loc if part not in _UNION_MEMBERS)
        message = err["msg"]
        if "columns" in loc and err["input"] is None:
            # YAML's flow mapping splits `{amount: DECIMAL(12,2)}` at the comma.
            message += "; quote a type that holds a comma: {amount: 'DECIMAL(12,2)'}"
        problems.append(Problem(field, message))
    return problems


def _reconciliation(table: TableReconciliationModel, root: Path) -> TableReconciliation:
    if table.snapshot is not None and NUL in table.snapshot:
        raise ProjectError("snapshot", NUL_PROBLEM)
    from pipelines.lake.sources import SourcesError
    from pipelines.warehouse.snapshot import parse_database

    database = None
    if table.database is not None:
        try:
            database = parse_database(table.database.model_dump(exclude_none=True), "database")
        except SourcesError as exc:
            raise ProjectError(exc.field, exc.problem) from None
    return TableReconciliation(
        snapshot=(root / table.snapshot).absolute() if table.snapshot else None,
        key=tuple(table.key),
        tolerance=dict(table.tolerance),
        database=database,
    )
