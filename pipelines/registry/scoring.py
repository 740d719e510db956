"""Batch scoring with a registered model: load it with the preprocessing it was trained
with, score a Parquet table, write one row per line with the model version."""

from __future__ import annotations

import hashlib
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from pipelines.lake.store import TableVersion

SCORES_ZONE = "scores"
PREPROCESSING_FILE = "preprocessing.json"
BATCH = 65_536


@dataclass(frozen=True)
class Scorer:
    model_name: str
    version: str
    model: Any  # a torch module (or MLflow's loaded pt2 program) taking one feature tensor
    preprocessing: Any  # models.data.Preprocessing


@dataclass(frozen=True)
class ScoreSummary:
    rows: int
    mean_probability: float
    predicted_late_share: float


def scoring_code_version(contract: Path, training_code: str) -> str:
    """The code version of the scores: this module (how rows are scored and written), the
    contract they are held to, and the model's code (``training_code``: how its features
    are encoded)."""
    digest = hashlib.sha256(Path(__file__).read_bytes() + b"\0" + contract.read_bytes())
    digest.update(training_code.encode())
    return digest.hexdigest()[:16]


def why_rescore(
    live: TableVersion | None,
    *,
    champion: str,
    open_lines_version: str,
    intact: Callable[[TableVersion], bool],
) -> str | None:
    """Why the scores must be made again, in a few words; None when the live scores are
    the champion's over the published open lines, held to their contract, and intact. (The
    model of a registered version never changes; which version is champion does.)"""
    if live is None:
        return "there are no published scores"
    manifest = live.manifest
    if str(manifest.get("model_version")) != str(champion):
        return f"the champion is version {champion}, not {manifest.get('model_version')}"
    if manifest.get("open_lines_version") != open_lines_version:
        return f"warehouse/open_lines is version {open_lines_version} now"
    checks = manifest.get("checks", {})
    if not checks or not all(isinstance(v, dict) and v.get("passed") for v in checks.values()):
        return f"the live scores {live.path.name} hold no passed contract check"
    if not intact(live):
        return f"the files of the live scores {live.path.name} no longer match their digest"
    return None


def load_scorer(tracking_uri: str, name: str, version: str) -> Scorer:
    """``models:/<name>/<version>`` and the ``preprocessing.json`` saved beside it."""
    import mlflow
    import mlflow.pytorch

    from models.data import Preprocessing

    uri = f"models:/{name}/{version}"
    # The version's files are resolved by this client, not through models:/, whose artifact
    # repository reads the process-wide registry URI and could find another store. Against a
    # tracking server they come through its artifact proxy (mlflow-artifacts:/).
    client = mlflow.MlflowClient(tracking_uri=tracking_uri, registry_uri=tracking_uri)
    files = client.get_model_version_download_uri(name, str(version))
    with tempfile.TemporaryDirectory() as tmp:
        local = Path(
            mlflow.artifacts.download_artifacts(files, dst_path=tmp, tracking_uri=tracking_uri)
        )
        found = sorted(local.rglob(PREPROCESSING_FILE))
        if not found:
            raise FileNotFoundError(f"{uri} has no {PREPROCESSING_FILE} beside the model")
        preprocessing = Preprocessing.from_json(found[0].read_text())
        model = mlflow.pytorch.load_model(str(local))
    return Scorer(name, str(version), model, preprocessing)


def score_table(scorer: Scorer, source: Path, out_dir: Path) -> ScoreSummary:
    """Score every row of the Parquet table at ``source`` into ``out_dir/part-0.parquet``."""
    import torch

    from models.data import KEY

    table = pq.read_table(str(source)).sort_by([(column, "ascending") for column in KEY])
    features = scorer.preprocessing.encode_features(table)
    probabilities = []
    with torch.no_grad():
        for start in range(0, features.shape[0], BATCH):
            logits = scorer.model(features[start : start + BATCH])
            probabilities.append(torch.sigmoid(logits).double())
    probability = torch.cat(probabilities).numpy() if probabilities else []
    scores = pa.table(
        {
            "order_key": table["order_key"].cast(pa.int64()),
            "line_number": table["line_number"].cast(pa.int32()),
            "late_probability": pa.array(probability, type=pa.float64()),
            "predicted_late": pa.array(probability >= 0.5, type=pa.bool_()),
            "model_name": pa.array([scorer.model_name] * table.num_rows, type=pa.string()),
            "model_version": pa.array([int(scorer.version)] * table.num_rows, type=pa.int64()),
        }
    )
    Path(out_dir).mkdir(parents=True, exist_ok=True)
    pq.write_table(scores, Path(out_dir) / "part-0.parquet")
    rows = scores.num_rows
    return ScoreSummary(
        rows=rows,
        mean_probability=float(pc.mean(scores["late_probability"]).as_py() or 0.0),
        predicted_late_share=float(pc.mean(scores["predicted_late"].cast(pa.float64())).as_py())
        if rows
        else 0.0,
    )
