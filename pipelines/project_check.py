"""What is wrong with a migration project, found when its code location loads: ``dg check
defs`` and ``plumbline run`` (before anything runs) report every mistake at once, each as
``FILE:FIELD: message`` (``pipelines.project.Problem``), instead of one asset failing later
or the load stopping at the first.

Each check works from what the load has anyway: the catalog files, the legacy files as
parsed (and cached: ``pipelines.translation.store.LegacySql``), the list of warehouse
tables. Nothing is translated, no query planned, no engine imported.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from pathlib import Path

import dagster as dg

from pipelines.project import Problem, Project, ProjectProblems, catalog_problem
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
