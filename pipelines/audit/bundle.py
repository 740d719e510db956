"""Write, read and verify an audit bundle: ``bundle.json`` (the sealed chain) and
``report.html`` (the same, for a reviewer, readable offline)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pipelines.audit.chain import (
    FORMAT,
    AuditError,
    Difference,
    Node,
    check_seal,
    compare,
    seal,
)
from pipelines.audit.collect import AUDIT_TAG_PREFIX, Sources, auditor_environment, collect

BUNDLE_FILE = "bundle.json"
REPORT_FILE = "report.html"


@dataclass(frozen=True)
class Bundle:
    data: dict[str, Any]

    @property
    def root_digest(self) -> str:
        return self.data["root_digest"]

    @property
    def nodes(self) -> list[Node]:
        return [Node.from_dict(n) for n in self.data["nodes"]]

    @property
    def gaps(self) -> list[str]:
        return self.data["gaps"]

    @property
    def subject(self) -> dict[str, str]:
        return self.data["subject"]


def build_bundle(
    sources: Sources,
    model: str,
    version: str,
    *,
    requested: str | None = None,
    made_by: dict[str, str] | None = None,
) -> Bundle:
    """Collect and seal the chain of ``model`` ``version``. ``made_by`` says who asked
    (``{"dagster_run_id": ...}`` for the asset, ``{"command": ...}`` for the CLI)."""
    collected = collect(sources, model, version)
    nodes = seal(collected.nodes.values())
    root = f"model:{model}/v{version}"
    by_id = {node.id: node for node in nodes}
    run = next((n for n in nodes if n.kind == "mlflow_run"), None)
    tags = run.content.get("tags", {}) if run is not None else {}
    dagster_runs = {
        value
        for node in nodes
        for value in (
            node.content.get("dagster", {}).get("run_id") if node.kind.endswith("table") else None,
            node.content.get("tags", {}).get("dagster.run_id"),
        )
        if value
    }
    data = {
        "format": FORMAT,
        "subject": {"model": model, "version": version, "requested": requested or model},
        "created_at": collected.created_at,
        "made_by": made_by or {},
        "root": root,
        "root_digest": by_id[root].digest,
        "gaps": [f"{n.id}: {n.gap}" for n in nodes if n.gap is not None],
        "environment": {k.removeprefix("env."): v for k, v in tags.items() if k.startswith("env.")},
        "dagster_run_ids": sorted(dagster_runs),
        "auditor": auditor_environment(),
        "nodes": [n.to_dict() for n in nodes],
    }
    return Bundle(data)


def read_bundle(path: Path) -> Bundle:
    try:
        data = json.loads(Path(path).read_text())
    except (OSError, json.JSONDecodeError) as exc:
        raise AuditError(f"{path}: not a readable audit bundle ({exc})") from None
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise AuditError(f"{path}: not a plumbline audit bundle (format {FORMAT} expected)")
    return Bundle(data)


def root_tag(bundle: Bundle) -> str:
    """The model-version tag that keeps this bundle's root digest."""
    stamp = bundle.data["created_at"].replace("-", "").replace(":", "").replace("+0000", "Z")
    return AUDIT_TAG_PREFIX + stamp


def stamp_root(client: Any, bundle: Bundle) -> None:
    """Keep the root digest on the MLflow model version, under :func:`root_tag`."""
    client.set_model_version_tag(
        bundle.subject["model"], bundle.subject["version"], root_tag(bundle), bundle.root_digest
    )


def verify_bundle(
    bundle: Bundle, sources: Sources, *, dagster_root_digests: list[str] | None = None
) -> list[Difference]:
    """Every link of ``bundle`` that no longer holds, recomputed from the sources: the
    bundle's own seal, each node's content, the root digest on the MLflow model version
    and (when given) in the audit asset's Dagster metadata. Empty: all hold."""
    from mlflow.exceptions import MlflowException

    model, version = bundle.subject["model"], bundle.subject["version"]
    recorded = bundle.nodes
    differences = check_seal(recorded)
    root = bundle.data["root"]
    sealed_root = next((n.digest for n in recorded if n.id == root), None)
    if sealed_root != bundle.root_digest:
        differences.append(Difference(root, "root_digest does not match the root node"))
    try:
        tags = sources.client.get_model_version(model, version).tags
    except MlflowException:
        return [*differences, Difference(f"model:{model}/v{version}", "not in the registry")]
    tag = root_tag(bundle)
    stored = tags.get(tag)
    if stored != bundle.root_digest:
        differences.append(
            Difference(
                f"model:{model}/v{version}",
                f"MLflow tag {tag} is {stored!r}, the bundle's root is {bundle.root_digest}",
            )
        )
    if dagster_root_digests is not None and bundle.root_digest not in dagster_root_digests:
        differences.append(
            Difference(root, "no audit_bundle materialization in Dagster records this root")
        )
    current = collect(sources, model, version, created_at=bundle.data["created_at"])
    differences.extend(compare(recorded, seal(current.nodes.values())))
    return differences
