"""Dagster's sqlite event log, written the way sqlite's WAL mode is meant to be written,
for the length of one ``plumbline run``.

Dagster's sqlite storage (the instance in ``$DAGSTER_HOME/history``: ``runs.db``,
``runs/index.db`` and one ``runs/<run id>.db`` per run, all in WAL mode) opens a new
connection for every event it stores and closes it right after the commit. The last
connection to a WAL database to close checkpoints it and deletes its WAL, syncing the
database file each time: a rerun of the demo stores ~850 events and ~300 index copies, and
on this machine each of those closes cost 5-15 ms of wall time and ~1 ms of CPU, most of
a rerun that has nothing to build.

:func:`held_event_log` keeps one idle connection open to each of those files while the run
lasts, so that Dagster's connections are never the last: the WAL is checkpointed by
sqlite's own automatic checkpoints (every 1,000 pages) and once more when the run ends. It
also sets ``synchronous = NORMAL`` on Dagster's connections to them, sqlite's documented
setting for WAL mode: a commit is not synced to disk on its own, the database cannot be
corrupted by a crash of the process or the machine, and a power loss can at worst roll
back the last events written before it (those of a run that was then cut off anyway).
What Dagster stores and reads is unchanged: the same rows, through its own code.

The connections are found through SQLAlchemy's public ``connect`` event, by the file each
one opens; files outside ``history/`` (the MLflow store, anything of the user's) are left
alone.
"""

from __future__ import annotations

import contextlib
import functools
import os
import sqlite3
import threading
from collections.abc import Iterator
from pathlib import Path

# Where Dagster's default sqlite storage keeps its runs and event log under $DAGSTER_HOME.
HISTORY_FOLDER = "history"


@contextlib.contextmanager
def held_event_log(dagster_home: Path) -> Iterator[dict[str, sqlite3.Connection]]:
    """While the block runs, hold an idle connection to each sqlite file of the instance's
    ``history/`` that a connection of this process opens in WAL mode, and open Dagster's
    connections to them with ``synchronous = NORMAL``. Yields the held connections by
    path (for tests); closes them, checkpointing each file, on the way out."""
    from sqlalchemy import event
    from sqlalchemy.engine import Engine

    folder = str(Path(dagster_home, HISTORY_FOLDER).resolve()) + os.sep
    held: dict[str, sqlite3.Connection] = {}
    lock = threading.Lock()

    def on_connect(connection: object, _record: object) -> None:
        if not isinstance(connection, sqlite3.Connection):
            return
        path = _main_file(connection)
        if path is None or not _real(path).startswith(folder):
            return
        connection.execute("PRAGMA synchronous = NORMAL")
        with lock:
            if path in held or not _in_wal_mode(connection):
                # A file Dagster is about to create is put in WAL mode by its first
                # connection: it is held from the next one on.
                return
            keeper = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
            # A read, run to its end (no transaction stays open), maps the WAL's index:
            # from then on this connection counts as one of the file's open connections.
            keeper.execute("PRAGMA schema_version").fetchall()
            held[path] = keeper

    event.listen(Engine, "connect", on_connect)
    try:
        yield held
    finally:
        event.remove(Engine, "connect", on_connect)
        with lock:
            for keeper in held.values():
                with contextlib.suppress(sqlite3.Error):
                    keeper.close()
            held.clear()


@functools.lru_cache(maxsize=256)
def _real(path: str) -> str:
    return os.path.realpath(path)


def _main_file(connection: sqlite3.Connection) -> str | None:
    for _seq, name, path in connection.execute("PRAGMA database_list").fetchall():
        if name == "main":
            return path or None
    return None


def _in_wal_mode(connection: sqlite3.Connection) -> bool:
    [mode] = connection.execute("PRAGMA journal_mode").fetchone()
    return str(mode).lower() == "wal"
