"""The whole bundle is sealed: each top-level field of bundle.json is sealed or recomputed
from the nodes, an edit of any of them fails verification by name, and a malformed file is
refused in one line, by the command line too. Bundles are written by the real store from
the report tests' chain (no sources needed: these are the checks of the file alone)."""

from __future__ import annotations

import copy
import json
import os
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from pipelines.audit.bundle import (
    BUNDLE_FILE,
    FIELD_TYPES,
    Bundle,
    check_bundle,
    read_bundle,
    seal_bundle,
)
from pipelines.audit.chain import AuditError, Node, digest, seal
from pipelines.audit.store import write_bundle
from pipelines.cli.main import main
from tests.pipelines.audit.test_report import make_bundle

RUN_NODE = "mlflow_run:r1"
ROOT = "model:delivery_delay/v3"


def sealed_bundle(*, with_gaps: bool) -> Bundle:
    nodes = [Node.from_dict(n) for n in make_bundle(with_gaps=with_gaps)["nodes"]]
    run = next(n for n in nodes if n.id == RUN_NODE)
    run.content["tags"].update({"env.python": "3.11.7", "dagster.run_id": "run-train"})
    return seal_bundle(
        nodes,
        subject={"model": "delivery_delay", "version": "3", "requested": "delivery_delay"},
        created_at="2026-11-30T08:00:00+00:00",
        made_by={"dagster_run_id": "run-audit"},
        auditor={"python": "3.11.7", "host": "laptop", "packages": {"dagster": "1.13"}},
    )


@pytest.fixture(scope="module", params=[False, True], ids=["complete", "with-gaps"])
def written(request, tmp_path_factory) -> dict[str, Any]:
    """What the real store writes to bundle.json, read back as JSON."""
    folder = tmp_path_factory.mktemp("bundle")
    bundle_path, _ = write_bundle(sealed_bundle(with_gaps=request.param), folder)
    return json.loads(bundle_path.read_text())


def write(data: dict[str, Any] | str, tmp_path: Path) -> Path:
    path = tmp_path / BUNDLE_FILE
    path.write_text(data if isinstance(data, str) else json.dumps(data))
    return path


def failures(data: dict[str, Any], tmp_path: Path) -> list[str]:
    return [str(d) for d in check_bundle(read_bundle(write(data, tmp_path)))]


def verify_command(path: Path, tmp_path: Path):
    """``plumbline audit --verify path`` in process, in an empty home: a malformed bundle
    must be refused before the sources are opened."""
    environment = {k: None for k in os.environ if k.startswith("PLUMBLINE_")}
    environment["PLUMBLINE_HOME"] = str(tmp_path / "home")
    return CliRunner().invoke(main, ["audit", "--verify", str(path)], env=environment)


def test_a_written_bundle_holds_every_field_and_verifies(written, tmp_path):
    assert set(written) == set(FIELD_TYPES)
    assert failures(written, tmp_path) == []


def _node(data: dict[str, Any], node_id: str) -> dict[str, Any]:
    return next(n for n in data["nodes"] if n["id"] == node_id)


def _forge_node(data: dict[str, Any]) -> None:
    _node(data, RUN_NODE)["content"]["metrics"]["val_auc"] = 0.99


