"""Versions that stay: a bundle keeps verifying after a later re-translation (a plumbline
upgrade) or a legacy file edited and translated again, because it is verified against the
exact bytes it pinned when it was issued; an edited or missing pinned copy still fails.

A real project on tmp_path: a legacy file translated into a real store, a raw and a
warehouse table published into a real lake, the table's chain collected, sealed and verified
by the same functions `plumbline audit` calls (no Dagster, no MLflow: a table's bundle)."""

from __future__ import annotations

from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from pipelines.audit.bundle import Bundle, build_table_bundle, verification, verify_bundle
from pipelines.audit.chain import AuditError
from pipelines.audit.collect import Sources
from pipelines.audit.pinned import PinnedFileError, PinnedFiles
from pipelines.audit.store import pin_before_issue
from pipelines.lake.store import Lake
from pipelines.registry.versions import AliasHistory
from pipelines.translation.store import LegacySource, StoredTranslation, translate_to_store
from sql.catalog import load_catalog
from sql.translate import TRANSLATOR_VERSION

TABLE = "nations"
LEGACY = "SELECT N_NATIONKEY AS NATION_KEY, N_NAME AS NATION FROM SALES.NATION\n"
EDITED = "SELECT N_NATIONKEY AS NATION_KEY, N_NAME AS NATION_NAME FROM SALES.NATION\n"


class Project:
    """A home with one legacy file, its stored translation and its tables in the lake."""

    def __init__(self, root: Path) -> None:
        self.home = root / "home"
        self.legacy = self.home / "legacy" / "snowflake" / f"{TABLE}.sql"
        self.legacy.parent.mkdir(parents=True)
        self.lake = Lake(self.home / "lake")
        self.ansi_root = self.home / "ansi"
        self.raw_version = self.publish("raw", "nation", {})

    def sources(self) -> Sources:
        return Sources(
            lake=self.lake,
            ansi_root=self.ansi_root,
            client=None,
            alias_history=AliasHistory.in_lake(self.lake.root),
            portable_root=None,
            pinned=PinnedFiles(self.home / "audit"),
        )

    def translate(self, text: str) -> StoredTranslation:
        self.legacy.write_text(text)
        source = LegacySource(TABLE, "snowflake", self.legacy)
        (stored,) = translate_to_store(source, self.ansi_root, load_catalog())
        return stored

    def publish(self, zone: str, table: str, manifest: dict) -> str:
        rows = pa.table({"n_nationkey": [0, 1], "n_name": ["ALGERIA", "ARGENTINA"]})
        with self.lake.stage(zone, table) as staging:
            pq.write_table(rows, staging / "part-0.parquet")
            return self.lake.publish(zone, table, staging, manifest).path.name

    def build(self, stored: StoredTranslation) -> str:
        """Publish the warehouse table as built from ``stored`` (its SQL's sha256)."""
        manifest = {"ansi_sha256": stored.ansi_sha256, "inputs": {"raw.nation": self.raw_version}}
        return self.publish("warehouse", TABLE, manifest)

    def issue(self, version: str):
        sources = self.sources()
        bundle = build_table_bundle(sources, "warehouse", TABLE, version)
        pin_before_issue(self.lake, bundle, sources.pinned)
        return bundle


@pytest.fixture
def project(tmp_path) -> Project:
    return Project(tmp_path)


def upgrade(project: Project, monkeypatch) -> None:
    """A plumbline upgrade: the same legacy file translated again by a new translator."""
    monkeypatch.setattr("pipelines.translation.store.TRANSLATOR_VERSION", "next-release")
    project.translate(LEGACY)


def edit_and_rerun(project: Project, monkeypatch) -> None:
    """The user edits the legacy file and reruns: a new translation, a new table version."""
    project.build(project.translate(EDITED))


@pytest.mark.parametrize("change", [upgrade, edit_and_rerun], ids=["upgrade", "edited-legacy"])
def test_a_bundle_verifies_after_a_later_legitimate_translation(project, monkeypatch, change):
    version = project.build(project.translate(LEGACY))
    bundle = project.issue(version)
    assert verify_bundle(bundle, project.sources()) == []
    change(project, monkeypatch)
    assert [str(d) for d in verify_bundle(bundle, project.sources())] == []


def verified(project: Project, bundle) -> tuple[list[str], list[str]]:
    found = verification(bundle, project.sources())
    return [str(d) for d in found.differences], found.superseded


