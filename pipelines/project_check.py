"""What is wrong with a migration project, found when its code location loads: ``dg check
defs`` and ``plumbline run`` (before anything runs) report every mistake at once, each as
``FILE:FIELD: message`` (``pipelines.project.Problem``), instead of one asset failing later
or the load stopping at the first.

Each check works from what the load has anyway: the catalog files, the legacy files as
parsed (and cached: ``pipelines.translation.store.LegacySql``), the list of warehouse
tables. Nothing is translated, no query planned, no engine imported.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from pathlib import Path

import dagster as dg

from pipelines.lake.csv_files import csv_header
from pipelines.lake.sources import FileSource, outside, outside_problem, pattern_root
from pipelines.project import Problem, Project, ProjectError, ProjectProblems, catalog_problem
from pipelines.translation.store import LegacySql
from sql.catalog import Catalog, CatalogError, load_catalog, merge_catalogs
from sql.diagnostics import Diagnostic


def load_catalog_files(paths: Sequence[Path], *, project_tables: bool = False) -> Catalog:
    """The merged catalog of ``paths``; raises ``ProjectProblems`` with one problem per file
    that does not load (or two that contradict each other). ``project_tables``: a legacy
    name may map to a table the project builds (``sql.catalog.load_catalog``)."""
    catalogs, problems = [], []
    for path in paths:
        try:
            catalogs.append(load_catalog(Path(path), project_tables=project_tables))
        except CatalogError as exc:
            problems.append(catalog_problem(str(exc), paths))
    if not problems:
        try:
            return merge_catalogs(catalogs)
        except CatalogError as exc:
            problems.append(catalog_problem(str(exc), paths))
    raise ProjectProblems(problems)


def diagnostic_problem(diagnostic: Diagnostic) -> Problem:
    """A located SQL diagnostic as a problem: ``FILE:LINE:COL: error[RULE]: message``."""
    return Problem(
        f"{diagnostic.line}:{diagnostic.col}",
        f"{diagnostic.severity}[{diagnostic.rule}]: {diagnostic.message}",
        diagnostic.file,
    )


def unresolved_names(legacy: LegacySql) -> list[Problem]:
    """One problem per name a legacy file reads that the catalog resolves to no table (or
    to several), where the file reads it: the refusal its translation would give."""
    return [
        diagnostic_problem(diagnostic)
        for file in legacy.files
        for table in file.tables
        for diagnostic in table.unresolved
    ]


def oversized_files(legacy: LegacySql) -> list[Problem]:
    """One problem per legacy file over the size limits (``sql.source_limits``), which the
    load did not parse: located where the limit is passed."""
    return [diagnostic_problem(d) for file in legacy.files for d in file.refused]


def reconciliation_problems(project: Project, tables: Iterable[str]) -> list[Problem]:
    """One problem per ``reconciliation.tables`` entry that names no warehouse table of the
    project (its snapshot and tolerances would never be used), and per declared snapshot
    that does not exist."""
    known = sorted(set(tables))
    shown = ", ".join(known[:20]) + (", ..." if len(known) > 20 else "")
    problems = []
    for name, declared in project.reconciliation.items():
        where = f"reconciliation.tables.{name}"
        if name not in known:
            problems.append(
                Problem(
                    where,
                    f"no warehouse table {name!r} in this project (its tables: {shown or 'none'})",
                )
            )
        if declared.snapshot is not None and not declared.snapshot.exists():
            problems.append(
                Problem(f"{where}.snapshot", f"no such file or folder: {declared.snapshot}")
            )
    return problems


def snapshot_problems(project: Project, tables: Iterable[str]) -> list[Problem]:
    """One problem per snapshot a table would be reconciled against that cannot be read as
    one (not a ``.csv`` or ``.parquet`` file, nor a folder of ``.parquet`` files; a
    ``.parquet`` file that is not Parquet), and per ``key`` column or ``tolerance`` of a
    reconciliation entry that its snapshot does not have (a key that matches nothing, a
    tolerance never used). Reads each snapshot's header or footer only."""
    problems = []
    for table in tables:
        try:
            snapshot = project.snapshot(table)
        except ProjectError:  # missing: reconciliation_problems says so
            continue
        if snapshot is None or snapshot.path is None:  # none, or the legacy database itself
            continue
        where = f"reconciliation.tables.{table}"
        declared = project.reconciliation.get(table)
        field = f"{where}.snapshot" if declared and declared.snapshot else "snapshots"
        columns = _snapshot_columns(snapshot.path)
        if isinstance(columns, str):
            problems.append(Problem(field, columns))
            continue
        shown = ", ".join(columns[:20]) + (", ..." if len(columns) > 20 else "")
        for key in snapshot.key:
            if key not in columns:
                problems.append(
                    Problem(
                        f"{where}.key",
                        f"column {key!r} is not in the snapshot {snapshot.path} (its columns: "
                        f"{shown}); rows cannot be matched by it",
                    )
                )
        for column in snapshot.tolerance:
            if column not in columns:
                problems.append(
                    Problem(
                        f"{where}.tolerance.{column}",
                        f"column {column!r} is not in the snapshot {snapshot.path} (its "
                        f"columns: {shown}); the tolerance would never be used",
                    )
                )
    return problems


