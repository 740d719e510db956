"""Reading ``deploy/*.yaml``: one error type that names the file and the field."""

from __future__ import annotations

import math
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import yaml

REPOSITORY = Path(__file__).resolve().parents[2]
DEPLOY_DIR = REPOSITORY / "deploy"
# Where `plumbline bench gpu` writes its results by default.
GPU_BENCH_RESULTS = REPOSITORY / "benchmarks" / "results" / "gpu.json"
# What a file writes for a number or version nobody has measured: never a guess.
UNKNOWN = "unknown"


class DeployFileError(ValueError):
    """A ``deploy/*.yaml`` file is missing, unparseable, or has a field plumbline cannot use."""

    def __init__(self, path: Path, field: str | None, problem: str) -> None:
        self.path = Path(path)
        self.field = field
        where = f"{self.path}: {field}" if field else str(self.path)
        super().__init__(f"{where}: {problem}")


def load_mapping(path: Path, expected_version: int = 1) -> dict[str, Any]:
    """The top-level mapping of ``path``, after checking its ``version``."""
    path = Path(path)
    try:
        document = yaml.safe_load(path.read_text())
    except FileNotFoundError:
        raise DeployFileError(path, None, "file not found") from None
    except yaml.YAMLError as exc:
        raise DeployFileError(path, None, f"not valid YAML: {exc}") from exc
    if not isinstance(document, dict):
        raise DeployFileError(path, None, "expected a mapping at the top level")
    if document.get("version") != expected_version:
        raise DeployFileError(
            path, "version", f"expected {expected_version}; got {document.get('version')!r}"
        )
    return document


def require(mapping: Mapping[str, Any], key: str, path: Path, field: str) -> Any:
    if key not in mapping:
        raise DeployFileError(path, field, "required field is missing")
    return mapping[key]


def require_mapping(value: Any, path: Path, field: str) -> Mapping[str, Any]:
    if not isinstance(value, Mapping):
        raise DeployFileError(path, field, f"expected a mapping; got {value!r}")
    return value


def require_text(value: Any, path: Path, field: str) -> str:
    if not isinstance(value, str) or not value.strip():
        raise DeployFileError(path, field, f"expected a non-empty string; got {value!r}")
    return value


def number_or_unknown(
    value: Any, path: Path, field: str, *, maximum: float | None = None
) -> float | None:
    """A positive finite number (at most ``maximum``), or None where the file says unknown."""
    if value == UNKNOWN:
        return None
    # bool is an int subclass; `true` is a typo, not 1.
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise DeployFileError(path, field, f"expected a number or {UNKNOWN!r}; got {value!r}")
    if not math.isfinite(value) or value <= 0 or (maximum is not None and value > maximum):
        bound = f"in (0, {maximum}]" if maximum is not None else "> 0"
        raise DeployFileError(path, field, f"expected a finite number {bound}; got {value!r}")
    return float(value)
