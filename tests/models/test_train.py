"""models/train.py's Pipes reporting: each epoch as one log line that the launcher's side
recognizes (the whole path, through torchrun and Pipes into `plumbline run`, is
tests/pipelines/cli/test_run_progress.py)."""

import pytest
import torch

from models.runtime import Runtime
from models.train import epoch_message
from pipelines.pipes.messages import is_epoch_message

RUNTIME = Runtime(
    device=torch.device("cpu"),
    backend="gloo",
    rank=0,
    local_rank=0,
    world_size=2,
    autocast_dtype=None,
)
RECORD = {
    "epoch": 2,
    "train_loss": 0.41234,
    "val_auc": 0.77121,
    "val_log_loss": 0.5,
    "epoch_seconds": 12.34,
    "samples_per_second": 15000.0,
}


def test_an_epoch_is_one_line_with_its_numbers():
    assert epoch_message(RECORD, 8, RUNTIME) == (
        "epoch 3/8: train loss 0.4123, val AUC 0.7712, val log loss 0.5000, 12.3s, "
        "15,000 samples/s on 2 gloo process(es)"
    )


@pytest.mark.parametrize(
    ("message", "is_epoch"),
    [
        (epoch_message(RECORD, 8, RUNTIME), True),
        (epoch_message({**RECORD, "epoch": 11}, 12, RUNTIME), True),
        # The training's other lines through the same channel.
        ("training on 41,071 rows (2 x gloo on cpu); validation 8,801, test 8,802", False),
        ("fitting the HistGradientBoosting baseline on the same split", False),
        ("done: val AUC 0.9901 (baseline 0.9890), test AUC 0.9899", False),
        ("resuming at epoch 3/8", False),
        ("epoch 3: train loss 0.4123", False),
    ],
)
def test_the_launcher_tells_epoch_lines_from_the_others(message, is_epoch):
    assert is_epoch_message(message) is is_epoch