# (field, an edit of it, a text the failure must hold). The edits keep the file well
# formed: a malformed one is refused before verification (see below).
EDITS = [
    (
        "subject",
        lambda d: d["subject"].update(requested="delivery_delay@challenger"),
        "field subject",
    ),
    ("subject", lambda d: d["subject"].update(version="2"), "field subject"),
    ("created_at", lambda d: d.update(created_at="2026-12-24T08:00:00+00:00"), "field created_at"),
    ("made_by", lambda d: d.update(made_by={"command": "plumbline audit"}), "field made_by"),
    ("auditor", lambda d: d["auditor"].update(host="elsewhere"), "field auditor"),
    ("root", lambda d: d.update(root=RUN_NODE), "field root"),
    ("root_digest", lambda d: d.update(root_digest="sha256:" + "0" * 64), "field root_digest"),
    ("gaps", lambda d: d.update(gaps=[]) if d["gaps"] else d["gaps"].append("x: y"), "field gaps"),
    ("environment", lambda d: d["environment"].update(python="3.13.0"), "field environment"),
    ("dagster_run_ids", lambda d: d["dagster_run_ids"].pop(), "field dagster_run_ids"),
    ("field_digests", lambda d: d["field_digests"].update(auditor=digest({})), "field_digests"),
    ("nodes", _forge_node, RUN_NODE),
    ("nodes", lambda d: _node(d, RUN_NODE).update(title="Another run"), RUN_NODE),
]


def test_every_field_has_an_edit():
    assert {field for field, _, _ in EDITS} | {"format"} == set(FIELD_TYPES)


@pytest.mark.parametrize(("field", "edit", "named"), EDITS, ids=[e[0] for e in EDITS])
def test_an_edited_field_fails_verification_by_name(written, tmp_path, field, edit, named):
    edited = copy.deepcopy(written)
    edit(edited)
    found = failures(edited, tmp_path)
    assert found, f"an edit of {field} verified"
    assert any(named in line for line in found), found


def test_a_resealed_header_still_changes_the_root_digest(written):
    # Sealing the edit consistently passes the file's own checks, but the root digest moves,
    # and the root digest is what MLflow and Dagster keep.
    nodes = [Node.from_dict(n) for n in written["nodes"]]
    fields = {name: written[name] for name in ("subject", "created_at", "auditor")}
    resealed = seal_bundle(nodes, **fields, made_by={"command": "plumbline audit"})
    assert check_bundle(resealed) == []
    assert resealed.root_digest != written["root_digest"]


def test_an_unknown_field_is_not_sealed_and_fails(written, tmp_path):
    assert failures({**written, "reviewed_by": "me"}, tmp_path) == [
        "field reviewed_by: is not a field of a plumbline.audit/3 bundle: nothing seals it"
    ]
    edited = copy.deepcopy(written)
    _node(edited, RUN_NODE)["note"] = "approved"
    assert failures(edited, tmp_path) == [
        f"{RUN_NODE}: its field note is not a field of a node: nothing seals it"
    ]


def test_a_node_outside_the_root_or_twice_in_the_bundle_fails(written, tmp_path):
    # Each sealed correctly: only their place in the chain gives them away.
    stray = seal([Node("code:forged", "code", "Code at forged", {"git_sha": "forged"})])[0]
    assert failures({**written, "nodes": [*written["nodes"], stray.to_dict()]}, tmp_path) == [
        "code:forged: not under the root node: the root digest does not cover it"
    ]
    twice = [*written["nodes"], _node(written, RUN_NODE)]
    assert f"{RUN_NODE}: appears 2 times in the bundle" in failures(
        {**written, "nodes": twice}, tmp_path
    )


def test_a_bundle_without_its_root_node_fails(written, tmp_path):
    nodes = [n for n in written["nodes"] if n["id"] != ROOT]
    assert f"{ROOT}: the root node is not in the bundle" in failures(
        {**written, "nodes": nodes}, tmp_path
    )


def _without(data: dict[str, Any], path: tuple[str | int, ...]) -> dict[str, Any]:
    edited = copy.deepcopy(data)
    *parents, last = path
    holder: Any = edited
    for key in parents:
        holder = holder[key]
    del holder[last]
    return edited


def _set(data: dict[str, Any], path: tuple[str | int, ...], value: Any) -> dict[str, Any]:
    edited = copy.deepcopy(data)
    *parents, last = path
    holder: Any = edited
    for key in parents:
        holder = holder[key]
    holder[last] = value
    return edited


