"""Write, read and verify an audit bundle: ``bundle.json`` (the sealed chain) and
``report.html`` (the same, for a reviewer, readable offline).

Every top-level field of a bundle is accounted for, so that no edit of the file verifies:

- the nodes: each sealed by its digest (:mod:`pipelines.audit.chain`);
- the header (:data:`SEALED_FIELDS`): each sealed by its digest in ``field_digests``;
- ``root_digest``: over the root node's digest and ``field_digests``; a model version's is
  kept on the MLflow model version and in Dagster's metadata, so a bundle resealed after an
  edit is caught (a table's has no registry to keep it: see :func:`verify_bundle`);
- :data:`DERIVED_FIELDS`: summaries of the nodes, recomputed from them by verification.

A field that is none of these is not sealed, and fails verification.

The subject is a registered model version (``{"model", "version", "requested"}``, rooted at
``model:<model>/v<version>``) or a published lake table version (``{"table": "<zone>/<table>",
"version", "requested"}``, rooted at ``table:<zone>/<table>@<version>``); both are collected,
sealed and verified by the same functions (:func:`pipelines.audit.collect.collect`).
"""

from __future__ import annotations

import datetime as dt
import json
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pipelines.audit.chain import (
    FORMAT,
    TABLE_FORMATS,
    UNSEALED_FORMATS,
    AuditError,
    Difference,
    Node,
    bundle_root_digest,
    check_seal,
    compare,
    digest,
    field_digests,
    seal,
    short_json,
)
from pipelines.audit.collect import (
    AUDIT_ARTIFACTS,
    AUDIT_TAG_PREFIX,
    LAKE_NAME,
    ModelSubject,
    Sources,
    Subject,
    TableSubject,
    auditor_environment,
    collect,
    subject_from_fields,
)

BUNDLE_FILE = "bundle.json"
REPORT_FILE = "report.html"
# Under the prefix the bundle's model-version node leaves out (collect.VOLATILE_TAG_PREFIXES).
AUDIT_FOLDER_TAG_PREFIX = "plumbline.audit.folder."

# What no node records: the version audited and as what it was asked for, when, by whom,
# and on which machine.
SEALED_FIELDS = ("auditor", "created_at", "format", "made_by", "subject")
# What the nodes (and the subject) say: recomputed, not sealed.
DERIVED_FIELDS = ("dagster_run_ids", "environment", "gaps", "root")
# The JSON type of each top-level field.
FIELD_TYPES: dict[str, type] = {
    "auditor": dict,
    "created_at": str,
    "dagster_run_ids": list,
    "environment": dict,
    "field_digests": dict,
    "format": str,
    "gaps": list,
    "made_by": dict,
    "nodes": list,
    "root": str,
    "root_digest": str,
    "subject": dict,
}
# The fields of each kind of subject, by the field that tells the kind.
SUBJECT_FIELDS: dict[str, tuple[str, ...]] = {
    "model": ("model", "requested", "version"),
    "table": ("requested", "table", "version"),
}
# Each field of a node, and whether it may be left out (Node.to_dict leaves out no gap).
NODE_FIELDS: dict[str, tuple[type, ...]] = {
    "content": (dict,),
    "digest": (str,),
    "gap": (str, type(None)),
    "id": (str,),
    "kind": (str,),
    "parents": (list,),
    "title": (str,),
}
OPTIONAL_NODE_FIELDS = frozenset({"gap"})


@dataclass(frozen=True)
class Bundle:
    data: dict[str, Any]
    # The bytes its SQL links pinned, by sha256, as they were collected: what issuing it
    # keeps (pipelines.audit.pinned). Empty for a bundle read from a file.
    pinned_bytes: Mapping[str, bytes] = field(default_factory=dict, compare=False, repr=False)

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

    @property
    def audited(self) -> Subject:
        """What the bundle audits: a model version or a table version."""
        return subject_from_fields(self.subject)


