"""Collect the audit chain of one subject from where each fact lives: a registered model
version (:class:`ModelSubject`), or a published lake table version (:class:`TableSubject`,
for a project without a model).

From the MLflow model version down: its alias history, the MLflow run (params, metrics,
baseline, environment), the code version, the training set and every lake table upstream
of it (digests recomputed from the files, manifests, blocking-check verdicts, the Dagster
run that materialized each), each table's ANSI SQL and translation rules and warnings, the
legacy SQL file it came from (sha256, git commit), and the raw tables (generator, scale).
A table's chain is the same walk from that table down (:meth:`Collector.table`), and reads
no MLflow.

The same function serves ``--verify``: it is called again with the bundle's pinned subject
and creation time, and the two chains are compared. Anything that cannot be established
becomes a node with a ``gap``, never a guess.
"""

from __future__ import annotations

import datetime as dt
import os
import platform
import re
import subprocess
import tempfile
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from importlib import metadata
from pathlib import Path
from typing import Any

from sqlglot.errors import SqlglotError

from pipelines.audit.chain import AuditError, Node
from pipelines.audit.pinned import PinnedFileError, PinnedFiles, sha256_hex
from pipelines.lake.store import Lake, LakeError, digest_files, manifest_data_version
from pipelines.registry.versions import ALIAS_TAG_PREFIX, AliasHistory, RegistryError
from pipelines.translation.store import (
    StoredTranslation,
    StoreError,
    parse_stored_manifest,
    sha256_bytes,
    sha256_text,
)
from sql.lineage import column_sources, projection_lines
from sql.paths import REPOSITORY_ROOT

# One tag per bundle, ``plumbline.audit.root.<created at>``: a bundle made later (by the
# CLI, or after an alias move) does not overwrite the root of an earlier one.
AUDIT_TAG_PREFIX = "plumbline.audit.root."
# Tags that change legitimately after registration: alias moves (covered by the alias
# history node, up to the bundle's time) and the audit's own root digest.
VOLATILE_TAG_PREFIXES = (ALIAS_TAG_PREFIX, "plumbline.audit.")
KEY_PACKAGES = (
    "dagster",
    "duckdb",
    "great-expectations",
    "mlflow",
    "numpy",
    "pyarrow",
    "pyspark",
    "scikit-learn",
    "sqlglot",
    "torch",
)
TRAINING_SET = ("warehouse", "training_set")
# Where a training run's artifacts hold the bundles issued of its model versions: logged
# after the bundle is sealed, so a run's artifacts are sealed without them.
AUDIT_ARTIFACTS = "audit"
# The zone whose tables a bundle may be rooted at (the tables a migration publishes; a raw
# table's chain is part of the bundle of every warehouse table built from it).
AUDITED_ZONE = "warehouse"
# A zone, table or version name as a subject may give it: one path component, no hidden
# name, short enough for any file system.
LAKE_NAME = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.-]{0,199}")


# (zone, table, data version, when the version was published) -> the id of the Dagster run
# that materialized that version, or None; see pipelines/instance.py for the one that reads
# a Dagster instance.
RunFinder = Callable[[str, str, str | None, dt.datetime | None], str | None]


@dataclass
class Sources:
    """Where the facts live. ``client`` (an ``mlflow.MlflowClient``) is read by a model
    version's chain alone: a table's chain reads no MLflow, so for a table it may be None,
    as it is where there is no registry at all (a project without a model). ``runs`` is
    optional: without it, the Dagster run of each table is recorded as a gap."""

    lake: Lake
    ansi_root: Path
    client: Any | None  # mlflow.MlflowClient
    alias_history: AliasHistory
    runs: RunFinder | None = None
    repo_root: Path = REPOSITORY_ROOT  # holds sql/legacy and sql/ansi
    # The tables written in ANSI SQL from the start (Project.portable_root): relative to
    # repo_root (the TPC-H demo's sql/ansi), absolute (a user's project's folder), or None
    # for a project that has none (every warehouse table is then a translation).
    portable_root: Path | None = Path("sql", "ansi")
    # Where an issued bundle's SQL files are kept, by sha256 (pipelines.audit.pinned): a
    # chain collected with it records, in each SQL link, the digests of the bytes it was
    # collected from. None: no link records any (a bundle then verifies against the files
    # as they are, as a bundle issued before pins does).
    pinned: PinnedFiles | None = None

    @property
    def native_ansi_root(self) -> Path | None:
        return None if self.portable_root is None else self.repo_root / self.portable_root


def model_node_id(model: str, version: str) -> str:
    return f"model:{model}/v{version}"


def table_node_id(zone: str, table: str, version: str) -> str:
    return f"table:{zone}/{table}@{version}"