@pytest.mark.parametrize("field", sorted(FIELD_TYPES))
def test_a_missing_field_is_one_line_naming_it_exit_1(written, tmp_path, field):
    path = write(_without(written, (field,)), tmp_path)
    result = verify_command(path, tmp_path)
    assert result.exit_code == 1, result.output
    assert isinstance(result.exception, SystemExit)  # not a traceback
    assert result.stdout == ""
    [line] = result.stderr.splitlines()
    assert line.startswith(f"plumbline: error: {path}: field {field} is missing")


# (case, the file: its text, or a change of a written bundle, what the one line says)
MALFORMED = [
    ("not JSON", "{'format': 1}", "not a JSON audit bundle"),
    ("empty", "", "not a JSON audit bundle"),
    ("NaN", '{"format": NaN}', "NaN is not a JSON value"),
    ("twice a key", '{"format": 1, "format": 2}', "key 'format' appears twice"),
    ("a list", "[]", "a JSON object expected, not a list"),
    ("a string", '"bundle"', "a JSON object expected, not a string"),
    ("old format", '{"format": "plumbline.audit/1"}', "field format is plumbline.audit/1"),
    ("other format", '{"format": 2}', "field format is 2: not a plumbline.audit/3"),
    (
        "a model's bundle of format 2",
        lambda d: _set(d, ("format",), "plumbline.audit/2"),
        "field format is plumbline.audit/2, a format that does not seal a model's files in "
        "MLflow (its weights, the training curve): make a new bundle (plumbline audit "
        "MODEL@VERSION)",
    ),
    ("subject", lambda d: _set(d, ("subject",), "x"), "field subject must be an object, not a"),
    ("version", lambda d: _set(d, ("subject", "version"), 3), "subject.version must be a string"),
    ("requested", lambda d: _without(d, ("subject", "requested")), "subject.requested is missing"),
    ("created_at", lambda d: _set(d, ("created_at",), "yesterday"), 'created_at is "yesterday"'),
    ("made_by", lambda d: _set(d, ("made_by", "x"), 1), "made_by.x must be a string, not a number"),
    ("gaps", lambda d: _set(d, ("gaps",), [True]), "gaps[0] must be a string, not a boolean"),
    ("nodes", lambda d: _set(d, ("nodes",), {}), "field nodes must be a list, not an object"),
    ("a node", lambda d: _set(d, ("nodes", 0), []), "nodes[0] must be an object, not a list"),
    ("content", lambda d: _set(d, ("nodes", 1, "content"), "x"), "nodes[1].content must be an"),
    ("parents", lambda d: _set(d, ("nodes", 2, "parents"), [None]), "nodes[2].parents[0] must"),
    ("gap", lambda d: _set(d, ("nodes", 0, "gap"), 1), "nodes[0].gap must be a string or null"),
    ("id", lambda d: _without(d, ("nodes", 0, "id")), "field nodes[0].id is missing"),
]


@pytest.mark.parametrize(("case", "change", "message"), MALFORMED, ids=[m[0] for m in MALFORMED])
def test_a_malformed_bundle_is_refused_in_one_line(written, tmp_path, case, change, message):
    path = write(change if isinstance(change, str) else change(written), tmp_path)
    with pytest.raises(AuditError) as refused:
        read_bundle(path)
    assert str(refused.value).startswith(f"{path}: ")
    assert message in str(refused.value)
    assert "\n" not in str(refused.value)


def test_the_command_line_refuses_a_file_that_is_not_json_in_one_line(tmp_path):
    path = write("not json", tmp_path)
    result = verify_command(path, tmp_path)
    assert result.exit_code == 1
    assert isinstance(result.exception, SystemExit)
    [line] = result.stderr.splitlines()
    assert line.startswith(f"plumbline: error: {path}: not a JSON audit bundle")


def test_a_missing_file_is_refused_in_one_line(tmp_path):
    with pytest.raises(AuditError, match="not a readable audit bundle") as refused:
        read_bundle(tmp_path / "nowhere.json")
    assert "\n" not in str(refused.value)
