"""Translation throughput on the legacy corpus, next to plain sqlglot.transpile on the same input.

The corpus is replicated until it holds at least ``MIN_STATEMENTS`` statements; each legacy
file is one statement (scripts with temporary tables count once). Column lineage is timed
separately because it is computed once per asset materialization, not per translation.
"""

from __future__ import annotations

import json
import platform
import time
from dataclasses import asdict, dataclass
from pathlib import Path

import sqlglot

from sql.catalog import load_catalog
from sql.lineage import column_lineage
from sql.translate import TRANSLATOR_VERSION, translate

REPO_ROOT = Path(__file__).resolve().parent.parent
LEGACY_ROOT = REPO_ROOT / "sql" / "legacy"
RESULTS_PATH = REPO_ROOT / "benchmarks" / "results" / "translate.json"
MIN_STATEMENTS = 1000
TARGET_RATIO = 2.0


@dataclass(frozen=True)
class TranslateBenchmark:
    corpus_files: int
    statements: int
    translate_per_second: float
    transpile_per_second: float
    ratio: float
    target_ratio: float
    lineage_per_second: float
    lineage_ms_per_file: float
    translator_version: str
    python: str
    sqlglot: str


def _corpus() -> list[tuple[str, str, Path]]:
    files = sorted(LEGACY_ROOT.glob("*/*.sql"))
    if not files:
        raise SystemExit(f"no legacy SQL under {LEGACY_ROOT}")
    return [(path.read_text(), path.parent.name, path) for path in files]


def _rate(count: int, seconds: float) -> float:
    return count / seconds if seconds > 0 else float("inf")


def run() -> TranslateBenchmark:
    corpus = _corpus()
    catalog = load_catalog()
    repeats = -(-MIN_STATEMENTS // len(corpus))
    workload = corpus * repeats

    translations = [
        translate(sql, dialect, file=str(path), catalog=catalog) for sql, dialect, path in corpus
    ]

    started = time.perf_counter()
    for sql, dialect, path in workload:
        translate(sql, dialect, file=str(path), catalog=catalog)
    translate_seconds = time.perf_counter() - started

    started = time.perf_counter()
    for sql, dialect, _ in workload:
        sqlglot.transpile(sql, read=dialect)
    transpile_seconds = time.perf_counter() - started

    started = time.perf_counter()
    for translation in translations:
        column_lineage(translation, catalog)
    lineage_seconds = time.perf_counter() - started

    return TranslateBenchmark(
        corpus_files=len(corpus),
        statements=len(workload),
        translate_per_second=round(_rate(len(workload), translate_seconds), 1),
        transpile_per_second=round(_rate(len(workload), transpile_seconds), 1),
        ratio=round(translate_seconds / transpile_seconds, 2),
        target_ratio=TARGET_RATIO,
        lineage_per_second=round(_rate(len(translations), lineage_seconds), 1),
        lineage_ms_per_file=round(1000 * lineage_seconds / len(translations), 2),
        translator_version=TRANSLATOR_VERSION,
        python=platform.python_version(),
        sqlglot=sqlglot.__version__,
    )


def main() -> None:
    result = run()
    RESULTS_PATH.parent.mkdir(parents=True, exist_ok=True)
    RESULTS_PATH.write_text(json.dumps(asdict(result), indent=2) + "\n")
    verdict = "within" if result.ratio <= result.target_ratio else "ABOVE"
    print(
        f"translate: {result.statements} statements ({result.corpus_files} files replicated)\n"
        f"  plumbline translate : {result.translate_per_second:>9.1f} statements/s\n"
        f"  sqlglot.transpile   : {result.transpile_per_second:>9.1f} statements/s\n"
        f"  ratio (time)        : {result.ratio:>9.2f}x ({verdict} the {result.target_ratio}x target)\n"
        f"  column lineage      : {result.lineage_ms_per_file:>9.2f} ms per file "
        f"({result.lineage_per_second:.1f} files/s, once per materialization)\n"
        f"results written to {RESULTS_PATH.relative_to(REPO_ROOT)}"
    )
