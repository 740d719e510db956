"""The training curve as pictures, from the per-epoch history the trainer returns: the full
chart rank 0 logs to MLflow (``training_curve_png``, matplotlib), and a thumbnail small
enough to travel inline in Dagster's metadata (``curve_thumbnail_png``, a few hundred bytes).
"""

from __future__ import annotations

import io
from collections.abc import Sequence
from typing import Any

# The full chart's name in the training's output folder and among its MLflow run's artifacts.
CURVE_FILE = "curve.png"
# The thumbnail's colours: matplotlib's default cycle, so that it reads like the full chart.
BACKGROUND, TRAIN_LOSS, VAL_LOSS, VAL_AUC, FRAME = range(5)
PALETTE = (
    (255, 255, 255),
    (31, 119, 180),  # tab:blue, train loss
    (255, 127, 14),  # tab:orange, validation log loss
    (44, 160, 44),  # tab:green, validation AUC
    (200, 200, 200),
)


def training_curve_png(history: Sequence[dict[str, Any]]) -> bytes:
    """Losses and validation AUC by epoch, with axes and a legend (MLflow's artifact)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    epochs = [record["epoch"] + 1 for record in history]
    figure, (loss_axis, auc_axis) = plt.subplots(1, 2, figsize=(8, 3), dpi=100)
    loss_axis.plot(epochs, [r["train_loss"] for r in history], marker="o", label="train loss")
    loss_axis.plot(epochs, [r["val_log_loss"] for r in history], marker="o", label="val log loss")
    loss_axis.set_xlabel("epoch")
    loss_axis.legend()
    auc_axis.plot(epochs, [r["val_auc"] for r in history], marker="o", color="tab:green")
    auc_axis.set_xlabel("epoch")
    auc_axis.set_ylabel("validation AUC")
    figure.tight_layout()
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png")
    plt.close(figure)
    return buffer.getvalue()


def curve_thumbnail_png(history: Sequence[dict[str, Any]], width: int, height: int) -> bytes:
    """Two framed panels without text: both losses on one scale (left), validation AUC
    (right). A 4-bit palette image: a 300x90 thumbnail of 20 epochs is about 600 bytes."""
    from PIL import Image, ImageDraw

    image = Image.new("P", (width, height), BACKGROUND)
    image.putpalette([channel for colour in PALETTE for channel in colour])
    draw = ImageDraw.Draw(image)
    middle, pad = width // 2, 4

    def plot(series: Sequence[float], left: int, right: int, low: float, high: float, colour):
        span = (high - low) or 1.0
        steps = max(len(series) - 1, 1)
        draw.line(
            [
                (left + (right - left) * i / steps, pad + (height - 2 * pad) * (high - v) / span)
                for i, v in enumerate(series)
            ],
            fill=colour,
            width=2,
        )

    draw.rectangle([0, 0, middle - 3, height - 1], outline=FRAME)
    draw.rectangle([middle + 2, 0, width - 1, height - 1], outline=FRAME)
    losses = {
        TRAIN_LOSS: [float(r["train_loss"]) for r in history],
        VAL_LOSS: [float(r["val_log_loss"]) for r in history],
    }
    every_loss = [v for series in losses.values() for v in series]
    for colour, series in losses.items():
        plot(series, pad, middle - 3 - pad, min(every_loss), max(every_loss), colour)
    auc = [float(r["val_auc"]) for r in history]
    plot(auc, middle + 2 + pad, width - pad, min(auc), max(auc), VAL_AUC)
    buffer = io.BytesIO()
    image.save(buffer, format="PNG", optimize=True, bits=4)
    return buffer.getvalue()
