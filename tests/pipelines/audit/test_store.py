"""Issuing an audit bundle: each in a new folder named by its time and root digest, never
overwritten; --out takes only a new or an empty folder."""

import dataclasses
import json
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from pipelines.audit.bundle import BUNDLE_FILE, REPORT_FILE, read_bundle, seal_bundle
from pipelines.audit.chain import AuditError, Node
from pipelines.audit.store import (
    bundle_folder_name,
    bundle_holder,
    check_bundle_folder,
    issue_bundle,
    newest_bundle,
    pin_before_issue,
    pin_bundle,
    pin_issued_bundles,
    write_bundle,
)
from pipelines.lake.store import KEEP_VERSIONS, Lake
from tests.pipelines.audit.test_report import make_bundle


def bundle_made_at(created_at: str):
    nodes = [Node.from_dict(n) for n in make_bundle(with_gaps=False)["nodes"]]
    return seal_bundle(
        nodes,
        subject={"model": "delivery_delay", "version": "3", "requested": "delivery_delay"},
        created_at=created_at,
        made_by={"dagster_run_id": "run-audit"},
        auditor={"python": "3.11.7", "host": "laptop", "packages": {}},
    )


def test_a_missing_and_an_empty_folder_are_accepted(tmp_path):
    check_bundle_folder(tmp_path / "new" / "v1")
    check_bundle_folder(tmp_path)


def test_a_bundle_folder_is_refused_and_left_as_it_was(tmp_path):
    (tmp_path / BUNDLE_FILE).write_text("{}")
    (tmp_path / REPORT_FILE).write_text("")
    with pytest.raises(AuditError, match=r"holds an audit bundle already.*never overwritten"):
        write_bundle(bundle_made_at("2026-11-30T08:00:00+00:00"), tmp_path)
    assert (tmp_path / BUNDLE_FILE).read_text() == "{}"
    assert sorted(p.name for p in tmp_path.iterdir()) == [BUNDLE_FILE, REPORT_FILE]


@pytest.mark.parametrize("others", [["notes.txt"], ["a", "b", "c", "d"]])
def test_a_folder_of_something_else_is_refused_in_one_line(tmp_path, others):
    for name in others:
        (tmp_path / name).write_text("mine")
    with pytest.raises(AuditError, match="not an audit bundle") as refused:
        check_bundle_folder(tmp_path)
    assert "\n" not in str(refused.value)
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(others)


def test_a_file_is_refused(tmp_path):
    (tmp_path / "f").write_text("")
    with pytest.raises(AuditError, match="not a folder"):
        check_bundle_folder(tmp_path / "f")


def test_the_root_folder_is_refused():
    with pytest.raises(AuditError, match="not an audit bundle"):
        check_bundle_folder(Path("/"))


def test_the_folder_is_named_by_the_creation_time_and_the_root_digest():
    bundle = bundle_made_at("2026-11-30T08:00:05.123456+01:00")
    hex_digest = bundle.root_digest.removeprefix("sha256:")
    assert bundle_folder_name(bundle) == f"20261130T070005Z-{hex_digest[:12]}"


def test_two_bundles_of_one_version_get_two_folders_and_the_first_stays(tmp_path):
    version_dir = tmp_path / "audit" / "delivery_delay" / "v3"
    first = bundle_made_at("2026-11-30T08:00:00+00:00")
    first_path, first_report = issue_bundle(first, version_dir)
    assert first_path.parent.parent == version_dir
    assert first_path.parent.name == bundle_folder_name(first)
    issued = {p: p.read_bytes() for p in (first_path, first_report)}

    second = bundle_made_at("2026-11-30T08:00:00.5+00:00")
    assert second.root_digest != first.root_digest
    second_path, _ = issue_bundle(second, version_dir)
    assert second_path.parent != first_path.parent
    assert {p: p.read_bytes() for p in (first_path, first_report)} == issued
    assert read_bundle(first_path).root_digest == first.root_digest
    assert read_bundle(second_path).root_digest == second.root_digest
    # Nothing else is left beside them (no staging folder).
    assert sorted(p.name for p in version_dir.iterdir()) == sorted(
        [first_path.parent.name, second_path.parent.name]
    )

    # The same bundle again: its folder exists, so it is refused, not replaced.
    forged = dataclasses.replace(first, data={**first.data, "gaps": ["forged"]})
    with pytest.raises(AuditError, match="never overwritten"):
        issue_bundle(forged, version_dir)
    assert json.loads(first_path.read_bytes()) == first.data
    assert {p: p.read_bytes() for p in (first_path, first_report)} == issued


