"""The Parquet lake: versioned table folders published by an atomic symlink swap.

Layout under the lake root::

    <zone>/<table>                      -> .versions/<table>/<version>   (symlink, the published table)
    <zone>/.versions/<table>/<version>/  *.parquet + _plumbline.json      (immutable once published)
    <zone>/.versions/<table>/.staging-*  a build in progress
    <zone>/.versions/<table>/.pins/<version>/<holder>  a version something depends on
    <zone>/.versions/<table>/.lock      held (flock) while a version is published or pinned
    <zone>/.versions/<table>/.pruned    what retention removed, one JSON object a line

Readers always go through ``<zone>/<table>``; ``os.replace`` of a symlink is atomic on
POSIX, so a reader sees either the old complete table or the new complete one, never a
half-written folder. A build that fails leaves only a staging folder, which is removed.

A build that holds what the live version already holds (``publish_version`` with ``same``)
publishes nothing: the live version stays, under its name, so one content keeps one version
however often it is rebuilt. Retention keeps the :data:`KEEP_VERSIONS` newest versions (the
previous one, for a reader that resolved the link just before a swap), every pinned version
(a registered model pins each version it was trained from, an audit bundle each version it
names: their chains recompute those digests for as long as they exist), and every version
that a version still in the lake was built from (its manifest's ``inputs``), so that what
is published can always be audited down to its sources. Publishing, pruning and pinning
one table hold that table's lock, so two concurrent runs neither publish one content twice
nor prune a version the other has just pinned or published.

Pure file-system code: no Dagster here.
"""

from __future__ import annotations

import datetime as dt
import fcntl
import hashlib
import json
import os
import shutil
import time
import uuid
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq

MANIFEST = "_plumbline.json"
KEEP_VERSIONS = 2
PINS = ".pins"
LOCK = ".lock"
PRUNED = ".pruned"
# A staging folder older than this belongs to a build that died without cleaning up.
STALE_STAGING_SECONDS = 24 * 3600
STAGING_PREFIX = ".staging-"


class LakeError(RuntimeError):
    """A lake table is missing or its files do not match their manifest."""


@dataclass(frozen=True)
class TableVersion:
    zone: str
    table: str
    path: Path  # the immutable version folder
    manifest: dict[str, Any]

    @property
    def digest(self) -> str:
        return self.manifest["digest"]

    @property
    def files(self) -> list[Path]:
        return data_files(self.path)


@dataclass(frozen=True)
class Publication:
    """What :meth:`Lake.publish_version` did: the version live now; ``kept`` when that is the
    version that was live already (the staged build held the same table, and was
    discarded); the versions retention removed (their names)."""

    version: TableVersion
    kept: bool
    pruned: tuple[str, ...] = ()


def data_files(folder: Path) -> list[Path]:
    return sorted(p for p in folder.rglob("*.parquet") if p.is_file())


def parquet_source(path: Path) -> str:
    """What DuckDB's read_parquet takes for a table: every Parquet file under a folder
    (a published version, a staging folder, Spark's part files), or one file."""
    return str(path / "**" / "*.parquet") if path.is_dir() else str(path)


def digest_files(folder: Path, per_file: dict[str, str] | None = None) -> str:
    """sha256 over every data file's relative path and bytes, in sorted order.

    The names are part of the digest so that renaming or moving a file changes it. With
    ``per_file``, each file's own sha256 is added to it by relative path, in the same read.
    """
    h = hashlib.sha256()
    for path in data_files(folder):
        name = path.relative_to(folder).as_posix()
        h.update(name.encode())
        h.update(b"\0")
        own = hashlib.sha256()
        with path.open("rb") as f:
            for chunk in iter(lambda: f.read(1 << 20), b""):
                h.update(chunk)
                own.update(chunk)
        if per_file is not None:
            per_file[name] = own.hexdigest()
    return h.hexdigest()


@dataclass(frozen=True)
class TableStats:
    row_count: int
    bytes: int
    schema: list[tuple[str, str, bool]]  # (column, arrow type, nullable)


