"""What one migration project consists of: where its legacy SQL, catalogs, contracts, reference
queries and legacy snapshots lie, which raw sources feed it, and which models (if any) train on it.

Plain data, no Dagster: ``plumbline.MigrationComponent`` (pipelines/component.py) reads one
from a ``defs.yaml``, and ``pipelines.definitions.build_definitions`` turns it into assets. The
TPC-H demo is one such project (:func:`demo_project`), the one this repository ships.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from pipelines.translation.store import CycleError, LegacySql
from pipelines.warehouse.snapshot import LegacyDatabase, Snapshot
from sql.catalog import Catalog, CatalogError
from sql.paths import ANSI_SQL_ROOT, CONTRACTS_ROOT, REFERENCE_ROOT
from sql.templating import TemplateBudget, TemplateValue

if TYPE_CHECKING:
    from pipelines.lake.sources import Source
    from pipelines.settings import Settings

# The models a project may train; each is a pipeline of assets this repository defines.
# ``delivery_delay`` is the TPC-H demo's delivery-delay risk model (models/).
MODELS: tuple[str, ...] = ("delivery_delay",)
# A snapshot of the legacy warehouse's output, by convention <snapshots>/<table>.<suffix>
# (or a folder <snapshots>/<table>/ of Parquet files).
SNAPSHOT_SUFFIXES: tuple[str, ...] = (".parquet", ".csv")


# The component type a project's defs.yaml names (pipelines/component.py, exported by plumbline/).
COMPONENT_TYPE = "plumbline.MigrationComponent"
# What `dg scaffold defs plumbline.MigrationComponent NAME` and `plumbline init` write: the
# layout a new project starts from (folders relative to the project root).
SCAFFOLD_ATTRIBUTES: dict[str, object] = {
    "legacy": "legacy",
    "catalogs": ["catalog.yaml"],
    "contracts": "contracts",
    "snapshots": "snapshots",
    "engine": "duckdb",
    "sources": {},
}


class ProjectError(ValueError):
    """A project's configuration names something that does not exist or cannot be used; the
    message names the field (``defs.yaml``'s attribute) and what it accepts."""

    def __init__(self, field_name: str, message: str) -> None:
        self.field = field_name
        self.problem = message
        super().__init__(f"{field_name}: {message}")


@dataclass(frozen=True)
class Problem:
    """One mistake in a project's configuration, shown as one line ``FILE:FIELD: message``:
    the file at fault (a ``defs.yaml``, a catalog, a contract, a legacy file) and its field,
    or ``LINE:COL`` in SQL; an empty ``field`` when the message says where. ``file`` None:
    ``field`` is an attribute of the component's ``defs.yaml``, which the component names
    (:meth:`in_file`)."""

    field: str
    message: str
    file: str | None = None

    def in_file(self, defs_file: Path) -> Problem:
        """The problem located: an attribute's in ``defs_file``, under ``attributes``."""
        if self.file is not None:
            return self
        return Problem(self._attribute, self.message, str(defs_file))

    @property
    def _attribute(self) -> str:
        return f"attributes.{self.field}" if self.field else "attributes"

    def line(self, root: Path | None = None) -> str:
        """The problem as one line, its file shown relative to ``root`` when inside it."""
        if self.file is None:
            file, field = "", self._attribute
        else:
            file, field = self.file, self.field
        if root is not None and os.path.isabs(file) and Path(file).is_relative_to(root):
            file = os.path.relpath(file, root)
        where = ":".join(part for part in (file, field) if part)
        return _printable(f"{where}: {self.message}" if where else self.message)


def _printable(text: str) -> str:
    """``text`` on one line: a control character (a newline in a source's name, a NUL in a
    path) written as its escape, ``\\n``, so that each problem stays one line."""
    return "".join(c if c.isprintable() else c.encode("unicode_escape").decode() for c in text)


class ProjectProblems(ProjectError):
    """Every mistake found in a project's configuration, reported together: one
    :class:`Problem` per line after a count (files shown relative to ``root``). Nothing of
    the project is loaded."""

    def __init__(self, problems: Sequence[Problem], *, root: Path | None = None) -> None:
        self.problems = tuple(problems)
        self.root = root
        self.field = self.problems[0].field if self.problems else ""
        self.problem = "; ".join(p.message for p in self.problems)
        count = len(self.problems)
        ValueError.__init__(
            self,
            f"{count} problem{'s' if count != 1 else ''} in the project's configuration:\n"
            + "\n".join(self.lines(root)),
        )

    def lines(self, root: Path | None = None) -> list[str]:
        """One ``FILE:FIELD: message`` line per problem, files relative to ``root``."""
        return [p.line(root) for p in self.problems]

    def located(self, defs_file: Path, root: Path | None = None) -> ProjectProblems:
        """These problems with the component's ``defs_file`` named, shown from ``root``."""
        return ProjectProblems([p.in_file(defs_file) for p in self.problems], root=root)

    @classmethod
    def of(cls, error: ProjectError) -> ProjectProblems:
        """``error`` as problems: itself when it is, else its one field."""
        if isinstance(error, ProjectProblems):
            return error
        return cls([Problem(error.field, error.problem)])


@dataclass(frozen=True)
class TableReconciliation:
    """How one table is reconciled against the legacy warehouse's own output."""

    # The legacy output: a Parquet file or folder, or a CSV file. None: by convention in the
    # project's snapshots folder.
    snapshot: Path | None = None
    # Columns that identify a row: rows are matched by key, and numeric columns compared
    # within their tolerance; without a key, rows compare as a multiset, exactly.
    key: tuple[str, ...] = ()
    # Relative tolerance per numeric column (aggregates and rows); without one, integers and
    # decimals compare exactly (floating-point columns: the run's tolerance).
    tolerance: Mapping[str, float] = field(default_factory=dict)
    # Or the legacy database itself, asked when the table is built (instead of a snapshot).
    database: LegacyDatabase | None = None

    def __post_init__(self) -> None:
        for column, tolerance in self.tolerance.items():
            if not tolerance >= 0:
                raise ProjectError(f"tolerance.{column}", "must be a number >= 0")
        if self.database is not None and self.snapshot is not None:
            raise ProjectError(
                "database", "a table reconciles against a snapshot or a database, not both"
            )


@dataclass(frozen=True)
class Project:
    """One migration: legacy SQL over raw sources, built into warehouse tables, each held to a
    contract and reconciled against the legacy output, optionally feeding models."""

    legacy_root: Path
    catalogs: tuple[Path, ...]
    contracts_root: Path
    # sql/ansi-style tables written portable from the start (<name>.sql); None: none.
    portable_root: Path | None = None
    # Hand-written reference queries, <dialect>/<name>.sql over the same inputs (DuckDB SQL).
    reference_root: Path | None = None
    # The legacy warehouse's own output per table (see Snapshot).
    snapshots_root: Path | None = None
    reconciliation: Mapping[str, TableReconciliation] = field(default_factory=dict)
    sources: tuple[Source, ...] = ()
    # The raw zone generated by tpchgen-cli at the configured scale (the demo's data).
    tpch: bool = False
    models: tuple[str, ...] = ()
    # None: the PLUMBLINE_ENGINE setting.
    engine: str | None = None
    # The variables Jinja-templated legacy files render with (sql.templating); recorded in
    # each stored translation's manifest, so never a secret.
    template_vars: Mapping[str, TemplateValue] = field(default_factory=dict)
    # What rendering one template may take, when the project loads and when its ansi/
    # assets translate (sql.template_sandbox).
    template_budget: TemplateBudget = field(default_factory=TemplateBudget)
    # The file that declares the project (a component's defs.yaml): where the UI's "Source
    # code" of what it declares (its sources) opens. None: declared in code (the demo's
    # defaults, tests).
    declared_in: Path | None = None
    # The folders its files may lie in once links are followed: a component's project
    # folder and its allowed_paths (pipelines.project_check.outside_problems). Empty:
    # anywhere (the demo, whose paths come from the settings).
    allowed_roots: tuple[Path, ...] = field(default=(), compare=False)

    def __post_init__(self) -> None:
        problems = composition_problems(self.models, [s.name for s in self.sources], self.tpch)
        if problems:
            raise ProjectProblems(problems)

    def legacy_sql(self, catalog: Catalog, *, cache: Path | None = None) -> LegacySql:
        """The project's legacy files, parsed with ``catalog`` and its ``template_vars``
        (within its ``template_budget``):
        the one form the ``ansi/`` and ``warehouse/`` assets are drawn from (``cache``: see
        ``pipelines.translation.store.legacy_dependencies``). A cycle among the files' tables
        is a ``ProjectError`` of ``legacy``; a catalog's legacy name that names nothing, or
        that a script creates for another table, one of ``catalogs``."""
        try:
            return LegacySql.parse(
                self.legacy_root,
                catalog,
                cache=cache,
                variables=self.template_vars,
                budget=self.template_budget,
            )
        except CycleError as exc:
            raise ProjectError("legacy", str(exc)) from None
        except CatalogError as exc:
            raise ProjectProblems([catalog_problem(str(exc), self.catalogs)]) from None

    def snapshot(self, table: str) -> Snapshot | None:
        """The legacy output ``table`` is reconciled against: declared in ``reconciliation``,
        or found by convention in the snapshots folder; None when there is none."""
        declared = self.reconciliation.get(table, TableReconciliation())
        if declared.database is not None:
            return Snapshot(None, declared.key, dict(declared.tolerance), declared.database)
        path = declared.snapshot
        if path is None and self.snapshots_root is not None:
            candidates = [self.snapshots_root / f"{table}{s}" for s in SNAPSHOT_SUFFIXES]
            candidates.append(self.snapshots_root / table)
            path = next((p for p in candidates if p.exists()), None)
        if path is None:
            return None
        if not path.exists():
            raise ProjectError(
                f"reconciliation.tables.{table}.snapshot", f"no such file or folder: {path}"
            )
        return Snapshot(path, declared.key, dict(declared.tolerance))


def composition_problems(
    models: Sequence[str], source_names: Sequence[str], tpch: bool
) -> list[Problem]:
    """What a project may not combine: an unknown model, a source declared twice, the
    generated TPC-H raw zone besides declared sources."""
    problems = []
    unknown = sorted(set(models) - set(MODELS))
    if unknown:
        problems.append(
            Problem("models", f"unknown model {', '.join(unknown)}; known: {', '.join(MODELS)}")
        )
    repeated = sorted({n for n in source_names if list(source_names).count(n) > 1})
    if repeated:
        problems.append(Problem("sources", f"{', '.join(repeated)} declared more than once"))
    if tpch and source_names:
        problems.append(
            Problem(
                "sources",
                "the generated TPC-H raw zone (tpch: true) and declared sources "
                "would both write raw/; choose one",
            )
        )
    return problems


def demo_project(settings: Settings) -> Project:
    """The TPC-H demo: this repository's legacy SQL (or PLUMBLINE_LEGACY_ROOT's), catalog
    (PLUMBLINE_CATALOG), contracts, hand-written reference queries, portable tables, the
    generated raw zone and the delivery-delay model."""
    return Project(
        legacy_root=settings.legacy_root,
        catalogs=settings.catalog,
        contracts_root=CONTRACTS_ROOT,
        portable_root=ANSI_SQL_ROOT,
        reference_root=REFERENCE_ROOT,
        tpch=True,
        models=MODELS,
    )


def catalog_problem(text: str, paths: Sequence[Path]) -> Problem:
    """A catalog error's text (``PATH: message`` or ``PATH:LINE:COL: message``) as a
    problem of that file, the text kept as it is."""
    for path in paths:
        rest = text.removeprefix(str(path))
        if rest == text:
            continue
        if rest.startswith(": "):
            return Problem("", rest[2:], str(path))
        where, colon, message = rest[1:].partition(": ")
        if rest.startswith(":") and colon:
            return Problem(where, message, str(path))
    return Problem("", text, "")
