"""Dagster resources. Their values come from :class:`pipelines.settings.Settings`."""

from __future__ import annotations

from pathlib import Path

import dagster as dg

from pipelines.lake import Lake


class LakeResource(dg.ConfigurableResource):
    """The Parquet lake under ``root`` (``$PLUMBLINE_HOME/lake`` by default)."""

    root: str

    def lake(self) -> Lake:
        return Lake(Path(self.root))


class TpchResource(dg.ConfigurableResource):
    """The TPC-H generator's knobs."""

    scale: float
    threads: int = 2
