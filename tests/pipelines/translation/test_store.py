"""The translation store's manifests name files relative to the store wherever the files
move with the home, so that a copied home (`cp -a`) reads its own SQL and legacy files."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from pipelines.translation.store import (
    LegacySource,
    legacy_sources,
    read_stored_manifest,
    read_stored_sql,
    translate_to_store,
)
from sql.catalog import load_catalog
from sql.paths import LEGACY_ROOT, REPOSITORY_ROOT

LEGACY_FILE = LEGACY_ROOT / "snowflake" / "customer_profile.sql"


@pytest.fixture
def home(tmp_path: Path) -> Path:
    """A home whose legacy tree lies inside it (PLUMBLINE_LEGACY_ROOT=$HOME/legacy)."""
    home = tmp_path / "home"
    (home / "legacy" / "snowflake").mkdir(parents=True)
    shutil.copyfile(LEGACY_FILE, home / "legacy" / "snowflake" / LEGACY_FILE.name)
    return home


def _only_source(root: Path) -> LegacySource:
    (source,) = legacy_sources(root)
    return source


def test_manifest_paths_inside_the_home_are_relative_to_the_store(home):
    store = home / "ansi"
    (stored,) = translate_to_store(_only_source(home / "legacy"), store, load_catalog())
    record = json.loads((store / "customer_profile.json").read_text())
    assert record["ansi_path"] == "customer_profile.sql"
    assert record["source_path"] == "../legacy/snowflake/customer_profile.sql"
    # What the caller gets back, and what a reader gets, are resolved.
    assert Path(stored.ansi_path) == store / "customer_profile.sql"
    assert read_stored_manifest(store, "customer_profile") == stored


def test_a_copied_home_reads_and_reuses_its_own_files(home, tmp_path):
    translate_to_store(_only_source(home / "legacy"), home / "ansi", load_catalog())
    copy = tmp_path / "copy"
    shutil.copytree(home, copy, symlinks=True)  # what `cp -a home copy` makes
    shutil.rmtree(home)
    store = copy / "ansi"
    manifest = read_stored_manifest(store, "customer_profile")
    assert Path(manifest.ansi_path) == store / "customer_profile.sql"
    assert Path(manifest.source_path) == copy / "legacy" / "snowflake" / "customer_profile.sql"
    assert Path(manifest.source_path).read_bytes() == LEGACY_FILE.read_bytes()
    assert read_stored_sql(store, "customer_profile") == manifest.ansi_sql
    (reused,) = translate_to_store(
        _only_source(copy / "legacy"), store, load_catalog(), expected=["customer_profile"]
    )
    assert reused.reused
    assert Path(reused.ansi_path) == store / "customer_profile.sql"


def test_a_legacy_file_of_the_repository_is_named_relative_to_it(tmp_path):
    store = tmp_path / "home" / "ansi"
    source = LegacySource("customer_profile", "snowflake", LEGACY_FILE)
    translate_to_store(source, store, load_catalog())
    record = json.loads((store / "customer_profile.json").read_text())
    assert record["source_path"] == LEGACY_FILE.relative_to(REPOSITORY_ROOT).as_posix()
    assert record["ansi_path"] == "customer_profile.sql"
    manifest = read_stored_manifest(store, "customer_profile")
    assert (REPOSITORY_ROOT / manifest.source_path).read_bytes() == LEGACY_FILE.read_bytes()
