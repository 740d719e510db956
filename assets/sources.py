"""``raw/<name>``: the project's own raw tables, from exported files or a database.

One asset per declared source (``sources:`` in the component's defs.yaml), published into the
raw zone like the generated TPC-H tables: staged, digested and swapped in atomically, so a
source that fails leaves its last good version in place.
"""

from pathlib import Path

import dagster as dg

from assets.metadata import code_references
from assets.raw import raw_table_result
from pipelines.lake.raw import RAW_ZONE
from pipelines.lake.sources import DatabaseSource, FileSource, Source
from pipelines.resources import LakeResource
from pipelines.step_usage import StepUsage


def _described(source: Source) -> tuple[str, set[str]]:
    """What the asset says it is read from, and its kinds."""
    if isinstance(source, FileSource):
        return f"the {source.format.upper()} files `{source.pattern}`", {"parquet", source.format}
    assert isinstance(source, DatabaseSource)
    return (
        f"the {source.driver} table `{source.table}` (connection from ${source.url_env})",
        {"parquet", source.driver},
    )


def source_asset(source: Source, declared_in: Path | None = None) -> dg.AssetsDefinition:
    """``raw/<name>`` read from ``source``; its "Source code" is the file that declares it
    (``declared_in``, the component's defs.yaml), when known."""
    read_from, kinds = _described(source)

    @dg.asset(
        key=[RAW_ZONE, source.name],
        group_name=RAW_ZONE,
        kinds=kinds,
        description=(
            f"Raw table {source.name}, read from {read_from}. Promise: published whole into the "
            "lake's raw zone with a digest over its files; unchanged data keeps its version, "
            "and a source that cannot be read leaves the last good version in place."
        ),
        tags={"plumbline/zone": RAW_ZONE},
        metadata=code_references(declared_in) if declared_in is not None else None,
    )
    def _source(context: dg.AssetExecutionContext, lake: LakeResource) -> dg.MaterializeResult:
        usage = StepUsage.start()
        # DuckDB and the database driver: imported when a source is read, not at load.
        from pipelines.lake.ingest import publish_source
        from pipelines.lake.sources import SourceError

        try:
            result = publish_source(lake.lake(), source)
        except SourceError as exc:
            raise dg.Failure(description=str(exc)) from None
        context.log.info(
            f"{RAW_ZONE}/{source.name}: {'kept' if result.reused else 'published'} "
            f"{result.stats.row_count:,} rows from {read_from}"
        )
        return raw_table_result(result, source=dg.MetadataValue.text(read_from), **usage.metadata())

    return _source
