"""Reference throughput per hardware and model configuration, and the throughput-gap verdict.

``deploy/reference_profiles.yaml`` lists what a healthy machine of each kind delivers for a
model configuration; a run well below it points at software, drivers or configuration (a
slow or drifted cluster) rather than at the model.
"""

from __future__ import annotations

import statistics
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pipelines.cluster.deploy_files import (
    DEPLOY_DIR,
    DeployFileError,
    load_mapping,
    number_or_unknown,
    require,
    require_mapping,
    require_text,
)

REFERENCE_PROFILES = DEPLOY_DIR / "reference_profiles.yaml"
DEFAULT_THRESHOLD = 0.92


def config_key(
    model_config: Mapping[str, Any], train_config: Mapping[str, Any], world_size: int
) -> str:
    """What of a training's configuration sets its throughput, as a stable name:
    ``batch1024-embed8-hidden64x32-world2`` (batch size per rank, embedding width, hidden
    widths, processes). Learning rate, seed and epochs do not change samples/s."""
    hidden = "x".join(str(width) for width in model_config["hidden"]) or "none"
    return (
        f"batch{train_config['batch_size']}-embed{model_config['embedding_dim']}"
        f"-hidden{hidden}-world{world_size}"
    )


@dataclass(frozen=True)
class Reference:
    """One profile entry; ``samples_per_second``/``mfu`` are None where nobody measured them."""

    hardware: str
    config: str
    samples_per_second: float | None
    mfu: float | None
    note: str

    @property
    def label(self) -> str:
        return f"{self.hardware}/{self.config}"


@dataclass(frozen=True)
class ReferenceProfiles:
    path: Path
    entries: Mapping[tuple[str, str], Reference]

    def lookup(self, hardware: str, config: str) -> Reference:
        """The entry for ``hardware``/``config``; an all-unknown one when the file has none."""
        found = self.entries.get((hardware, config))
        if found is not None:
            return found
        return Reference(hardware, config, None, None, f"not in {self.path.name}")


def _text(entry: Mapping[str, Any], key: str, path: Path, where: str) -> str:
    return require_text(require(entry, key, path, f"{where}.{key}"), path, f"{where}.{key}")


def load_reference_profiles(path: Path = REFERENCE_PROFILES) -> ReferenceProfiles:
    path = Path(path)
    document = load_mapping(path)
    listed = require(document, "profiles", path, "profiles")
    if not isinstance(listed, list):
        raise DeployFileError(path, "profiles", f"expected a list of entries; got {listed!r}")
    entries: dict[tuple[str, str], Reference] = {}
    for index, raw in enumerate(listed):
        where = f"profiles[{index}]"
        entry = require_mapping(raw, path, where)
        hardware = _text(entry, "hardware", path, where)
        config = _text(entry, "config", path, where)
        reference = Reference(
            hardware=hardware,
            config=config,
            samples_per_second=number_or_unknown(
                require(entry, "samples_per_second", path, f"{where}.samples_per_second"),
                path,
                f"{where}.samples_per_second",
            ),
            mfu=number_or_unknown(
                require(entry, "mfu", path, f"{where}.mfu"), path, f"{where}.mfu", maximum=1.0
            ),
            # Every number says where it came from; an unknown one says why it is unknown.
            note=_text(entry, "note", path, where),
        )
        if (hardware, config) in entries:
            raise DeployFileError(path, where, f"a second entry for {hardware}/{config}")
        entries[(hardware, config)] = reference
    return ReferenceProfiles(path, entries)


def steady_state_samples_per_second(history: Sequence[Mapping[str, Any]]) -> float:
    """Median samples/s over the epochs after the first (all of them if there is one): the
    first epoch carries warm-up (allocator, thread pools, cuDNN autotuning) and the median
    keeps one disturbed epoch from deciding the verdict."""
    if not history:
        raise ValueError("steady_state_samples_per_second: the training history is empty")
    epochs = history[1:] if len(history) > 1 else history
    return float(statistics.median(float(record["samples_per_second"]) for record in epochs))


@dataclass(frozen=True)
class ThroughputGap:
    reference: Reference
    measured_samples_per_second: float
    measured_mfu: float | None
    threshold: float
    ratio: float | None  # measured / reference samples/s; None without a reference
    mfu_ratio: float | None  # measured / reference MFU, where both are known
    passed: bool
    message: str


def _relative(ratio: float) -> str:
    if ratio < 1.0:
        return f"{(1.0 - ratio):.1%} below"
    return f"{(ratio - 1.0):.1%} above"


def throughput_gap(
    measured_samples_per_s: float,
    measured_mfu: float | None,
    profile: Reference,
    threshold: float = DEFAULT_THRESHOLD,
) -> ThroughputGap:
    """Compare a run with its reference. It passes when samples/s (and MFU, where both the
    run and the reference know it) reach ``threshold`` of the reference; with no reference
    number it passes and says there was nothing to compare with."""
    if not 0.0 < threshold <= 1.0:
        raise ValueError(f"throughput threshold must be in (0, 1]; got {threshold!r}")
    if measured_samples_per_s <= 0:
        raise ValueError(f"measured samples/s must be > 0; got {measured_samples_per_s!r}")
    measured = f"measured {measured_samples_per_s:,.0f} samples/s"

    def verdict(ratio, mfu_ratio, passed, message) -> ThroughputGap:
        return ThroughputGap(
            profile,
            measured_samples_per_s,
            measured_mfu,
            threshold,
            ratio,
            mfu_ratio,
            passed,
            message,
        )

    if profile.samples_per_second is None:
        return verdict(
            None,
            None,
            True,
            f"no reference for {profile.label} ({profile.note}); {measured}, not compared",
        )
    ratio = measured_samples_per_s / profile.samples_per_second
    parts = [
        f"{_relative(ratio)} the reference {profile.samples_per_second:,.0f} samples/s for "
        f"{profile.label}: {measured}"
    ]
    mfu_ratio = None
    if profile.mfu is not None and measured_mfu is not None:
        mfu_ratio = measured_mfu / profile.mfu
        parts.append(
            f"MFU {measured_mfu:.1%} is {_relative(mfu_ratio)} the reference MFU {profile.mfu:.1%}"
        )
    passed = ratio >= threshold and (mfu_ratio is None or mfu_ratio >= threshold)
    parts.append(f"threshold {threshold:.0%} of reference")
    return verdict(ratio, mfu_ratio, passed, "; ".join(parts))
