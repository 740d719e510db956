"""Translating a whole tree on every core gives exactly what translating it file by file gives:
the same results in the same order, and the same exception where one is raised."""

from __future__ import annotations

import functools
import shutil
from pathlib import Path

import pytest

from pipelines.translation.store import translate_sources
from sql import parallel
from sql.catalog import load_catalog
from sql.diagnostics import TranslationError
from sql.parallel import ordered_map
from sql.paths import LEGACY_ROOT
from sql.report import translate_tree
from sql.translate import translate


@pytest.fixture(scope="module")
def legacy_tree(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The repository's legacy tree with one file refused (it reads an unknown table)."""
    root = tmp_path_factory.mktemp("legacy")
    for path in sorted(LEGACY_ROOT.glob("*/*.sql")):
        (root / path.parent.name).mkdir(exist_ok=True)
        shutil.copy(path, root / path.parent.name / path.name)
    (root / "tsql" / "unknown_table.sql").write_text("SELECT a FROM dbo.NoSuchTable")
    return root


def _with_workers(monkeypatch: pytest.MonkeyPatch, workers: int) -> None:
    monkeypatch.setattr(parallel, "worker_count", lambda: workers)
    # Whatever else the machine runs: these tests are about what a pool returns.
    monkeypatch.setattr(parallel, "free_cores", lambda: workers)
    # A pool however small the tree, so that 2 workers do run it.
    monkeypatch.setattr(parallel, "STARTUP_ITEMS", 0)


# (translate a tree, whether one result is a refused file)
TREE_TRANSLATIONS = [
    pytest.param(translate_tree, lambda result: not result.translated, id="report"),
    pytest.param(translate_sources, lambda result: not result.tables, id="code-location"),
]


@pytest.mark.parametrize(("translate_all", "refused"), TREE_TRANSLATIONS)
def test_parallel_tree_translation_equals_the_serial_one(
    monkeypatch, legacy_tree, translate_all, refused
):
    catalog = load_catalog()
    _with_workers(monkeypatch, 1)
    serial = translate_all(legacy_tree, catalog)
    _with_workers(monkeypatch, 2)
    assert translate_all(legacy_tree, catalog) == serial
    assert [result for result in serial if refused(result)]


# Workers import what they run, so it must live in a module (not in this test file).
translate_tsql = functools.partial(translate, dialect="tsql")


def test_an_exception_surfaces_at_its_item_with_the_serial_type_and_diagnostics():
    items = ["SELECT 1 AS one"] * 4 + ["SELECT FROM"]
    with pytest.raises(TranslationError) as serial:
        list(ordered_map(translate_tsql, items, workers=1))
    with pytest.raises(TranslationError) as pooled:
        list(ordered_map(translate_tsql, items, workers=2, min_items=1))
    assert pooled.value.diagnostics == serial.value.diagnostics
    assert str(pooled.value) == str(serial.value)


def test_results_before_the_failing_item_arrive_in_order():
    items = [f"SELECT {n} AS n" for n in range(4)] + ["SELECT FROM"]
    results = ordered_map(translate_tsql, items, workers=2, min_items=1)
    for n in range(4):
        assert f"{n} AS " in next(results).ansi_sql
    with pytest.raises(TranslationError):
        next(results)


@pytest.mark.parametrize(
    ("cores", "load", "free"),
    [
        (2, 0.0, 2),  # an idle machine
        (2, 1.0, 2),  # this process alone
        (2, 1.4, 2),
        (2, 1.6, 1),  # most of a core taken by other work
        (2, 3.0, 1),
        (2, 8.0, 1),  # the 45 s against 29 s of issue 43: no pool
        (16, 4.0, 13),
        (16, 40.0, 1),
        (1, 0.0, 1),
    ],
)
def test_free_cores_are_the_cores_the_load_leaves(cores, load, free):
    assert parallel.free_cores(cores, load) == free


def test_a_busy_machine_translates_on_one_core(monkeypatch):
    """With no core free the pool is not started, however large the batch: the work runs
    here, in order (a function only this process has, which a spawned worker cannot load)."""
    monkeypatch.setattr(parallel, "worker_count", lambda: 2)
    monkeypatch.setattr(parallel.os, "getloadavg", lambda: (8.0, 8.0, 8.0))
    local = list(range(500))
    assert list(ordered_map(lambda n: local[n] * 2, range(500))) == [n * 2 for n in range(500)]
