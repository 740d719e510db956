"""The training loop: one process of a (possibly distributed) data-parallel run.

``Trainer.fit`` resumes from the newest checkpoint, then per epoch trains, evaluates on the
validation set, and has rank 0 write a checkpoint. Nothing here knows about MLflow or
Dagster: the entry point passes ``on_epoch``/``on_step`` callbacks to report.
"""

from __future__ import annotations

import contextlib
import os
import random
import re
import resource
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import torch
import torch.distributed as dist
from torch import nn
from torch.nn.parallel import DistributedDataParallel

from models.config import TrainConfig
from models.data import BatchLoader
from models.metrics import binary_metrics
from models.runtime import Runtime, configure_threads, seed_everything

CHECKPOINT_FORMAT = 1
_CHECKPOINT_NAME = re.compile(r"epoch-(\d+)\.pt")

# The learning rate halves every epoch, as a smooth per-step exponential. It depends only on
# the step count, not on the planned number of epochs, so a finished run can be extended
# (resumed with more epochs) and follow exactly the path a longer run would have taken.
LR_DECAY_PER_EPOCH = 0.5

# Rows per forward pass in evaluate(): large enough to amortize per-call overhead, small
# enough that activations stay a few MB.
EVAL_BATCH_SIZE = 16384

# Rows per forward and backward pass on CPU: a larger batch is split into passes of this
# size whose gradients accumulate before the one optimizer step (and the one all-reduce).
# Activations of this many rows stay in cache; a 16384-row pass runs ~10% slower per row.
CPU_MICRO_BATCH_ROWS = 4096

# TrainConfig fields that may change between a checkpoint and its resumption.
_RESUMABLE_CHANGES = frozenset({"epochs", "num_threads"})

Batch = tuple[torch.Tensor, torch.Tensor]


class CheckpointError(RuntimeError):
    """A checkpoint cannot be resumed from. The message names the file and the mismatch."""


def checkpoint_path(checkpoint_dir: Path, epoch: int) -> Path:
    """Where the state after (0-based) ``epoch`` is stored."""
    return checkpoint_dir / f"epoch-{epoch:04d}.pt"


def latest_checkpoint(checkpoint_dir: Path) -> tuple[int, Path] | None:
    """The newest complete checkpoint in ``checkpoint_dir`` as (epoch, path), or None."""
    found = [
        (int(match[1]), path)
        for path in checkpoint_dir.glob("epoch-*.pt")
        if (match := _CHECKPOINT_NAME.fullmatch(path.name))
    ]
    return max(found) if found else None


def _rng_state(device: torch.device) -> dict[str, Any]:
    # Tensors, lists and scalars only, so that torch.load(weights_only=True) can read it.
    _, keys, position, has_gauss, cached_gaussian = np.random.get_state(legacy=True)
    python_version, python_internal, python_gauss = random.getstate()
    return {
        "torch": torch.get_rng_state(),
        "cuda": torch.cuda.get_rng_state(device) if device.type == "cuda" else None,
        "numpy": {
            "keys": torch.from_numpy(keys.astype(np.int64)),
            "position": int(position),
            "has_gauss": int(has_gauss),
            "cached_gaussian": float(cached_gaussian),
        },
        "python": [python_version, list(python_internal), python_gauss],
    }


def _restore_rng_state(state: dict[str, Any], device: torch.device) -> None:
    # RNG states must be CPU byte tensors, wherever map_location put them.
    torch.set_rng_state(state["torch"].cpu())
    if device.type == "cuda" and state["cuda"] is not None:
        torch.cuda.set_rng_state(state["cuda"].cpu(), device)
    numpy_state = state["numpy"]
    np.random.set_state(
        (
            "MT19937",
            numpy_state["keys"].cpu().numpy().astype(np.uint32),
            numpy_state["position"],
            numpy_state["has_gauss"],
            numpy_state["cached_gaussian"],
        )
    )
    python_version, python_internal, python_gauss = state["python"]
    random.setstate((python_version, tuple(python_internal), python_gauss))


def _peak_memory_mb(device: torch.device) -> float:
    if device.type == "cuda":
        return torch.cuda.max_memory_allocated(device) / 2**20
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    # ru_maxrss is in KiB on Linux and in bytes on macOS.
    return peak / 2**20 if sys.platform == "darwin" else peak / 2**10