def test_a_folder_that_cannot_be_made_is_refused_in_one_line(tmp_path):
    (tmp_path / "file").write_text("")
    with pytest.raises(AuditError, match="cannot write a bundle there") as refused:
        write_bundle(bundle_made_at("2026-11-30T08:00:00+00:00"), tmp_path / "file" / "b")
    assert "\n" not in str(refused.value)


def test_the_newest_bundle_of_a_version_is_the_last_issued(tmp_path):
    """What a run over unchanged data considers handing on: the bundle issued last (by its
    folder's time, then by when it was written), never a staging folder."""
    version_dir = tmp_path / "v3"
    assert newest_bundle(version_dir) is None
    older, _ = issue_bundle(bundle_made_at("2026-11-30T08:00:00+00:00"), version_dir)
    newer, _ = issue_bundle(bundle_made_at("2026-11-30T09:00:00+00:00"), version_dir)
    same_second, _ = issue_bundle(bundle_made_at("2026-11-30T09:00:00.5+00:00"), version_dir)
    staging = version_dir / f".{newer.parent.name}.x.tmp"
    staging.mkdir()
    (staging / BUNDLE_FILE).write_text("{}")
    assert older.parent.name < newer.parent.name
    assert newest_bundle(version_dir) == same_second


def test_the_issued_report_is_the_one_its_bundle_file_renders(tmp_path):
    """Whoever holds bundle.json renders the report that was issued with it (a run that
    reuses the bundle checks its report so): it is rendered from the file's data, whose keys
    are sorted, not from the order they were collected in."""
    from pipelines.audit.report import render_report

    path, report = issue_bundle(bundle_made_at("2026-11-30T08:00:00+00:00"), tmp_path / "v3")
    assert report.read_text(encoding="utf-8") == render_report(read_bundle(path).data)


def bundle_with_gaps(with_gaps: bool):
    nodes = [Node.from_dict(n) for n in make_bundle(with_gaps=with_gaps)["nodes"]]
    return seal_bundle(
        nodes,
        subject={"model": "delivery_delay", "version": "3", "requested": "delivery_delay"},
        created_at="2026-11-30T08:00:00+00:00",
        made_by={"dagster_run_id": "run-audit"},
        auditor={"python": "3.11.7", "host": "laptop", "packages": {}},
    )


NAMED = [
    ("raw", "lineitem"),
    ("raw", "orders"),
    ("warehouse", "features"),
    ("warehouse", "training_set"),
]


def lake_of_the_bundle(root: Path) -> Lake:
    """A lake holding each version ``v1`` that make_bundle's chain names."""
    lake = Lake(root)
    for zone, table in NAMED:
        lake.version_path(zone, table, "v1").mkdir(parents=True)
    return lake


def test_a_bundle_pins_every_table_version_it_names_until_it_is_issued(tmp_path):
    lake = lake_of_the_bundle(tmp_path / "lake")
    bundle = bundle_with_gaps(False)
    pin_before_issue(lake, bundle)
    holder = bundle_holder(bundle)
    assert holder == "bundle-" + bundle.root_digest.removeprefix("sha256:")
    assert {(z, t): lake.pins(z, t) for z, t in NAMED} == {
        named: {"v1": [holder]} for named in NAMED
    }
    # Pinned: however many versions are published after it, v1 stays.
    for n in range(KEEP_VERSIONS + 1):
        with lake.stage("raw", "orders") as staging:
            pq.write_table(pa.table({"x": [n]}), staging / "part-0.parquet")
            lake.publish("raw", "orders", staging, {})
    assert lake.version_path("raw", "orders", "v1").is_dir()


def test_a_version_gone_before_its_bundle_is_issued_refuses_the_bundle(tmp_path):
    lake = lake_of_the_bundle(tmp_path / "lake")
    lake.version_path("warehouse", "features", "v1").rmdir()
    with pytest.raises(AuditError, match=r"warehouse/features@v1: pruned from the lake"):
        pin_before_issue(lake, bundle_with_gaps(False))


def test_the_bundles_issued_before_pins_are_pinned_and_a_gap_is_not(tmp_path):
    lake = lake_of_the_bundle(tmp_path / "lake")
    audit = tmp_path / "audit"
    bundle = bundle_with_gaps(True)  # raw/orders@v1 is a gap in it: it names no version
    issue_bundle(bundle, audit / "delivery_delay" / "v3")
    (audit / "elsewhere").mkdir()
    (audit / "elsewhere" / BUNDLE_FILE).write_text("not a bundle")
    assert pin_issued_bundles(lake, audit) == 1
    assert lake.pins("raw", "orders") == {}
    assert lake.pins("warehouse", "features") == {"v1": [bundle_holder(bundle)]}
    assert pin_bundle(lake, bundle) == []  # pinning again changes nothing
    assert pin_issued_bundles(lake, tmp_path / "no-audit-yet") == 0