def derived_fields(subject: Mapping[str, str], nodes: Iterable[Node]) -> dict[str, Any]:
    """The :data:`DERIVED_FIELDS` of a bundle of ``subject`` holding ``nodes``. Reads nodes
    that may come from an edited file: a value of an unexpected type counts as absent."""
    nodes = list(nodes)
    run = next((n for n in nodes if n.kind == "mlflow_run"), None)
    tags = _mapping(run.content.get("tags")) if run is not None else {}
    dagster_runs = {
        value
        for node in nodes
        for value in (
            _mapping(node.content.get("dagster")).get("run_id")
            if node.kind.endswith("table")
            else None,
            _mapping(node.content.get("tags")).get("dagster.run_id"),
        )
        if value and isinstance(value, str)
    }
    return {
        "root": subject_from_fields(subject).root,
        "gaps": [f"{n.id}: {n.gap}" for n in nodes if n.gap is not None],
        "environment": {k.removeprefix("env."): v for k, v in tags.items() if k.startswith("env.")},
        "dagster_run_ids": sorted(dagster_runs),
    }


def _mapping(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def seal_bundle(
    nodes: Iterable[Node],
    *,
    subject: dict[str, str],
    created_at: str,
    made_by: dict[str, str],
    auditor: dict[str, Any],
    pinned_bytes: Mapping[str, bytes] | None = None,
) -> Bundle:
    """Seal ``nodes`` and the header into a bundle (see the module docstring);
    ``pinned_bytes``: the bytes its links pinned (:attr:`Bundle.pinned_bytes`)."""
    sealed = seal(nodes)
    header = {
        "format": FORMAT,
        "subject": subject,
        "created_at": created_at,
        "made_by": made_by,
        "auditor": auditor,
    }
    derived = derived_fields(subject, sealed)
    root_node = next(n for n in sealed if n.id == derived["root"])
    digests = field_digests(header)
    return Bundle(
        {
            **header,
            **derived,
            "field_digests": digests,
            "root_digest": bundle_root_digest(root_node.digest, digests),
            "nodes": [n.to_dict() for n in sealed],
        },
        dict(pinned_bytes or {}),
    )


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
    return _sealed_chain(sources, ModelSubject(model, version, requested or model), made_by)


def build_table_bundle(
    sources: Sources,
    zone: str,
    table: str,
    version: str,
    *,
    requested: str | None = None,
    made_by: dict[str, str] | None = None,
) -> Bundle:
    """Collect and seal the chain of lake table ``zone``/``table`` ``version``: no MLflow is
    read (``sources.client`` may be None)."""
    subject = TableSubject(zone, table, version, requested or f"{zone}/{table}")
    return _sealed_chain(sources, subject, made_by)


def _sealed_chain(sources: Sources, subject: Subject, made_by: dict[str, str] | None) -> Bundle:
    collected = collect(sources, subject)
    return seal_bundle(
        collected.nodes.values(),
        subject=subject.fields(),
        created_at=collected.created_at,
        made_by=made_by or {},
        auditor=auditor_environment(),
        pinned_bytes=collected.files,
    )


def read_bundle(path: Path) -> Bundle:
    """The bundle in ``path``; AuditError, in one line naming the file and the field, when
    it is not JSON or not shaped as a bundle of this :data:`FORMAT`."""
    try:
        data = json.loads(
            Path(path).read_text(),
            object_pairs_hook=_refuse_duplicate_keys,
            parse_constant=_refuse_constant,
        )
    except OSError as exc:
        raise AuditError(f"{path}: not a readable audit bundle ({exc.strerror or exc})") from None
    except (ValueError, RecursionError) as exc:  # JSONDecodeError and UnicodeDecodeError too
        raise AuditError(f"{path}: not a JSON audit bundle ({exc})") from None
    check_shape(path, data)
    return Bundle(data)


def _refuse_duplicate_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    # Readers differ on which of two equal keys wins: the verifier and the reader of the
    # report could see different values.
    found: dict[str, Any] = {}
    for key, value in pairs:
        if key in found:
            raise ValueError(f"key {key!r} appears twice in one object")
        found[key] = value
    return found


def _refuse_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON value")


def check_shape(path: Path, data: Any) -> None:
    """Every field of a bundle present, with its JSON type; AuditError naming the first
    that is not. Extra fields pass here: :func:`check_bundle` reports them."""
    if not isinstance(data, dict):
        raise AuditError(f"{path}: not an audit bundle: a JSON object expected, not {_kind(data)}")
    if "format" not in data:
        raise _malformed(path, "format", f"is missing: not a {FORMAT} audit bundle")
    found = data["format"]
    subject = data.get("subject")
    of_table = isinstance(subject, dict) and "table" in subject and "model" not in subject
    readable = TABLE_FORMATS if of_table else {FORMAT}
    if isinstance(found, str) and found in UNSEALED_FORMATS and found not in readable:
        again = "warehouse/TABLE@VERSION" if of_table else "MODEL@VERSION"
        raise _malformed(
            path,
            "format",
            f"is {found}, a format that does not seal {UNSEALED_FORMATS[found]}: make a new "
            f"bundle (plumbline audit {again}) and verify that one",
        )
    if not (isinstance(found, str) and found in readable):
        raise _malformed(path, "format", f"is {short_json(found)}: not a {FORMAT} audit bundle")
    for name, expected in FIELD_TYPES.items():
        _expect(path, data, name, name, (expected,))
    _check_subject(path, data["subject"])
    for name in ("made_by", "field_digests"):
        for key in data[name]:
            _expect(path, data[name], key, f"{name}.{key}", (str,))
    for name in ("gaps", "dagster_run_ids"):
        for index in range(len(data[name])):
            _expect(path, data[name], index, f"{name}[{index}]", (str,))
    try:
        dt.datetime.fromisoformat(data["created_at"])
    except ValueError:
        raise _malformed(
            path, "created_at", f"is {short_json(data['created_at'])}, not a timestamp"
        ) from None
    for index, node in enumerate(data["nodes"]):
        where = f"nodes[{index}]"
        _expect(path, data["nodes"], index, where, (dict,))
        for name, types in NODE_FIELDS.items():
            if name in node or name not in OPTIONAL_NODE_FIELDS:
                _expect(path, node, name, f"{where}.{name}", types)
        for position in range(len(node["parents"])):
            _expect(path, node["parents"], position, f"{where}.parents[{position}]", (str,))


def _check_subject(path: Path, subject: dict[str, Any]) -> None:
    """Exactly one kind of subject (:data:`SUBJECT_FIELDS`), its fields strings, and a
    table named ``ZONE/TABLE``."""
    kinds = [kind for kind in SUBJECT_FIELDS if kind in subject]
    if len(kinds) != 1:
        problem = "names both a model and a table" if kinds else "names neither a model nor a table"
        raise _malformed(path, "subject", f"{problem}: subject.model or subject.table expected")
    [kind] = kinds
    for name in SUBJECT_FIELDS[kind]:
        _expect(path, subject, name, f"subject.{name}", (str,))
    if kind == "table":
        # Both become paths in the lake when the bundle is verified.
        zone, slash, table = subject["table"].partition("/")
        if not (slash and LAKE_NAME.fullmatch(zone) and LAKE_NAME.fullmatch(table)):
            raise _malformed(
                path, "subject.table", f"is {short_json(subject['table'])}: not ZONE/TABLE"
            )
        if not LAKE_NAME.fullmatch(subject["version"]):
            raise _malformed(
                path,
                "subject.version",
                f"is {short_json(subject['version'])}: not a lake version name",
            )


def _malformed(path: Path, field: str, problem: str) -> AuditError:
    return AuditError(f"{path}: field {field} {problem}")


_KINDS = {dict: "an object", list: "a list", str: "a string", type(None): "null"}


def _expect(path: Path, holder: Any, key: str | int, field: str, types: tuple[type, ...]) -> None:
    """``holder[key]`` (named ``field`` in messages) is there, of one of ``types``."""
    if isinstance(holder, dict) and key not in holder:
        raise _malformed(path, field, "is missing")
    if not isinstance(holder[key], types):
        wanted = " or ".join(_KINDS[t] for t in types)
        raise _malformed(path, field, f"must be {wanted}, not {_kind(holder[key])}")


def _kind(value: Any) -> str:
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int | float):
        return "a number"
    return _KINDS.get(type(value), type(value).__name__)


