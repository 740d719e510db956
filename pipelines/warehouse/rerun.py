"""Whether a rerun may skip a warehouse table: its live version still stands for the code and
the inputs the table would be built from now.

Dagster keeps the facts. Each materialization of ``warehouse/<name>`` records the asset's
code version (:func:`code_version`: its SQL file, contract, reference, snapshot declaration,
engine and the build code), the data version of each input as the step saw it, and the data
version it produced (the live version's exact digest). :func:`why_rebuild` compares those
with what holds now and names the first difference; none means the build would redo the
same work on the same inputs, so the table is skipped, and its blocking checks report the
verdict the live version was published under, labelled as not re-run
(:func:`verdicts_of_live_version`).

What Dagster cannot see is checked on the lake: the live version's files still match their
digest, it was built from the ANSI SQL the store holds now (a catalog change can retranslate
a file whose source did not change) and held to what the catalog says now of its inputs, on
this engine, and reconciled against the snapshot as it is now. Plain functions: the asset hands in what it read from Dagster.
"""

from __future__ import annotations

import functools
import hashlib
import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path

from pipelines.lake.store import TableVersion
from pipelines.translation.store import sha256_text
from pipelines.warehouse.build import (
    CHECK_PROVENANCE,
    CheckOutcome,
    WarehouseTable,
    blocking_checks,
    snapshot_digest,
)
from sql.paths import REPOSITORY_ROOT, repository_relative
from sql.translate import TRANSLATOR_VERSION

# The code that turns ANSI SQL into a checked table (the engines and their rendering,
# reconciliation, the contracts' compilation and validation); the rendering in sql/ is in
# the translator's version.
BUILD_CODE = (
    REPOSITORY_ROOT / "pipelines" / "warehouse",
    REPOSITORY_ROOT / "pipelines" / "contracts",
)
# What else decides the bytes and the verdicts: the engines, the validator, the parser.
BUILD_LIBRARIES = ("duckdb", "pyspark", "great-expectations", "sqlglot", "pyarrow")


@functools.cache
def build_code_version() -> str:
    """sha256 over the build code (every module under :data:`BUILD_CODE`, by relative name
    and content), the translator's version and the installed build libraries' versions."""
    digest = hashlib.sha256(f"translator {TRANSLATOR_VERSION}\0".encode())
    for library in BUILD_LIBRARIES:
        try:
            version = metadata.version(library)
        except metadata.PackageNotFoundError:
            version = "absent"
        digest.update(f"{library} {version}\0".encode())
    for root in BUILD_CODE:
        for path in sorted(root.rglob("*.py")):
            digest.update(path.relative_to(REPOSITORY_ROOT).as_posix().encode() + b"\0")
            digest.update(path.read_bytes() + b"\0")
    return digest.hexdigest()


def _file_sha256(path: Path | None) -> str | None:
    return None if path is None else hashlib.sha256(path.read_bytes()).hexdigest()


def code_version(table: WarehouseTable, engine: str) -> str:
    """The Dagster code version of ``warehouse/<name>``: a digest of what makes the table
    other than its inputs' data. Its SQL (a portable file's text; a translated table's SQL
    is the data of its ``ansi/<name>`` input), its contract, its reference query, its
    snapshot's declaration (the snapshot's bytes are checked when a rerun would skip it),
    the engine and the build code. Read when the code location loads: small files only."""
    snapshot = table.snapshot
    parts = {
        "build": build_code_version(),
        "engine": engine,
        "sql": _file_sha256(table.sql_path),
        "legacy": None
        if table.legacy is None
        else [table.legacy.dialect, repository_relative(table.legacy.path)],
        "contract": _file_sha256(table.contract_path),
        "reference": _file_sha256(table.reference_path),
        "snapshot": None
        if snapshot is None
        else {
            "path": None if snapshot.path is None else repository_relative(snapshot.path),
            "key": list(snapshot.key),
            "tolerance": dict(sorted(snapshot.tolerance.items())),
            **({} if snapshot.database is None else {"database": snapshot.database.identity()}),
        },
    }
    return hashlib.sha256(json.dumps(parts, sort_keys=True).encode()).hexdigest()[:16]


