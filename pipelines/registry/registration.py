"""One training registered and gated: its version of the model (found again when the same
weights were registered before), the lake versions it was trained from pinned for its audit
trail, the promotion decision, and the alias moves, appended to the alias history.

Which training to register is the caller's to say (the ``registered_model`` asset: the one
its own run trained, or the MLflow run its config names); nothing here picks "the latest".
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from pipelines.lake.lineage import upstream_lineage
from pipelines.lake.store import Lake
from pipelines.registry.version_tags import version_tags, version_val_auc
from pipelines.registry.versions import (
    CHALLENGER,
    CHAMPION,
    MODEL_NAME,
    AliasHistory,
    AliasMove,
    PromotionDecision,
    TrainedModel,
    alias_version,
    decide_promotion,
    find_version,
    move_alias,
    register_version,
    with_retries,
)


@dataclass(frozen=True)
class Gate:
    """The promotion gate's knobs."""

    # A challenger is promoted unless its validation AUC is worse than the champion's by
    # more than this.
    tolerance: float = 0.002
    # With no champion yet, the first version must reach the training's HistGradientBoosting
    # baseline AUC minus this margin.
    baseline_margin: float = 0.005


@dataclass(frozen=True)
class Registration:
    """What registering one training did."""

    trained: TrainedModel
    training_run: Any  # the MLflow run that trained it (mlflow.entities.Run)
    version: str
    reused: bool  # the same weights already had this version: none was created
    decision: PromotionDecision
    reason: str  # the decision, or why nothing had to move
    promoted: bool
    champion: str | None  # the champion after the gate
    champion_auc: float | None  # the champion's before the gate
    failures: list[str]  # upstream blocking checks that did not pass
    moves: list[AliasMove]


def register_and_gate(
    client,
    lake: Lake,
    trained: TrainedModel,
    *,
    dagster_run_id: str,
    gate: Gate,
    training_set: tuple[str, str],
    name: str = MODEL_NAME,
) -> Registration:
    """Register ``trained`` as a version of ``name`` (the same weights keep their one
    version), pin the lake versions ``training_set`` was built from, move ``challenger`` to
    it and ``champion`` if the gate promotes it."""
    run_id, digest = trained.mlflow_run_id, trained.model_digest
    run = with_retries(lambda: client.get_run(run_id), f"read run {run_id}")
    run_tags = run.data.tags
    zone, table = training_set
    lineage = upstream_lineage(lake, zone, table, run_tags.get("training_set.version", ""))
    failures = lineage.check_failures
    # The same weights (same data, seed, world size) were registered already: nothing
    # changed, so no new version.
    existing = find_version(client, name, digest=digest)
    if existing is not None and existing.run_id != run_id:
        version = existing
    else:
        version = register_version(
            client,
            name,
            run_id=run_id,
            model_uri=trained.model_uri,
            tags=version_tags(
                trained,
                dagster_run_id=dagster_run_id,
                run_tags=run_tags,
                upstream_versions={"models/delay_model": digest, **lineage.data_versions},
            ),
        )
    number = str(version.version)

    # Keep every lake version this model was trained from: its audit trail recomputes their
    # digests long after newer builds have replaced them.
    for key, folder in lineage.versions.items():
        lake.pin(*key.split("/", 1), folder, f"{name}@{number}")

    champion = alias_version(client, name, CHAMPION)
    champion_auc = None
    if champion is not None:
        champion_auc = version_val_auc(client, name, champion)
    decision = decide_promotion(
        version_val_auc(client, name, number),
        checks_passed=not failures,
        champion_version=champion,
        champion_auc=champion_auc,
        tolerance=gate.tolerance,
        baseline_bar=trained.baseline_val_auc - gate.baseline_margin,
    )
    promoted = decision.promote and champion != number
    history = AliasHistory.in_lake(lake.root)
    moved = [
        move_alias(
            client,
            history,
            name,
            CHALLENGER,
            number,
            dagster_run_id=dagster_run_id,
            reason="new version",
        )
    ]
    if promoted:
        moved.append(
            move_alias(
                client,
                history,
                name,
                CHAMPION,
                number,
                dagster_run_id=dagster_run_id,
                reason=decision.reason,
            )
        )
    return Registration(
        trained=trained,
        training_run=run,
        version=number,
        reused=existing is not None,
        decision=decision,
        reason=f"version {number} is already the champion"
        if champion == number
        else decision.reason,
        promoted=promoted,
        champion=alias_version(client, name, CHAMPION),
        champion_auc=champion_auc,
        failures=failures,
        moves=[move for move in moved if move is not None],
    )
