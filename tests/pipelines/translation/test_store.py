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


@pytest.mark.parametrize(
    ("dialect", "sql", "assumed"),
    [
        (
            "snowflake",
            "SELECT DAYOFWEEK(o_orderdate) AS wd FROM SALES.ORDERS",
            "snowflake_week_start=0",
        ),
        ("snowflake", "SELECT o_orderkey FROM SALES.ORDERS", ""),
        ("tsql", "SELECT DATEPART(weekday, o_orderdate) AS wd FROM dbo.Orders", "tsql_datefirst=7"),
    ],
)
def test_the_manifest_records_the_settings_the_translation_relied_on(
    tmp_path, dialect, sql, assumed
):
    (tmp_path / "legacy" / dialect).mkdir(parents=True)
    (tmp_path / "legacy" / dialect / "weekdays.sql").write_text(sql)
    store = tmp_path / "ansi"
    translate_to_store(_only_source(tmp_path / "legacy"), store, load_catalog())
    assert json.loads((store / "weekdays.json").read_text())["assumed"] == assumed
    manifest = read_stored_manifest(store, "weekdays")
    assert manifest.assumed_settings == assumed
    # The cache key still covers every setting (and the catalog): a change re-translates.
    assert "tsql_datefirst=7" in manifest.assumptions and "catalog=" in manifest.assumptions


def test_a_manifest_from_before_relied_on_settings_keeps_what_it_recorded(home):
    """A bundle sealed from an older manifest recorded its whole key as assumed: the
    audit recollects the same value from it, so that the bundle still verifies."""
    store = home / "ansi"
    translate_to_store(_only_source(home / "legacy"), store, load_catalog())
    path = store / "customer_profile.json"
    record = json.loads(path.read_text())
    del record["assumed"]
    path.write_text(json.dumps(record))
    manifest = read_stored_manifest(store, "customer_profile")
    assert manifest.assumed is None
    assert manifest.assumed_settings == record["assumptions"]


def test_the_manifest_names_the_portable_functions_the_sql_calls(tmp_path):
    (tmp_path / "legacy" / "snowflake").mkdir(parents=True)
    sql = (
        "SELECT SPLIT_PART(c_phone, '-', -1) AS area, TRY_TO_NUMBER(c_phone) AS n "
        "FROM SALES.CUSTOMER"
    )
    (tmp_path / "legacy" / "snowflake" / "areas.sql").write_text(sql)
    store = tmp_path / "ansi"
    translate_to_store(_only_source(tmp_path / "legacy"), store, load_catalog())
    manifest = json.loads((store / "areas.json").read_text())
    assert manifest["portable_functions"] == ["RAISE_ERROR", "SPLIT_PART"]
    assert manifest["guards"] == ["FN-TRY-CAST-NUMBER"]  # the rules of its run-time guards
    stored = read_stored_manifest(store, "areas")
    assert (stored.portable_functions, stored.guards) == (
        ["RAISE_ERROR", "SPLIT_PART"],
        ["FN-TRY-CAST-NUMBER"],
    )
