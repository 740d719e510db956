"""``ansi/<name>``: each legacy SQL file translated to ANSI SQL, one asset per file.

The assets are drawn from what each file defines (``legacy_dependencies``: parsed, never
translated, when the code location loads); a file is translated when its asset runs.
"""

import re
from collections.abc import Sequence
from pathlib import Path

import dagster as dg

from pipelines.resources import AnsiStoreResource
from pipelines.translation.store import (
    SourceDependencies,
    StoredTranslation,
    StoreError,
    legacy_dependencies,
    translate_to_store,
)
from sql.catalog import Catalog, load_catalog
from sql.diagnostics import TranslationError
from sql.paths import LEGACY_ROOT
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


def _metadata(stored: StoredTranslation) -> dict[str, object]:
    return {
        "dialect": dg.MetadataValue.text(stored.dialect),
        "source_path": dg.MetadataValue.path(stored.source_path),
        "source_line": dg.MetadataValue.int(stored.source_line),
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
    }


def ansi_asset(legacy: SourceDependencies) -> dg.AssetsDefinition:
    """One asset per table the legacy file defines (a multi-asset when a script defines
    several), all from one translation of the file."""
    source = legacy.source
    specs = [
        dg.AssetSpec(
            key=[ANSI_ZONE, name],
            group_name=ANSI_ZONE,
            kinds={"sql", source.dialect},
            description=(
                f"`{source.path.parent.name}/{source.path.name}` ({source.dialect}) "
                + (f"table `{name}` " if len(legacy.names) > 1 else "")
                + "translated to ANSI SQL. Promise: the same meaning as the legacy SQL, or the "
                "asset fails with `file:line:col` diagnostics; the rules applied and the "
                "assumptions a reviewer must accept are in the metadata and the audit trail."
            ),
            code_version=TRANSLATOR_VERSION,
            tags={"plumbline/dialect": source.dialect},
            metadata={"source_path": dg.MetadataValue.path(str(source.path))},
        )
        for name in legacy.names
    ]

    @dg.multi_asset(
        specs=specs,
        name=re.sub(r"\W", "_", f"ansi_{source.dialect}_{source.name}"),
        can_subset=False,
    )
    def _ansi(context: dg.AssetExecutionContext, ansi_store: AnsiStoreResource):
        try:
            stored = translate_to_store(
                source, ansi_store.path(), ansi_store.catalog(), expected=legacy.names
            )
        except TranslationError as exc:
            # Fails this file's assets only; the last good translations stay where they were.
            raise dg.Failure(
                description=f"{source.path} was refused:\n{exc}",
                metadata={"diagnostics": dg.MetadataValue.md(f"```\n{exc}\n```")},
            ) from exc
        except StoreError as exc:
            raise dg.Failure(description=str(exc)) from exc
        for table in stored:
            context.log.info(
                f"{source.path.name} -> {table.name}: "
                f"{'unchanged, kept' if table.reused else 'translated'}"
                f" ({len(table.rules_applied)} rules, {len(table.diagnostics)} diagnostics)"
            )
            yield dg.MaterializeResult(
                asset_key=[ANSI_ZONE, table.name],
                metadata=_metadata(table),
                data_version=dg.DataVersion(table.data_version),
            )

    return _ansi


def build_ansi_assets(
    legacy: Path | Sequence[SourceDependencies] = LEGACY_ROOT, catalog: Catalog | None = None
) -> list[dg.AssetsDefinition]:
    """The assets of every legacy file (``sql/legacy/<dialect>/<name>.sql``): a tree to
    parse with ``catalog``, or its files as already parsed (``legacy_dependencies``)."""
    if isinstance(legacy, Path):
        legacy = legacy_dependencies(legacy, catalog or load_catalog())
    return [ansi_asset(file) for file in legacy]