def test_a_change_since_the_bundle_is_said_not_failed(project, monkeypatch):
    version = project.build(project.translate(LEGACY))
    bundle = project.issue(version)
    assert verified(project, bundle) == ([], [])
    edit_and_rerun(project, monkeypatch)
    failures, superseded = verified(project, bundle)
    assert failures == []
    # The stored manifest and SQL, and the legacy file: each file that changed, by link.
    assert sorted(note.split(" ")[:2] for note in superseded) == [
        [f"ansi:{TABLE}:", str(project.ansi_root / f"{TABLE}.json")],
        [f"ansi:{TABLE}:", str(project.ansi_root / f"{TABLE}.sql")],
        [f"legacy:{project.legacy}:", str(project.legacy)],
    ]
    assert all("verified against the copy the bundle pinned" in note for note in superseded)
    # The new version's own bundle pins the new files, and verifies with nothing superseded.
    assert verified(project, project.issue(project.lake.current("warehouse", TABLE).path.name)) == (
        [],
        [],
    )


def test_an_edit_not_yet_translated_is_said_too(project):
    bundle = project.issue(project.build(project.translate(LEGACY)))
    project.legacy.write_text(EDITED)
    failures, superseded = verified(project, bundle)
    assert failures == []
    assert len(superseded) == 1 and superseded[0].startswith(f"legacy:{project.legacy}: ")


def pinned_copy(project: Project, bundle, node_id: str, role: str) -> Path:
    node = next(n for n in bundle.nodes if n.id == node_id)
    return project.sources().pinned.path(node.content["pinned"][role])


def alter(path: Path) -> None:
    path.chmod(0o644)  # kept read-only: an edit is deliberate
    path.write_bytes(path.read_bytes() + b"-- and one more line\n")


@pytest.mark.parametrize("tamper", [alter, Path.unlink], ids=["altered", "missing"])
@pytest.mark.parametrize(
    ("node", "role"),
    [("legacy", "file"), ("ansi", "sql"), ("ansi", "manifest")],
    ids=["legacy-file", "stored-sql", "stored-manifest"],
)
def test_a_pinned_copy_altered_or_missing_fails_in_one_line(project, node, role, tamper):
    bundle = project.issue(project.build(project.translate(LEGACY)))
    node_id = f"legacy:{project.legacy}" if node == "legacy" else f"ansi:{TABLE}"
    copy = pinned_copy(project, bundle, node_id, role)
    tamper(copy)
    failures, _ = verified(project, bundle)
    assert len(failures) == 1, failures
    assert failures[0].startswith(f"{node_id}: the pinned copy {copy} ")
    assert ("was altered" if tamper is alter else "is missing") in failures[0]


def test_a_bundle_issued_before_pins_verifies_as_it_did(project, monkeypatch):
    version = project.build(project.translate(LEGACY))
    unpinned = project.sources()
    unpinned.pinned = None
    bundle = build_table_bundle(unpinned, "warehouse", TABLE, version)
    assert not any("pinned" in node.content for node in bundle.nodes)
    pin_before_issue(project.lake, bundle, None)
    # Verified with the pinned copies' store there: read from the files as they are.
    assert verified(project, bundle) == ([], [])
    upgrade(project, monkeypatch)
    assert verified(project, bundle)[0] == [
        f'ansi:{TABLE}: translator_version: was "{TRANSLATOR_VERSION}", now "next-release"'
    ]


def test_a_copy_is_kept_once_and_never_replaced(tmp_path):
    store = PinnedFiles(tmp_path / "audit")
    hex_digest = store.keep(b"SELECT 1\n")
    path = store.path(hex_digest)
    assert path == tmp_path / "audit" / ".pinned" / "sha256" / hex_digest[:2] / hex_digest
    assert store.keep(b"SELECT 1\n") == hex_digest and store.read(hex_digest) == b"SELECT 1\n"
    assert not path.stat().st_mode & 0o222  # read-only
    alter(path)
    with pytest.raises(PinnedFileError, match="was altered"):
        store.keep(b"SELECT 1\n")
    assert path.read_bytes() != b"SELECT 1\n"  # the evidence stays
    with pytest.raises(PinnedFileError, match="not a sha256"):
        store.path("../../etc/passwd")


def test_a_bundle_whose_copies_cannot_be_kept_is_not_issued(project):
    bundle = project.issue(project.build(project.translate(LEGACY)))
    read_back = Bundle(bundle.data)  # no bytes: its copies must be in the store already
    pin_before_issue(project.lake, read_back, project.sources().pinned)
    with pytest.raises(AuditError, match="keep no pinned copies"):
        pin_before_issue(project.lake, read_back, None)
    copy = pinned_copy(project, bundle, f"ansi:{TABLE}", "sql")
    copy.unlink()
    with pytest.raises(AuditError, match=f"^ansi:{TABLE}: the pinned copy {copy} is missing"):
        pin_before_issue(project.lake, read_back, project.sources().pinned)
