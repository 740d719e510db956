"""`plumbline run` refuses in seconds what would fail later: an MLflow server that does not
answer (or refuses the credentials), and a scale that does not fit the disk or memory."""

import http.server
import threading
import time

import pytest

from pipelines.cli.preflight import (
    MLFLOW_ANSWER_SECONDS,
    PreflightError,
    check_footprint,
    check_mlflow,
    footprint,
)
from pipelines.settings import Settings
from tests.mlflow_server import free_port
from tests.pipelines.cli.test_main import plumbline


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
    result = plumbline("run", "--scale", "1e9", env={"PLUMBLINE_HOME": str(tmp_path / "home")})
    assert result.returncode == 1
    [line] = result.stderr.splitlines()
    assert line.startswith("plumbline: error: scale 1e+09 needs about ")
    assert "(free: " in line
