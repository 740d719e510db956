"""The pinned environment per hardware type, and which fields of a run drifted from it.

``deploy/baseline.yaml`` pins, per hardware type, the versions a healthy node runs (GPU
model, driver, CUDA, cuDNN, NCCL, torch, VBIOS; Python and key packages on CPU). Fields are
named as in :func:`models.environment.fingerprint`. A field the baseline does not pin, or
pins as ``unknown``, is not compared.

A pinned value matches the recorded one exactly, or as a leading version prefix that ends at
a component boundary: ``3.11`` pins any ``3.11.x``, ``2.13.0`` matches ``2.13.0+cpu``, but
``3.1`` does not match ``3.11.7`` and ``NVIDIA H100`` does not match ``NVIDIA H100 NVL``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from pipelines.cluster.deploy_files import (
    DEPLOY_DIR,
    UNKNOWN,
    DeployFileError,
    load_mapping,
    require,
    require_mapping,
    require_text,
)

BASELINE = DEPLOY_DIR / "baseline.yaml"
# What may follow a version prefix: 3.11|.7, 2.13.0|+cpu, 12.4|-1.
_VERSION_BOUNDARIES = ".+-"


@dataclass(frozen=True)
class Baseline:
    hardware: str
    pins: Mapping[str, str]  # fingerprint field -> expected value
    unpinned: tuple[str, ...]  # fields the file lists as unknown: not yet pinned
    note: str


@dataclass(frozen=True)
class Baselines:
    path: Path
    by_hardware: Mapping[str, Baseline]

    def get(self, hardware: str) -> Baseline | None:
        return self.by_hardware.get(hardware)


def load_baselines(path: Path = BASELINE) -> Baselines:
    path = Path(path)
    document = load_mapping(path)
    sections = require_mapping(require(document, "baselines", path, "baselines"), path, "baselines")
    by_hardware = {}
    for hardware, raw in sections.items():
        where = f"baselines.{hardware}"
        section = require_mapping(raw, path, where)
        note = require_text(require(section, "note", path, f"{where}.note"), path, f"{where}.note")
        raw_pins = require_mapping(
            require(section, "pins", path, f"{where}.pins"), path, f"{where}.pins"
        )
        pins, unpinned = {}, []
        for field, value in raw_pins.items():
            if not isinstance(value, str):
                # YAML reads 3.10 as the float 3.1: a version must be quoted to survive.
                raise DeployFileError(
                    path,
                    f"{where}.pins.{field}",
                    f"write versions as quoted strings (e.g. '3.11'); got {value!r}",
                )
            if value == UNKNOWN:
                unpinned.append(str(field))
            else:
                pins[str(field)] = value
        by_hardware[str(hardware)] = Baseline(str(hardware), pins, tuple(unpinned), note)
    return Baselines(path, by_hardware)


def version_matches(expected: str, got: str) -> bool:
    if got == expected:
        return True
    return got.startswith(expected) and got[len(expected)] in _VERSION_BOUNDARIES


@dataclass(frozen=True)
class Drift:
    field: str
    expected: str
    got: str | None  # None: the run did not record the field

    def __str__(self) -> str:
        got = "missing" if self.got is None else self.got
        return f"{self.field}: expected {self.expected}, got {got}"


def drifted_fields(baseline: Baseline, environment: Mapping[str, str]) -> list[Drift]:
    """Every pinned field the run's environment does not match, in the baseline's order; a
    pinned field the run did not record is drift too."""
    drifts = []
    for field, expected in baseline.pins.items():
        got = environment.get(field)
        if got is None or not version_matches(expected, str(got)):
            drifts.append(Drift(field, expected, None if got is None else str(got)))
    return drifts


@dataclass(frozen=True)
class EnvironmentVerdict:
    hardware: str
    drifts: list[Drift]
    compared: tuple[str, ...]  # the pinned fields that were compared
    unpinned: tuple[str, ...]
    passed: bool
    message: str


def check_environment(
    baselines: Baselines, hardware: str, environment: Mapping[str, str]
) -> EnvironmentVerdict:
    """Drift of ``environment`` from the baseline of ``hardware``. Hardware without a
    baseline, or whose baseline pins nothing yet, passes and says that nothing was compared:
    there is no pinned truth to fail against."""
    baseline = baselines.get(hardware)
    if baseline is None:
        return EnvironmentVerdict(
            hardware, [], (), (), True, f"no baseline for {hardware} in {baselines.path.name}"
        )
    compared = tuple(baseline.pins)
    pending = (
        f"; not pinned yet: {', '.join(baseline.unpinned)} ({baseline.note})"
        if baseline.unpinned
        else ""
    )
    if not compared:
        message = f"baseline for {hardware} pins no field yet: nothing compared{pending}"
        return EnvironmentVerdict(hardware, [], compared, baseline.unpinned, True, message)
    drifts = drifted_fields(baseline, environment)
    if drifts:
        message = (
            f"{len(drifts)} field(s) drifted from the {hardware} baseline: "
            + "; ".join(str(d) for d in drifts)
            + pending
        )
    else:
        message = f"matches the {hardware} baseline on {', '.join(compared)}{pending}"
    return EnvironmentVerdict(hardware, drifts, compared, baseline.unpinned, not drifts, message)