@dataclass(frozen=True)
class ModelSubject:
    """A registered model version: its chain runs from the MLflow version down."""

    model: str
    version: str
    requested: str  # as it was asked for: delivery_delay@champion

    @property
    def root(self) -> str:
        return model_node_id(self.model, self.version)

    def fields(self) -> dict[str, str]:
        """The bundle's ``subject`` field."""
        return {"model": self.model, "version": self.version, "requested": self.requested}

    def __str__(self) -> str:
        return f"{self.model} v{self.version}"


@dataclass(frozen=True)
class TableSubject:
    """A published version of a lake table: its chain is the table's walk down to the raw
    tables, and reads no MLflow."""

    zone: str
    table: str
    version: str  # the lake's version name
    requested: str  # as it was asked for: warehouse/daily_revenue

    @property
    def root(self) -> str:
        return table_node_id(self.zone, self.table, self.version)

    def fields(self) -> dict[str, str]:
        """The bundle's ``subject`` field."""
        return {
            "table": f"{self.zone}/{self.table}",
            "version": self.version,
            "requested": self.requested,
        }

    def __str__(self) -> str:
        return f"{self.zone}/{self.table}@{self.version}"


Subject = ModelSubject | TableSubject


def subject_from_fields(fields: Mapping[str, str]) -> Subject:
    """The subject a bundle's ``subject`` field names: ``table`` (``ZONE/TABLE``) for a
    table, else ``model``. ``fields`` is shaped as ``bundle.check_shape`` requires."""
    if "table" in fields:
        zone, _, table = fields["table"].partition("/")
        return TableSubject(zone, table, fields["version"], fields["requested"])
    return ModelSubject(fields["model"], fields["version"], fields["requested"])


@dataclass
class Collected:
    created_at: str
    nodes: dict[str, Node] = field(default_factory=dict)
    # The bytes the SQL links pinned, by sha256: what issuing the bundle keeps.
    files: dict[str, bytes] = field(default_factory=dict)
    # Recollected for --verify: the links verified against their pinned copies whose file is
    # another one now (a later translation, an edited legacy file): information, not a
    # failure.
    superseded: list[str] = field(default_factory=list)

    def add(self, node: Node) -> Node:
        self.nodes.setdefault(node.id, node)
        return self.nodes[node.id]


def parse_subject(subject: str) -> tuple[str, str | None, str | None]:
    """``MODEL[@VERSION|@ALIAS]`` -> (model, version, alias); a bare model means champion."""
    name, _, pin = subject.partition("@")
    if not name:
        raise AuditError(f"{subject!r}: expected MODEL[@VERSION|@ALIAS], e.g. delivery_delay@3")
    if not pin:
        return name, None, "champion"
    return (name, pin, None) if pin.isdigit() else (name, None, pin)


def parse_table_subject(subject: str) -> tuple[str, str, str | None]:
    """``ZONE/TABLE[@VERSION]`` -> (zone, table, version); no version means the published
    one. AuditError for another shape: two names and a lake version name, nothing else
    (they become paths in the lake)."""
    name, at, version = subject.partition("@")
    zone, _, table = name.partition("/")
    if not (LAKE_NAME.fullmatch(zone) and LAKE_NAME.fullmatch(table)) or (at and not version):
        raise AuditError(
            f"{subject!r}: expected {AUDITED_ZONE}/TABLE[@VERSION], e.g. "
            f"{AUDITED_ZONE}/daily_revenue"
        )
    if version and (Lake.published_at(version) is None or not LAKE_NAME.fullmatch(version)):
        raise AuditError(
            f"{subject!r}: VERSION must be a lake version name such as "
            "20260101T120000.000000000-0123456789ab (leave it out for the published version)"
        )
    return zone, table, version or None


def resolve_table(lake: Lake, subject: str) -> TableSubject:
    """The table version ``subject`` (``warehouse/TABLE[@VERSION]``) names; AuditError,
    naming the table, for another zone, a table the lake has never published, or a version
    it no longer holds."""
    zone, table, version = parse_table_subject(subject)
    name = f"{zone}/{table}"
    if zone != AUDITED_ZONE:
        raise AuditError(
            f"{name}: only a {AUDITED_ZONE} table has an audit bundle of its own, not a table "
            f"of zone {zone} (its chain is in the bundle of each {AUDITED_ZONE} table built "
            "from it)"
        )
    try:
        current = lake.current(zone, table)
    except LakeError as exc:
        raise AuditError(str(exc)) from None
    if current is None:
        published = sorted(
            key.partition(".")[2] for key in lake.published() if key.startswith(f"{zone}.")
        )
        shown = ", ".join(published) if published else "none yet"
        raise AuditError(
            f"{name}: the lake at {lake.root} has no published version of it: it is not a "
            "table of this project, or no build of it has passed its blocking checks yet "
            f"(plumbline run); published {zone} tables: {shown}"
        )
    if version is None:
        return TableSubject(zone, table, current.path.name, subject)
    if lake.manifest(zone, table, version) is None:
        raise AuditError(
            f"{name}: the lake at {lake.root} holds no version {version} of it (pruned, or "
            f"never published); the published version is {current.path.name}"
        )
    return TableSubject(zone, table, version, subject)


