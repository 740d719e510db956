from __future__ import annotations

from pathlib import Path

import pyarrow.compute as pc
import pytest
import torch

from models import trainer as trainer_module
from models.config import ModelConfig, TrainConfig
from models.data import NUMERIC, SPLIT, Preprocessing, TabularDataset, make_loader
from models.metrics import binary_metrics
from models.network import TabularNet
from models.runtime import Runtime, seed_everything
from models.trainer import CheckpointError, Trainer, latest_checkpoint

CPU = Runtime(torch.device("cpu"), "gloo", rank=0, local_rank=0, world_size=1, autocast_dtype=None)
# Dropout draws from the torch RNG, so resuming must restore its state to match a straight run.
MODEL = ModelConfig(embedding_dim=4, hidden=(16, 8), dropout=0.1)
# Wall-clock measurements: everything else in a record must be reproducible.
TIMINGS = {
    "samples_per_second",
    "step_time_ms",
    "data_time_share",
    "epoch_seconds",
    "peak_memory_mb",
}


@pytest.fixture(autouse=True)
def restore_torch_globals():
    deterministic = torch.are_deterministic_algorithms_enabled()
    threads = torch.get_num_threads()
    yield
    torch.use_deterministic_algorithms(deterministic)
    torch.set_num_threads(threads)


@pytest.fixture
def encoded(make_delay_table):
    table = make_delay_table(2000)
    splits = {name: table.filter(pc.equal(table[SPLIT], name)) for name in ("train", "validation")}
    preprocessing = Preprocessing.fit(splits["train"])
    return (
        preprocessing,
        preprocessing.encode(splits["train"]),
        preprocessing.encode(splits["validation"]),
    )


def _trainer(encoded, checkpoint_dir: Path, config: TrainConfig, **callbacks) -> Trainer:
    preprocessing, (train_x, train_y), validation = encoded
    seed_everything(config.seed)
    model = TabularNet(preprocessing.cardinalities, len(NUMERIC), MODEL)
    loader = make_loader(
        TabularDataset(train_x, train_y),
        config.batch_size,
        rank=0,
        world_size=1,
        seed=config.seed,
        shuffle=True,
    )
    return Trainer(
        model,
        loader,
        CPU,
        config,
        checkpoint_dir=checkpoint_dir,
        validation=validation,
        **callbacks,
    )


def _reproducible(history: list[dict]) -> list[dict]:
    return [{k: v for k, v in record.items() if k not in TIMINGS} for record in history]


def test_fit_reports_each_epoch_and_learns(encoded, tmp_path):
    reported = []
    config = TrainConfig(epochs=3, batch_size=128, learning_rate=1e-2)
    history = _trainer(encoded, tmp_path, config, on_epoch=reported.append).fit()

    assert [record["epoch"] for record in history] == [0, 1, 2]
    assert reported == history
    assert history[-1]["train_loss"] < history[0]["train_loss"]
    assert history[-1]["val_auc"] > 0.9
    for record in history:
        assert record["samples_per_second"] > 0 and record["step_time_ms"] > 0
        assert 0 <= record["data_time_share"] < 1 and record["peak_memory_mb"] > 0
        assert record["epoch_seconds"] > 0
    # The learning rate halves each epoch.
    assert history[1]["learning_rate"] == pytest.approx(history[0]["learning_rate"] / 2)


def test_one_checkpoint_per_epoch_readable_as_plain_data(encoded, tmp_path):
    config = TrainConfig(epochs=2, batch_size=256)
    trainer = _trainer(encoded, tmp_path, config)
    history = trainer.fit()

    assert sorted(path.name for path in tmp_path.iterdir()) == ["epoch-0000.pt", "epoch-0001.pt"]
    assert latest_checkpoint(tmp_path) == (1, tmp_path / "epoch-0001.pt")
    # weights_only=True: state_dicts, RNG states and history are tensors and plain Python.
    state = torch.load(tmp_path / "epoch-0001.pt", weights_only=True)
    assert state["epoch"] == 1
    assert state["history"] == history
    assert state["train_config"] == config.to_dict()
    assert {"torch", "cuda", "numpy", "python"} <= set(state["rng"])
    preprocessing = encoded[0]
    restored = TabularNet(preprocessing.cardinalities, len(NUMERIC), MODEL)
    restored.load_state_dict(state["model"])  # no DDP "module." prefixes
    for name, tensor in trainer.model.state_dict().items():
        assert torch.equal(restored.state_dict()[name], tensor)


def test_same_seed_gives_identical_metrics(encoded, tmp_path):
    config = TrainConfig(epochs=2, batch_size=128, seed=3)
    first = _trainer(encoded, tmp_path / "first", config).fit()
    second = _trainer(encoded, tmp_path / "second", config).fit()
    assert _reproducible(first) == _reproducible(second)
    other_seed = _trainer(encoded, tmp_path / "other", TrainConfig(epochs=2, batch_size=128)).fit()
    assert other_seed[-1]["train_loss"] != first[-1]["train_loss"]


