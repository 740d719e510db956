"""The training process: ``torchrun ... -m models.train --job JOB.json``.

Every rank trains (DDP: gloo on CPU, NCCL on GPUs); rank 0 alone talks to the outside:
it opens the Dagster Pipes context (torchrun's workers all inherit Pipes' environment, and
one writer per message channel is what Dagster expects), logs to MLflow, writes checkpoints
and reports the materialization. A failing rank writes its traceback to
``errors/rank<N>.txt`` so the asset can show it instead of torchrun's exit code.
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import sys
import traceback
import warnings
from pathlib import Path
from typing import Any

import torch

from models.baseline import fit_baseline
from models.config import ModelConfig, TrainConfig
from models.curve import CURVE_FILE, training_curve_png
from models.data import (
    CATEGORICAL,
    NUMERIC,
    load_splits,
)
from models.environment import fingerprint
from models.flops import flops_per_sample, mfu
from models.job import TrainingJob
from models.runtime import (
    Runtime,
    init_distributed,
    select_runtime,
    shutdown_distributed,
)
from models.setup import Prepared, prepare
from models.summary import EPOCH_METRICS, TrainingSummary
from models.trainer import Trainer

PREPROCESSING_FILE = "preprocessing.json"


def model_digest(model: torch.nn.Module) -> str:
    """sha256 over the parameters in state_dict order: the trained model's data version."""
    digest = hashlib.sha256()
    for name, tensor in model.state_dict().items():
        digest.update(name.encode())
        digest.update(tensor.detach().cpu().contiguous().numpy().tobytes())
    return digest.hexdigest()


class Reporter:
    """Rank 0's outward channels: Dagster Pipes (logs, materialization) and MLflow."""

    def __init__(self, pipes: Any, job: TrainingJob, runtime: Runtime, epochs: int) -> None:
        self.pipes = pipes
        self.job = job
        self.runtime = runtime
        self.epochs = epochs

    def log(self, message: str) -> None:
        self.pipes.log.info(message)

    def epoch(self, record: dict[str, Any]) -> None:
        import mlflow

        mlflow.log_metrics(
            {key: float(record[key]) for key in EPOCH_METRICS if record.get(key) is not None},
            step=int(record["epoch"]),
        )
        self.log(epoch_message(record, self.epochs, self.runtime))

    def finish(
        self, summary: TrainingSummary, model: torch.nn.Module, example: torch.Tensor
    ) -> None:
        """Log the summary, the training curve and the model (``example``: rows of its
        input) to MLflow, and report the materialization, its data version the weights'
        digest."""
        import mlflow

        output = Path(self.job.output_dir)
        mlflow.log_metrics(summary.run_metrics())
        curve = training_curve_png(list(summary.history))
        (output / CURVE_FILE).write_bytes(curve)
        mlflow.log_artifact(str(output / CURVE_FILE))
        trained = model.to("cpu").eval()
        model_info = mlflow.pytorch.log_model(
            trained,
            name="model",
            input_example=example.numpy(),
            extra_files=[str(output / PREPROCESSING_FILE)],
            pip_requirements=[f"torch=={torch.__version__.split('+')[0]}", "numpy"],
        )
        digest = model_digest(trained)
        self.pipes.report_asset_materialization(
            metadata=pipes_metadata(summary, self.job, self.runtime, model_info.model_uri, digest),
            data_version=digest,
        )
        self.log(summary.done_message())


def pipes_metadata(
    summary: TrainingSummary, job: TrainingJob, runtime: Runtime, model_uri: str, digest: str
) -> dict[str, dict[str, Any]]:
    """The materialization's metadata as Pipes carries it (``raw_value`` and ``type``)."""
    return {
        **{
            key: {"raw_value": float(value), "type": "float"}
            for key, value in summary.metrics().items()
        },
        "mlflow_run_id": {"raw_value": job.mlflow_run_id, "type": "text"},
        "model_uri": {"raw_value": model_uri, "type": "text"},
        "world_size": {"raw_value": runtime.world_size, "type": "int"},
        "batch_size": {"raw_value": summary.batch_size, "type": "int"},
        "backend": {"raw_value": runtime.backend, "type": "text"},
        "device": {"raw_value": str(runtime.device), "type": "text"},
        "training_set_digest": {"raw_value": job.data_digest, "type": "text"},
        "model_digest": {"raw_value": f"sha256:{digest}", "type": "text"},
        "history": {"raw_value": list(summary.history), "type": "json"},
        # The asset compares it with deploy/baseline.yaml (the MLflow env.* tags hold it too).
        "environment": {"raw_value": fingerprint(), "type": "json"},
    }


def epoch_message(record: dict[str, Any], epochs: int, runtime: Runtime) -> str:
    """One epoch as one log line. Its opening ``epoch N/M: `` is how the launcher's side
    tells it from other lines (pipelines.pipes.messages.EPOCH_MESSAGE): `plumbline run`
    shows it on the console as the epoch ends."""
    return (
        f"epoch {record['epoch'] + 1}/{epochs}: train loss {record['train_loss']:.4f}, "
        f"val AUC {record['val_auc']:.4f}, val log loss {record['val_log_loss']:.4f}, "
        f"{record['epoch_seconds']:.1f}s, {record['samples_per_second']:,.0f} samples/s on "
        f"{runtime.world_size} {runtime.backend} process(es)"
    )


