"""The audit chain: nodes whose digests cover their content and their parents' digests.

A Merkle chain: changing any node's content, or any node it descends from, changes every
digest on the way up to the root node. The bundle's root digest (kept on the MLflow model
version and in Dagster's metadata) covers the root node's digest and one digest per header
field (:func:`bundle_root_digest`), so it vouches for the whole bundle. Pure logic: no
MLflow, no Dagster.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

FORMAT = "plumbline.audit/3"
# Earlier formats, and what each left unsealed: their bundles are refused rather than half
# verified. Format 1 sealed the nodes only (its header could be edited without a trace);
# format 2 sealed a model version without its files in MLflow.
UNSEALED_FORMATS = {
    "plumbline.audit/1": "the bundle's header",
    "plumbline.audit/2": "a model's files in MLflow (its weights, the training curve)",
}
# Format 2 differs from 3 only where MLflow is read: a table's bundle of format 2 seals
# everything its chain holds, and verifies as it did.
TABLE_FORMATS = frozenset({FORMAT, "plumbline.audit/2"})


class AuditError(RuntimeError):
    """An audit cannot start: unknown model or version, or an unreadable bundle."""


def canonical_json(value: Any) -> bytes:
    """One byte string per value: sorted keys, no whitespace, UTF-8 (what digests cover)."""
    return json.dumps(
        value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False
    ).encode()


def digest(value: Any) -> str:
    return "sha256:" + hashlib.sha256(canonical_json(value)).hexdigest()


@dataclass
class Node:
    """One link of the chain. ``gap`` says why a link could not be established; a node with
    a gap still has a digest, but a bundle that holds one does not verify."""

    id: str
    kind: str
    title: str
    content: dict[str, Any]
    parents: list[str] = field(default_factory=list)
    gap: str | None = None
    digest: str = ""

    def to_dict(self) -> dict[str, Any]:
        data = {
            "id": self.id,
            "kind": self.kind,
            "title": self.title,
            "content": self.content,
            "parents": self.parents,
            "digest": self.digest,
        }
        if self.gap is not None:
            data["gap"] = self.gap
        return data

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Node:
        return cls(
            id=data["id"],
            kind=data["kind"],
            title=data.get("title", data["id"]),
            content=dict(data["content"]),
            parents=list(data.get("parents", [])),
            gap=data.get("gap"),
            digest=data.get("digest", ""),
        )


def node_digest(node: Node, parent_digests: Mapping[str, str]) -> str:
    """Covers every field of the node but its digest, and its parents' digests."""
    return digest(
        {
            "id": node.id,
            "kind": node.kind,
            "title": node.title,
            "content": node.content,
            "gap": node.gap,
            "parents": [[parent, parent_digests[parent]] for parent in sorted(node.parents)],
        }
    )


def field_digests(fields: Mapping[str, Any]) -> dict[str, str]:
    """One digest per header field: a bundle keeps them, so that verification can name the
    field that was edited, as :func:`check_seal` names the node."""
    return {name: digest(value) for name, value in sorted(fields.items())}


def bundle_root_digest(root_node_digest: str, sealed_fields: Mapping[str, str]) -> str:
    """The digest kept outside the bundle: over the root node's digest (so every node) and
    the header's :func:`field_digests`."""
    return digest({"root_node": root_node_digest, "fields": dict(sealed_fields)})


def topological(nodes: Iterable[Node]) -> list[Node]:
    """Parents before children; raises AuditError on a cycle or a missing parent."""
    by_id = {node.id: node for node in nodes}
    ordered: list[Node] = []
    state: dict[str, str] = {}

    def visit(node_id: str, child: str | None) -> None:
        if state.get(node_id) == "done":
            return
        if state.get(node_id) == "visiting":
            raise AuditError(f"the chain has a cycle through {node_id}")
        if node_id not in by_id:
            raise AuditError(f"{child}: parent {node_id} is not in the chain")
        state[node_id] = "visiting"
        for parent in sorted(by_id[node_id].parents):
            visit(parent, node_id)
        state[node_id] = "done"
        ordered.append(by_id[node_id])

    for node_id in sorted(by_id):
        visit(node_id, None)
    return ordered


def seal(nodes: Iterable[Node]) -> list[Node]:
    """Compute every node's digest (parents first); returns the nodes in that order."""
    ordered = topological(nodes)
    digests: dict[str, str] = {}
    for node in ordered:
        node.digest = node_digest(node, digests)
        digests[node.id] = node.digest
    return ordered


@dataclass(frozen=True)
class Difference:
    """A link that no longer matches: which node (or bundle field), and what about it."""

    node: str
    message: str

    def __str__(self) -> str:
        return f"{self.node}: {self.message}"


def short_json(value: Any) -> str:
    text = json.dumps(value, sort_keys=True, default=str)
    return text if len(text) <= 90 else text[:87] + "..."


def content_differences(path: str, recorded: Any, current: Any) -> list[str]:
    """Field-level differences between two JSON values, as ``path: was X, now Y`` lines."""
    if isinstance(recorded, dict) and isinstance(current, dict):
        lines = []
        for key in sorted(set(recorded) | set(current)):
            sub = f"{path}.{key}" if path else str(key)
            if key not in current:
                lines.append(f"{sub}: was {short_json(recorded[key])}, now missing")
            elif key not in recorded:
                lines.append(f"{sub}: now {short_json(current[key])}, not in the bundle")
            else:
                lines.extend(content_differences(sub, recorded[key], current[key]))
        return lines
    if recorded != current:
        return [f"{path or 'value'}: was {short_json(recorded)}, now {short_json(current)}"]
    return []


def check_seal(nodes: Iterable[Node]) -> list[Difference]:
    """Nodes whose recorded digest no longer matches their recorded content and their
    parents' recorded digests (catches an edited bundle file, naming the edited node)."""
    nodes = list(nodes)
    recorded = {node.id: node.digest for node in nodes}
    differences = []
    for node in nodes:
        missing = [p for p in node.parents if p not in recorded]
        if missing:
            differences.append(Difference(node.id, f"parents not in the bundle: {missing}"))
        elif node_digest(node, recorded) != node.digest:
            differences.append(
                Difference(node.id, "its digest does not match its recorded content")
            )
    return differences


def compare(recorded: Iterable[Node], current: Iterable[Node]) -> list[Difference]:
    """Links of ``recorded`` that ``current`` (recollected from the sources) no longer
    matches: each node whose own content, gap or parents changed, with the fields."""
    now = {node.id: node for node in current}
    differences = []
    for node in recorded:
        if node.gap is not None:
            differences.append(Difference(node.id, f"recorded as a gap: {node.gap}"))
            continue
        fresh = now.get(node.id)
        if fresh is None:
            differences.append(Difference(node.id, "no longer reachable from the chain's root"))
            continue
        if fresh.gap is not None:
            differences.append(Difference(node.id, fresh.gap))
            continue
        lines = content_differences("", node.content, fresh.content)
        if sorted(node.parents) != sorted(fresh.parents):
            lines.append(f"parents: was {sorted(node.parents)}, now {sorted(fresh.parents)}")
        differences.extend(Difference(node.id, line) for line in lines)
    return differences
