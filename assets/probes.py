"""What ``plumbline run`` asks an asset before it starts a run: would its step do any work?

An asset whose step first checks whether its code version and its inputs' data versions are
those of what it last produced (a translation kept in the store, a warehouse table's live
version) carries that check as a probe on its compute function. ``plumbline run`` asks the
probes of the selected assets once their inputs are known, and starts no step for those
that answer none: a rerun that changes nothing runs no step per translation and per table.
A run launched elsewhere (the UI, a schedule) runs every step, which asks the same question.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Protocol

import dagster as dg

RERUN_PROBE = "plumbline_rerun_probe"


@dataclass(frozen=True)
class Rerun:
    """A probe's answer: why the step must run (None: it would only find its assets
    unchanged), and what the step would then have reported of each asset (its latest
    materialization's metadata, the check results it would have given: the verdicts the
    live version was published under, not re-run)."""

    reason: str | None
    metadata: Mapping[dg.AssetKey, Mapping[str, dg.MetadataValue]] = field(default_factory=dict)
    check_results: list[dg.AssetCheckResult] = field(default_factory=list)


class Probe(Protocol):
    def ask(self, instance: dg.DagsterInstance, resources: Mapping[str, object]) -> Rerun:
        """The step's own question, answered from the instance and the Definitions'
        configured ``resources``."""
        ...


def attach_probe(assets_def: dg.AssetsDefinition, probe: Probe) -> dg.AssetsDefinition:
    """``assets_def`` with ``probe`` on its compute function (where Definitions keep it)."""
    setattr(assets_def.op.compute_fn.decorated_fn, RERUN_PROBE, probe)
    return assets_def


def rerun_probe(assets_def: dg.AssetsDefinition) -> Probe | None:
    """The probe of an asset's step, None for an asset without one."""
    compute = getattr(assets_def.op.compute_fn, "decorated_fn", None)
    return getattr(compute, RERUN_PROBE, None)


def latest_events(
    instance: dg.DagsterInstance, keys: Sequence[dg.AssetKey]
) -> dict[dg.AssetKey, dg.EventLogRecord]:
    """Each key's latest materialization, else its latest observation (as Dagster takes an
    input's data version when a step materializes), in one read of the asset records."""
    latest = {}
    for record in instance.get_asset_records(list(keys)):
        entry = record.asset_entry
        event = entry.last_materialization_record or entry.last_observation_record
        if event is None:
            event = next(iter(instance.fetch_observations(entry.asset_key, limit=1).records), None)
        if event is not None:
            latest[entry.asset_key] = event
    return latest


def provenance(instance: dg.DagsterInstance, key: dg.AssetKey) -> dg.DataProvenance | None:
    """What ``context.get_asset_provenance`` reads, from the instance alone: the code version
    and input data versions of the latest materialization of ``key``."""
    from dagster._core.definitions.data_version import extract_data_provenance_from_entry

    record = instance.get_latest_data_version_record(key)
    return None if record is None else extract_data_provenance_from_entry(record.event_log_entry)
