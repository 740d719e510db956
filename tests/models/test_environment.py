"""The environment fingerprint a training run records."""

import platform

import torch

from models.environment import fingerprint


def test_fingerprint_names_the_interpreter_torch_and_key_packages():
    info = fingerprint()
    assert info["python"] == platform.python_version()
    assert info["torch"] == torch.__version__
    assert {"numpy", "pyarrow", "mlflow"} <= set(info)
    assert all(isinstance(v, str) and v for v in info.values())
    # GPU fields appear only where there is a GPU (never invented on a CPU machine).
    assert ("cuda" in info) == torch.cuda.is_available()
