"""The environment fingerprint a training run records."""

import hashlib
import platform

import pytest
import torch

from models import environment
from models.environment import fingerprint
from sql.paths import REPOSITORY_ROOT


def test_fingerprint_names_the_interpreter_torch_and_key_packages():
    info = fingerprint()
    assert info["python"] == platform.python_version()
    assert info["torch"] == torch.__version__
    assert {"numpy", "pyarrow", "mlflow"} <= set(info)
    assert all(isinstance(v, str) and v for v in info.values())
    # GPU fields appear only where there is a GPU (never invented on a CPU machine).
    assert ("cuda" in info) == torch.cuda.is_available()


@pytest.mark.parametrize(
    ("content", "recorded"),
    [
        # sha256 test vectors (FIPS 180-2), so that the digest is checked, not re-derived.
        (b"abc", "sha256:ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
        (b"", "sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"),
        (None, "absent"),
    ],
)
def test_fingerprint_records_the_digest_of_the_installed_lock(
    tmp_path, monkeypatch, content, recorded
):
    lock = tmp_path / "plumbline-requirements.lock"
    if content is not None:
        lock.write_bytes(content)
    monkeypatch.setattr(environment, "INSTALLED_LOCK", lock)
    assert fingerprint()["requirements_lock"] == recorded


def test_this_environment_records_the_lock_make_install_installed():
    # make install copies requirements/dev.lock into .venv; a stale copy means the environment
    # was built from another lock than the checkout's, and runs would record the wrong one.
    lock = REPOSITORY_ROOT / "requirements" / "dev.lock"
    expected = "sha256:" + hashlib.sha256(lock.read_bytes()).hexdigest()
    assert fingerprint()["requirements_lock"] == expected, "run `make install`"
