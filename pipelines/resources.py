"""Dagster resources. Their values come from :class:`pipelines.settings.Settings`."""

from __future__ import annotations

from pathlib import Path

import dagster as dg

from pipelines.ansi_store import StoredTranslation, read_stored_manifest, read_stored_sql
from pipelines.contracts.registry import PublishedContracts
from pipelines.engines.base import Engine
from pipelines.engines.duckdb_engine import DuckDBEngine
from pipelines.engines.spark_engine import SparkEngine
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


class ContractsResource(dg.ConfigurableResource):
    """Where the contracts that guarded each publish are kept (``$PLUMBLINE_HOME/contracts``)."""

    published_root: str

    def published(self) -> PublishedContracts:
        return PublishedContracts(Path(self.published_root))


class AnsiStoreResource(dg.ConfigurableResource):
    """Where translated ANSI SQL is written (``$PLUMBLINE_HOME/ansi``)."""

    root: str

    def path(self) -> Path:
        return Path(self.root)

    def read_sql(self, name: str) -> str:
        """The stored ANSI SQL of ``ansi/<name>``, checked against its manifest."""
        return read_stored_sql(Path(self.root), name)

    def read_manifest(self, name: str) -> StoredTranslation:
        return read_stored_manifest(Path(self.root), name)


class EngineResource(dg.ConfigurableResource):
    """The SQL engine that builds warehouse tables (``PLUMBLINE_ENGINE``)."""

    engine: str = "duckdb"
    spark_master: str = "local[*]"

    def build_engine(self, name: str | None = None) -> Engine:
        """The configured engine, or ``name`` (the portability check asks for the other one)."""
        match name or self.engine:
            case "duckdb":
                return DuckDBEngine()
            case "spark":
                return SparkEngine(self.spark_master)
            case other:
                raise ValueError(f"engine must be duckdb or spark; got {other!r}")
