"""Configuration of the delivery-delay model and of its training run.

Both are frozen dataclasses validated on construction, so a bad value fails where it is
written (run config, a test, a checkpoint) with the field's name and the accepted range,
rather than as a shape error deep inside torch. ``to_dict``/``from_dict`` give plain JSON
values for MLflow parameters and checkpoints.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import asdict, dataclass, fields
from typing import Any, Self, TypeVar


class ConfigError(ValueError):
    """A configuration value is out of range. The message names the field and what it accepts."""

    def __init__(self, field: str, accepted: str, got: object) -> None:
        self.field = field
        super().__init__(f"{field} must be {accepted}; got {got!r}")


def _is_int(value: object) -> bool:
    # bool is an int subclass; `epochs=True` is a mistake, not 1.
    return isinstance(value, int) and not isinstance(value, bool)


def _is_number(value: object) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _require_int(owner: str, name: str, value: object, minimum: int) -> None:
    if not _is_int(value) or value < minimum:
        raise ConfigError(f"{owner}.{name}", f"an integer >= {minimum}", value)


_Config = TypeVar("_Config", "ModelConfig", "TrainConfig")


def _from_dict(cls: type[_Config], values: Mapping[str, Any]) -> _Config:
    known = {f.name for f in fields(cls)}
    unknown = sorted(set(values) - known)
    if unknown:
        raise ConfigError(
            cls.__name__, f"given only the keys {sorted(known)}; unknown keys {unknown}", values
        )
    return cls(**values)


@dataclass(frozen=True)
class ModelConfig:
    """Shape of :class:`models.network.TabularNet`."""

    embedding_dim: int = 8
    """Width of each categorical column's embedding (>= 1)."""

    hidden: tuple[int, ...] = (64, 32)
    """Widths of the hidden layers, input side first; each >= 1. Empty means a linear model
    on the embeddings and numerics."""

    dropout: float = 0.0
    """Dropout probability after each hidden layer, in [0, 1). 0 adds no dropout layers."""

    def __post_init__(self) -> None:
        _require_int("ModelConfig", "embedding_dim", self.embedding_dim, 1)
        if not isinstance(self.hidden, tuple | list) or not all(
            _is_int(width) and width >= 1 for width in self.hidden
        ):
            raise ConfigError(
                "ModelConfig.hidden", "a sequence of integers, each >= 1", self.hidden
            )
        # JSON and MLflow give lists back; keep the dataclass hashable and comparable.
        object.__setattr__(self, "hidden", tuple(self.hidden))
        if not _is_number(self.dropout) or not 0.0 <= self.dropout < 1.0:
            raise ConfigError("ModelConfig.dropout", "a number in [0, 1)", self.dropout)

    def to_dict(self) -> dict[str, Any]:
        values = asdict(self)
        values["hidden"] = list(self.hidden)
        return values

    @classmethod
    def from_dict(cls, values: Mapping[str, Any]) -> Self:
        return _from_dict(cls, values)


# A data-sized batch (TrainConfig.batch_size None). DDP all-reduces once per step, and on
# gloo that costs ~1.3 ms whatever the gradient's size: a step of this small model must
# carry tens of thousands of rows for it to stay under a tenth of the step (1,024 rows:
# 40%; 32,768: 5-9%, two 1-thread ranks 1.5-1.7x one 1-thread process on 2 cores,
# docs/benchmarks.md). Small data still gets steps enough to learn: at TPC-H scale 0.01 a
# 32,768-row batch is one step per epoch, and the model stays far below the baseline.
MAX_DATA_SIZED_BATCH = 32768
MIN_DATA_SIZED_BATCH = 1024
STEPS_PER_EPOCH = 8


@dataclass(frozen=True)
class TrainConfig:
    """How :class:`models.trainer.Trainer` trains."""

    epochs: int = 4
    """Passes over the training split (>= 1). A run resumed from a checkpoint trains until
    this many epochs are done in total."""

    batch_size: int | None = None
    """Samples per optimizer step on each rank (>= 1); the global batch is this times the
    world size. None: sized to the data by :meth:`batch_for`. On CPU a step runs in passes
    of ``models.trainer.CPU_MICRO_BATCH_ROWS`` rows whose gradients accumulate, so a large
    batch costs no cache misses."""

    learning_rate: float = 1e-2
    """AdamW learning rate at the first step (> 0); it then decays exponentially, halving
    every epoch. 1e-2 with data-sized batches reaches the validation AUC that 3e-3 did with
    1024-row ones, within 0.0013 at TPC-H scales 0.01 to 1 (benchmarks/training_bench.py)."""

    weight_decay: float = 1e-5
    """AdamW decoupled weight decay (>= 0)."""

    seed: int = 0
    """Seeds torch, numpy, Python's random and the sampler's shuffle (0 <= seed < 2**32)."""

    num_threads: int | None = None
    """Torch intra-op threads per process (>= 1). None: on CPU, the machine's cores divided
    by the world size, so that ranks on one machine do not oversubscribe it; on GPU, torch's
    default."""

    def __post_init__(self) -> None:
        _require_int("TrainConfig", "epochs", self.epochs, 1)
        if self.batch_size is not None:
            _require_int("TrainConfig", "batch_size", self.batch_size, 1)
        if not _is_number(self.learning_rate) or not 0.0 < self.learning_rate < float("inf"):
            raise ConfigError(
                "TrainConfig.learning_rate", "a finite number > 0", self.learning_rate
            )
        if not _is_number(self.weight_decay) or not 0.0 <= self.weight_decay < float("inf"):
            raise ConfigError("TrainConfig.weight_decay", "a finite number >= 0", self.weight_decay)
        # numpy's legacy seeding accepts only 32-bit seeds.
        if not _is_int(self.seed) or not 0 <= self.seed < 2**32:
            raise ConfigError("TrainConfig.seed", "an integer in [0, 2**32)", self.seed)
        if self.num_threads is not None:
            _require_int("TrainConfig", "num_threads", self.num_threads, 1)

    def batch_for(self, train_rows: int, world_size: int) -> int:
        """Rows per rank and step: ``batch_size``, or, when it is None, the power of two
        at or above an eighth of a rank's share of ``train_rows``, within
        [MIN_DATA_SIZED_BATCH, MAX_DATA_SIZED_BATCH] (4 to 8 steps per epoch and rank below
        the maximum)."""
        if self.batch_size is not None:
            return self.batch_size
        per_step = math.ceil(math.ceil(train_rows / world_size) / STEPS_PER_EPOCH)
        power = 1 << max(0, per_step - 1).bit_length()
        return min(MAX_DATA_SIZED_BATCH, max(MIN_DATA_SIZED_BATCH, power))

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, values: Mapping[str, Any]) -> Self:
        return _from_dict(cls, values)
