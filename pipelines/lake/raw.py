"""Publish a generated TPC-H table into the lake, or keep the published one when it is current.

Pure logic, no Dagster: the raw assets are thin shells around :func:`publish_tpch_table`.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass

from pipelines.lake.store import Lake, LakeError, TableStats, TableVersion, table_stats
from pipelines.lake.tpch import TPCH_TABLES, generate_table, generator_version

RAW_ZONE = "raw"


@dataclass(frozen=True)
class RawTable:
    version: TableVersion
    stats: TableStats
    reused: bool  # True when the published data already matched scale and generator


def publish_tpch_table(lake: Lake, table: str, scale: float, *, threads: int = 2) -> RawTable:
    """Make ``raw/<table>`` hold TPC-H ``table`` at ``scale``.

    The generator is deterministic, so a published version with the same table, scale and
    generator whose files still match their digest is the same data: keep it and report
    the same digest (Dagster then sees the data as unchanged). Anything else regenerates
    into staging and publishes atomically.
    """
    current = lake.current(RAW_ZONE, table)
    if current is not None and _generated_as(current, scale) and lake.verify(current):
        return RawTable(current, table_stats(current.path), reused=True)

    wanted = {"generator": generator_version(), "scale_factor": scale}
    with lake.stage(RAW_ZONE, table) as staging:
        generate_table(table, scale, staging, threads=threads)
        stats = table_stats(staging)
        # Another run may have published the same table meanwhile: then that version stays.
        published = lake.publish_version(
            RAW_ZONE, table, staging, {**wanted, "row_count": stats.row_count}, same=lake.same_files
        )
    return RawTable(published.version, stats, reused=published.kept)


def _generated_as(version: TableVersion, scale: float) -> bool:
    """Whether ``version`` is what this generator makes at ``scale`` (its bytes unchecked)."""
    manifest = version.manifest
    return (
        manifest.get("generator") == generator_version() and manifest.get("scale_factor") == scale
    )


def tables_to_generate(lake: Lake, scale: float) -> list[str]:
    """The TPC-H tables a run at ``scale`` generates: those the lake does not publish as
    this generator's output at that scale (the rest are kept, as :func:`publish_tpch_table`
    keeps them while their files match their digest)."""
    missing = []
    for table in TPCH_TABLES:
        try:
            current = lake.current(RAW_ZONE, table)
        except LakeError:
            current = None
        if current is None or not _generated_as(current, scale):
            missing.append(table)
    return missing


def raw_data_digest(lake: Lake) -> str | None:
    """sha256 over the published raw tables' content digests; None until all are there."""
    digests = {}
    for table in TPCH_TABLES:
        version = lake.current(RAW_ZONE, table)
        if version is None:
            return None
        digests[table] = version.digest
    return hashlib.sha256(json.dumps(digests, sort_keys=True).encode()).hexdigest()
