"""A `plumbline run` killed mid-build leaves a STARTED run and a staging folder; the next
`plumbline run` on the home marks the first failed, with a note in its log, and removes the
folder."""

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import dagster as dg
import pytest

from tests.pipelines.cli.test_main import plumbline
from tests.tmpfs import tmpfs

pytestmark = pytest.mark.slow

PLUMBLINE = str(Path(sys.executable).parent / "plumbline")


def test_the_next_run_heals_what_a_killed_run_left(tmp_path, monkeypatch):
    home = tmp_path / "home"
    env = {k: v for k, v in os.environ.items() if not k.startswith("PLUMBLINE_")}
    env["PLUMBLINE_HOME"] = str(home)
    killed = subprocess.Popen(
        [PLUMBLINE, "run", "--scale", "0.1", "--select", "key:raw/lineitem"],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    deadline = time.monotonic() + 400
    while not list(home.glob("lake/*/.versions/*/.staging-*")):
        assert killed.poll() is None, "the run ended before it staged anything"
        assert time.monotonic() < deadline, "no staging folder appeared within 400 s"
        time.sleep(0.05)
    os.killpg(killed.pid, signal.SIGKILL)
    killed.wait()
    assert list(home.glob("lake/*/.versions/*/.staging-*"))

    monkeypatch.setenv("DAGSTER_HOME", str(home / "dagster"))
    with dg.DagsterInstance.get() as instance:
        [abandoned] = instance.get_runs()
        assert abandoned.status == dg.DagsterRunStatus.STARTED

    again = plumbline(
        "run", "--scale", "0.01", "--select", "key:raw/region", env={"PLUMBLINE_HOME": str(home)}
    )
    assert again.returncode == 0, again.stdout + again.stderr
    assert "1 abandoned run(s) marked failed, 1 staging folder(s) of dead builds removed" in (
        again.stdout
    )
    assert not list(home.glob("lake/*/.versions/*/.staging-*"))
    with dg.DagsterInstance.get() as instance:
        assert instance.get_run_by_id(abandoned.run_id).status == dg.DagsterRunStatus.FAILURE
        logs = instance.all_logs(abandoned.run_id, of_type=dg.DagsterEventType.RUN_FAILURE)
        assert "was abandoned" in logs[-1].message


@pytest.fixture
def small_lake(tmp_path):
    """A home whose lake is a 1 MiB tmpfs."""
    with tmpfs(tmp_path / "home" / "lake", "1m"):
        yield tmp_path / "home"


def test_a_full_disk_fails_in_one_line_and_the_next_run_succeeds(small_lake, monkeypatch):
    home = small_lake
    env = {"PLUMBLINE_HOME": str(home)}
    full = plumbline("run", "--scale", "0.01", "--select", "key:raw/lineitem", env=env)
    assert full.returncode == 1, full.stdout + full.stderr
    [line] = [line for line in full.stderr.splitlines() if line.startswith("plumbline: error:")]
    assert f"the disk under {home / 'lake'}" in line and "is full (free now: " in line
    assert "Traceback" not in full.stdout + full.stderr
    assert not list(home.glob("lake/*/.versions/*/.staging-*"))  # nothing half-written
    monkeypatch.setenv("DAGSTER_HOME", str(home / "dagster"))
    with dg.DagsterInstance.get() as instance:
        [failed] = instance.get_runs()
        assert failed.status == dg.DagsterRunStatus.FAILURE

    subprocess.run(["mount", "-o", "remount,size=64m", str(home / "lake")], check=True)
    again = plumbline("run", "--scale", "0.01", "--select", "key:raw/lineitem", env=env)
    assert again.returncode == 0, again.stdout + again.stderr
    assert "materialized  raw/lineitem" in again.stdout
