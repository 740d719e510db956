"""No credential at rest or on screen: secrets planted in the environment of a whole
`plumbline run` (a tracking server's token in PLUMBLINE_MLFLOW_URI, an AWS secret key) are
found in no file of the home or the tracking server, in no compute log and in neither
stream of the console."""

import os
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from tests.mlflow_server import mlflow_server

pytestmark = pytest.mark.slow

PLUMBLINE = str(Path(sys.executable).parent / "plumbline")
TOKEN = "s3cr3t-token-7781"
AWS_SECRET = "aws-s3cr3t-key-9925"


def files_holding(root: Path, secret: bytes) -> list[str]:
    """Every file under ``root`` whose bytes hold ``secret`` (sqlite databases included)."""
    return sorted(
        str(path.relative_to(root))
        for path in root.rglob("*")
        if path.is_file() and not path.is_symlink() and secret in path.read_bytes()
    )


@pytest.fixture(scope="module")
def planted_run(tmp_path_factory):
    server_root = tmp_path_factory.mktemp("tracking")
    home = tmp_path_factory.mktemp("secrets") / "home"
    with mlflow_server(server_root) as uri:
        planted = uri.replace("http://", f"http://plumbline:{TOKEN}@")
        env = {k: v for k, v in os.environ.items() if not k.startswith(("PLUMBLINE_", "MLFLOW_"))}
        env |= {
            "PLUMBLINE_HOME": str(home),
            "PLUMBLINE_SCALE": "0.01",
            "PLUMBLINE_MLFLOW_URI": planted,
            "AWS_SECRET_ACCESS_KEY": AWS_SECRET,
        }
        # Files, not pipes: see tests/pipelines/cli/test_main.py's plumbline().
        with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err:
            done = subprocess.run(
                # Everything that talks to the tracking server (training, registration,
                # the audit bundle logged to the run) and all it reads; the other
                # warehouse tables hold no credential path of their own.
                [PLUMBLINE, "run", "--select", "+key:models/audit_bundle"],
                stdout=out,
                stderr=err,
                text=True,
                env=env,
                timeout=540,
            )
            out.seek(0)
            err.seek(0)
            yield done.returncode, out.read(), err.read(), home, server_root


def test_the_run_succeeds_against_the_tracking_server(planted_run):
    returncode, stdout, stderr, _, server_root = planted_run
    assert returncode == 0, stdout + stderr
    assert "materialized  models/registered_model" in stdout
    # The training run and the registered version are on the server, not in a local file.
    db = (server_root / "server.db").read_bytes()
    assert b"delivery_delay" in db


@pytest.mark.parametrize("secret", [TOKEN, AWS_SECRET])
def test_no_secret_is_written_or_shown(planted_run, secret):
    _, stdout, stderr, home, server_root = planted_run
    assert secret not in stdout
    assert secret not in stderr
    # The home holds the lake, the Dagster instance (event log, compute logs), training's
    # job.json and checkpoints, the MLflow artifacts and the audit bundle.
    assert (home / "dagster").is_dir() and (home / "training").is_dir()
    assert files_holding(home, secret.encode()) == []
    assert files_holding(server_root, secret.encode()) == []