def check_bundle(bundle: Bundle) -> list[Difference]:
    """What the file alone shows no longer holds (no sources needed): a field that is not
    sealed, a sealed field or node edited after sealing, a derived field that the nodes do
    not give, a node the root does not cover, or a root digest that covers something else.
    ``bundle`` has passed :func:`check_shape`."""
    data = bundle.data
    differences = [
        Difference(
            f"field {name}", f"is not a field of a {data['format']} bundle: nothing seals it"
        )
        for name in sorted(set(data) - set(FIELD_TYPES))
    ]
    recorded = data["field_digests"]
    for name in sorted(set(recorded) | set(SEALED_FIELDS)):
        if name not in SEALED_FIELDS:
            differences.append(Difference(f"field field_digests.{name}", "seals no field"))
        elif recorded.get(name) != digest(data[name]):
            differences.append(
                Difference(
                    f"field {name}", "edited after sealing: not the value field_digests seals"
                )
            )
    nodes = bundle.nodes
    derived = derived_fields(bundle.subject, nodes)
    for name in DERIVED_FIELDS:
        if data[name] != derived[name]:
            differences.append(
                Difference(
                    f"field {name}",
                    f"is {short_json(data[name])}, the nodes give {short_json(derived[name])}",
                )
            )
    differences.extend(_node_differences(data["nodes"], nodes))
    root = next((n for n in nodes if n.id == derived["root"]), None)
    if root is None:
        differences.append(Difference(derived["root"], "the root node is not in the bundle"))
        return differences
    covered = _ancestors(root, nodes)
    differences.extend(
        Difference(node.id, "not under the root node: the root digest does not cover it")
        for node in nodes
        if node.id not in covered
    )
    if bundle_root_digest(root.digest, recorded) != bundle.root_digest:
        differences.append(
            Difference("field root_digest", "not the digest of the root node and field_digests")
        )
    return differences


