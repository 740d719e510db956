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
    def ask(self, facts: Facts, resources: Mapping[str, object]) -> Rerun:
        """The step's own question, answered from what the instance recorded (``facts``) and
        the Definitions' configured ``resources``."""
        ...


def attach_probe(assets_def: dg.AssetsDefinition, probe: Probe) -> dg.AssetsDefinition:
    """``assets_def`` with ``probe`` on its compute function (where Definitions keep it)."""
    setattr(assets_def.op.compute_fn.decorated_fn, RERUN_PROBE, probe)
    return assets_def


def rerun_probe(assets_def: dg.AssetsDefinition) -> Probe | None:
    """The probe of an asset's step, None for an asset without one."""
    compute = getattr(assets_def.op.compute_fn, "decorated_fn", None)
    return getattr(compute, RERUN_PROBE, None)


class Facts:
    """The latest materialization (else observation) of assets, as Dagster takes an input's
    data version when a step materializes, read from ``instance`` in one read of the asset
    records per batch of keys not read yet: a step asks for its own asset and inputs,
    ``plumbline run`` for every asset it probes at once (:meth:`read`)."""

    def __init__(self, instance: dg.DagsterInstance):
        self.instance = instance
        self._latest: dict[dg.AssetKey, dg.EventLogRecord | None] = {}

    def read(self, keys: Sequence[dg.AssetKey]) -> None:
        """Read what is not read yet of ``keys``, in one read of the asset records."""
        missing = [key for key in dict.fromkeys(keys) if key not in self._latest]
        if not missing:
            return
        found = {}
        for record in self.instance.get_asset_records(missing):
            entry = record.asset_entry
            event = entry.last_materialization_record or entry.last_observation_record
            if event is None:
                observed = self.instance.fetch_observations(entry.asset_key, limit=1).records
                event = next(iter(observed), None)
            found[entry.asset_key] = event
        for key in missing:
            self._latest[key] = found.get(key)

    def latest(self, keys: Sequence[dg.AssetKey]) -> dict[dg.AssetKey, dg.EventLogRecord]:
        """Each of ``keys``' latest materialization, else observation; keys with neither
        are left out."""
        self.read(keys)
        return {key: event for key in keys if (event := self._latest[key]) is not None}


def provenance(event: dg.EventLogRecord) -> dg.DataProvenance | None:
    """The code version and input data versions a materialization recorded in its tags (what
    ``context.get_asset_provenance`` reads of an asset's latest one)."""
    return dg.DataProvenance.from_tags(event.asset_event.tags or {})


# The data version Dagster gives an input never observed nor materialized.
INITIAL_DATA_VERSION = dg.DataVersion("INITIAL")