_PARQUET_MAGIC = b"PAR1"


def _snapshot_columns(path: Path) -> list[str] | str:
    """A snapshot's column names, from a CSV header or a Parquet footer; or what is wrong
    with it, as a problem's message."""
    accepted = "a .csv or .parquet file, or a folder of .parquet files"
    if path.is_dir():
        files = sorted(path.rglob("*.parquet"))
        if not files:
            return f"{path} is a folder with no .parquet file; expected {accepted}"
        path = files[0]
    elif path.suffix.lower() == ".csv":
        try:
            return csv_header(path)
        except OSError as exc:
            return f"{path} cannot be read: {exc.strerror}"
    elif path.suffix.lower() != ".parquet":
        return f"{path} is neither CSV nor Parquet; expected {accepted}"
    try:
        with path.open("rb") as f:
            head = f.read(4)
            f.seek(max(path.stat().st_size - 4, 0))
            tail = f.read(4)
    except OSError as exc:
        return f"{path} cannot be read: {exc.strerror}"
    if head != _PARQUET_MAGIC or tail != _PARQUET_MAGIC:
        return f"{path} is not a Parquet file (it does not begin and end with PAR1)"
    import pyarrow as pa
    import pyarrow.parquet as pq

    try:
        return list(pq.read_schema(path).names)
    except (pa.ArrowException, OSError) as exc:
        return f"{path} is not a readable Parquet file: {' '.join(str(exc).split())}"


def outside_problems(project: Project) -> list[Problem]:
    """One problem per path of the project that leads outside its allowed folders once links
    are followed (``files: /etc/passwd``, ``legacy: ../..``, a link ``contracts/t.yaml ->
    /elsewhere``): each folder and file it names, and every file or link inside its folders,
    before any of them is read. Nothing when the project allows anywhere (the demo)."""
    allowed = project.allowed_roots
    if not allowed:
        return []
    problems: list[Problem] = []

    def check(field: str, path: Path | None, *, walk: bool = True) -> None:
        if path is None:
            return
        resolved = outside(path, allowed)
        if resolved is not None:
            problems.append(Problem(field, outside_problem(path, resolved)))
            return
        if walk and path.is_dir():
            for entry in _links_inside(path):
                resolved = outside(entry, allowed)
                if resolved is not None:
                    problems.append(Problem(field, outside_problem(entry, resolved)))

    check("legacy", project.legacy_root)
    for index, catalog in enumerate(project.catalogs):
        check(f"catalogs.{index}", catalog)
    check("contracts", project.contracts_root)
    check("portable_sql", project.portable_root)
    check("references", project.reference_root)
    check("snapshots", project.snapshots_root)
    for table, declared in project.reconciliation.items():
        check(f"reconciliation.tables.{table}.snapshot", declared.snapshot)
    for source in project.sources:
        if isinstance(source, FileSource):
            # The files a glob matches are checked again as they are read.
            check(f"sources.{source.name}.files", pattern_root(source.pattern))
    return problems


def _links_inside(folder: Path) -> list[Path]:
    """The links under ``folder`` (to files or folders), not followed: whatever a link leads
    to is checked where it leads."""
    found = []
    for parent, folders, files in os.walk(folder):
        for name in [*folders, *files]:
            path = Path(parent) / name
            if path.is_symlink():
                found.append(path)
    return found


def unproduced_reads(warehouse: dg.Definitions, produced: set[dg.AssetKey]) -> list[Problem]:
    """One problem per raw table a warehouse table reads that no asset of the project makes
    (a raw table no source declares): Dagster would show it as an external asset nothing
    can materialize, and the build would fail later."""
    problems = []
    for assets_def in warehouse.assets:  # type: ignore[union-attr]
        for key in assets_def.keys:
            for dep in sorted(assets_def.asset_deps[key], key=lambda k: k.to_user_string()):
                if dep not in produced and dep.path[0] == "raw":
                    problems.append(
                        Problem(
                            "sources",
                            f"{key.to_user_string()} reads {'.'.join(dep.path)}, which no "
                            "source declares (add it under sources:)",
                        )
                    )
    return problems
