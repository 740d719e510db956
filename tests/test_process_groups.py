"""No server a test starts outlives the test run, however it ends (issue 44: an interrupted
`make test` left an `mlflow server` with its uvicorn and two Spark JVMs running, parentless).

Each case runs a real pytest session as a subprocess, with xdist as `make test` runs it and
tests/process_groups.py as its plugin: a fixture starts a server through `start_group` (a
process that listens on a socket and forks a worker, as uvicorn and a Spark worker do), the
test waits, and the session is interrupted: Ctrl-C (SIGINT to its process group, as a
terminal sends it), SIGTERM (a CI runner cancelling), SIGKILL, or a fixture that fails after
starting its server and never stops it. Then no process of the session or of the server's
group is left.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from tests.process_groups import group_alive

REPOSITORY = Path(__file__).resolve().parents[1]

SERVER = textwrap.dedent(
    """
    import os, socket, sys, time
    listening = socket.socket()
    listening.bind(("127.0.0.1", 0))
    listening.listen()
    if os.fork() == 0:  # a worker, as uvicorn forks
        time.sleep(600)
        os._exit(0)
    with open(sys.argv[1] + ".tmp", "w") as f:
        f.write(str(os.getpgid(0)))
    os.rename(sys.argv[1] + ".tmp", sys.argv[1])
    time.sleep(600)
    """
)

SESSION = textwrap.dedent(
    """
    import os, sys, time
    import pytest
    from tests.process_groups import start_group, stop_group

    @pytest.fixture
    def server():
        process = start_group([sys.executable, os.environ["SERVER"], os.environ["GROUP_FILE"]])
        if os.environ.get("FAIL_FIXTURE"):
            raise RuntimeError("the fixture fails after starting its server")
        yield process
        stop_group(process)

    def test_waits(server):
        time.sleep(600)
    """
)


@pytest.mark.parametrize("ending", ["ctrl-c", "sigterm", "sigkill", "failed-fixture"])
def test_no_process_of_an_interrupted_session_is_left(tmp_path, ending):
    (tmp_path / "server.py").write_text(SERVER)
    (tmp_path / "test_session.py").write_text(SESSION)
    (tmp_path / "pytest.ini").write_text("[pytest]\n")
    group_file = tmp_path / "group"
    env = {
        **os.environ,
        "PYTHONPATH": str(REPOSITORY),
        "SERVER": str(tmp_path / "server.py"),
        "GROUP_FILE": str(group_file),
        **({"FAIL_FIXTURE": "1"} if ending == "failed-fixture" else {}),
    }
    session = subprocess.Popen(
        [
            *(sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider"),
            *("-p", "tests.process_groups", "-n", "1", "test_session.py"),
        ],
        cwd=tmp_path,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        start_new_session=True,  # a terminal's foreground group: what Ctrl-C reaches
    )
    try:
        deadline = time.monotonic() + 120
        while not group_file.exists():
            assert session.poll() is None, session.stdout.read().decode()
            assert time.monotonic() < deadline, "the session's server did not start"
            time.sleep(0.1)
        server_group = int(group_file.read_text())
        assert group_alive(server_group)
        if ending != "failed-fixture":
            time.sleep(0.5)  # the test is waiting
            os.killpg(
                session.pid,
                {"ctrl-c": signal.SIGINT, "sigterm": signal.SIGTERM}.get(ending, signal.SIGKILL),
            )
        output = session.communicate(timeout=120)[0].decode()
        deadline = time.monotonic() + 30
        while (group_alive(server_group) or group_alive(session.pid)) and (
            time.monotonic() < deadline
        ):
            time.sleep(0.1)
        assert not group_alive(server_group), f"the server outlived the session:\n{output}"
        assert not group_alive(session.pid), output
    finally:
        for group in (session.pid, *([int(group_file.read_text())] if group_file.exists() else [])):
            if group_alive(group):
                os.killpg(group, signal.SIGKILL)
        session.wait()
