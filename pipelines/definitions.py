"""The plumbline code location: the one ``Definitions`` Dagster loads (see workspace.yaml)."""

from __future__ import annotations

import dagster as dg

from assets.raw import raw_assets
from pipelines.resources import LakeResource, TpchResource
from pipelines.settings import Settings

MATERIALIZE_ALL_JOB = "materialize_all_job"


def build_definitions(settings: Settings) -> dg.Definitions:
    raw = dg.Definitions(
        assets=raw_assets,
        resources={
            "lake": LakeResource(root=str(settings.lake_root)),
            "tpch": TpchResource(scale=settings.scale),
        },
    )
    everything = dg.Definitions(
        jobs=[dg.define_asset_job(MATERIALIZE_ALL_JOB, selection=dg.AssetSelection.all())]
    )
    return dg.Definitions.merge(raw, everything)


@dg.definitions
def defs() -> dg.Definitions:
    return build_definitions(Settings.from_env())


def materialize_all_job() -> dg.JobDefinition:
    """Every asset, as the UI's "Materialize all" runs them. Module-level so that
    ``dg.reconstructable`` can rebuild it in each step process of ``plumbline run``."""
    return defs().resolve_job_def(MATERIALIZE_ALL_JOB)
