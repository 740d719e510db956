"""One rank of the 2-process DDP test: ``python ddp_worker.py DATA CHECKPOINTS RESULT``.

Started by test_distributed.py with torchrun's environment variables set by hand; trains on
the synthetic training set at DATA and writes what the test compares to RESULT (JSON).
"""

from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path

from models import trainer as trainer_module
from models.config import ModelConfig, TrainConfig
from models.data import load_splits
from models.runtime import init_distributed, select_runtime, shutdown_distributed
from models.setup import prepare
from models.trainer import Trainer

CONFIG = TrainConfig(epochs=2, batch_size=64, learning_rate=1e-2, num_threads=1)
# Steps of 64 rows in passes of 16: the run accumulates three passes under DDP's no_sync()
# and all-reduces in the fourth, as a default-sized batch would on CPU.
trainer_module.CPU_MICRO_BATCH_ROWS = 16


def main(data_path: str, checkpoint_dir: str, result_path: str) -> None:
    runtime = select_runtime()
    init_distributed(runtime)
    try:
        prepared = prepare(
            load_splits(data_path), ModelConfig(embedding_dim=4, hidden=(16,)), CONFIG, runtime
        )
        model, loader = prepared.model, prepared.loader
        validation = prepared.encoded["validation"]
        trainer = Trainer(
            model,
            loader,
            runtime,
            CONFIG,
            checkpoint_dir=Path(checkpoint_dir),
            validation=validation,
        )
        history = trainer.fit()
        weights = hashlib.sha256()
        for tensor in trainer.model.state_dict().values():
            weights.update(tensor.numpy().tobytes())
        result = {
            "rank": runtime.rank,
            "backend": runtime.backend,
            "train_rows": len(prepared.encoded["train"][1]),
            "steps_per_epoch": trainer.steps_per_epoch,
            "history": history,
            "weights_sha256": weights.hexdigest(),
        }
        Path(result_path).write_text(json.dumps(result))
    finally:
        shutdown_distributed()


if __name__ == "__main__":
    main(*sys.argv[1:])
