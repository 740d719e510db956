"""A real PostgreSQL server for the tests that read a user's database: Debian's PostgreSQL
(``initdb`` and ``postgres`` on PATH or under ``/usr/lib/postgresql/*/bin``; ``.ci/run``
installs the package when they are missing), one throwaway cluster per use.

The server runs in a process group of its own, stopped however the test run ends
(``tests/process_groups.py``). It listens on 127.0.0.1 only, on a free port, with its Unix socket inside its own
folder, and accepts the one role it is made with by password (scram-sha-256) over TCP, so
that a URL's password is really used. PostgreSQL refuses to run as root: as root, the
cluster belongs to the ``postgres`` account (or ``nobody``) and its processes run as that
account. The folder is a fresh one under the system's temporary directory, not pytest's
``tmp_path``: pytest's base folder is private to root, and the server's account must be able
to reach its own data.
"""

from __future__ import annotations

import contextlib
import glob
import os
import pwd
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import psycopg
from psycopg import sql

from tests.process_groups import start_group, stop_group

# initdb of a new cluster takes ~1 s and the first start ~0.5 s; a busy machine is slower.
STARTUP_SECONDS = 60.0
ROLE = "plumbline"
DATABASE = "shop"
# Set in CI: a server that cannot start fails the tests instead of skipping them.
REQUIRE_SETTING = "PLUMBLINE_REQUIRE_POSTGRES"
# Accounts a root test run hands the cluster to, in order of preference.
SERVER_ACCOUNTS = ("postgres", "nobody")


class PostgresUnavailable(RuntimeError):
    """No PostgreSQL server can be started on this machine (the message says why)."""


@dataclass(frozen=True)
class PostgresServer:
    host: str
    port: int
    role: str
    password: str
    database: str
    folder: Path

    @property
    def url(self) -> str:
        """``postgresql://role:password@127.0.0.1:port/database``: what a user's
        ``url_env`` variable holds."""
        return f"postgresql://{self.role}:{self.password}@{self.host}:{self.port}/{self.database}"

    def connect(self) -> psycopg.Connection:
        """A psycopg connection (autocommit), a client independent of the code under test."""
        return psycopg.connect(self.url, autocommit=True)


def find_binaries() -> Path:
    """The folder holding ``initdb`` and ``postgres``."""
    on_path = shutil.which("initdb")
    candidates = [Path(on_path).resolve().parent] if on_path else []
    candidates += [Path(p) for p in sorted(glob.glob("/usr/lib/postgresql/*/bin"), reverse=True)]
    for folder in candidates:
        if (folder / "initdb").is_file() and (folder / "postgres").is_file():
            return folder
    raise PostgresUnavailable(
        "no PostgreSQL server binaries (initdb, postgres) on PATH or under "
        "/usr/lib/postgresql/*/bin; install Debian's package: apt-get install -y postgresql "
        "(.ci/run does)"
    )


def _server_account() -> pwd.struct_passwd | None:
    """The account the server runs as: None for this process's own, unless it is root."""
    if os.geteuid() != 0:
        return None
    for name in SERVER_ACCOUNTS:
        with contextlib.suppress(KeyError):
            return pwd.getpwnam(name)
    raise PostgresUnavailable(
        f"running as root and none of the accounts {', '.join(SERVER_ACCOUNTS)} exists; "
        "PostgreSQL refuses to run as root"
    )


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _run(command: list[str], account: pwd.struct_passwd | None, log: Path) -> None:
    as_account = {} if account is None else {"user": account.pw_uid, "group": account.pw_gid}
    with log.open("ab") as output:
        result = subprocess.run(
            command,
            stdout=output,
            stderr=subprocess.STDOUT,
            env={"PATH": os.environ.get("PATH", ""), "LC_ALL": "C.UTF-8"},
            cwd="/",
            check=False,
            extra_groups=[] if account else None,
            **as_account,
        )
    if result.returncode != 0:
        raise PostgresUnavailable(
            f"{Path(command[0]).name} exited with {result.returncode}; its log ({log}):\n"
            f"{log.read_text()[-3000:]}"
        )


@contextlib.contextmanager
def postgres_server(password: str) -> Iterator[PostgresServer]:
    """A running server for the duration of the block: role ``plumbline`` with ``password``,
    owning database ``shop``. Raises PostgresUnavailable when it cannot start."""
    binaries = find_binaries()
    account = _server_account()
    folder = Path(tempfile.mkdtemp(prefix="plumbline-postgres-"))
    process: subprocess.Popen | None = None
    try:
        if account is not None:
            os.chown(folder, account.pw_uid, account.pw_gid)
        log = folder / "server.log"
        password_file = folder / "password"
        password_file.write_text(password)
        if account is not None:
            for path in (log, password_file):
                path.touch()
                os.chown(path, account.pw_uid, account.pw_gid)
        data = folder / "data"
        _run(
            [
                str(binaries / "initdb"),
                "--pgdata",
                str(data),
                "--username",
                ROLE,
                "--pwfile",
                str(password_file),
                "--auth-host",
                "scram-sha-256",
                "--auth-local",
                "trust",
                "--encoding",
                "UTF8",
                "--no-sync",
            ],
            account,
            log,
        )
        password_file.unlink()
        port = free_port()
        as_account = {} if account is None else {"user": account.pw_uid, "group": account.pw_gid}
        with log.open("ab") as output:
            # SIGINT: PostgreSQL's fast shutdown (SIGTERM would wait for every client).
            process = start_group(
                [
                    str(binaries / "postgres"),
                    "-D",
                    str(data),
                    "-c",
                    "listen_addresses=127.0.0.1",
                    "-c",
                    f"port={port}",
                    "-c",
                    f"unix_socket_directories={folder}",
                    # A throwaway cluster: durability costs time and buys nothing here.
                    "-c",
                    "fsync=off",
                    "-c",
                    "full_page_writes=off",
                    "-c",
                    "synchronous_commit=off",
                ],
                stop_signal=signal.SIGINT,
                stdout=output,
                stderr=subprocess.STDOUT,
                env={"PATH": os.environ.get("PATH", ""), "LC_ALL": "C.UTF-8"},
                cwd="/",
                **as_account,
            )
        server = PostgresServer("127.0.0.1", port, ROLE, password, "postgres", folder)
        _wait_until_ready(server, process, log)
        with server.connect() as admin:
            admin.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(DATABASE)))
        yield PostgresServer("127.0.0.1", port, ROLE, password, DATABASE, folder)
    finally:
        if process is not None:
            _stop(process)
        shutil.rmtree(folder, ignore_errors=True)


def _wait_until_ready(server: PostgresServer, process: subprocess.Popen, log: Path) -> None:
    deadline = time.monotonic() + STARTUP_SECONDS
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise PostgresUnavailable(
                f"postgres exited with {process.returncode} before accepting connections; "
                f"its log ({log}):\n{log.read_text()[-3000:]}"
            )
        try:
            with psycopg.connect(server.url, connect_timeout=2):
                return
        except psycopg.OperationalError:
            time.sleep(0.1)
    raise PostgresUnavailable(
        f"postgres did not accept connections within {STARTUP_SECONDS:.0f} s; its log ({log}):\n"
        f"{log.read_text()[-3000:]}"
    )


def _stop(process: subprocess.Popen) -> None:
    """Fast shutdown (SIGINT: roll back sessions, then exit), SIGKILL if it hangs."""
    stop_group(process, timeout=15)
