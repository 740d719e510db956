"""The MLflow tracking store on a sqlite file, created atomically and checked before use.

MLflow creates a missing sqlite store in place, table by table and migration by migration;
a full disk or a kill in the middle leaves a file that is neither empty nor at a schema
version (an ``_alembic_tmp_*`` table of a batch migration that never finished), and every
later start fails on it with ``table _alembic_tmp_experiments already exists``. Here a new
store is built in a temporary file beside its final path and renamed into place only once
complete; a store from an older MLflow is migrated on a copy that replaces it only once
every migration has run; and a half-made store found on disk is rebuilt when it holds
nothing, or refused with the command that repairs it when it does.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import functools
import hashlib
import importlib.metadata
import importlib.util
import logging
import sqlite3
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

from pipelines.lake.files import atomic_path, write_atomic

SQLITE_PREFIX = "sqlite:///"


class TrackingStoreError(RuntimeError):
    """The tracking store cannot be used as it is; the message says what to do."""


def sqlite_path(uri: str) -> Path | None:
    """The file of a ``sqlite:///`` tracking URI; None for any other store."""
    if not uri.startswith(SQLITE_PREFIX):
        return None
    return Path(uri.removeprefix(SQLITE_PREFIX).split("?", 1)[0])


def half_made(path: Path) -> list[str]:
    """Why the store at ``path`` is half-made (empty when it is whole): an unfinished batch
    migration's temporary table, or MLflow's tables without a schema version."""
    with contextlib.closing(sqlite3.connect(f"file:{path}?mode=ro", uri=True)) as db:
        tables = {row[0] for row in db.execute("SELECT name FROM sqlite_master WHERE type='table'")}
        reasons = sorted(
            f"table {t} left by an interrupted migration"
            for t in tables
            if t.startswith("_alembic_tmp_")
        )
        if (
            "alembic_version" not in tables
            or not db.execute("SELECT 1 FROM alembic_version").fetchone()
        ):
            reasons.append("no schema version recorded")
    return reasons


def holds_records(path: Path) -> bool:
    """Whether the store records any run or registered model (then it must not be replaced)."""
    with contextlib.closing(sqlite3.connect(f"file:{path}?mode=ro", uri=True)) as db:
        tables = {row[0] for row in db.execute("SELECT name FROM sqlite_master WHERE type='table'")}
        for table in ("runs", "registered_models", "_alembic_tmp_runs"):
            if table in tables and db.execute(f'SELECT 1 FROM "{table}" LIMIT 1').fetchone():
                return True
    return False


@contextlib.contextmanager
def _quiet(*names: str) -> Iterator[None]:
    """MLflow and Alembic announce each step of creating the schema at INFO on the console;
    a new store is not news."""
    loggers = [logging.getLogger(name) for name in names]
    levels = [logger.level for logger in loggers]
    for logger in loggers:
        logger.setLevel(logging.WARNING)
    try:
        yield
    finally:
        for logger, level in zip(loggers, levels, strict=True):
            logger.setLevel(level)


def _no_space(path: Path, doing: str, megabytes: int) -> TrackingStoreError:
    return TrackingStoreError(
        f"no space left on the device of {path.parent} to {doing} the MLflow store (it needs "
        f"about {megabytes} MB); free space and run again"
    )


def _remove_sqlite_files(database: Path) -> None:
    """What sqlite leaves beside a database it wrote (its -journal, -wal, -shm)."""
    for leftover in database.parent.glob(f"{database.name}-*"):
        leftover.unlink(missing_ok=True)


def _create(path: Path, artifact_root: str) -> None:
    from mlflow.store.tracking.sqlalchemy_store import SqlAlchemyStore

    try:
        # Made whole beside its final path, then renamed into place (pipelines.lake.files).
        with atomic_path(path) as temporary:
            try:
                with _quiet("mlflow.store.db.utils", "alembic"):
                    store = SqlAlchemyStore(f"{SQLITE_PREFIX}{temporary}", artifact_root)
                store.engine.dispose()
            finally:
                _remove_sqlite_files(temporary)
    except OSError as exc:
        if exc.errno == errno.ENOSPC:
            raise _no_space(path, "create", 1) from None
        raise
    except Exception as exc:
        # SQLAlchemy wraps sqlite's "database or disk is full" in its own error type.
        if "disk is full" in str(exc) or "No space left" in str(exc):
            raise _no_space(path, "create", 1) from None
        raise


