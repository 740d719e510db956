"""Real Spark servers for tests, started from pyspark's own distribution on 127.0.0.1, and a
driver process that builds warehouse tables on them.

- ``standalone_cluster``: a standalone master and one worker (1 core, 1 GiB).
- ``connect_server``: a Spark Connect server.
- ``run_driver``: ``build_table`` through ``SparkEngine(master)``, in a process of its own.

Each server runs in a process group of its own that leaving its block kills whole (a worker's
executors with it), and binds 127.0.0.1 only. Run as ``python -m tests.spark_cluster`` from
the repository root, this file is the driver: a ``DriverRequest`` as JSON on stdin, its
``DriverReport`` written where the request says.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import ExitStack, contextmanager
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import psutil
import pyspark

from tests.mlflow_server import free_port
from tests.process_groups import start_group, stop_group

if TYPE_CHECKING:
    from pipelines.warehouse.build import WarehouseTable
    from sql.catalog import Catalog

SPARK_HOME = Path(pyspark.__file__).parent
REPOSITORY_ROOT = Path(__file__).resolve().parents[1]
LOOPBACK = "127.0.0.1"
CONNECT_SERVER_CLASS = "org.apache.spark.sql.connect.service.SparkConnectServer"
# The C1 compiler alone and the serial collector: these JVMs run a few small jobs once, on a
# machine whose two cores the rest of the suite shares (as conftest's spark_engine does).
JVM_FLAGS = "-XX:TieredStopAtLevel=1 -XX:+UseSerialGC"
# A JVM starts in ~5 s on an idle machine, several times that beside a parallel test run.
STARTUP_SECONDS = 120.0
DRIVER_SECONDS = 300.0
# What the reconciliation check masks the values it reports with.
MASKING_KEY = b"spark cluster tests"
# Variables that would turn the driver into a Connect client or point it elsewhere.
FOREIGN_SPARK_VARIABLES = (
    "MASTER",
    "PYSPARK_SUBMIT_ARGS",
    "SPARK_API_MODE",
    "SPARK_CONNECT_MODE_ENABLED",
    "SPARK_LOCAL_REMOTE",
    "SPARK_REMOTE",
)


class SparkServerError(RuntimeError):
    """A Spark server or driver exited or did not get ready; the message ends with its log."""


def missing_java() -> str | None:
    """Why no Spark server can start here (None when one can)."""
    java_home = os.environ.get("JAVA_HOME")
    if shutil.which("java") is None and not (
        java_home and Path(java_home, "bin", "java").is_file()
    ):
        return "Java is not installed: Spark needs a JDK 17 on PATH or in JAVA_HOME"
    return None


def missing_connect() -> str | None:
    """Why no Spark Connect server and client can run here (None when they can)."""
    from pyspark.testing.utils import connect_requirement_message, should_test_connect

    if not list((SPARK_HOME / "jars").glob("spark-connect_*.jar")):
        return f"pyspark's distribution has no Spark Connect server jar in {SPARK_HOME / 'jars'}"
    if not should_test_connect:
        return (
            f"the Spark Connect client cannot load ({connect_requirement_message}): it needs "
            "pyspark's connect extra, grpcio, grpcio-status, googleapis-common-protos, zstandard"
        )
    return None


def spark_environment(work: Path) -> dict[str, str]:
    """The environment of every Spark process here: pyspark's folder as SPARK_HOME, an empty
    configuration folder (no spark-defaults.conf of the machine's), loopback addresses and
    scratch space under ``work``."""
    (work / "conf").mkdir(parents=True, exist_ok=True)
    (work / "local").mkdir(exist_ok=True)
    env = {k: v for k, v in os.environ.items() if k not in FOREIGN_SPARK_VARIABLES}
    env |= {
        "SPARK_HOME": str(SPARK_HOME),
        "SPARK_CONF_DIR": str(work / "conf"),
        "SPARK_LOCAL_IP": LOOPBACK,
        "SPARK_LOCAL_DIRS": str(work / "local"),
        "SPARK_DAEMON_MEMORY": "512m",
        "SPARK_DAEMON_JAVA_OPTS": JVM_FLAGS,
        # The master's REST submission server listens on a fixed port (6066) otherwise.
        "SPARK_MASTER_OPTS": "-Dspark.master.rest.enabled=false",
    }
    return env


@dataclass(frozen=True)
class Daemon:
    """A Spark JVM in a process group of its own."""

    name: str
    process: subprocess.Popen[bytes]
    log: Path

    def log_tail(self, characters: int = 4000) -> str:
        return self.log.read_text(errors="replace")[-characters:] if self.log.is_file() else ""

    def check_running(self) -> None:
        if self.process.poll() is not None:
            raise SparkServerError(
                f"{self.name} exited with {self.process.returncode}; its log ({self.log}) "
                f"ends:\n{self.log_tail()}"
            )

    def listening_addresses(self) -> set[str]:
        """The addresses the group's processes listen on (IPv4-mapped ones as IPv4)."""
        addresses = set()
        root = psutil.Process(self.process.pid)
        for process in [root, *root.children(recursive=True)]:
            try:
                for connection in process.net_connections(kind="inet"):
                    if connection.status == psutil.CONN_LISTEN:
                        addresses.add(connection.laddr.ip.removeprefix("::ffff:"))
            except (psutil.NoSuchProcess, psutil.ZombieProcess):
                continue
        return addresses

    @property
    def running(self) -> bool:
        """Whether any process of the group is left."""
        return _group_alive(self.process.pid)

    def stop(self) -> None:
        """The whole group: SIGTERM, then SIGKILL to anything (an executor) still there."""
        if self.process.poll() is None:
            stop_group(self.process)
        _kill_group(self.process.pid)


def _group_alive(group: int) -> bool:
    try:
        os.killpg(group, 0)
    except ProcessLookupError:
        return False
    return True


def _wait_for_group(group: int, seconds: float) -> None:
    deadline = time.monotonic() + seconds
    while _group_alive(group) and time.monotonic() < deadline:
        time.sleep(0.1)


def _kill_group(group: int, grace_seconds: float = 10.0) -> None:
    """Wait for what is left of ``group`` to exit after its leader, then SIGKILL it."""
    _wait_for_group(group, grace_seconds)
    if _group_alive(group):
        os.killpg(group, signal.SIGKILL)
        _wait_for_group(group, grace_seconds)


def _start(name: str, command: Sequence[str], env: Mapping[str, str], log: Path) -> Daemon:
    with log.open("wb") as output:
        process = start_group(
            list(command),
            stdin=subprocess.DEVNULL,
            stdout=output,
            stderr=subprocess.STDOUT,
            env=dict(env),
        )
    return Daemon(name, process, log)


def _wait_until(daemon: Daemon, ready: Callable[[], bool], what: str) -> None:
    deadline = time.monotonic() + STARTUP_SECONDS
    while not ready():
        daemon.check_running()
        if time.monotonic() > deadline:
            raise SparkServerError(
                f"{daemon.name} did not {what} within {STARTUP_SECONDS:.0f} s; its log "
                f"({daemon.log}) ends:\n{daemon.log_tail()}"
            )
        time.sleep(0.25)


def _free_ports(count: int) -> list[int]:
    ports: set[int] = set()
    while len(ports) < count:
        ports.add(free_port())
    return sorted(ports)


# Requests to the master's UI go straight to 127.0.0.1, whatever proxy the environment names.
_DIRECT = urllib.request.build_opener(urllib.request.ProxyHandler({}))


def master_status(web_url: str) -> dict[str, Any]:
    """A standalone master's own account of its cluster: its workers, the applications
    running and completed (``/json/`` of its web UI)."""
    with _DIRECT.open(f"{web_url}/json/", timeout=5) as response:
        return json.load(response)


def _alive_workers(web_url: str) -> int | None:
    """How many workers the master counts alive; None while it does not answer."""
    try:
        return int(master_status(web_url)["aliveworkers"])
    except (urllib.error.URLError, ConnectionError, TimeoutError, ValueError, KeyError):
        return None


@dataclass(frozen=True)
class StandaloneCluster:
    master_url: str  # spark://127.0.0.1:PORT
    web_url: str  # the master's UI
    work_dir: Path  # the worker's: <application id>/<executor id>/stderr is an executor's log
    daemons: tuple[Daemon, ...]

    def status(self) -> dict[str, Any]:
        return master_status(self.web_url)

    def executor_logs(self, application_id: str) -> list[Path]:
        """The log of each executor the worker ran for ``application_id``."""
        return sorted((self.work_dir / application_id).glob("*/stderr"))

    def driver_conf(self) -> dict[str, str]:
        """What a driver of this cluster sets: loopback addresses (executors connect back to
        it), one executor that fits the worker, the same JVM flags."""
        return {
            "spark.driver.host": LOOPBACK,
            "spark.driver.bindAddress": LOOPBACK,
            "spark.cores.max": "1",
            "spark.executor.cores": "1",
            "spark.executor.memory": "512m",
            "spark.driver.extraJavaOptions": JVM_FLAGS,
            "spark.executor.extraJavaOptions": JVM_FLAGS,
        }

    def listening_addresses(self) -> set[str]:
        return set().union(*(d.listening_addresses() for d in self.daemons))


@contextmanager
def standalone_cluster(work: Path) -> Iterator[StandaloneCluster]:
    """A master and one worker (1 core, 1 GiB) on free loopback ports, for the block."""
    env = spark_environment(work)
    master_port, master_ui, worker_port, worker_ui = _free_ports(4)
    master_url, web_url = f"spark://{LOOPBACK}:{master_port}", f"http://{LOOPBACK}:{master_ui}"
    work_dir = work / "worker"
    spark_class = str(SPARK_HOME / "bin" / "spark-class")
    master_command = [
        *(spark_class, "org.apache.spark.deploy.master.Master", "--host", LOOPBACK),
        *("--port", str(master_port), "--webui-port", str(master_ui)),
    ]
    worker_command = [
        *(spark_class, "org.apache.spark.deploy.worker.Worker", "--host", LOOPBACK),
        *("--port", str(worker_port), "--webui-port", str(worker_ui)),
        *("--cores", "1", "--memory", "1g", "--work-dir", str(work_dir), master_url),
    ]
    with ExitStack() as stack:
        master = _start("the standalone master", master_command, env, work / "master.log")
        stack.callback(master.stop)
        _wait_until(master, lambda: _alive_workers(web_url) is not None, "answer on its web UI")
        worker = _start("the standalone worker", worker_command, env, work / "worker.log")
        stack.callback(worker.stop)
        _wait_until(worker, lambda: (_alive_workers(web_url) or 0) >= 1, "join the master")
        yield StandaloneCluster(master_url, web_url, work_dir, (master, worker))


@dataclass(frozen=True)
class ConnectServer:
    url: str  # sc://127.0.0.1:PORT
    master: str  # the server's own SparkContext's
    daemon: Daemon


def _accepts_connections(port: int) -> bool:
    try:
        with socket.create_connection((LOOPBACK, port), timeout=1):
            return True
    except OSError:
        return False


@contextmanager
def connect_server(work: Path, conf: Mapping[str, str] | None = None) -> Iterator[ConnectServer]:
    """A Spark Connect server on a free loopback port, for the block; ``conf`` becomes its
    defaults (spark-submit ``--conf``)."""
    env = spark_environment(work)
    (port,) = _free_ports(1)
    master = "local[1]"
    settings = {
        "spark.connect.grpc.binding.address": LOOPBACK,
        "spark.connect.grpc.binding.port": str(port),
        "spark.driver.host": LOOPBACK,
        "spark.driver.bindAddress": LOOPBACK,
        "spark.ui.enabled": "false",
        **(conf or {}),
    }
    command = [str(SPARK_HOME / "bin" / "spark-submit"), "--class", CONNECT_SERVER_CLASS]
    command += ["--name", "Spark Connect server", "--master", master]
    command += ["--driver-memory", "1g", "--driver-java-options", JVM_FLAGS]
    for key, value in settings.items():
        command += ["--conf", f"{key}={value}"]
    with ExitStack() as stack:
        server = _start("the Spark Connect server", command, env, work / "connect.log")
        stack.callback(server.stop)
        _wait_until(server, lambda: _accepts_connections(port), f"listen on port {port}")
        yield ConnectServer(f"sc://{LOOPBACK}:{port}", master, server)


@dataclass(frozen=True)
class DriverRequest:
    master: str  # SparkEngine's: spark://host:port or sc://host:port
    lake_root: str
    tables: tuple[str, ...]  # legacy tables, translated and built with build_table
    report_path: str
    # name -> ANSI SQL over the raw tables, built with SparkEngine.build into out_root/name
    queries: dict[str, str] = field(default_factory=dict)
    out_root: str = ""
    conf: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class DriverReport:
    master: str  # what the session ran on: its SparkContext's, or the Connect server's
    application_id: str
    connect_client: bool  # the session was a Spark Connect client's (no JVM of its own)
    versions: dict[str, str]  # warehouse table -> the version it published
    errors: dict[str, str]  # query -> EngineError message, for those that failed


def run_driver(request: DriverRequest, env: Mapping[str, str], log: Path) -> DriverReport:
    """Run ``request`` in a driver process of its own and return its report.

    Its own process because a Python process holds one SparkContext, and pyspark's Connect
    mode is process-wide (``SparkSession.builder.remote`` refuses while a classic context
    runs, and marks the process as a Connect client for good): in a test process that already
    holds conftest's local session, ``SparkEngine("spark://...")`` would get that session back
    and run locally, and a Connect session would be refused. A Dagster step has its own
    process too.
    """
    with log.open("wb") as output:
        process = start_group(  # the driver's JVM goes with it
            [sys.executable, "-m", "tests.spark_cluster"],
            cwd=REPOSITORY_ROOT,
            stdin=subprocess.PIPE,
            stdout=output,
            stderr=subprocess.STDOUT,
            env=dict(env),
        )
    try:
        process.communicate(json.dumps(asdict(request)).encode(), timeout=DRIVER_SECONDS)
    except subprocess.TimeoutExpired:
        stop_group(process)
        raise SparkServerError(
            f"the driver did not finish within {DRIVER_SECONDS:.0f} s; its log ({log}) ends:\n"
            f"{log.read_text(errors='replace')[-4000:]}"
        ) from None
    finally:
        _kill_group(process.pid)
    if process.returncode != 0:
        raise SparkServerError(
            f"the driver exited with {process.returncode}; its log ({log}) ends:\n"
            f"{log.read_text(errors='replace')[-4000:]}"
        )
    return DriverReport(**json.loads(Path(request.report_path).read_text()))


def legacy_tables(names: Sequence[str], catalog: Catalog) -> list[WarehouseTable]:
    """The warehouse tables ``names``, as the code location defines them, each with its
    legacy file's translation, in the order of ``names``."""
    from pipelines.translation.store import TranslatedSource, legacy_sources, translate_source
    from pipelines.warehouse.build import warehouse_tables

    sources = [s for s in legacy_sources() if s.name in names]
    translated = [TranslatedSource(s, translate_source(s, catalog).tables) for s in sources]
    tables = {t.name: t for t in warehouse_tables(translated) if t.name in names}
    missing = sorted(set(names) - set(tables))
    if missing:
        raise ValueError(f"no legacy file under sql/legacy/ defines {', '.join(missing)}")
    return [tables[name] for name in names]


def drive(request: DriverRequest) -> DriverReport:
    """Build ``request.tables`` with their blocking reconciliation check, then its queries,
    on ``SparkEngine(request.master)``."""
    from pipelines.contracts import Masker
    from pipelines.lake.store import Lake
    from pipelines.warehouse.build import build_table, reconciliation_check
    from pipelines.warehouse.engines.base import EngineError
    from pipelines.warehouse.engines.spark_engine import SparkEngine
    from pipelines.warehouse.reconcile import Thresholds
    from sql.catalog import load_catalog

    lake = Lake(request.lake_root)
    catalog = load_catalog()
    engine = SparkEngine(request.master, request.conf)
    try:
        versions = {}
        for table in legacy_tables(request.tables, catalog):
            assert table.ansi_sql is not None, f"{table.source_file} was refused"
            checks = [reconciliation_check(table, Thresholds(), Masker(MASKING_KEY))]
            built = build_table(lake, engine, table, table.ansi_sql, checks=checks, catalog=catalog)
            versions[table.name] = built.version.path.name
        raw = {key: path for key, path in lake.published().items() if key.startswith("raw.")}
        errors = {}
        for name, ansi_sql in request.queries.items():
            try:
                engine.build(ansi_sql, raw, Path(request.out_root) / name, file=f"{name}.sql")
            except EngineError as exc:
                errors[name] = str(exc)
        session = engine.session()
        # Looked up, not imported: without the Connect client's packages the import fails,
        # and a session cannot be a Connect one unless its module was loaded.
        connect = sys.modules.get("pyspark.sql.connect.session")
        connect_client = connect is not None and isinstance(session, connect.SparkSession)
        if connect_client:  # the server's settings: its SparkContext is not ours to see
            master = session.conf.get("spark.master")
            application_id = session.conf.get("spark.app.id")
        else:
            master = session.sparkContext.master
            application_id = session.sparkContext.applicationId
    finally:
        engine.stop()
    return DriverReport(str(master), str(application_id), connect_client, versions, errors)


if __name__ == "__main__":
    driver_request = DriverRequest(**json.loads(sys.stdin.read()))
    report = drive(driver_request)
    Path(driver_request.report_path).write_text(json.dumps(asdict(report)))