class Trainer:
    """Trains ``model`` on this rank's ``train_loader`` shard.

    Call :func:`models.runtime.init_distributed` first when the world size is above 1, and
    build ``train_loader`` with :func:`models.data.make_loader` for this rank. ``validation``
    (features, labels) is evaluated in full on every rank, so that all ranks hold the same
    metrics without communicating.

    On CPU, ``fit`` switches torch to deterministic algorithms (a process-wide setting):
    the same data, seed and world size then give the same metrics run after run.
    """

    def __init__(
        self,
        model: nn.Module,
        train_loader: BatchLoader,
        runtime: Runtime,
        config: TrainConfig,
        *,
        checkpoint_dir: Path,
        validation: Batch | None,
        on_epoch: Callable[[dict[str, Any]], None] | None = None,
        on_step: Callable[[dict[str, Any]], None] | None = None,
        step_interval: int = 50,
    ) -> None:
        if len(train_loader) == 0:
            raise ValueError("Trainer: the training loader yields no batches on this rank")
        if step_interval < 1:
            raise ValueError(f"Trainer: step_interval must be >= 1; got {step_interval}")
        self.runtime = runtime
        self.config = config
        self.train_loader = train_loader
        self.checkpoint_dir = Path(checkpoint_dir)
        self.validation = validation
        self.on_epoch = on_epoch
        self.on_step = on_step
        self.step_interval = step_interval
        self.steps_per_epoch = len(train_loader)
        self.history: list[dict[str, Any]] = []

        configure_threads(runtime, config.num_threads)
        # The bare module: checkpoints store its state_dict (no "module." prefixes) and
        # evaluation runs it directly, since DDP's forward only matters for backward.
        self.model = model.to(runtime.device)
        self.network: nn.Module = self.model
        if runtime.distributed:
            self.network = DistributedDataParallel(
                self.model,
                device_ids=[runtime.device.index] if runtime.device.type == "cuda" else None,
                # Gradients live in the all-reduce buckets: no copy into and out of them.
                gradient_as_bucket_view=True,
            )
        # Fused: one kernel for all parameters instead of a dozen small ops per tensor, which
        # on a model this small is a quarter of the step.
        self.optimizer = torch.optim.AdamW(
            self.model.parameters(),
            lr=config.learning_rate,
            weight_decay=config.weight_decay,
            fused=runtime.device.type in ("cpu", "cuda"),
        )
        self.scheduler = torch.optim.lr_scheduler.ExponentialLR(
            self.optimizer, gamma=LR_DECAY_PER_EPOCH ** (1.0 / self.steps_per_epoch)
        )
        self.loss_function = nn.BCEWithLogitsLoss()

    def _autocast(self) -> contextlib.AbstractContextManager[Any]:
        if self.runtime.autocast_dtype is None:
            return contextlib.nullcontext()
        return torch.autocast(self.runtime.device.type, dtype=self.runtime.autocast_dtype)

    def _micro_batches(self, features: torch.Tensor, labels: torch.Tensor) -> list[Batch]:
        if self.runtime.device.type != "cpu" or len(labels) <= CPU_MICRO_BATCH_ROWS:
            return [(features, labels)]
        return list(
            zip(
                features.split(CPU_MICRO_BATCH_ROWS),
                labels.split(CPU_MICRO_BATCH_ROWS),
                strict=True,
            )
        )

    def _step(self, batch: Batch) -> torch.Tensor:
        features, labels = batch
        features = features.to(self.runtime.device, non_blocking=True)
        labels = labels.to(self.runtime.device, non_blocking=True)
        self.optimizer.zero_grad(set_to_none=True)
        micro_batches = self._micro_batches(features, labels)
        loss_sum = torch.zeros((), device=self.runtime.device)
        for index, (micro_features, micro_labels) in enumerate(micro_batches):
            # Gradients accumulate locally; DDP all-reduces them once, in the last backward.
            last = index == len(micro_batches) - 1
            synced = last or not self.runtime.distributed
            with contextlib.nullcontext() if synced else self.network.no_sync():
                with self._autocast():
                    logits = self.network(micro_features)
                # Weighted by its share of the batch: the summed gradient is the batch mean's.
                loss = self.loss_function(logits.float(), micro_labels) * (
                    len(micro_labels) / len(labels)
                )
                loss.backward()
            loss_sum += loss.detach()
        self.optimizer.step()
        self.scheduler.step()
        # Detached and left on the device: reading it here would sync the GPU every step.
        return loss_sum

    def train_step(self, batch: Batch) -> float:
        """One optimizer step on ``batch`` in training mode; returns its loss."""
        self.network.train()
        return self._step(batch).item()

    @torch.no_grad()
    def evaluate(self, features: torch.Tensor, labels: torch.Tensor) -> dict[str, float]:
        """:func:`models.metrics.binary_metrics` of the model on the whole given set."""
        was_training = self.model.training
        self.model.eval()
        try:
            probabilities = []
            for start in range(0, len(features), EVAL_BATCH_SIZE):
                chunk = features[start : start + EVAL_BATCH_SIZE].to(self.runtime.device)
                with self._autocast():
                    logits = self.model(chunk)
                probabilities.append(torch.sigmoid(logits.float()).cpu())
        finally:
            self.model.train(was_training)
        return binary_metrics(labels, torch.cat(probabilities))

    def fit(self) -> list[dict[str, Any]]:
        """Train the remaining epochs and return one record per epoch, resumed ones included.

        A record holds ``epoch`` (0-based), ``train_loss`` (mean over batches and ranks),
        ``learning_rate`` at the epoch's end, ``val_auc``/``val_log_loss``/``val_accuracy``
        (when there is a validation set), ``samples_per_second`` (all ranks' training samples
        over the training pass's wall time), ``step_time_ms`` (mean wall time of a step,
        fetching its batch included), ``data_time_share`` (the fraction of it spent waiting
        for the loader), ``epoch_seconds`` (training pass plus validation) and
        ``peak_memory_mb`` (CUDA: the epoch's peak allocation; CPU: the process's peak RSS).
        """
        seed_everything(self.config.seed)
        if self.runtime.device.type == "cpu":
            torch.use_deterministic_algorithms(True)
        first_epoch = self._resume()
        for epoch in range(first_epoch, self.config.epochs):
            record = self._run_epoch(epoch)
            self.history.append(record)
            self.save_checkpoint(epoch)
            if self.runtime.is_main and self.on_epoch is not None:
                self.on_epoch(record)
        return list(self.history)

    def _run_epoch(self, epoch: int) -> dict[str, Any]:
        device = self.runtime.device
        # Without it every epoch would see the same order.
        self.train_loader.sampler.set_epoch(epoch)
        if device.type == "cuda":
            torch.cuda.reset_peak_memory_stats(device)
        self.network.train()

        started = time.perf_counter()
        data_seconds = 0.0
        loss_sum = torch.zeros((), dtype=torch.float64, device=device)
        samples = steps = 0
        batches = iter(self.train_loader)
        while True:
            fetch_started = time.perf_counter()
            batch = next(batches, None)
            if batch is None:
                break
            data_seconds += time.perf_counter() - fetch_started
            loss = self._step(batch)
            loss_sum += loss
            samples += len(batch[1])
            steps += 1
            if (
                self.on_step is not None
                and self.runtime.is_main
                and steps % self.step_interval == 0
            ):
                self.on_step(
                    {
                        "epoch": epoch,
                        "step": steps,
                        "steps_per_epoch": self.steps_per_epoch,
                        "global_step": epoch * self.steps_per_epoch + steps,
                        "loss": loss.item(),
                        "learning_rate": self.scheduler.get_last_lr()[0],
                    }
                )
        samples_tensor = torch.tensor(float(samples), dtype=torch.float64, device=device)
        totals = torch.stack([loss_sum / steps, samples_tensor])
        if self.runtime.distributed:
            dist.all_reduce(totals)
        summed_mean_loss, global_samples = totals.tolist()
        # Read the clock only now: the all-reduce (and tolist's device sync) waits for the
        # slowest rank and the last GPU kernel, so the time covers the whole global pass.
        train_seconds = time.perf_counter() - started

        record: dict[str, Any] = {
            "epoch": epoch,
            "train_loss": summed_mean_loss / self.runtime.world_size,
            "learning_rate": self.scheduler.get_last_lr()[0],
        }
        if self.validation is not None:
            metrics = self.evaluate(*self.validation)
            record |= {f"val_{name}": metrics[name] for name in ("auc", "log_loss", "accuracy")}
        record |= {
            "samples_per_second": global_samples / train_seconds,
            "step_time_ms": 1000.0 * train_seconds / steps,
            "data_time_share": data_seconds / train_seconds,
            "epoch_seconds": time.perf_counter() - started,
            "peak_memory_mb": _peak_memory_mb(device),
        }
        return record

    def save_checkpoint(self, epoch: int) -> None:
        """Rank 0 writes the state after ``epoch`` atomically; every rank then waits for it."""
        if self.runtime.is_main:
            state = {
                "format": CHECKPOINT_FORMAT,
                "epoch": epoch,
                "model": self.model.state_dict(),
                "optimizer": self.optimizer.state_dict(),
                "scheduler": self.scheduler.state_dict(),
                "history": self.history,
                "rng": _rng_state(self.runtime.device),
                "train_config": self.config.to_dict(),
                "world_size": self.runtime.world_size,
                "steps_per_epoch": self.steps_per_epoch,
            }
            self.checkpoint_dir.mkdir(parents=True, exist_ok=True)
            path = checkpoint_path(self.checkpoint_dir, epoch)
            # A crash mid-write leaves only the .tmp file, which resuming ignores; fsync before
            # the rename so the name never points at data still in the page cache.
            temporary = path.with_name(path.name + ".tmp")
            with open(temporary, "wb") as file:
                torch.save(state, file)
                file.flush()
                os.fsync(file.fileno())
            os.replace(temporary, path)
        if self.runtime.distributed:
            # No rank may start the next epoch (or exit and be taken for finished) before
            # the checkpoint exists.
            dist.barrier()

    def _agreed_latest_checkpoint(self) -> tuple[int, Path] | None:
        latest = latest_checkpoint(self.checkpoint_dir)
        if self.runtime.distributed:
            epoch = latest[0] if latest else -1
            extremes = torch.tensor([epoch, -epoch], dtype=torch.int64, device=self.runtime.device)
            dist.all_reduce(extremes, op=dist.ReduceOp.MAX)
            newest, oldest = extremes[0].item(), -extremes[1].item()
            if newest != oldest:
                raise CheckpointError(
                    f"{self.checkpoint_dir}: ranks see different newest checkpoints (epochs "
                    f"{oldest} to {newest}); checkpoint_dir must be storage all ranks share"
                )
        return latest

    def _resume(self) -> int:
        """Load the newest checkpoint, if any; return the first epoch still to train."""
        latest = self._agreed_latest_checkpoint()
        if latest is None:
            return 0
        epoch, path = latest
        state = torch.load(path, map_location=self.runtime.device, weights_only=True)
        self._check_resumable(state, path)
        self.model.load_state_dict(state["model"])
        self.optimizer.load_state_dict(state["optimizer"])
        self.scheduler.load_state_dict(state["scheduler"])
        self.history = list(state["history"])
        _restore_rng_state(state["rng"], self.runtime.device)
        return epoch + 1

    def _check_resumable(self, state: dict[str, Any], path: Path) -> None:
        if state.get("format") != CHECKPOINT_FORMAT:
            raise CheckpointError(
                f"{path}: checkpoint format {state.get('format')!r}, expected {CHECKPOINT_FORMAT}"
            )
        saved, current = state["train_config"], self.config.to_dict()
        changed = sorted(
            name
            for name in saved.keys() | current.keys()
            if name not in _RESUMABLE_CHANGES and saved.get(name) != current.get(name)
        )
        if changed:
            raise CheckpointError(
                f"{path}: written with different {changed} "
                f"({ {name: saved.get(name) for name in changed} }); only "
                f"{sorted(_RESUMABLE_CHANGES)} may change on resume. Use a new checkpoint_dir "
                "to train with other settings."
            )
        for name, value in (
            ("world_size", self.runtime.world_size),
            ("steps_per_epoch", self.steps_per_epoch),
        ):
            if state[name] != value:
                raise CheckpointError(
                    f"{path}: written with {name}={state[name]}, this run has {value}; resume "
                    "with the same data, batch size and world size, or use a new checkpoint_dir"
                )