def resolve(client: Any, subject: str) -> tuple[str, str]:
    """The (model, version) ``subject`` names; AuditError when the registry has no such."""
    from mlflow.exceptions import MlflowException

    name, version, alias = parse_subject(subject)
    try:
        client.get_registered_model(name)
    except MlflowException:
        raise AuditError(f"{name}: no such registered model in the MLflow registry") from None
    try:
        if alias is not None:
            return name, str(client.get_model_version_by_alias(name, alias).version)
        client.get_model_version(name, version)
    except MlflowException:
        what = f"alias {alias!r}" if alias is not None else f"version {version}"
        raise AuditError(f"{name}: no {what} in the MLflow registry") from None
    return name, str(version)


def _git(repo: Path, *args: str) -> str | None:
    try:
        return subprocess.run(
            ["git", "-C", str(repo), *args], capture_output=True, text=True, check=True
        ).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return None


def recorded_path(repo: Path, path: Path) -> str:
    """How a bundle names ``path``: relative to ``repo`` when it lies there, so that a bundle
    reads the same wherever the checkout lies; else absolute, as the translation store names
    it (a user's project keeps its legacy SQL outside this repository)."""
    resolved, root = path.resolve(), repo.resolve()
    if resolved.is_relative_to(root):
        return resolved.relative_to(root).as_posix()
    return Path(os.path.normpath(path.absolute())).as_posix()


def bytes_record(repo: Path, path: Path, data: bytes) -> dict[str, Any]:
    """What ``data``, the bytes of ``path``, says of the file: its name
    (:func:`recorded_path`), sha256 and size in lines."""
    return {
        "path": recorded_path(repo, path),
        "sha256": sha256_bytes(data),
        "lines": data.decode(errors="replace").count("\n"),
    }


def git_record(repo: Path, path: Path) -> dict[str, Any]:
    """The git state of ``path``: the last commit that changed it, and whether it differs
    from that commit now. A file outside ``repo`` has the git state of the checkout that
    holds it, if one does (a user's project is a repository of its own)."""
    resolved = path.resolve()
    if resolved.is_relative_to(repo.resolve()):
        where, name = repo, recorded_path(repo, path)
    else:
        where, name = resolved.parent, resolved.name
    commit = _git(where, "log", "-1", "--format=%H", "--", name) or None
    changed = _git(where, "status", "--porcelain", "--", name)
    return {
        "git_commit": commit,
        "uncommitted_changes": bool(changed) if changed is not None else None,
    }


def file_record(repo: Path, path: Path, data: bytes | None = None) -> dict[str, Any]:
    """sha256, size in lines, and git state of a file (its bytes ``data`` when they were
    read already), named by :func:`recorded_path`."""
    data = path.read_bytes() if data is None else data
    return {**bytes_record(repo, path, data), **git_record(repo, path)}


