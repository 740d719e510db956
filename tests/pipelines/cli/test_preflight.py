"""`plumbline run` refuses in seconds what would fail later: an MLflow server that does not
answer (or refuses the credentials), and a scale that does not fit the disk or memory."""

import contextlib
import http.server
import shutil
import sqlite3
import threading
import time
from pathlib import Path

import click
import pytest
from click.testing import CliRunner

from pipelines.cli.preflight import (
    MLFLOW_ANSWER_SECONDS,
    RAW_BYTES_PER_SCALE,
    PreflightError,
    check_footprint,
    check_mlflow,
    disk_full,
    disk_full_sign,
    footprint,
    home_disk_to_add,
    size,
)
from pipelines.settings import Settings
from tests.mlflow_server import free_port
from tests.pipelines.cli.test_main import plumbline
from tests.tmpfs import tmpfs


class Silent(http.server.BaseHTTPRequestHandler):
    """A server that accepts connections and never answers: an MLflow behind a dead proxy."""

    def do_GET(self):
        time.sleep(MLFLOW_ANSWER_SECONDS + 5)

    def log_message(self, *args):
        pass


class Refusing(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        self.send_response(401 if "Authorization" in self.headers else 400)
        self.end_headers()

    def log_message(self, *args):
        pass


def serve(handler) -> str:
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return f"http://127.0.0.1:{server.server_address[1]}"


def test_nothing_listening_is_refused_in_one_line():
    uri = f"http://127.0.0.1:{free_port()}"
    with pytest.raises(PreflightError, match=f"the MLflow server at {uri} did not answer"):
        check_mlflow(uri, {})


def test_a_server_that_never_answers_is_refused_within_the_bound():
    uri = serve(Silent)
    started = time.monotonic()
    with pytest.raises(PreflightError, match="did not answer within 1 s"):
        check_mlflow(uri, {}, timeout=1)
    assert time.monotonic() - started < 5


def test_refused_credentials_are_named_and_not_shown():
    uri = serve(Refusing)
    env = {"MLFLOW_TRACKING_USERNAME": "me", "MLFLOW_TRACKING_PASSWORD": "s3cr3t-token"}
    with pytest.raises(PreflightError) as info:
        check_mlflow(uri, env)
    assert "refused the credentials (HTTP 401)" in str(info.value)
    assert "s3cr3t-token" not in str(info.value)


def test_a_sqlite_store_is_not_probed(tmp_path):
    check_mlflow(f"sqlite:///{tmp_path}/mlflow.db", {})


def test_the_footprint_grows_with_the_scale_and_is_checked_against_the_machine(tmp_path):
    small, large = footprint(0.01), footprint(1)
    assert 0 < small.disk_bytes < large.disk_bytes
    assert 0 < small.memory_bytes < large.memory_bytes
    settings = Settings(home=tmp_path / "home", scale=1e9)
    with pytest.raises(PreflightError) as info:
        check_footprint(settings, free_disk=10**12, available_memory=10**12)
    message = str(info.value)
    assert message.startswith("scale 1e+09 needs about ")
    assert "of disk under" in message and "(free: 1.0 TB)" in message
    assert "of memory (available: 1.0 TB)" in message
    check_footprint(Settings(home=tmp_path, scale=0.01), free_disk=10**12, available_memory=10**12)


def test_the_data_path_needs_the_same_memory_at_every_scale(tmp_path):
    """Without training, a run's memory is its process and DuckDB's limit (issue 43): scale
    10 fits a machine with 8 GB free, which the whole demo at that scale does not."""
    limit = 2 * 10**9
    data = [footprint(s, trains=False, duckdb_memory_limit=limit) for s in (0.01, 1, 10, 100)]
    assert len({f.memory_bytes for f in data}) == 1
    assert data[0].memory_bytes < 8 * 10**9 < footprint(10, duckdb_memory_limit=limit).memory_bytes
    settings = Settings(home=tmp_path / "home", scale=10, duckdb_memory_limit="2GB")
    check_footprint(settings, free_disk=10**12, available_memory=8 * 10**9, trains=False)
    with pytest.raises(PreflightError, match="of memory"):
        check_footprint(settings, free_disk=10**12, available_memory=8 * 10**9)


def test_run_refuses_an_unreachable_server_before_building_anything(tmp_path):
    home = tmp_path / "home"
    started = time.monotonic()
    result = plumbline(
        "run",
        env={
            "PLUMBLINE_HOME": str(home),
            "PLUMBLINE_MLFLOW_URI": f"http://me:t0ken@127.0.0.1:{free_port()}",
        },
    )
    assert result.returncode == 1
    [line] = result.stderr.splitlines()
    assert line.startswith("plumbline: error: the MLflow server at http://127.0.0.1:")
    assert line.endswith("; nothing was run")
    assert "t0ken" not in result.stdout + result.stderr
    assert not (home / "lake").exists() or not any((home / "lake").iterdir())
    assert time.monotonic() - started < 60


def test_run_refuses_a_scale_beyond_the_disk_with_the_numbers(tmp_path):
    """Issue 44, item 7: the refusal came after the MLflow store (mlflow.db, its lock and
    folder records) was created in the new home: a refused run creates nothing."""
    home = tmp_path / "home"
    result = plumbline("run", "--scale", "1e9", env={"PLUMBLINE_HOME": str(home)})
    assert result.returncode == 1
    [line] = result.stderr.splitlines()
    assert line.startswith("plumbline: error: scale 1e+09 needs about ")
    assert "(free: " in line
    assert line.endswith("; nothing was run")
    assert not home.exists(), sorted(str(p.relative_to(home)) for p in home.rglob("*"))


def test_a_run_counts_what_it_adds_to_the_home_not_the_whole_scale(tmp_path, raw_lake_root):
    """Issue 34, item 10: after a first run at scale 0.01 (17.7 MB) the next one added 10.9 MB
    (both measured with `du -sb`), yet was refused for needing 22.1 MB with 13.7 MB free."""
    fresh = Settings(home=tmp_path / "fresh", scale=0.01)
    assert home_disk_to_add(fresh) == footprint(0.01).disk_bytes
    home = tmp_path / "home"
    shutil.copytree(raw_lake_root, home / "lake", symlinks=True)  # scale 0.01's raw tables
    (home / "dagster" / "history").mkdir(parents=True)  # a Dagster instance that has run
    again = home_disk_to_add(Settings(home=home, scale=0.01))
    assert 10_900_000 <= again <= 13_700_000
    # Another scale generates its raw tables again.
    assert home_disk_to_add(Settings(home=home, scale=0.02)) > again + RAW_BYTES_PER_SCALE * 0.01
    # Free space for this run, not a fresh one's, is what the check asks.
    check_footprint(Settings(home=home, scale=0.01), free_disk=13_700_000, available_memory=10**12)
    with pytest.raises(PreflightError, match=r"needs about 1[0-9.]+ MB of disk"):
        check_footprint(
            Settings(home=home, scale=0.01), free_disk=5_000_000, available_memory=10**12
        )


def _sqlite_full(folder: Path) -> BaseException:
    with contextlib.closing(sqlite3.connect(folder / "store.db")) as db, db:
        db.execute("CREATE TABLE t (b BLOB)")
        try:
            db.execute("INSERT INTO t VALUES (zeroblob(4000000))")
        except sqlite3.Error as exc:
            return exc
    raise AssertionError("sqlite wrote 4 MB to a 1 MiB disk")


def _sqlalchemy_full(folder: Path) -> BaseException:
    import sqlalchemy

    engine = sqlalchemy.create_engine(f"sqlite:///{folder / 'events.db'}")
    try:
        with engine.begin() as connection:
            connection.exec_driver_sql("CREATE TABLE event_logs (b BLOB)")
            connection.exec_driver_sql("INSERT INTO event_logs VALUES (zeroblob(4000000))")
    except sqlalchemy.exc.DBAPIError as exc:
        return exc
    finally:
        engine.dispose()
    raise AssertionError("SQLAlchemy wrote 4 MB to a 1 MiB disk")


def _duckdb_full(folder: Path) -> BaseException:
    import duckdb

    with duckdb.connect() as con:
        try:
            con.execute(
                f"COPY (SELECT random()::VARCHAR AS r FROM range(400000)) TO "
                f"'{folder / 'out.parquet'}' (COMPRESSION uncompressed)"
            )
        except duckdb.Error as exc:
            return exc
    raise AssertionError("DuckDB wrote a table bigger than a 1 MiB disk")


def _file_full(folder: Path) -> BaseException:
    try:
        (folder / "part.parquet").write_bytes(b"\0" * 4_000_000)
    except OSError as exc:
        return exc
    raise AssertionError("wrote 4 MB to a 1 MiB disk")


def _dagster_event_log(folder: Path) -> BaseException:
    # What `plumbline run` met in the issue: sqlite's SQLITE_IOERR from Dagster's event log
    # on a full disk, through SQLAlchemy (not reproducible on demand: sqlite says "disk is
    # full" when the database itself cannot grow, "disk I/O error" when its journal cannot).
    import sqlalchemy

    error = sqlalchemy.exc.OperationalError(
        "SELECT event_logs.id, event_logs.event FROM event_logs", {}, sqlite3.OperationalError()
    )
    error.orig.args = ("disk I/O error",)
    return error


# Where a full disk surfaces, each as the real error of a write to a full 1 MiB tmpfs.
FULL_DISK_ERRORS = [
    ("a file (ENOSPC)", _file_full),
    ("sqlite (the MLflow store)", _sqlite_full),
    ("SQLAlchemy over sqlite", _sqlalchemy_full),
    ("DuckDB", _duckdb_full),
    ("Dagster's event log (disk I/O error)", _dagster_event_log),
]


@pytest.fixture
def full_home(tmp_path):
    """A home on a 1 MiB tmpfs, nearly full."""
    with tmpfs(tmp_path / "home", "1m") as home:
        (home / "ballast").write_bytes(b"\0" * (shutil.disk_usage(home).free - 64 * 1024))
        yield home


@pytest.mark.parametrize(("case", "fail"), FULL_DISK_ERRORS, ids=[c for c, _ in FULL_DISK_ERRORS])
def test_a_full_disk_is_one_line_wherever_it_surfaces(full_home, monkeypatch, case, fail):
    from pipelines.cli.errors import OneLineErrors

    error = fail(full_home)
    settings = Settings(home=full_home, scale=0.01)
    line = disk_full([error], settings)
    assert line is not None, repr(error)
    assert line.startswith(f"the disk under {full_home}") and "is full (free now: " in line
    assert f"adds about {size(home_disk_to_add(settings))}" in line
    # Raised out of a command, it is that line and exit 1, not an internal error (exit 70).
    monkeypatch.setenv("PLUMBLINE_HOME", str(full_home))
    monkeypatch.setenv("PLUMBLINE_SCALE", "0.01")

    @click.group(cls=OneLineErrors)
    def cli():
        pass

    @cli.command()
    def work():
        raise RuntimeError("a step failed") from error

    result = CliRunner().invoke(cli, ["work"])
    assert result.exit_code == 1, result.output
    assert result.stderr == f"plumbline: error: {line}\n"


def test_an_io_error_on_a_disk_with_room_is_not_called_full(tmp_path):
    error = _dagster_event_log(tmp_path)
    assert disk_full_sign(error) == "io"
    assert disk_full([error], Settings(home=tmp_path, scale=0.01)) is None
    assert disk_full(["ValueError: not a disk"], Settings(home=tmp_path, scale=0.01)) is None
