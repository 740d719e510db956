"""From the training set's splits to what a training process runs: preprocessing fitted on
the training split, every split encoded, the seeded network and the rank's loader. One
place for the entrypoint, the benchmark and the DDP test worker."""

from __future__ import annotations

from dataclasses import dataclass, replace

import pyarrow as pa
import torch

from models.config import ModelConfig, TrainConfig
from models.data import NUMERIC, BatchLoader, Preprocessing, TabularDataset, make_loader
from models.network import TabularNet
from models.runtime import Runtime, seed_everything


@dataclass(frozen=True)
class Prepared:
    preprocessing: Preprocessing
    encoded: dict[str, tuple[torch.Tensor, torch.Tensor]]  # split -> (features, labels)
    model: TabularNet
    loader: BatchLoader
    # The configuration trained with: batch_size resolved (TrainConfig.batch_for).
    train_config: TrainConfig


def prepare(
    splits: dict[str, pa.Table],
    model_config: ModelConfig,
    train_config: TrainConfig,
    runtime: Runtime,
) -> Prepared:
    # Vocabularies and scaling come from the training split only; they ship with the model.
    preprocessing = Preprocessing.fit(splits["train"])
    encoded = {name: preprocessing.encode(table) for name, table in splits.items()}
    seed_everything(train_config.seed)  # the same initial weights on every run
    model = TabularNet(preprocessing.cardinalities, len(NUMERIC), model_config)
    train_rows = len(encoded["train"][1])
    train_config = replace(
        train_config, batch_size=train_config.batch_for(train_rows, runtime.world_size)
    )
    loader = make_loader(
        TabularDataset(*encoded["train"]),
        train_config.batch_size,
        rank=runtime.rank,
        world_size=runtime.world_size,
        seed=train_config.seed,
        shuffle=True,
    )
    return Prepared(preprocessing, encoded, model, loader, train_config)