def package_versions() -> dict[str, str]:
    found = {}
    for name in KEY_PACKAGES:
        try:
            found[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            continue
    return found


def auditor_environment() -> dict[str, Any]:
    """Where the bundle was made: sealed with the bundle's header, not a node of the chain
    (it differs per reviewer, so verification does not recompute it)."""
    return {
        "python": platform.python_version(),
        "host": platform.node(),
        "platform": platform.platform(),
        "packages": package_versions(),
    }


def _without_volatile(tags: dict[str, str]) -> dict[str, str]:
    return {k: v for k, v in sorted(tags.items()) if not k.startswith(VOLATILE_TAG_PREFIXES)}


# The files a SQL link describes, by role: a table written in ANSI SQL its file, a
# translation its stored SQL and manifest, a legacy file itself.
FILE, STORED_SQL, STORED_MANIFEST = "file", "sql", "manifest"


class Collector:
    """Collects a chain. ``recorded`` (for --verify: the bundle's nodes, whose seal held)
    says which SQL links pinned their files when the bundle was issued: those are
    recollected from the pinned copies, every other link from the sources as they are."""

    def __init__(
        self, sources: Sources, created_at: str, recorded: Mapping[str, Node] | None = None
    ) -> None:
        self.sources = sources
        self.out = Collected(created_at)
        self.recorded = recorded
        # Issuing: record the digest of every SQL file read, and keep its bytes.
        self._pinning = recorded is None and sources.pinned is not None
        self._reads: dict[tuple[str, str], tuple[bytes | None, str | None]] = {}
        self._pinned: dict[str, dict[str, str]] = {}  # node id -> role -> sha256 read
        self.features: list[str] = []
        # (table, its ANSI SQL) -> the sources of each of its columns: sqlglot computes the
        # lineage of every output column at once, so one call per table, not per column.
        self._column_sources: dict[tuple[str, str], dict[str, list[tuple[str, str]]]] = {}

    # -- MLflow ---------------------------------------------------------------------------
    def model_version(self, name: str, version: str) -> Node:
        client = self.sources.client
        if client is None:
            raise AuditError(
                f"{name} v{version}: a model version's chain starts in the MLflow registry, "
                "and these sources have no MLflow client"
            )
        mv = client.get_model_version(name, version)
        node_id = model_node_id(name, version)
        files, unreadable = artifact_digests(mv.source, client.tracking_uri)
        content = {
            "name": name,
            "version": str(mv.version),
            "source": mv.source,
            "run_id": mv.run_id,
            "created": _iso_ms(mv.creation_timestamp),
            "tags": _without_volatile(dict(mv.tags)),
            # The model itself: its weights, MLmodel, the preprocessing it needs.
            "files": files,
        }
        parents = [self.alias_history(name, version).id]
        gap = unreadable or (None if files else f"no model files at {mv.source}")
        if not mv.run_id or "plumbline.model_digest" not in mv.tags:
            gap = (
                f"{name} v{version} was registered outside plumbline: it carries no lineage "
                "tags (plumbline.model_digest, mlflow.run_id), so its training data is unknown"
            )
        else:
            parents.append(self.run(mv.run_id).id)
            parents.append(self.column_lineage(name, version).id)
        return self.out.add(
            Node(node_id, "model_version", f"{name} version {version}", content, parents, gap)
        )

    def alias_history(self, name: str, version: str) -> Node:
        node_id = f"alias_history:{name}/v{version}"
        title = f"Alias moves of {name} version {version}"
        try:
            every_move = self.sources.alias_history.moves(name)
        except RegistryError as exc:
            return self.out.add(Node(node_id, "alias_history", title, {}, gap=str(exc)))
        moves = [
            {
                "alias": move.alias,
                "from_version": move.from_version,
                "to_version": move.to_version,
                "moved_at": move.moved_at,
                "dagster_run_id": move.dagster_run_id,
                "reason": move.reason,
            }
            for move in every_move
            if version in (move.to_version, move.from_version)
            and move.moved_at <= self.out.created_at
        ]
        return self.out.add(Node(node_id, "alias_history", title, {"moves": moves}))

    def run(self, run_id: str) -> Node:
        from mlflow.exceptions import MlflowException

        node_id = f"mlflow_run:{run_id}"
        try:
            run = self.sources.client.get_run(run_id)
        except MlflowException:
            return self.out.add(
                Node(node_id, "mlflow_run", f"MLflow run {run_id}", {}, gap="run not found")
            )
        tags = {k: v for k, v in sorted(run.data.tags.items()) if not k.startswith("mlflow.")}
        artifacts, unreadable = artifact_digests(
            run.info.artifact_uri, self.sources.client.tracking_uri, leave_out=AUDIT_ARTIFACTS
        )
        content = {
            "run_id": run_id,
            "experiment_id": run.info.experiment_id,
            "status": run.info.status,
            "start": _iso_ms(run.info.start_time),
            "end": _iso_ms(run.info.end_time),
            "params": dict(sorted(run.data.params.items())),
            "metrics": dict(sorted(run.data.metrics.items())),
            "tags": tags,
            "datasets": sorted(
                (
                    {"name": d.dataset.name, "digest": d.dataset.digest}
                    for d in (run.inputs.dataset_inputs if run.inputs else [])
                ),
                key=lambda d: d["name"],
            ),
            # What the run logged (the training curve), but the bundles issued since.
            "artifacts": artifacts,
        }
        params = run.data.params
        self.features = [
            name
            for key in ("categorical_features", "numeric_features")
            for name in params.get(key, "").split(",")
            if name
        ]
        parents = [self.code(tags).id]
        version = tags.get("training_set.version")
        if version:
            parents.append(self.table(*TRAINING_SET, version).id)
        gap = unreadable or (None if version else "the run records no training_set.version tag")
        return self.out.add(
            Node(node_id, "mlflow_run", f"MLflow run {run_id}", content, parents, gap)
        )

    def code(self, run_tags: dict[str, str]) -> Node:
        sha = run_tags.get("code.git_sha", "unknown")
        dirty = run_tags.get("code.git_dirty")
        content = {
            "git_sha": sha,
            "uncommitted_changes": {"true": True, "false": False}.get(dirty or ""),
        }
        gap = "the run records no code version" if sha == "unknown" else None
        return self.out.add(Node(f"code:{sha}", "code", f"Code at {sha[:12]}", content, gap=gap))

    # -- the lake -------------------------------------------------------------------------
    def table(self, zone: str, table: str, version: str) -> Node:
        node_id = table_node_id(zone, table, version)
        if node_id in self.out.nodes:
            return self.out.nodes[node_id]
        title = f"{zone}/{table}"
        folder = self.sources.lake.version_path(zone, table, version)
        try:
            manifest = self.sources.lake.manifest(zone, table, version)
        except LakeError as exc:
            return self.out.add(
                Node(
                    node_id,
                    "table",
                    title,
                    {"zone": zone, "table": table, "version": version},
                    gap=str(exc),
                )
            )
        if manifest is None:
            return self.out.add(
                Node(
                    node_id,
                    "table",
                    title,
                    {"zone": zone, "table": table, "version": version},
                    gap=f"{zone}/{table} version {version} is no longer in the lake ({folder})",
                )
            )
        files: dict[str, str] = {}
        files_digest = digest_files(folder, per_file=files)  # one read of each file
        # Bytes first: a file whose bytes changed is a failed link whatever it now holds, and
        # its content (a truncated or garbage Parquet file) is not read at all.
        intact = files_digest == manifest.get("digest")
        content: dict[str, Any] = {
            "zone": zone,
            "table": table,
            "version": version,
            "files": files,
            "files_digest": files_digest,
            "columns": _parquet_columns(folder) if files and intact else {},
            "manifest": manifest,
            "dagster": self.dagster_record(zone, table, version, manifest),
        }
        if (zone, table) == TRAINING_SET:
            content["split"] = _split_counts(folder) if intact else {}
        gap = None
        if not intact:
            gap = f"the files of {title} {version} no longer match the digest in its manifest"
        parents = []
        for key, input_version in sorted(manifest.get("inputs", {}).items()):
            input_zone, input_table = key.split(".", 1)
            parents.append(self.table(input_zone, input_table, input_version).id)
        if zone == "warehouse":
            parents.append(self.sql(table, manifest.get("ansi_sha256")).id)
        kind = "raw_table" if zone == "raw" else "table"
        return self.out.add(Node(node_id, kind, title, content, parents, gap))

    def dagster_record(
        self, zone: str, table: str, version: str, manifest: dict[str, Any]
    ) -> dict[str, Any]:
        """The Dagster run that materialized this version (matched on its data version, the
        first since the version was published)."""
        data_version = manifest_data_version(manifest)
        runs = self.sources.runs
        published = Lake.published_at(version)
        return {
            "data_version": data_version,
            "run_id": None if runs is None else runs(zone, table, data_version, published),
        }

    # -- SQL ------------------------------------------------------------------------------
    def sql(self, table: str, built_sha: str | None) -> Node:
        node_id = f"ansi:{table}"
        title = f"ANSI SQL of {table}"
        native = self._native_sql(table)
        if native is not None:
            data, problem = self._read(node_id, FILE, native)
            if data is None:
                shown = recorded_path(self.sources.repo_root, native)
                content = {"written_in": "ansi", "built_sha256": built_sha, "path": shown}
                return self.out.add(Node(node_id, "ansi_sql", title, content, gap=problem))
            record = self._file_record(node_id, native, data)
            gap = None
            if record["sha256"] != built_sha:
                gap = f"{record['path']} is not the SQL this table was built from"
            content = {"written_in": "ansi", "built_sha256": built_sha, **record}
            return self.out.add(
                Node(node_id, "ansi_sql", title, self._with_pins(node_id, content), gap=gap)
            )
        sql_path = self.sources.ansi_root / f"{table}.sql"
        stored, problem = self._stored_translation(table)
        sql_data = None
        if stored is not None:
            sql_data, problem = self._read(node_id, STORED_SQL, sql_path)
        if stored is None or sql_data is None:
            if self._recorded_pins(node_id) is None:
                problem = f"{sql_path}: the translation this table was built from is not stored"
            # A pinned copy that fails is this link's alone: the walk goes on to the legacy
            # file the bundle names, which is verified against its own copy.
            return self.out.add(
                Node(
                    node_id,
                    "ansi_sql",
                    title,
                    {"built_sha256": built_sha},
                    self._recorded_parents(node_id),
                    gap=problem,
                )
            )
        content = {
            "written_in": "translation",
            "built_sha256": built_sha,
            "stored_sha256": _text_sha256(sql_data),
            "rules_applied": stored.rules_applied,
            "warnings": stored.diagnostics,
            "assumptions": stored.assumed_settings,
            "translator_version": stored.translator_version,
            "source_sha256": stored.source_sha256,
        }
        if stored.rendered_sha256 is not None:
            # A Jinja template: what it was rendered with, and to (sql.templating).
            content["template_vars"] = stored.template_vars or {}
            content["rendered_sha256"] = stored.rendered_sha256
        gap = None
        if content["stored_sha256"] != built_sha:
            gap = (
                f"{sql_path}: the stored ANSI SQL (sha256 {content['stored_sha256'][:12]}) is "
                f"not the SQL this table was built from ({str(built_sha)[:12]})"
            )
        parents = [self.legacy(Path(stored.source_path), stored.dialect).id]
        return self.out.add(
            Node(node_id, "ansi_sql", title, self._with_pins(node_id, content), parents, gap)
        )

    def legacy(self, path: Path, dialect: str) -> Node:
        # The store names a legacy file relative to the repository when it lies there, else
        # by its absolute path (a user's project): see translation.store.StoredTranslation.
        repo = self.sources.repo_root
        full = path if path.is_absolute() else repo / path
        shown = recorded_path(repo, full)
        node_id = f"legacy:{shown}"
        if node_id in self.out.nodes:
            return self.out.nodes[node_id]
        data, problem = self._read(node_id, FILE, full)
        if data is None:
            return self.out.add(Node(node_id, "legacy_sql", shown, {"path": shown}, gap=problem))
        content = {"dialect": dialect, **self._file_record(node_id, full, data)}
        return self.out.add(Node(node_id, "legacy_sql", shown, self._with_pins(node_id, content)))

    def _native_sql(self, table: str) -> Path | None:
        """The file of ``table`` when the project writes it in ANSI SQL, else None (a link
        that pinned it: where it was, whether or not it is there now)."""
        pins = self._recorded_pins(f"ansi:{table}")
        if pins is not None:  # a table rewritten in ANSI SQL since is still a translation
            return self._recorded_path(f"ansi:{table}") if FILE in pins else None
        root = self.sources.native_ansi_root
        native = None if root is None else root / f"{table}.sql"
        return native if native is not None and native.is_file() else None

    def _stored_translation(self, table: str) -> tuple[StoredTranslation | None, str | None]:
        """The stored translation of ``table`` (its manifest), or why there is none."""
        store = self.sources.ansi_root
        data, problem = self._read(f"ansi:{table}", STORED_MANIFEST, store / f"{table}.json")
        if data is None:
            return None, problem
        try:
            return parse_stored_manifest(data, store, table), None
        except StoreError as exc:
            return None, str(exc)

    # -- the bytes a SQL link describes ----------------------------------------------------
    def _read(self, node_id: str, role: str, path: Path) -> tuple[bytes | None, str | None]:
        """The bytes of ``path`` that link ``node_id`` describes as ``role``, or None and
        why not: the pinned copy when the bundle being verified pinned them (and, when the
        file is another now, a note of it), else the file as it is. Read once per chain."""
        key = (node_id, role)
        if key not in self._reads:
            pins = self._recorded_pins(node_id)
            if pins is not None and role in pins:
                self._reads[key] = self._read_pinned(node_id, role, path, pins[role])
            else:
                self._reads[key] = self._read_current(node_id, role, path)
        return self._reads[key]

    def _read_current(self, node_id: str, role: str, path: Path) -> tuple[bytes | None, str | None]:
        try:
            data = path.read_bytes()
        except OSError:
            return None, "file not found"
        if self._pinning:
            hex_digest = sha256_hex(data)
            self.out.files[hex_digest] = data
            self._pinned.setdefault(node_id, {})[role] = hex_digest
        return data, None

    def _read_pinned(
        self, node_id: str, role: str, path: Path, hex_digest: str
    ) -> tuple[bytes | None, str | None]:
        store = self.sources.pinned
        if store is None:
            return None, f"the bundle pinned {path}, and these sources keep no pinned copies"
        try:
            data = store.read(hex_digest)
        except PinnedFileError as exc:
            return None, f"{exc} (the bundle's copy of {path})"
        self._pinned.setdefault(node_id, {})[role] = hex_digest
        try:
            now = sha256_hex(path.read_bytes())
        except OSError:
            now = None
        if now != hex_digest:
            what = "is gone" if now is None else f"holds other bytes now (sha256 {now[:12]}...)"
            self.out.superseded.append(
                f"{node_id}: {path} {what}; verified against the copy the bundle pinned "
                f"({hex_digest[:12]}...)"
            )
        return data, None

    def _with_pins(self, node_id: str, content: dict[str, Any]) -> dict[str, Any]:
        """``content`` with the digests of the files it was collected from, when they were
        pinned (issuing with a store of pinned copies, or verifying a link that pinned)."""
        pinned = self._pinned.get(node_id)
        return {**content, "pinned": dict(sorted(pinned.items()))} if pinned else content

    def _file_record(self, node_id: str, path: Path, data: bytes) -> dict[str, Any]:
        """:func:`file_record` of ``data``; for a link recollected from its pinned copy, the
        git state it recorded (the repository's state when the bundle was issued: a later
        commit of the file must not fail it), sealed with the link."""
        repo = self.sources.repo_root
        if self._recorded_pins(node_id) is None:
            return file_record(repo, path, data)
        recorded = self.recorded[node_id].content
        git = {name: recorded.get(name) for name in ("git_commit", "uncommitted_changes")}
        return {**bytes_record(repo, path, data), **git}

    def _recorded_pins(self, node_id: str) -> dict[str, str] | None:
        """The digests link ``node_id`` of the bundle being verified pinned, or None (not
        verifying, no such link, or one issued before pins)."""
        node = None if self.recorded is None else self.recorded.get(node_id)
        pins = None if node is None else node.content.get("pinned")
        if isinstance(pins, dict) and pins and all(isinstance(v, str) for v in pins.values()):
            return pins
        return None

    def _recorded_path(self, node_id: str) -> Path:
        """The file the bundle being verified names in link ``node_id``."""
        return self.sources.repo_root / str(self.recorded[node_id].content.get("path", ""))

    def _recorded_parents(self, node_id: str) -> list[str]:
        """For a pinned translation link whose copies fail: the legacy links the bundle
        gives it, collected (each against its own pinned copy), so that only this link
        fails."""
        if self._recorded_pins(node_id) is None:
            return []
        parents = []
        for parent_id in self.recorded[node_id].parents:
            parent = self.recorded.get(parent_id)
            if parent is None or parent.kind != "legacy_sql":
                continue
            dialect = str(parent.content.get("dialect", ""))
            parents.append(self.legacy(self._recorded_path(parent_id), dialect).id)
        return parents

    # -- column lineage -------------------------------------------------------------------
    def column_lineage(self, name: str, version: str) -> Node:
        """For each model feature, its path back through warehouse columns to raw columns,
        with the SQL expression that defines it at each hop."""
        paths = {feature: self._trace(*TRAINING_SET, feature) for feature in self.features}
        node_id = f"column_lineage:{name}/v{version}"
        gaps = [f for f, path in paths.items() if not any(h["zone"] == "raw" for h in path)]
        gap = f"no path to a raw column for: {', '.join(gaps)}" if gaps else None
        if not paths:
            gap = "the MLflow run records no feature names (categorical_features/numeric_features)"
        # Traced through the pinned tables and their SQL: the digest covers them too.
        parents = [
            n.id
            for n in self.out.nodes.values()
            if n.kind == "table" and (n.content.get("zone"), n.content.get("table")) == TRAINING_SET
        ]
        return self.out.add(
            Node(node_id, "column_lineage", "Column lineage of the features", paths, parents, gap)
        )

    def _trace(self, zone: str, table: str, column: str) -> list[dict[str, Any]]:
        hops: list[dict[str, Any]] = []
        frontier = [(zone, table, column, 0)]
        seen = set()
        while frontier:
            zone_, table_, column_, depth = frontier.pop(0)
            if (zone_, table_, column_) in seen:
                continue
            seen.add((zone_, table_, column_))
            hop: dict[str, Any] = {"zone": zone_, "table": table_, "column": column_}
            hop["depth"] = depth
            hops.append(hop)
            if zone_ != "warehouse":
                continue
            try:
                sql_text, where = self._defining_sql(table_)
            except UnicodeDecodeError:
                sql_text, where = None, f"the SQL of {table_} is no longer text"
            if sql_text is None:
                hop["gap"] = where
                continue
            try:
                ansi = (
                    self._stored_sql_text(table_)
                    if where["written_in"] == "translation"
                    else sql_text
                )
                if ansi is None:
                    hop["gap"] = f"the stored ANSI SQL of {table_} cannot be read"
                    continue
                found = projection_lines(sql_text, where["dialect"], column_)
                sources = self._sources_of(table_, ansi, column_)
            except (UnicodeDecodeError, SqlglotError) as exc:
                # A file changed into something that is no longer SQL: a gap of this hop (its
                # bytes' digest, in its own node, already fails the chain).
                hop["gap"] = f"the SQL of {table_} is no longer readable ({type(exc).__name__})"
                continue
            if found is not None:
                first, last, text = found
                lines = f"{first}" if last == first else f"{first}-{last}"
                hop["defined_at"] = f"{where['path']}:{lines}"
                hop["expression"] = text
            hop["from"] = [f"{t}.{c}" for t, c in sources]
            for source_table, source_column in sources:
                source_zone, source_name = source_table.split(".", 1)
                frontier.append((source_zone, source_name, source_column, depth + 1))
        return hops

    def _sources_of(self, table: str, ansi: str, column: str) -> list[tuple[str, str]]:
        """The (zone.table, column) pairs ``column`` of warehouse ``table`` reads."""
        found = self._column_sources.get((table, ansi))
        if found is None or column not in found:
            pinned = next(
                (
                    n.content.get("columns") or {}
                    for n in self.out.nodes.values()
                    if n.kind == "table" and n.content.get("table") == table
                ),
                {},
            )
            columns = sorted({*pinned, column})
            found = column_sources(ansi, columns, self._schema_of(ansi))
            self._column_sources[(table, ansi)] = found
        return found[column]

    def _defining_sql(self, table: str) -> tuple[str | None, Any]:
        native = self._native_sql(table)
        if native is not None:
            shown = recorded_path(self.sources.repo_root, native)
            data, problem = self._read(f"ansi:{table}", FILE, native)
            if data is None:
                return None, f"{shown}: {problem}"
            return _text(data), {"written_in": "ansi", "dialect": None, "path": shown}
        stored, _ = self._stored_translation(table)
        if stored is None:
            return None, f"no stored translation for {table}"
        repo = self.sources.repo_root
        legacy = repo / stored.source_path
        data, _ = self._read(f"legacy:{recorded_path(repo, legacy)}", FILE, legacy)
        if data is None:
            return None, f"{stored.source_path} not found"
        return _text(data), {
            "written_in": "translation",
            "dialect": stored.dialect,
            "path": stored.source_path,
        }

    def _stored_sql_text(self, table: str) -> str | None:
        """The stored ANSI SQL of ``table`` as its link read it, or None when it cannot be
        (its link says why); UnicodeDecodeError when it is no longer text."""
        path = self.sources.ansi_root / f"{table}.sql"
        data, _ = self._read(f"ansi:{table}", STORED_SQL, path)
        return None if data is None else _text(data)

    def _schema_of(self, ansi_sql: str) -> dict[str, dict[str, dict[str, str]]]:
        """Column types of the tables ``ansi_sql`` reads, from the pinned versions the chain
        collected (not whatever is published now)."""
        from pipelines.warehouse.build import tables_read

        pinned = {
            f"{n.content['zone']}.{n.content['table']}": n.content.get("columns", {})
            for n in self.out.nodes.values()
            if n.kind in ("table", "raw_table")
        }
        schema: dict[str, dict[str, dict[str, str]]] = {}
        for key in tables_read(ansi_sql):
            if pinned.get(key):
                zone, table = key.split(".", 1)
                schema.setdefault(zone, {})[table] = pinned[key]
        return schema


def artifact_digests(
    location: str, tracking_uri: str | None, *, leave_out: str | None = None
) -> tuple[dict[str, str], str | None]:
    """The sha256 of every file under an MLflow artifact location, by its path there (the
    top-level folder ``leave_out`` left out), and why a file could not be read, or None.

    Only bytes are read: a file truncated, appended to or replaced by garbage is a digest
    that no longer matches, whatever it now holds. Listed through MLflow's artifact
    repository, so a store whose artifacts lie on a server or in object storage is read too
    (downloaded); a local store's files are read where they lie."""
    from mlflow.exceptions import MlflowException
    from mlflow.store.artifact.artifact_repository_registry import get_artifact_repository
    from mlflow.store.artifact.local_artifact_repo import LocalArtifactRepository

    found: dict[str, str] = {}
    try:
        repository = get_artifact_repository(location, tracking_uri=tracking_uri)
        with tempfile.TemporaryDirectory(prefix="plumbline-audit-") as scratch:
            folders: list[str | None] = [None]
            while folders:
                for info in repository.list_artifacts(folders.pop()):
                    if leave_out is not None and info.path.split("/", 1)[0] == leave_out:
                        continue
                    if info.is_dir:
                        folders.append(info.path)
                        continue
                    if isinstance(repository, LocalArtifactRepository):
                        path = Path(repository.artifact_dir, info.path)
                    else:
                        path = Path(repository.download_artifacts(info.path, dst_path=scratch))
                    found[info.path] = sha256_bytes(path.read_bytes())
    except (OSError, MlflowException) as exc:
        return dict(sorted(found.items())), f"the files at {location} cannot be read ({exc})"
    return dict(sorted(found.items())), None


def _text(data: bytes) -> str:
    """``data`` read as a text file is (UTF-8, universal newlines); UnicodeDecodeError when
    it is not text."""
    return data.decode("utf-8").replace("\r\n", "\n").replace("\r", "\n")


def _text_sha256(data: bytes) -> str:
    """sha256 of a text file's bytes ``data`` as the build hashed it (its text); of its bytes
    when it is no longer text, which then matches nothing recorded."""
    try:
        return sha256_text(_text(data))
    except UnicodeDecodeError:
        return sha256_bytes(data)


def _parquet_columns(folder: Path) -> dict[str, str]:
    import duckdb

    from pipelines.lake.store import parquet_source

    with duckdb.connect() as con:
        relation = con.read_parquet(parquet_source(folder))
        return {c: str(t) for c, t in zip(relation.columns, relation.types, strict=True)}


def _split_counts(folder: Path) -> dict[str, int]:
    import duckdb

    from pipelines.lake.store import parquet_source

    with duckdb.connect() as con:
        rows = con.read_parquet(parquet_source(folder)).aggregate("split, count(*)").fetchall()
    return {str(split): int(count) for split, count in sorted(rows)}


def _iso_ms(millis: int | None) -> str | None:
    if millis is None:
        return None
    return dt.datetime.fromtimestamp(millis / 1000, tz=dt.UTC).isoformat()


def collect(
    sources: Sources,
    subject: Subject,
    created_at: str | None = None,
    recorded: Mapping[str, Node] | None = None,
) -> Collected:
    """Every node of ``subject``'s chain (unsealed: digests come from ``seal``), rooted at
    ``subject.root``. A table's is the walk that a model's takes below its training set.
    ``recorded``: the nodes of the bundle being verified (see :class:`Collector`)."""
    created = created_at or dt.datetime.now(dt.UTC).isoformat()
    collector = Collector(sources, created, recorded)
    if isinstance(subject, TableSubject):
        collector.table(subject.zone, subject.table, subject.version)
    else:
        collector.model_version(subject.model, subject.version)
    return collector.out