def _node_differences(raw: list[dict[str, Any]], nodes: list[Node]) -> list[Difference]:
    differences = [
        Difference(node["id"], f"its field {name} is not a field of a node: nothing seals it")
        for node in raw
        for name in sorted(set(node) - set(NODE_FIELDS))
    ]
    counts = Counter(node.id for node in nodes)
    differences.extend(
        Difference(node_id, f"appears {count} times in the bundle")
        for node_id, count in sorted(counts.items())
        if count > 1
    )
    return differences + check_seal(nodes)


def _ancestors(root: Node, nodes: list[Node]) -> set[str]:
    """``root`` and every node it descends from: what its digest covers."""
    by_id = {node.id: node for node in nodes}
    found: set[str] = set()
    frontier = [root.id]
    while frontier:
        node_id = frontier.pop()
        if node_id in found or node_id not in by_id:
            continue
        found.add(node_id)
        frontier.extend(by_id[node_id].parents)
    return found


def root_tag(bundle: Bundle) -> str:
    """The model-version tag that keeps this bundle's root digest."""
    stamp = bundle.data["created_at"].replace("-", "").replace(":", "").replace("+0000", "Z")
    return AUDIT_TAG_PREFIX + stamp


def folder_tag(bundle: Bundle) -> str:
    """The model-version tag that says where this bundle was issued (beside :func:`root_tag`)."""
    return root_tag(bundle).replace(AUDIT_TAG_PREFIX, AUDIT_FOLDER_TAG_PREFIX, 1)


def stamp_root(client: Any, bundle: Bundle, folder: str | None = None) -> None:
    """Keep the root digest on the MLflow model version, under :func:`root_tag`, and where
    the bundle was issued (``folder``, as people read it) under :func:`folder_tag`. Both
    tags are left out of the bundle's own model-version node (they are written after it)."""
    if not isinstance(bundle.audited, ModelSubject):
        raise AuditError(
            f"{bundle.audited}: only a model version's bundle has a registry to keep it"
        )
    model, version = bundle.subject["model"], bundle.subject["version"]
    client.set_model_version_tag(model, version, root_tag(bundle), bundle.root_digest)
    if folder is not None:
        client.set_model_version_tag(model, version, folder_tag(bundle), folder)