def ensure_tracking_store(uri: str, artifact_root: str) -> None:
    """Make sure a ``sqlite:///`` store at ``uri`` exists whole before MLflow opens it:
    create it atomically when missing, rebuild it when half-made and empty (the broken
    file is kept beside it), refuse it in one line naming the repair when half-made with
    records. Stores other than sqlite are MLflow's (or their server's) to manage."""
    path = sqlite_path(uri)
    if path is None:
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    # Two runs may start on one home at once: one creates, the other waits and finds it.
    with open(path.with_name(f".{path.name}.lock"), "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        _ensure(path, artifact_root)


def _ensure(path: Path, artifact_root: str) -> None:
    if not path.exists() or path.stat().st_size == 0:
        path.unlink(missing_ok=True)
        _create(path, artifact_root)
        _record_folder(path)
        return
    reasons = half_made(path)
    if not reasons:
        if not at_latest_schema(path):
            _upgrade(path)
        relocate(path)
        return
    if holds_records(path):
        raise TrackingStoreError(
            f"the MLflow store {path} is half-migrated ({'; '.join(reasons)}) and holds runs: "
            f"back it up, then run `mlflow db upgrade {SQLITE_PREFIX}{path}` (after dropping "
            "the _alembic_tmp_ table if its original table still exists)"
        )
    path.rename(path.with_name(f"{path.name}.half-made-{time.strftime('%Y%m%dT%H%M%S')}"))
    _create(path, artifact_root)
    _record_folder(path)


# MLflow stores absolute locations (file URIs of artifacts, the dataset a run read), so a
# store copied with its home (`cp -a`) would keep reading and writing the original's files.
# The folder the store was made in is recorded beside it; when the store is found in another
# folder, every location under the old folder is moved under the new one, in one transaction.
LOCATION_COLUMNS = (
    ("experiments", "artifact_location"),
    ("runs", "artifact_uri"),
    ("logged_models", "artifact_location"),
    ("model_versions", "source"),
    ("model_versions", "storage_location"),
    ("datasets", "dataset_source"),
)


def _folder_record(path: Path) -> Path:
    return path.with_name(f".{path.name}.folder")


def _record_folder(path: Path) -> None:
    write_atomic(_folder_record(path), str(path.parent.absolute()))


def relocate(path: Path) -> int:
    """Move the store's recorded locations to the folder it lies in now, if it was copied
    or moved since they were recorded. Returns how many values changed."""
    record = _folder_record(path)
    if not record.is_file():
        _record_folder(path)
        return 0
    old, new = record.read_text().strip(), str(path.parent.absolute())
    if old == new:
        return 0
    changed = 0
    with contextlib.closing(sqlite3.connect(path)) as db, db:
        tables = {row[0] for row in db.execute("SELECT name FROM sqlite_master WHERE type='table'")}
        for table, column in LOCATION_COLUMNS:
            if table not in tables:
                continue
            # Paths end with a separator so that /data/home never matches /data/home2.
            changed += db.execute(
                f'UPDATE "{table}" SET "{column}" = replace("{column}", ?, ?) '
                f'WHERE instr("{column}", ?) > 0',
                (old + "/", new + "/", old + "/"),
            ).rowcount
    _record_folder(path)
    return changed


def schema_version(path: Path) -> str | None:
    """The Alembic revision the store at ``path`` records."""
    with contextlib.closing(sqlite3.connect(f"file:{path}?mode=ro", uri=True)) as db:
        row = db.execute("SELECT version_num FROM alembic_version").fetchone()
    return row[0] if row else None


@functools.cache
def latest_schema_version() -> str:
    """The revision this MLflow's migrations end at, read with Alembic's own API from the
    migrations MLflow ships (Alembic imports every migration file to find it: most of a
    second, once a process)."""
    from alembic.script import ScriptDirectory

    [head] = ScriptDirectory(str(_migrations_folder())).get_heads()
    return head


def _migrations_folder() -> Path:
    # Found without importing mlflow (seconds), which a store at its schema does not need.
    spec = importlib.util.find_spec("mlflow")
    if spec is None or spec.origin is None:
        raise TrackingStoreError("MLflow is not installed in this environment")
    return Path(spec.origin).parent / "store" / "db_migrations"


def _migrations_key() -> str:
    """What the latest revision is a function of: the installed MLflow's version and the
    names of the migrations it ships (each named by its revision)."""
    names = sorted(p.name for p in (_migrations_folder() / "versions").glob("*.py"))
    text = "\n".join([importlib.metadata.version("mlflow"), *names])
    return hashlib.sha256(text.encode()).hexdigest()


def _head_record(path: Path) -> Path:
    return path.with_name(f".{path.name}.schema-head")


def at_latest_schema(path: Path) -> bool:
    """Whether the store at ``path`` is at this MLflow's latest revision. The latest revision
    is remembered beside the store, keyed by :func:`_migrations_key`, so that a command on a
    store already at it does not read every migration again; any other record is ignored
    and rewritten."""
    current = schema_version(path)
    record = _head_record(path)
    key = _migrations_key()
    with contextlib.suppress(OSError, ValueError):
        recorded_key, head = record.read_text().split()
        if recorded_key == key:
            return current == head
    head = latest_schema_version()
    with contextlib.suppress(OSError):
        write_atomic(record, f"{key} {head}\n")
    return current == head


def _upgrade(path: Path) -> None:
    """Migrate an older store to this MLflow's schema on a copy, and put the copy in its
    place only once every migration has run: MLflow's migrations are not transactional on
    sqlite, and one interrupted in place is what leaves ``_alembic_tmp_*`` tables behind."""
    try:
        with atomic_path(path) as copy:
            try:
                _upgraded_copy(path, copy)
            finally:
                _remove_sqlite_files(copy)
    except OSError as exc:
        if exc.errno == errno.ENOSPC:
            raise _no_space(path, "upgrade", path.stat().st_size // 1_000_000 + 1) from None
        raise


def _upgraded_copy(path: Path, copy: Path) -> None:
    """``copy``: the store at ``path``, migrated to this MLflow's schema."""
    with (
        contextlib.closing(sqlite3.connect(path)) as source,
        contextlib.closing(sqlite3.connect(copy)) as target,
    ):
        source.backup(target)  # a consistent copy even if a reader has it open
    done = subprocess.run(
        [sys.executable, "-m", "mlflow", "db", "upgrade", f"{SQLITE_PREFIX}{copy}"],
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode != 0:
        last = (done.stderr.strip().splitlines() or ["no output"])[-1]
        raise TrackingStoreError(
            f"the MLflow store {path} is at an older schema and upgrading a copy of it "
            f"failed ({last}); it is unchanged: back it up and run "
            f"`mlflow db upgrade {SQLITE_PREFIX}{path}` to see why"
        )