def table_stats(folder: Path) -> TableStats:
    """Row count, size and schema from the Parquet footers, without reading the data."""
    files = data_files(folder)
    if not files:
        raise LakeError(f"{folder}: no Parquet files")
    schema = pq.read_schema(files[0])
    rows = sum(pq.ParquetFile(f).metadata.num_rows for f in files)
    return TableStats(
        row_count=rows,
        bytes=sum(f.stat().st_size for f in files),
        schema=[(fld.name, str(fld.type), fld.nullable) for fld in schema],
    )


def manifest_data_version(manifest: dict[str, Any]) -> str:
    """The Dagster data version a version's materialization recorded: a warehouse table's
    exact digest (``data_version``; before it was recorded, its ``content_digest``), a raw
    table's file digest."""
    return (
        manifest.get("data_version") or manifest.get("content_digest") or manifest.get("digest", "")
    )


def read_manifest(path: Path) -> dict[str, Any]:
    """A version's manifest; LakeError, naming the file, when it is no longer a JSON object
    (truncated, appended to, replaced)."""
    try:
        manifest = json.loads(path.read_bytes())
    except (OSError, ValueError) as exc:  # JSONDecodeError and UnicodeDecodeError too
        raise LakeError(f"{path}: not a readable manifest ({type(exc).__name__})") from None
    if not isinstance(manifest, dict):
        raise LakeError(f"{path}: not a manifest (a JSON object expected)")
    return manifest