@dataclass(frozen=True)
class LastMaterialization:
    """What Dagster recorded on the latest materialization of a table: the data version it
    produced, the code version and each input's data version (by asset key, ``raw/orders``)."""

    data_version: str | None
    code_version: str | None
    input_data_versions: Mapping[str, str]


def why_rebuild(
    table: WarehouseTable,
    live: TableVersion | None,
    last: LastMaterialization | None,
    *,
    code_version: str,
    input_data_versions: Mapping[str, str | None],
    ansi_sql: str,
    engine: str,
    catalog: str | None = None,
    intact: Callable[[TableVersion], bool],
) -> str | None:
    """Why ``table`` must be built again, in a few words; None when its live version stands
    for the code version and input data versions it would be built from now (see the
    module's docstring). ``input_data_versions`` are the current data versions of the
    asset's inputs (None: never materialized); ``ansi_sql`` the SQL a build would run;
    ``catalog`` the digest of what the catalog says of its inputs (``catalog_sha256``, None
    when the build checks none); ``intact`` tells whether a version's files still match its digest (checked last: it
    reads them)."""
    if live is None:
        return "it has no published version"
    name = live.path.name
    data_version = live.manifest.get("data_version")
    if data_version is None:
        return f"its live version {name} records no exact data version (an older build)"
    if last is None:
        return "Dagster records no materialization of it"
    if last.data_version != data_version:
        return f"its latest materialization is not of the live version {name}"
    if last.code_version != code_version:
        return "its code version changed (its SQL file, contract, reference or the build code)"
    for key, version in sorted(input_data_versions.items()):
        if version is None:
            return f"its input {key} has no data version"
        if last.input_data_versions.get(key) != version:
            return f"its input {key} has a new data version"
    if set(last.input_data_versions) - set(input_data_versions):
        return "it reads other inputs than when it was last built"
    if live.manifest.get("ansi_sha256") != sha256_text(ansi_sql):
        return f"its ANSI SQL is not the SQL the live version {name} was built from"
    if live.manifest.get("catalog_sha256") != catalog:
        return f"the catalog says otherwise of its inputs than when {name} was built"
    if live.manifest.get("engine") != engine:
        return f"the live version {name} was built on {live.manifest.get('engine')}"
    checks = live.manifest.get("checks", {})
    if not all(isinstance(v, dict) and v.get("passed") for v in checks.values()):
        return f"a blocking check did not pass on the live version {name}"
    missing = sorted(set(blocking_checks(table)) - set(checks))
    if missing:
        return f"the live version {name} was not published under {', '.join(missing)}"
    if table.snapshot is not None and table.snapshot.database is not None:
        # The legacy system is live: what it answers now is not on record anywhere.
        return "it is reconciled against the legacy database, which may have changed"
    if table.snapshot is not None and table.snapshot.path is not None:
        recorded = checks.get(f"{table.name}_reconciled", {}).get("reference_sha256")
        if recorded != snapshot_digest(table.snapshot):
            return f"its snapshot {table.snapshot.path.name} changed since it was reconciled"
    if not intact(live):
        return f"the files of its live version {name} no longer match their digest"
    return None


def verdicts_of_live_version(live: TableVersion) -> list[CheckOutcome]:
    """The blocking checks' outcomes for a skipped table: not re-run, each with the verdict
    the live version was published under and what it was checked against (its manifest's
    ``checks``), said so in its summary and its metadata (``re_run: false``)."""
    name = live.path.name
    outcomes = []
    for check, verdict in sorted(live.manifest.get("checks", {}).items()):
        passed = bool(verdict.get("passed"))
        recorded = {k: verdict[k] for k in CHECK_PROVENANCE if k in verdict}
        against = (
            f" (contract {recorded['contract_version']})" if "contract_version" in recorded else ""
        )
        outcomes.append(
            CheckOutcome(
                name=check,
                passed=passed,
                summary=(
                    "Not re-run: the table was skipped, its code and inputs unchanged since "
                    f"its live version {name} was published; that version "
                    f"{'passed' if passed else 'failed'} this check then{against}."
                ),
                metadata={"re_run": False, "verdict_of_version": name, **recorded},
            )
        )
    return outcomes
