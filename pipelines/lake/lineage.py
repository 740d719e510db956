"""What a published table was built from: the walk over version manifests and their pinned
inputs, down to the raw data."""

from __future__ import annotations

from dataclasses import dataclass, field

from pipelines.lake.store import Lake, manifest_data_version


@dataclass(frozen=True)
class Lineage:
    """What a published table was built from, following each manifest's pinned inputs."""

    data_versions: dict[str, str]  # "zone/table" -> its Dagster data version
    check_failures: list[str]  # blocking checks that did not pass, or versions gone
    versions: dict[str, str] = field(default_factory=dict)  # "zone/table" -> version folder


def upstream_lineage(lake: Lake, zone: str, table: str, version_name: str) -> Lineage:
    """Data versions of every table upstream of (and including) one published version,
    and every blocking check on them that did not pass; a version no longer in the lake
    is a failure too (its checks can no longer be shown)."""
    versions: dict[str, str] = {}
    folders: dict[str, str] = {}
    failures: list[str] = []
    pending = [(zone, table, version_name)]
    while pending:
        zone_, table_, name = pending.pop()
        if f"{zone_}/{table_}" in versions:
            continue
        manifest = lake.manifest(zone_, table_, name)
        if manifest is None:
            failures.append(f"{zone_}/{table_} version {name} is no longer in the lake")
            versions[f"{zone_}/{table_}"] = "missing"
            continue
        versions[f"{zone_}/{table_}"] = manifest_data_version(manifest)
        folders[f"{zone_}/{table_}"] = name
        for check, verdict in manifest.get("checks", {}).items():
            if not verdict.get("passed"):
                failures.append(f"{zone_}/{table_}: {check} did not pass")
        for input_key, input_version in manifest.get("inputs", {}).items():
            input_zone, input_table = input_key.split(".", 1)
            pending.append((input_zone, input_table, input_version))
    return Lineage(dict(sorted(versions.items())), failures, dict(sorted(folders.items())))