def log_to_run(client: Any, run_id: str, folder: Path) -> str:
    """Log the bundle folder as artifacts of MLflow run ``run_id`` (a finished run takes
    artifacts too) under ``audit/<folder name>``, so the MLflow UI serves the report over
    HTTP, unless its files are there already; returns that artifact path."""
    from mlflow.store.artifact.artifact_repository_registry import get_artifact_repository

    artifact_path = f"{AUDIT_ARTIFACTS}/{folder.name}"
    # The run's location as the store records it now: MlflowClient.log_artifacts keeps a
    # process-wide cache of each run's location, which is stale once a copied home's store
    # has moved its locations (pipelines.registry.tracking_store.relocate).
    artifact_uri = client.get_run(run_id).info.artifact_uri
    repository = get_artifact_repository(artifact_uri, tracking_uri=client.tracking_uri)
    logged = {Path(a.path).name for a in repository.list_artifacts(artifact_path)}
    if not logged >= {p.name for p in folder.iterdir()}:
        # A bundle reused by a later run was logged when it was issued: nothing to write.
        repository.log_artifacts(str(folder), artifact_path=artifact_path)
    return artifact_path


NOT_REGISTERED = "not in the registry"


def registry_differences(bundle: Bundle, client: Any) -> list[Difference]:
    """A model version's bundle against the registry: the version exists, and keeps this
    bundle's root digest under :func:`root_tag`."""
    from mlflow.exceptions import MlflowException

    subject = bundle.audited
    try:
        tags = client.get_model_version(subject.model, subject.version).tags
    except MlflowException:
        return [Difference(subject.root, NOT_REGISTERED)]
    tag = root_tag(bundle)
    stored = tags.get(tag)
    if stored != bundle.root_digest:
        return [
            Difference(
                subject.root,
                f"MLflow tag {tag} is {stored!r}, the bundle's root is {bundle.root_digest}",
            )
        ]
    return []


@dataclass(frozen=True)
class Verification:
    """What ``--verify`` found: the links that no longer hold (none: the bundle verifies),
    and, as information, the links verified against the copies the bundle pinned whose
    file is another one now (``superseded``: a later translation, an edited legacy file)."""

    differences: list[Difference]
    superseded: list[str]


def verify_bundle(
    bundle: Bundle, sources: Sources, *, dagster_root_digests: list[str] | None = None
) -> list[Difference]:
    """The links of ``bundle`` that no longer hold (:func:`verification`). Empty: all hold."""
    return verification(bundle, sources, dagster_root_digests=dagster_root_digests).differences


def verification(
    bundle: Bundle, sources: Sources, *, dagster_root_digests: list[str] | None = None
) -> Verification:
    """Every link of ``bundle`` that no longer holds: the file's own seal
    (:func:`check_bundle`), then, recomputed from the sources, each node's content, the root
    digest on the MLflow model version (a model version's bundle) and (when given) in the
    audit asset's Dagster metadata.

    A SQL link that pinned its files (its content's ``pinned`` digests) is recomputed from
    those copies (``sources.pinned``), not from the files as they are now: the lake version
    the bundle names was built from them. A copy missing or altered fails that link, naming
    the file; a file changed since is reported in ``superseded``. A link of a bundle issued
    before pins is recomputed from the files as they are, as it always was.

    A table's bundle reads no MLflow (``sources.client`` may be None), and no registry keeps
    its root digest: each node is recomputed from the sources all the same, but a header
    edited and then resealed (when it was made, by whom) shows only as a root digest other
    than the one the reviewer was given."""
    subject = bundle.audited
    differences = check_bundle(bundle)
    if isinstance(subject, ModelSubject):
        kept = registry_differences(bundle, sources.client)
        if any(d.message == NOT_REGISTERED for d in kept):
            return Verification([*differences, *kept], [])
        differences.extend(kept)
    if dagster_root_digests is not None and bundle.root_digest not in dagster_root_digests:
        differences.append(
            Difference(
                bundle.data["root"], "no audit_bundle materialization in Dagster records this root"
            )
        )
    recorded = bundle.nodes
    current = collect(
        sources,
        subject,
        created_at=bundle.data["created_at"],
        recorded={node.id: node for node in recorded},
    )
    differences.extend(compare(recorded, seal(current.nodes.values())))
    return Verification(differences, current.superseded)
