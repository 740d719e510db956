"""Every translation runs: each file of ``sql/legacy`` and each query of the public corpora
that translates, rendered for DuckDB, is run there over empty tables of its catalog's
schema (each table it defines built, the first row of the last fetched). A refusal is
fine; a translation DuckDB cannot plan or run is a bug, and so is a crash. The corpus half
is the corpus benchmark's own run (``benchmarks/corpus_bench.py``), on every core."""

from __future__ import annotations

from pathlib import Path

import pytest

from benchmarks.corpora import corpora_root
from benchmarks.corpus_bench import execute, plan, run
from sql.catalog import load_catalog
from sql.diagnostics import TranslationError
from sql.paths import LEGACY_ROOT
from sql.render import render
from sql.translate import translate_script

CORPORA = corpora_root()


def _legacy_files() -> list[Path]:
    return sorted(LEGACY_ROOT.glob("*/*.sql"))


def test_every_legacy_translation_runs_on_duckdb():
    catalog = load_catalog()
    failures, translated = [], 0
    for path in _legacy_files():
        try:
            script = translate_script(
                path.read_text(), path.parent.name, file=str(path), name=path.stem
            )
            rendered = [render(t.ansi_sql, "duckdb", file=str(path)) for t in script.tables]
        except TranslationError:
            continue
        translated += 1
        error = plan(script, rendered, catalog) or execute(script, rendered, catalog)
        if error is not None:
            failures.append(f"{path}: {error}")
    assert not failures, "translations DuckDB cannot run:\n" + "\n".join(failures)
    assert translated >= len(_legacy_files()) // 2


@pytest.mark.slow
@pytest.mark.skipif(not CORPORA.is_dir(), reason=f"no corpora at {CORPORA}")
def test_every_corpus_translation_runs_on_duckdb():
    result = run(CORPORA)
    failures = [
        f"{r.file}: {r.plan_error or r.run_error}"
        for r in result.results
        if r.status == "translated" and (r.planned is False or r.ran is False)
    ]
    crashes = [f"{r.file} ({r.stage}): {r.crash}" for r in result.results if r.status == "crashed"]
    assert not failures and not crashes, (
        f"{len(failures)} translations DuckDB cannot run:\n"
        + "\n".join(failures)
        + f"\n{len(crashes)} crashes:\n"
        + "\n".join(crashes)
    )
    assert sum(r.status == "translated" for r in result.results) > 100