def test_resume_continues_exactly_where_a_run_stopped(encoded, tmp_path):
    config = TrainConfig(epochs=3, batch_size=128, learning_rate=1e-2)
    straight = _trainer(encoded, tmp_path / "straight", config)
    straight_history = straight.fit()

    resumed_dir = tmp_path / "resumed"
    _trainer(encoded, resumed_dir, TrainConfig(epochs=2, batch_size=128, learning_rate=1e-2)).fit()
    reported = []
    resumed = _trainer(encoded, resumed_dir, config, on_epoch=reported.append)
    resumed_history = resumed.fit()

    assert [record["epoch"] for record in reported] == [2]  # only the missing epoch trained
    assert len(resumed_history) == 3
    final, expected = resumed_history[-1], straight_history[-1]
    for key in ("train_loss", "val_auc", "val_log_loss", "val_accuracy", "learning_rate"):
        assert final[key] == pytest.approx(expected[key], abs=1e-6)
    for name, tensor in straight.model.state_dict().items():
        torch.testing.assert_close(resumed.model.state_dict()[name], tensor, rtol=0, atol=1e-6)


def test_resume_refuses_a_checkpoint_trained_differently(encoded, tmp_path):
    _trainer(encoded, tmp_path, TrainConfig(epochs=1, batch_size=128)).fit()
    changed = _trainer(encoded, tmp_path, TrainConfig(epochs=2, batch_size=128, seed=1))
    with pytest.raises(CheckpointError, match=r"epoch-0000.pt: written with different \['seed'\]"):
        changed.fit()


def test_on_step_reports_progress_every_interval(encoded, tmp_path):
    steps = []
    config = TrainConfig(epochs=1, batch_size=128)
    trainer = _trainer(encoded, tmp_path, config, on_step=steps.append, step_interval=4)
    trainer.fit()
    per_epoch = trainer.steps_per_epoch
    assert [step["step"] for step in steps] == list(range(4, per_epoch + 1, 4))
    assert steps[0]["steps_per_epoch"] == per_epoch and steps[0]["loss"] > 0


def test_evaluate_scores_the_whole_set_in_eval_mode(encoded, tmp_path):
    trainer = _trainer(encoded, tmp_path, TrainConfig(batch_size=64, learning_rate=1e-2))
    val_x, val_y = encoded[2]
    assert trainer.train_step((val_x[:64], val_y[:64])) > 0

    metrics = trainer.evaluate(val_x, val_y)

    assert trainer.model.training  # evaluate restores the mode it found
    with torch.no_grad():
        expected = binary_metrics(val_y, torch.sigmoid(trainer.model.eval()(val_x)))
    assert metrics == pytest.approx(expected)


def test_an_empty_loader_is_refused(tmp_path):
    loader = make_loader(
        TabularDataset(torch.zeros(0, 13), torch.zeros(0)),
        8,
        rank=0,
        world_size=1,
        seed=0,
        shuffle=True,
    )
    model = TabularNet([2] * 6, len(NUMERIC), MODEL)
    with pytest.raises(ValueError, match="no batches"):
        Trainer(model, loader, CPU, TrainConfig(), checkpoint_dir=tmp_path, validation=None)


def test_micro_batches_accumulate_to_one_whole_batch_step(encoded, tmp_path, monkeypatch):
    # No dropout: its masks would be drawn per pass and differ between the two runs.
    preprocessing, (train_x, train_y), _ = encoded
    config = TrainConfig(epochs=1, batch_size=256, learning_rate=1e-2)
    batch = (train_x[:256], train_y[:256])

    def one_step(micro_batch_rows: int) -> tuple[float, dict[str, torch.Tensor]]:
        monkeypatch.setattr(trainer_module, "CPU_MICRO_BATCH_ROWS", micro_batch_rows)
        seed_everything(0)
        model = TabularNet(preprocessing.cardinalities, len(NUMERIC), ModelConfig(hidden=(16,)))
        loader = make_loader(
            TabularDataset(train_x, train_y), 256, rank=0, world_size=1, seed=0, shuffle=True
        )
        trainer = Trainer(model, loader, CPU, config, checkpoint_dir=tmp_path, validation=None)
        return trainer.train_step(batch), trainer.model.state_dict()

    whole_loss, whole = one_step(4096)
    split_loss, split = one_step(100)  # passes of 100, 100 and 56 rows

    assert split_loss == pytest.approx(whole_loss, abs=1e-6)
    for name, tensor in whole.items():
        torch.testing.assert_close(split[name], tensor, rtol=0, atol=1e-6)
