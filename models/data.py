"""From the training-set table to tensors: splits, preprocessing, dataset and loader.

The table is the ``training_set`` asset's Parquet folder: one row per line item, the
feature columns below, the label ``is_late`` and a ``split`` column.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from os import PathLike
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.dataset as ds
import torch
from torch.utils.data import DataLoader, Dataset
from torch.utils.data.distributed import DistributedSampler

CATEGORICAL: tuple[str, ...] = (
    "ship_mode",
    "ship_instruct",
    "order_priority",
    "customer_segment",
    "customer_region",
    "supplier_region",
)
NUMERIC: tuple[str, ...] = (
    "same_region",
    "quantity",
    "discount",
    "ship_lag_days",
    "commit_lag_days",
    "slack_days",
    "ship_iso_weekday",
)
LABEL = "is_late"
SPLIT = "split"
KEY: tuple[str, ...] = ("order_key", "line_number")
SPLITS: tuple[str, ...] = ("train", "validation", "test")

# Code of a category value the training split did not contain (or a null).
UNKNOWN_CODE = 0


class DataError(ValueError):
    """The training-set table cannot be used. The message names the path or column."""


def _require_columns(table: pa.Table, columns: tuple[str, ...], where: str) -> None:
    missing = [name for name in columns if name not in table.column_names]
    if missing:
        raise DataError(f"{where}: missing column(s) {missing}; it has {table.column_names}")


def _as_float64(table: pa.Table, name: str) -> np.ndarray:
    column = table[name]
    if column.null_count:
        raise DataError(
            f"column {name!r} has {column.null_count} null(s); numeric features must be complete"
        )
    # DECIMAL(15,2) and integers alike; the features end up float32, so float64 loses nothing.
    return pc.cast(column, pa.float64()).to_numpy()


@dataclass
class Preprocessing:
    """Category vocabularies and numeric standardization, fitted on the training split.

    Category ``vocabularies[name][i]`` encodes to ``i + 1``; code 0 is reserved for values the
    training split did not contain (and nulls), so the network always has a row for them.
    """

    vocabularies: dict[str, list[str]]
    means: dict[str, float]
    stds: dict[str, float]

    @classmethod
    def fit(cls, train: pa.Table) -> Preprocessing:
        """Learn vocabularies and mean/std from ``train``, which must be the training split
        alone: statistics from validation or test rows would leak them into the model."""
        _require_columns(train, CATEGORICAL + NUMERIC, "Preprocessing.fit")
        if train.num_rows == 0:
            raise DataError("Preprocessing.fit: the training table has no rows")
        if SPLIT in train.column_names:
            others = sorted(set(pc.unique(train[SPLIT]).to_pylist()) - {"train"}, key=str)
            if others:
                raise DataError(
                    f"Preprocessing.fit: got rows of split(s) {others}; fit on the 'train' split "
                    "only, or validation and test statistics leak into the model"
                )
        vocabularies = {
            name: sorted(pc.unique(pc.cast(train[name], pa.string())).drop_null().to_pylist())
            for name in CATEGORICAL
        }
        means: dict[str, float] = {}
        stds: dict[str, float] = {}
        for name in NUMERIC:
            values = _as_float64(train, name)
            means[name] = float(values.mean())
            std = float(values.std())
            # A constant column carries no information; dividing by 1 keeps it at 0 instead
            # of turning it into NaN.
            stds[name] = std if std > 0.0 and math.isfinite(std) else 1.0
        return cls(vocabularies=vocabularies, means=means, stds=stds)

    @property
    def cardinalities(self) -> tuple[int, ...]:
        """Embedding rows per categorical column, in ``CATEGORICAL`` order (vocabulary + unknown)."""
        return tuple(len(self.vocabularies[name]) + 1 for name in CATEGORICAL)

    def encode_features(self, table: pa.Table) -> torch.Tensor:
        """float32 ``[n, len(CATEGORICAL) + len(NUMERIC)]``: category codes, then standardized
        numerics. Needs no label, so it also serves inference."""
        _require_columns(table, CATEGORICAL + NUMERIC, "Preprocessing.encode")
        columns: list[np.ndarray] = []
        for name in CATEGORICAL:
            vocabulary = pa.array(self.vocabularies[name], type=pa.string())
            position = pc.index_in(pc.cast(table[name], pa.string()), value_set=vocabulary)
            columns.append(pc.fill_null(position, -1).to_numpy() + 1)
        for name in NUMERIC:
            columns.append((_as_float64(table, name) - self.means[name]) / self.stds[name])
        return torch.from_numpy(np.stack(columns, axis=1).astype(np.float32))

    def encode(self, table: pa.Table) -> tuple[torch.Tensor, torch.Tensor]:
        """Features (see :meth:`encode_features`) and float32 labels ``[n]``."""
        _require_columns(table, (LABEL,), "Preprocessing.encode")
        label = table[LABEL]
        if label.null_count:
            raise DataError(f"column {LABEL!r} has {label.null_count} null(s)")
        labels = pc.cast(label, pa.float32()).to_numpy()
        if not np.isin(labels, (0.0, 1.0)).all():
            raise DataError(f"column {LABEL!r} must hold only 0 and 1")
        return self.encode_features(table), torch.from_numpy(np.array(labels, dtype=np.float32))

    def to_json(self) -> str:
        """Stable JSON (sorted keys): equal preprocessing gives byte-equal text."""
        return json.dumps(
            {"vocabularies": self.vocabularies, "means": self.means, "stds": self.stds},
            sort_keys=True,
            indent=2,
        )

    @classmethod
    def from_json(cls, text: str) -> Preprocessing:
        values: dict[str, Any] = json.loads(text)
        expected = {"vocabularies": CATEGORICAL, "means": NUMERIC, "stds": NUMERIC}
        if sorted(values) != sorted(expected):
            raise DataError(
                f"preprocessing JSON must have keys {sorted(expected)}; got {sorted(values)}"
            )
        for key, columns in expected.items():
            if sorted(values[key]) != sorted(columns):
                raise DataError(
                    f"preprocessing JSON {key!r} must cover {sorted(columns)}; got {sorted(values[key])}"
                )
        return cls(
            vocabularies={name: list(values["vocabularies"][name]) for name in CATEGORICAL},
            means={name: float(values["means"][name]) for name in NUMERIC},
            stds={name: float(values["stds"][name]) for name in NUMERIC},
        )


def load_splits(path: str | PathLike[str]) -> dict[str, pa.Table]:
    """Read the training-set Parquet folder and split it by the ``split`` column.

    Each split is sorted by ``KEY`` so that the rows' order, and with it every shuffle and
    every trained weight, depends on the data alone and not on how it was cut into files.
    """
    location = str(path)
    try:
        table = ds.dataset(location, format="parquet").to_table()
    except (FileNotFoundError, pa.ArrowInvalid) as error:
        raise DataError(f"{location}: cannot read a Parquet table: {error}") from error
    _require_columns(table, KEY + CATEGORICAL + NUMERIC + (LABEL, SPLIT), location)
    present = set(pc.unique(table[SPLIT]).to_pylist())
    unexpected = sorted(present - set(SPLITS), key=str)
    if unexpected:
        raise DataError(f"{location}: column {SPLIT!r} has values {unexpected}; expected {SPLITS}")
    splits: dict[str, pa.Table] = {}
    for name in SPLITS:
        part = table.filter(pc.equal(table[SPLIT], name))
        if part.num_rows == 0:
            raise DataError(f"{location}: split {name!r} of column {SPLIT!r} has no rows")
        splits[name] = part.sort_by([(column, "ascending") for column in KEY])
    return splits


class TabularDataset(Dataset[tuple[torch.Tensor, torch.Tensor]]):
    """Encoded features and labels, indexed a whole batch at a time.

    The tensors may live on the GPU: batches are then gathered there, without a host copy.
    """

    def __init__(self, features: torch.Tensor, labels: torch.Tensor) -> None:
        if features.ndim != 2 or labels.ndim != 1 or len(features) != len(labels):
            raise DataError(
                f"TabularDataset needs features [n, d] and labels [n]; got "
                f"{tuple(features.shape)} and {tuple(labels.shape)}"
            )
        self.features = features
        self.labels = labels

    def __len__(self) -> int:
        return len(self.labels)

    def __getitem__(self, index: int) -> tuple[torch.Tensor, torch.Tensor]:
        return self.features[index], self.labels[index]

    def __getitems__(self, indices: list[int]) -> tuple[torch.Tensor, torch.Tensor]:
        # One gather per batch instead of one Python call and a stack per row: on a model
        # this small the per-row path costs more than the step itself.
        index = torch.as_tensor(indices, dtype=torch.long, device=self.features.device)
        return self.features[index], self.labels[index]


def _batch_as_is(batch: tuple[torch.Tensor, torch.Tensor]) -> tuple[torch.Tensor, torch.Tensor]:
    # __getitems__ already returns the batch; the default collate would split it up again.
    return batch


def make_loader(
    dataset: TabularDataset,
    batch_size: int,
    *,
    rank: int,
    world_size: int,
    seed: int,
    shuffle: bool,
) -> DataLoader[tuple[torch.Tensor, torch.Tensor]]:
    """A loader over this rank's shard of ``dataset``.

    ``DistributedSampler`` with ``drop_last=False`` pads the shards to equal length by
    repeating a few samples, so every rank runs the same number of steps; a rank with one
    step more would wait forever in DDP's gradient all-reduce. Call
    ``loader.sampler.set_epoch(epoch)`` before each epoch to reshuffle.
    """
    sampler = DistributedSampler(
        dataset,
        num_replicas=world_size,
        rank=rank,
        shuffle=shuffle,
        seed=seed,
        drop_last=False,
    )
    return DataLoader(
        dataset,
        batch_size=batch_size,
        sampler=sampler,
        num_workers=0,
        collate_fn=_batch_as_is,
    )
