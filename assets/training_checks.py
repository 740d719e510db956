"""The checks and cost of a ``models/delay_model`` run, as Dagster results: rank 0 reports
facts (samples/s per epoch, MFU, the environment fingerprint) through Pipes; these judge them
against ``deploy/*.yaml`` (pure logic in ``pipelines/cluster``) and price the run."""

from collections.abc import Mapping
from typing import Any

import dagster as dg

from assets.metadata import records_table, rounded
from models.config import ModelConfig, TrainConfig
from pipelines.cluster.baseline import Baselines, check_environment
from pipelines.cluster.cost import PriceTable, TrainingCost, history_times, training_cost
from pipelines.cluster.hardware import hardware_type, reference_hardware
from pipelines.cluster.profiles import (
    ReferenceProfiles,
    config_key,
    steady_state_samples_per_second,
    throughput_gap,
)

THROUGHPUT_CHECK = "delay_model_throughput"
ENVIRONMENT_CHECK = "delay_model_environment"
ENVIRONMENT_COLUMNS = [
    ("field", "string", "Environment field"),
    ("value", "string", "What rank 0 reported"),
    ("verdict", "string", "matches / drifted from deploy/baseline.yaml, or not pinned there"),
]


def _environment(facts: Mapping[str, Any]) -> dict[str, str]:
    return {str(k): str(v) for k, v in facts.get("environment", {}).items()}


def cluster_checks(
    facts: Mapping[str, Any],
    profiles: ReferenceProfiles,
    baselines: Baselines,
    model_config: ModelConfig,
    train_config: TrainConfig,
    threshold: float,
) -> list[dg.AssetCheckResult]:
    """``delay_model_throughput`` (WARN: a slow cluster wastes money but the model is still
    right) and ``delay_model_environment`` (ERROR: drifted drivers or libraries are the
    usual cause of a slow cluster, and make the run irreproducible; not blocking, since the
    registration gate judges the model itself)."""
    environment = _environment(facts)
    history = facts["history"]
    measured = steady_state_samples_per_second(history)
    measured_mfu = facts.get("mfu")
    if measured_mfu is not None:
        # Rank 0 computed MFU from the last epoch's samples/s; it scales linearly with them.
        measured_mfu = measured_mfu * measured / facts["samples_per_second"]
    world_size = int(facts["world_size"])
    reference = profiles.lookup(
        reference_hardware(environment),
        # The batch the training ran with: a data-sized one (batch_size None) is resolved there.
        config_key(
            model_config.to_dict(),
            {
                **train_config.to_dict(),
                "batch_size": facts.get("batch_size", train_config.batch_size),
            },
            world_size,
        ),
    )
    gap = throughput_gap(measured, measured_mfu, reference, threshold)
    optional = {
        "reference_samples_per_second": reference.samples_per_second,
        "ratio": gap.ratio,
        "measured_mfu": measured_mfu,
        "reference_mfu": reference.mfu,
        "mfu_ratio": gap.mfu_ratio,
    }
    throughput = dg.AssetCheckResult(
        check_name=THROUGHPUT_CHECK,
        passed=gap.passed,
        severity=dg.AssetCheckSeverity.WARN,
        description=gap.message,
        metadata={
            "hardware": reference.hardware,
            "config": reference.config,
            "measured_samples_per_second": rounded(measured),
            "threshold": rounded(threshold),
            "reference_note": reference.note,
            **{
                key: rounded(value) if value is not None else "unknown"
                for key, value in optional.items()
            },
        },
    )
    hardware = hardware_type(environment)
    verdict = check_environment(baselines, hardware, environment)
    drifted = {d.field for d in verdict.drifts}
    if not environment:
        verdict_message = "rank 0 reported no environment; " + verdict.message
    else:
        verdict_message = verdict.message
    drift = dg.AssetCheckResult(
        check_name=ENVIRONMENT_CHECK,
        passed=verdict.passed,
        severity=dg.AssetCheckSeverity.ERROR,
        description=verdict_message,
        metadata={
            "hardware": hardware,
            "fields": records_table(
                [
                    {
                        "field": name,
                        "value": environment.get(name, ""),
                        "verdict": "drifted" if name in drifted else "matches",
                    }
                    for name in verdict.compared
                ]
                + [
                    {"field": name, "value": environment.get(name, ""), "verdict": "not pinned"}
                    for name in verdict.unpinned
                ],
                ENVIRONMENT_COLUMNS,
            ),
            "drifted": dg.MetadataValue.md(
                "\n".join(f"- {d}" for d in verdict.drifts) or "nothing drifted"
            ),
        },
    )
    return [throughput, drift]


def run_cost(
    facts: Mapping[str, Any],
    prices: PriceTable,
    run_seconds: float,
    *,
    nodes: int = 1,
    spot: bool = False,
) -> TrainingCost:
    """Cost of this run on ``nodes`` nodes, at the spot or on-demand price (the local
    launcher: one node of its own, on demand)."""
    step_seconds, epoch_seconds = history_times(facts["history"])
    return training_cost(
        prices,
        hardware_type(_environment(facts)),
        step_seconds=step_seconds,
        epoch_seconds=epoch_seconds,
        run_seconds=run_seconds,
        world_size=int(facts["world_size"]),
        nodes=nodes,
        spot=spot,
    )


def cost_metadata(cost: TrainingCost) -> dict[str, Any]:
    def amount(value: float | None) -> Any:
        if value is None:
            return f"unknown ({cost.note})"
        return dg.MetadataValue.float(rounded(value))

    return {
        "cost_per_step": amount(cost.per_step),
        "cost_per_epoch": amount(cost.per_epoch),
        "cost_per_run": amount(cost.per_run),
        "cost_currency": cost.currency,
        "cost_basis": cost.note,
        "cost_price_source": cost.price_source,
        "cost_hardware": cost.hardware,
        "cost_spot": cost.spot,
        "run_hours": dg.MetadataValue.float(rounded(cost.run_hours)),
        "billed_hours": dg.MetadataValue.float(rounded(cost.billed_hours)),
    }
