"""``ansi/<name>``: each legacy SQL file translated to ANSI SQL, one asset per file."""

from pathlib import Path

import dagster as dg

from pipelines.ansi_store import LEGACY_ROOT, LegacySource, legacy_sources, translate_to_store
from pipelines.resources import AnsiStoreResource
from sql.catalog import load_catalog
from sql.diagnostics import TranslationError
from sql.translate import TRANSLATOR_VERSION

ANSI_ZONE = "ansi"


def column_lineage_metadata(deps: dict[str, list[list[str]]]) -> dg.TableColumnLineage:
    return dg.TableColumnLineage(
        deps_by_column={
            column: [
                dg.TableColumnDep(asset_key=dg.AssetKey(table.split(".")), column_name=source)
                for table, source in sources
            ]
            for column, sources in deps.items()
        }
    )


def ansi_asset(source: LegacySource) -> dg.AssetsDefinition:
    @dg.asset(
        key=[ANSI_ZONE, source.name],
        group_name=ANSI_ZONE,
        kinds={"sql", source.dialect},
        description=(
            f"`{source.path.parent.name}/{source.path.name}` ({source.dialect}) translated to "
            "ANSI SQL. Promise: the same meaning as the legacy SQL, or the asset fails with "
            "`file:line:col` diagnostics; the rules applied and the assumptions a reviewer "
            "must accept are in the metadata and the audit trail."
        ),
        code_version=TRANSLATOR_VERSION,
        tags={"plumbline/dialect": source.dialect},
        metadata={"source_path": dg.MetadataValue.path(str(source.path))},
    )
    def _ansi(
        context: dg.AssetExecutionContext, ansi_store: AnsiStoreResource
    ) -> dg.MaterializeResult:
        try:
            stored = translate_to_store(source, ansi_store.path(), load_catalog())
        except TranslationError as exc:
            # Fails this asset only; the last good translation stays where it was.
            raise dg.Failure(
                description=f"{source.path} was refused:\n{exc}",
                metadata={"diagnostics": dg.MetadataValue.md(f"```\n{exc}\n```")},
            ) from exc
        context.log.info(
            f"{source.path.name}: {'unchanged, kept' if stored.reused else 'translated'}"
            f" ({len(stored.rules_applied)} rules, {len(stored.diagnostics)} diagnostics)"
        )
        return dg.MaterializeResult(
            metadata={
                "dialect": dg.MetadataValue.text(stored.dialect),
                "source_path": dg.MetadataValue.path(stored.source_path),
                "source_sha256": dg.MetadataValue.text(stored.source_sha256),
                "ansi_path": dg.MetadataValue.path(stored.ansi_path),
                "ansi_sha256": dg.MetadataValue.text(stored.ansi_sha256),
                "ansi_sql": dg.MetadataValue.md(f"```sql\n{stored.ansi_sql}```"),
                "rules_applied": dg.MetadataValue.json(stored.rules_applied),
                "warnings": dg.MetadataValue.md(
                    "\n".join(f"- `{line}`" for line in stored.diagnostics) or "none"
                ),
                "source_tables": dg.MetadataValue.json(stored.source_tables),
                "translator_version": dg.MetadataValue.text(stored.translator_version),
                "reused_stored_translation": dg.MetadataValue.bool(stored.reused),
                "dagster/column_lineage": column_lineage_metadata(stored.column_lineage),
            },
            data_version=dg.DataVersion(stored.data_version),
        )

    return _ansi


def build_ansi_assets(root: Path = LEGACY_ROOT) -> list[dg.AssetsDefinition]:
    """One asset per legacy file under ``root`` (``sql/legacy/<dialect>/<name>.sql``)."""
    return [ansi_asset(source) for source in legacy_sources(root)]