class Lake:
    def __init__(self, root: Path | str) -> None:
        self.root = Path(root)

    @property
    def scratch_root(self) -> Path:
        """Where work that spills to disk (a reconciliation's DuckDB) makes its temporary
        folders: under the lake, on the disk the tables are on, never in a zone."""
        return self.root / ".scratch"

    def table_path(self, zone: str, table: str) -> Path:
        """The stable path readers use (a symlink to the published version)."""
        return self.root / zone / table

    def _versions_dir(self, zone: str, table: str) -> Path:
        return self.root / zone / ".versions" / table

    def version_path(self, zone: str, table: str, version: str) -> Path:
        """The folder of one version of ``zone/table`` (it may have been pruned since)."""
        return self._versions_dir(zone, table) / version

    def inputs(self, version: TableVersion) -> dict[str, Path] | None:
        """The exact input versions ``version`` was built from (its manifest's pins), as
        ``{"zone.table": folder}``; None when any of them is no longer in the lake."""
        pinned = {}
        for key, name in version.manifest.get("inputs", {}).items():
            zone, table = key.split(".", 1)
            path = self.version_path(zone, table, name)
            if not path.is_dir():
                return None
            pinned[key] = path
        return pinned

    @staticmethod
    def version_name(published_ns: int, digest: str) -> str:
        """``<UTC %Y%m%dT%H%M%S>.<nanoseconds>-<digest prefix>``: names sort in publish
        order, even for several versions published within one second."""
        stamp = time.strftime("%Y%m%dT%H%M%S", time.gmtime(published_ns // 1_000_000_000))
        return f"{stamp}.{published_ns % 1_000_000_000:09d}-{digest[:12]}"

    @staticmethod
    def published_at(version: str) -> dt.datetime | None:
        """When a version was published, read back from its name (None for another name)."""
        stamp, dot, rest = version.partition(".")
        nanoseconds = rest.partition("-")[0]
        try:
            seconds = dt.datetime.strptime(stamp, "%Y%m%dT%H%M%S").replace(tzinfo=dt.UTC)
        except ValueError:
            return None
        if not dot or len(nanoseconds) != 9 or not nanoseconds.isdigit():
            return None
        return seconds + dt.timedelta(microseconds=int(nanoseconds) // 1000)

    def current(self, zone: str, table: str) -> TableVersion | None:
        link = self.table_path(zone, table)
        if not link.is_symlink():
            return None
        target = link.resolve()
        manifest_path = target / MANIFEST
        if not manifest_path.is_file():
            raise LakeError(f"{link}: published version {target.name} has no {MANIFEST}")
        return TableVersion(zone, table, target, read_manifest(manifest_path))

    def manifest(self, zone: str, table: str, version: str) -> dict[str, Any] | None:
        """The manifest of one version of ``zone/table`` (published now or before), or None
        when that version is no longer in the lake; LakeError when it is no longer one."""
        path = self.version_path(zone, table, version) / MANIFEST
        return read_manifest(path) if path.is_file() else None

    def published(self) -> dict[str, Path]:
        """Every published table as ``{"zone.table": version folder}``."""
        tables = {}
        if self.root.is_dir():
            for zone in sorted(p for p in self.root.iterdir() if p.is_dir()):
                for link in sorted(zone.iterdir()):
                    if link.is_symlink() and link.resolve().is_dir():
                        tables[f"{zone.name}.{link.name}"] = link.resolve()
        return tables

    def verify(self, version: TableVersion) -> bool:
        """True when the files on disk still hash to the manifest's digest."""
        return digest_files(version.path) == version.digest

    def remove_staging(self, started_before: float | None) -> list[Path]:
        """Remove the staging folders of builds that died: every one made before
        ``started_before`` (the start of the oldest run that may still be building), or
        all of them when no run is live. Returns what was removed."""
        removed = []
        for staging in sorted(self.root.glob(f"*/.versions/*/{STAGING_PREFIX}*")):
            if started_before is None or staging.stat().st_mtime < started_before:
                shutil.rmtree(staging, ignore_errors=True)
                removed.append(staging)
        return removed

    @contextmanager
    def stage(self, zone: str, table: str) -> Iterator[Path]:
        """A fresh, empty staging folder for a new version; removed if the build fails."""
        versions = self._versions_dir(zone, table)
        versions.mkdir(parents=True, exist_ok=True)
        self._remove_stale_staging(versions)
        staging = versions / f"{STAGING_PREFIX}{uuid.uuid4().hex}"
        staging.mkdir()
        try:
            yield staging
        finally:
            # After a successful publish the folder has been renamed away.
            if staging.exists():
                shutil.rmtree(staging, ignore_errors=True)

    @contextmanager
    def locked(self, zone: str, table: str) -> Iterator[None]:
        """Hold ``zone/table``'s lock (an exclusive ``flock`` on ``.versions/<table>/.lock``,
        released by the kernel if the process dies) while the block runs."""
        versions = self._versions_dir(zone, table)
        versions.mkdir(parents=True, exist_ok=True)
        with open(versions / LOCK, "a+b") as lock:
            fcntl.flock(lock.fileno(), fcntl.LOCK_EX)
            try:
                yield
            finally:
                fcntl.flock(lock.fileno(), fcntl.LOCK_UN)

    def publish(
        self, zone: str, table: str, staging: Path, manifest: dict[str, Any]
    ) -> TableVersion:
        """Seal ``staging`` as a new version and point ``<zone>/<table>`` at it atomically."""
        return self.publish_version(zone, table, staging, manifest).version

    def publish_version(
        self,
        zone: str,
        table: str,
        staging: Path,
        manifest: dict[str, Any],
        *,
        same: Callable[[TableVersion, Mapping[str, Any]], bool] | None = None,
    ) -> Publication:
        """Seal ``staging`` as a new version and point ``<zone>/<table>`` at it atomically,
        unless ``same(live version, new manifest)`` says the live version already holds
        what staging does: then staging is removed and the live version stays (``kept``).
        Old versions are pruned (see the module's docstring); what was removed is returned
        and appended to ``.versions/<table>/.pruned``.

        Under the table's lock: of two runs publishing the same table at once, the second
        sees the first's version as live."""
        digest = digest_files(staging)
        if not data_files(staging):
            raise LakeError(f"{zone}/{table}: nothing to publish, {staging} has no Parquet files")
        manifest = {**manifest, "zone": zone, "table": table, "digest": digest}
        with self.locked(zone, table):
            try:
                live = self.current(zone, table)
            except LakeError:
                live = None  # a live version without its manifest stands for nothing
            if same is not None and live is not None and same(live, manifest):
                shutil.rmtree(staging, ignore_errors=True)
                return Publication(live, kept=True)
            (staging / MANIFEST).write_text(json.dumps(manifest, indent=2, sort_keys=True))
            version = staging.parent / self.version_name(time.time_ns(), digest)
            staging.rename(version)

            link = self.table_path(zone, table)
            tmp_link = link.with_name(f".{table}.link-{uuid.uuid4().hex}")
            tmp_link.symlink_to(os.path.relpath(version, link.parent))
            os.replace(tmp_link, link)
            pruned = self._prune(zone, table, keep=version.name)
        return Publication(TableVersion(zone, table, version, manifest), False, pruned)

    def same_files(self, live: TableVersion, manifest: Mapping[str, Any]) -> bool:
        """A ``same`` for :meth:`publish_version`: the staged files are byte for byte the live
        version's (still intact), and its manifest says the same of them."""
        return live.manifest == manifest and self.verify(live)

    def pin(self, zone: str, table: str, version: str, holder: str) -> None:
        """Keep ``version`` of ``zone/table`` from pruning on behalf of ``holder`` (e.g. a
        registered model version, ``delivery_delay@3``, or an audit bundle)."""
        with self.locked(zone, table):
            folder = self.version_path(zone, table, version)
            if not folder.is_dir():
                raise LakeError(
                    f"{zone}/{table}: cannot pin version {version}, it is not in the lake"
                )
            pins = self._versions_dir(zone, table) / PINS / version
            pins.mkdir(parents=True, exist_ok=True)
            (pins / holder).touch()

    def pins(self, zone: str, table: str) -> dict[str, list[str]]:
        """Pinned versions of ``zone/table`` and who holds each."""
        root = self._versions_dir(zone, table) / PINS
        if not root.is_dir():
            return {}
        return {p.name: sorted(h.name for h in p.iterdir()) for p in sorted(root.iterdir())}

    def pruned(self, zone: str, table: str) -> list[dict[str, Any]]:
        """What retention removed of ``zone/table``, oldest first: each version's name, when
        it was removed, and which publish removed it."""
        journal = self._versions_dir(zone, table) / PRUNED
        if not journal.is_file():
            return []
        return [json.loads(line) for line in journal.read_text().splitlines() if line.strip()]

    def built_from(self, zone: str, table: str) -> set[str]:
        """The versions of ``zone/table`` that a version in the lake (published, or sealed
        and about to be) names among its inputs."""
        key = f"{zone}.{table}"
        named = set()
        for path in self.root.glob(f"*/.versions/*/*/{MANIFEST}"):
            try:
                manifest = read_manifest(path)
            except LakeError:
                continue  # pruned meanwhile, or unreadable: it names nothing readable
            inputs = manifest.get("inputs")
            if isinstance(inputs, dict) and isinstance(inputs.get(key), str):
                named.add(inputs[key])
        return named

    def _prune(self, zone: str, table: str, keep: str) -> tuple[str, ...]:
        """Remove the versions of ``zone/table`` that nothing keeps (under its lock)."""
        versions = self._versions_dir(zone, table)
        published = sorted(
            (p.name for p in versions.iterdir() if p.is_dir() and not p.name.startswith(".")),
            reverse=True,  # names start with the UTC publish time
        )
        pinned = (
            {p.name for p in (versions / PINS).iterdir()} if (versions / PINS).is_dir() else set()
        )
        survivors = {keep, *published[:KEEP_VERSIONS], *pinned}
        candidates = [name for name in published if name not in survivors]
        if candidates:
            survivors |= self.built_from(zone, table)
        removed = tuple(name for name in candidates if name not in survivors)
        if removed:
            now = dt.datetime.now(dt.UTC).isoformat(timespec="seconds")
            with (versions / PRUNED).open("a", encoding="utf-8") as journal:
                for name in removed:
                    shutil.rmtree(versions / name, ignore_errors=True)
                    entry = {"version": name, "removed_at": now, "on_publish_of": keep}
                    journal.write(json.dumps(entry, sort_keys=True) + "\n")
        return removed

    @staticmethod
    def _remove_stale_staging(versions: Path) -> None:
        cutoff = time.time() - STALE_STAGING_SECONDS
        for path in versions.glob(f"{STAGING_PREFIX}*"):
            if path.stat().st_mtime < cutoff:
                shutil.rmtree(path, ignore_errors=True)
