"""One `plumbline run` of the model's path, built once per test session and read by every test
file that needs a home where it succeeded (``model_path_run`` in ``tests/conftest.py``).

The run is the user's: the console script, at the suite's scale, of the model and everything
it reads (`--select +key:models/audit_bundle`: the raw tables, delay_features, the training
set, the training, the registration and the audit bundle), into a fresh home with a local
MLflow store and the MLflow UI's address (PLUMBLINE_MLFLOW_UI_URL) on a port free when it
ran. `tests/browser` serves its pages; `tests/pipelines/cli/test_run_progress.py` reads its
console and runs again. About 100 s: built once instead of once per file.

Under xdist the first worker to ask builds it under a file lock (``flock``) in the session's
shared temporary folder (the pytest-xdist way to do something once across workers), records its
outcome beside it, and every other worker reads that record. The home is shared: a test never
writes to it. One that runs something over it (a second `plumbline run`, `dagster dev`,
whose instance writes into the home) works on a copy (:meth:`ModelPathRun.copy_home`).
"""

from __future__ import annotations

import fcntl
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
from dataclasses import asdict, dataclass
from pathlib import Path

from sql.paths import REPOSITORY_ROOT

PLUMBLINE = str(Path(sys.executable).parent / "plumbline")
SCALE = "0.01"  # tests/conftest.py's TEST_SCALE
SELECTION = "+key:models/audit_bundle"
# Below pytest-timeout's 600 s (the run is ~100 s alone, minutes on a loaded machine).
RUN_TIMEOUT = 540
RECORD = "run.json"


@dataclass(frozen=True)
class ModelPathRun:
    """The home `plumbline run` of the model's path left, and what it printed."""

    home: Path
    mlflow_ui_url: str
    returncode: int
    stdout: str
    stderr: str

    def copy_home(self, to: Path) -> Path:
        """A copy of the home at ``to`` (the lake's symlinks are relative: they stay inside
        the copy), for a test that runs something which writes into its home."""
        shutil.copytree(self.home, to, symlinks=True)
        return to


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _build(root: Path) -> ModelPathRun:
    home = root / "home"
    mlflow_ui_url = f"http://127.0.0.1:{_free_port()}"
    environment = {k: v for k, v in os.environ.items() if not k.startswith("PLUMBLINE_")}
    environment |= {"PLUMBLINE_HOME": str(home), "PLUMBLINE_MLFLOW_UI_URL": mlflow_ui_url}
    # Output to files, not pipes: a compute-log `tail -F` that outlives the run would hold a
    # pipe open (see tests/pipelines/cli/test_main.py's plumbline()).
    with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err:
        try:
            done = subprocess.run(
                [PLUMBLINE, "run", "--scale", SCALE, "--select", SELECTION],
                cwd=REPOSITORY_ROOT,
                stdout=out,
                stderr=err,
                stdin=subprocess.DEVNULL,
                text=True,
                env=environment,
                timeout=RUN_TIMEOUT,
            )
            returncode = done.returncode
        except subprocess.TimeoutExpired:
            returncode = -1
            err.write(f"\n(tests/model_path.py: the run took over {RUN_TIMEOUT} s)\n")
        out.seek(0)
        err.seek(0)
        return ModelPathRun(home, mlflow_ui_url, returncode, out.read(), err.read())


def _load(record: Path) -> ModelPathRun:
    fields = json.loads(record.read_text())
    return ModelPathRun(**(fields | {"home": Path(fields["home"])}))


def built_once(root: Path) -> ModelPathRun:
    """The run in ``root``: built there by the first caller (under a lock, so that concurrent
    callers in other processes wait for it), read from its record by the others. A failed run
    is recorded too, so that it fails each test that reads it once, not once per worker."""
    with open(f"{root}.lock", "a") as lock:
        # Released when the file closes, or when a builder that dies holding it goes.
        fcntl.flock(lock, fcntl.LOCK_EX)
        record = root / RECORD
        if record.exists():
            return _load(record)
        # A folder without a record is what a killed builder left: start again.
        shutil.rmtree(root, ignore_errors=True)
        root.mkdir(parents=True)
        run = _build(root)
        partial = root / f".{RECORD}.tmp"
        partial.write_text(json.dumps(asdict(run) | {"home": str(run.home)}))
        partial.replace(record)
        return run