def train(job: TrainingJob, runtime: Runtime, pipes: Any) -> None:
    model_config = ModelConfig.from_dict(job.model_config)
    train_config = TrainConfig.from_dict(job.train_config)
    splits = load_splits(Path(job.data_path))
    prepared = prepare(splits, model_config, train_config, runtime)
    preprocessing, model, loader = prepared.preprocessing, prepared.model, prepared.loader
    train_config = prepared.train_config  # batch_size resolved: what MLflow and checks see
    val_x, val_y = prepared.encoded["validation"]
    reporter = Reporter(pipes, job, runtime, train_config.epochs) if runtime.is_main else None
    run = contextlib.nullcontext()
    if runtime.is_main:
        import mlflow

        mlflow.set_tracking_uri(job.mlflow_uri)
        run = mlflow.start_run(run_id=job.mlflow_run_id)
    with run:
        if reporter is not None:
            _log_start(job, runtime, model_config, train_config, preprocessing, splits, reporter)
        trainer = Trainer(
            model,
            loader,
            runtime,
            train_config,
            checkpoint_dir=job.checkpoint_dir,
            validation=(val_x, val_y),
            on_epoch=reporter.epoch if reporter is not None else None,
        )
        history = trainer.fit()
        if reporter is not None:
            reporter.finish(summarize(trainer, prepared, history, reporter), model, val_x[:5])


def _log_start(job, runtime, model_config, train_config, preprocessing, splits, reporter):
    import mlflow

    output = Path(job.output_dir)
    (output / PREPROCESSING_FILE).write_text(preprocessing.to_json())
    mlflow.log_params(
        {
            **{f"model.{k}": v for k, v in model_config.to_dict().items()},
            **{f"train.{k}": v for k, v in train_config.to_dict().items()},
            "world_size": runtime.world_size,
            "backend": runtime.backend,
            "device": str(runtime.device),
            "autocast": str(runtime.autocast_dtype),
            "categorical_features": ",".join(CATEGORICAL),
            "numeric_features": ",".join(NUMERIC),
            **{f"rows.{name}": table.num_rows for name, table in splits.items()},
        }
    )
    mlflow.set_tags({f"env.{k}": v for k, v in fingerprint().items()})
    with warnings.catch_warnings():
        # A local folder resolves to MLflow's local-artifact source either way; it says so.
        warnings.filterwarnings("ignore", "The specified dataset source can be interpreted")
        dataset = _training_dataset(job, splits)
    mlflow.log_input(dataset, context="training")
    reporter.log(
        f"training on {splits['train'].num_rows:,} rows ({runtime.world_size} x "
        f"{runtime.backend} on {runtime.device}); validation {splits['validation'].num_rows:,}, "
        f"test {splits['test'].num_rows:,}"
    )


def _training_dataset(job, splits):
    import mlflow

    # The first rows give MLflow the schema; the digest is the whole table's content digest.
    return mlflow.data.from_pandas(
        splits["train"].slice(0, 1000).to_pandas(),
        source=job.data_path,
        targets="is_late",
        name="training_set",
        digest=job.data_digest[:36],
    )


def summarize(
    trainer: Trainer, prepared: Prepared, history: list[dict[str, Any]], reporter: Reporter
) -> TrainingSummary:
    """Rank 0's scores of the finished training: the test set (scored once, here), the
    baseline fitted on the same split, and the FLOPs and MFU of the run."""
    train_x, train_y = prepared.encoded["train"]
    val_x, val_y = prepared.encoded["validation"]
    test_x, test_y = prepared.encoded["test"]
    runtime = trainer.runtime
    test = trainer.evaluate(test_x, test_y)
    reporter.log("fitting the HistGradientBoosting baseline on the same split")
    baseline_model, baseline_val = fit_baseline(
        train_x.numpy(),
        train_y.numpy(),
        val_x.numpy(),
        val_y.numpy(),
        seed=prepared.train_config.seed,
    )
    from models.metrics import binary_metrics

    baseline_test = binary_metrics(
        test_y.numpy(), baseline_model.predict_proba(test_x.numpy())[:, 1]
    )
    flops = flops_per_sample(prepared.model, train_x.shape[1])
    device_name = (
        torch.cuda.get_device_name(runtime.device) if runtime.device.type == "cuda" else None
    )
    return TrainingSummary(
        history=tuple(history),
        test=test,
        baseline_val=baseline_val,
        baseline_test=baseline_test,
        flops_per_sample=flops,
        mfu=mfu(history[-1]["samples_per_second"], flops, device_name, runtime.world_size),
        batch_size=prepared.train_config.batch_size,
    )


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description="Train the delivery-delay model (torchrun).")
    parser.add_argument("--job", type=Path, required=True, help="job.json written by the asset")
    args = parser.parse_args(argv)
    job = TrainingJob.read(args.job)
    runtime = select_runtime()
    pipes = None
    try:
        if runtime.is_main:
            from dagster_pipes import open_dagster_pipes

            pipes = open_dagster_pipes()
        init_distributed(runtime)
        try:
            train(job, runtime, pipes)
        finally:
            shutdown_distributed()
    except BaseException:
        job.errors_dir.mkdir(parents=True, exist_ok=True)
        report = job.errors_dir / f"rank{runtime.rank}.txt"
        report.write_text(traceback.format_exc())
        # The Pipes channel stays open: torchrun may restart this group, and the next rank 0
        # reports on the same channel; Dagster ignores messages after "closed".
        raise
    if pipes is not None:
        pipes.close()


if __name__ == "__main__":
    main(sys.argv[1:])
