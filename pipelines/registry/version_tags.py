"""The tags a registered model version carries, as MLflow's tag table shows them: metrics to
four significant digits, one row per upstream data version instead of a JSON object.

The tags are for people; the promotion gate reads a version's validation AUC from its
training run's metric (``version_val_auc``), at full precision.
"""

from __future__ import annotations

from collections.abc import Mapping

from pipelines.registry.versions import DIGEST_TAG, TrainedModel

# Significant digits of a metric in a tag: what separates two models, not float noise.
METRIC_DIGITS = 4
# One tag per input the model was trained from: upstream.<asset key> = its data version.
UPSTREAM_TAG_PREFIX = "upstream."
# Tags of the training run a version repeats, so that its page says where it came from.
RUN_TAGS = (
    "training_set.digest",
    "training_set.contract_result",
    "code.git_sha",
    "code.git_dirty",
)


def metric_text(value: float) -> str:
    """``value`` to METRIC_DIGITS significant digits: 0.9889185426280485 -> "0.9889"."""
    return f"{value:.{METRIC_DIGITS}g}"


def version_tags(
    trained: TrainedModel,
    *,
    dagster_run_id: str,
    run_tags: Mapping[str, str],
    upstream_versions: Mapping[str, str],
) -> dict[str, str]:
    """The tags of a new version of ``trained``: who registered it, its digest, its metrics,
    the training run's provenance and each upstream asset's data version."""
    return {
        "dagster.run_id": dagster_run_id,
        "mlflow.run_id": trained.mlflow_run_id,
        DIGEST_TAG: trained.model_digest,
        "val_auc": metric_text(trained.val_auc),
        "baseline_val_auc": metric_text(trained.baseline_val_auc),
        **{key: run_tags.get(key, "unknown") for key in RUN_TAGS},
        **{
            f"{UPSTREAM_TAG_PREFIX}{key}": value for key, value in sorted(upstream_versions.items())
        },
    }


def version_val_auc(client, model: str, version: str) -> float:
    """The validation AUC of ``model`` ``version``, from the metric its training run logged
    (the last epoch's), not the rounded tag; a version whose run lacks it (registered by
    hand) is judged by its tag."""
    found = client.get_model_version(model, version)
    metrics = client.get_run(found.run_id).data.metrics if found.run_id else {}
    return float(metrics["val_auc"] if "val_auc" in metrics else found.tags["val_auc"])
