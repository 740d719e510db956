"""``legacy/<dialect>/<name>``: each legacy SQL file as the source node of its lineage.

The files are the migration's input, not something plumbline builds: they are observed, not
materialized. An observation reads a file and records its sha256 as the asset's data
version, so each ``ansi/<name>`` materialization records the version of the file it
translated, and the graph runs legacy file -> ``ansi/<name>`` -> ``warehouse/<name>``.
Loading defines the assets only; a file is read when it is observed (``plumbline run``, or
"Observe sources" in the UI).
"""

import warnings

import dagster as dg

from assets.metadata import code_references
from pipelines.settings import shown_path
from pipelines.translation.store import LegacySource, LegacySql, SourceDependencies, sha256_bytes

LEGACY_GROUP = "legacy"
# The one step that observes the files: hashing them all costs milliseconds, a step each
# would cost a step's start-up each.
OBSERVE_STEP = "legacy_files"


def legacy_key(source: LegacySource) -> dg.AssetKey:
    """``legacy/<dialect>/<name>``: the key of the legacy file ``<dialect>/<name>.sql``."""
    return dg.AssetKey([LEGACY_GROUP, source.dialect, source.name])


def _spec(file: SourceDependencies) -> dg.AssetSpec:
    source = file.source
    tables = ", ".join(f"`ansi/{name}`" for name in file.names)
    return dg.AssetSpec(
        key=legacy_key(source),
        group_name=LEGACY_GROUP,
        kinds={"sql", source.dialect},
        description=(
            f"`{source.path.parent.name}/{source.path.name}`, legacy {source.dialect} SQL as "
            f"the legacy warehouse ran it, translated by {tables}. Read-only: observed, never "
            "written. Its data version is the file's sha256, so an edited file shows the "
            "translation downstream as changed."
        ),
        tags={"plumbline/dialect": source.dialect},
        metadata={
            "path": dg.MetadataValue.path(shown_path(source.path)),
            **code_references(source.path),
        },
    )


def observe_legacy_file(source: LegacySource) -> dg.ObserveResult:
    """The file as it is now: its sha256 (the data version), size and path."""
    try:
        data = source.path.read_bytes()
    except OSError as exc:
        raise dg.Failure(
            description=f"{source.path}: cannot read the legacy file ({exc.strerror}); "
            "reload the code location if it was moved or removed"
        ) from None
    digest = sha256_bytes(data)
    return dg.ObserveResult(
        asset_key=legacy_key(source),
        data_version=dg.DataVersion(digest),
        metadata={
            "path": dg.MetadataValue.path(shown_path(source.path)),
            "sha256": dg.MetadataValue.text(digest),
            "bytes": dg.MetadataValue.int(len(data)),
            "lines": dg.MetadataValue.int(len(data.splitlines())),
        },
    )


def legacy_files_asset(legacy: LegacySql) -> dg.AssetsDefinition | None:
    """One observable source asset per legacy file of ``legacy``, observed together in one
    step (a subset of them when a run selects only some); None when there is no file."""
    if not legacy.files:
        return None
    sources = {legacy_key(file.source): file.source for file in legacy.files}
    with warnings.catch_warnings():
        # Beta in Dagster 1.13, and the current form of an observable source asset (an
        # AssetsDefinition from AssetSpecs; observable_source_asset returns a SourceAsset).
        warnings.simplefilter("ignore", dg.BetaWarning)

        @dg.multi_observable_source_asset(
            specs=[_spec(file) for file in legacy.files],
            name=OBSERVE_STEP,
            can_subset=True,
            description="Read each legacy SQL file and record its sha256 as its data version.",
        )
        def _legacy_files(context: dg.AssetExecutionContext):
            for key in sorted(context.selected_asset_keys, key=lambda k: k.to_user_string()):
                yield observe_legacy_file(sources[key])

    return _legacy_files
