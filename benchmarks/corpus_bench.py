"""Translation coverage on public SQL corpora (``shared/corpora``, see its README.md).

Every query of every corpus is translated with the catalog its corpus states
(``benchmarks/corpora.py``) and rendered for DuckDB, then classified:

- translated: every table it defines translated and rendered; DuckDB then *plans* each one
  over empty tables of the catalog's schema (bound, not run). One DuckDB cannot plan is a
  broken translation: a bug, since a translation is exact or refused;
- refused: a ``TranslationError`` (its first error's rule, and every rule it names);
- crashed: any other exception, with the file and the innermost frames: a bug too.

Corpora without a schema (sqlfluff's fixtures) use only the DDL the file itself holds, so
most of their queries refuse with NAME-UNKNOWN; they are reported apart.

    python -m benchmarks.corpus_bench [--corpora DIR] [--out FILE] [--sample N]

Results: ``benchmarks/results/corpus.json`` and ``corpus.md`` (``--out`` names the JSON).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import logging
import os
import platform
import signal
import threading
import time
import traceback
from collections import Counter
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path

import duckdb
import sqlglot
from sqlglot import exp

from benchmarks.corpora import (
    CORPORA_ENV,
    BuiltCatalog,
    CatalogSource,
    CorpusQuery,
    build_catalog,
    corpora_root,
    corpus_queries,
    query_text,
    with_own_ddl,
)
from pipelines.warehouse.engines.duckdb_engine import connect_duckdb
from sql.ansi import parse_type
from sql.assumptions import Assumptions
from sql.catalog import Catalog
from sql.diagnostics import TranslationError
from sql.parallel import ordered_map, worker_count
from sql.render import render
from sql.translate import TRANSLATOR_VERSION, ScriptTranslation, translate_script

REPO_ROOT = Path(__file__).resolve().parent.parent
RESULTS_PATH = REPO_ROOT / "benchmarks" / "results" / "corpus.json"
# Queries that share a catalog run in batches of at most this many, one batch per task.
BATCH_QUERIES = 16
# A query still translating after this long is reported as a crash (a hang is a bug).
QUERY_TIMEOUT_S = 60
TOP_RULES = 5
STATUSES = ("translated", "refused", "crashed")


@dataclass(frozen=True)
class QueryResult:
    corpus: str
    dialect: str
    file: str  # relative to the corpora root; ``file#name`` for one query of several
    has_schema: bool
    status: str  # one of STATUSES
    seconds: float  # translation and rendering
    tables: tuple[str, ...] = ()
    stage: str = ""  # where a refusal or crash happened: translate | render
    first_rule: str | None = None
    rules: tuple[str, ...] = ()  # every error rule of the refusal, sorted
    first_error: str | None = None  # the first diagnostic, formatted
    planned: bool | None = None  # None unless translated
    plan_error: str | None = None
    crash: str | None = None  # "ExceptionType: message"
    traceback: tuple[str, ...] = ()  # innermost frames, "path:line in function"


@dataclass(frozen=True)
class GroupSummary:
    """One corpus in one dialect."""

    corpus: str
    dialect: str
    has_schema: bool
    queries: int
    translated: int
    refused: int
    crashed: int
    planned: int
    broken: int
    first_rules: dict[str, int]  # refusals by their first error's rule, most first
    all_rules: dict[str, int]  # refusals naming each rule (a refusal may name several)


@dataclass(frozen=True)
class CorpusBenchmark:
    corpora: str
    queries: int
    seconds: float  # wall clock, everything
    # Summed over the workers (wall time in each, so a busy machine inflates both):
    catalog_seconds: float  # importing schemas
    translate_seconds: float  # translating and rendering
    workers: int
    machine: str
    python: str
    sqlglot: str
    translator_version: str
    groups: list[GroupSummary]
    results: list[QueryResult]
    # Schema text the DDL importer refused, per catalog: those tables are missing.
    catalog_problems: dict[str, list[str]] = field(default_factory=dict)


class QueryTimeout(BaseException):
    """A query ran past ``QUERY_TIMEOUT_S``. A BaseException, so that the translator's own
    handlers (which turn unexpected errors into refusals) do not catch it."""


@contextlib.contextmanager
def _time_limit(seconds: int) -> Iterator[None]:
    # SIGALRM exists on POSIX and only in the main thread; elsewhere the query runs unbounded.
    if (
        not hasattr(signal, "setitimer")
        or threading.current_thread() is not threading.main_thread()
    ):
        yield
        return

    def expire(signum: int, frame: object) -> None:
        raise QueryTimeout(f"still running after {seconds} s")

    previous = signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


# --- one query ----------------------------------------------------------------------


def _assumptions(query: CorpusQuery) -> Assumptions:
    # Each vendor's documented defaults, not this project's sql/assumptions.yaml (which
    # describes the servers of the repository's own legacy tree).
    return Assumptions().with_overrides(dict(query.assumptions))


def _engine_schema(catalog: Catalog, tables: Sequence[str]) -> dict[str, dict[str, dict[str, str]]]:
    """The ANSI column types of ``tables``, for the renderer's typed native forms."""
    schema: dict[str, dict[str, dict[str, str]]] = {}
    for lake in tables:
        if lake not in catalog.tables:
            continue
        zone, name = lake.split(".")
        opaque = catalog.opaque.get(lake, {})
        schema.setdefault(zone, {})[name] = {
            column: kind for column, kind in catalog.tables[lake].items() if column not in opaque
        }
    return schema


def _frames(error: BaseException) -> tuple[str, ...]:
    """Where it failed, outermost first: the innermost frame of the project's own code, then
    the innermost frames below it (sqlglot's, where the project called into it)."""
    frames = traceback.extract_tb(error.__traceback__)
    own = [i for i, f in enumerate(frames) if _is_project_code(f.filename)]
    innermost = own[-1] if own else 0
    shown = [*frames[innermost : innermost + 1], *frames[innermost + 1 :][-3:]]
    return tuple(f"{_short_path(f.filename)}:{f.lineno} in {f.name}" for f in shown)


def _is_project_code(filename: str) -> bool:
    path = Path(filename)
    return path.is_relative_to(REPO_ROOT / "sql") or path.is_relative_to(REPO_ROOT / "pipelines")


def _short_path(filename: str) -> str:
    path = Path(filename)
    if "site-packages" in path.parts:
        return "/".join(path.parts[path.parts.index("site-packages") + 1 :])
    return str(path.relative_to(REPO_ROOT)) if path.is_relative_to(REPO_ROOT) else str(path)


def _one_line(text: str, limit: int = 300) -> str:
    line = " ".join(str(text).split())
    return line if len(line) <= limit else line[: limit - 1] + "…"


def run_query(root: Path, query: CorpusQuery, built: BuiltCatalog) -> QueryResult:
    text = query_text(root, query)
    catalog = (
        with_own_ddl(built, text, query.dialect, query.file) if query.own_ddl else built.catalog
    )
    common = {
        "corpus": query.corpus,
        "dialect": query.dialect,
        "file": query.label,
        "has_schema": query.catalog.has_schema,
    }
    script: ScriptTranslation | None = None
    started = time.perf_counter()
    try:
        with _time_limit(QUERY_TIMEOUT_S):
            script = translate_script(
                text,
                query.dialect,
                file=query.label,
                name=query.name,
                catalog=catalog,
                assumptions=_assumptions(query),
            )
            rendered = [
                render(
                    t.ansi_sql,
                    "duckdb",
                    file=f"{query.label} ({t.name})",
                    schema=_engine_schema(catalog, t.source_tables),
                )
                for t in script.tables
            ]
    except TranslationError as error:
        errors = [d for d in error.diagnostics if d.severity == "error"] or list(error.diagnostics)
        return QueryResult(
            **common,
            status="refused",
            seconds=time.perf_counter() - started,
            stage="translate" if script is None else "render",
            first_rule=errors[0].rule if errors else None,
            rules=tuple(sorted({d.rule for d in errors})),
            first_error=_one_line(errors[0].format()) if errors else None,
        )
    except (Exception, QueryTimeout) as error:
        return QueryResult(
            **common,
            status="crashed",
            seconds=time.perf_counter() - started,
            stage="translate" if script is None else "render",
            crash=f"{type(error).__name__}: {_one_line(str(error))}",
            traceback=_frames(error),
        )
    seconds = time.perf_counter() - started
    plan_error = plan(script, rendered, catalog)
    return QueryResult(
        **common,
        status="translated",
        seconds=seconds,
        tables=tuple(t.name for t in script.tables),
        planned=plan_error is None,
        plan_error=plan_error,
    )


# --- planning on DuckDB -------------------------------------------------------------


def _duckdb_type(kind: str, opaque: bool) -> exp.DataType:
    # An opaque column is only ever passed through, counted or tested for NULL (the
    # translator refuses anything else), so any type plans the same: VARCHAR.
    if opaque:
        return exp.DataType.build("VARCHAR")
    return parse_type(kind)


def empty_table_ddl(catalog: Catalog, lake: str) -> list[str]:
    """DuckDB statements creating ``lake`` (``zone.table``) empty, with the catalog's types."""
    zone, name = lake.split(".")
    opaque = catalog.opaque.get(lake, {})
    columns = [
        exp.ColumnDef(
            this=exp.to_identifier(column, quoted=True),
            kind=_duckdb_type(kind, column in opaque),
        )
        for column, kind in catalog.tables[lake].items()
    ]
    schema = exp.Create(kind="SCHEMA", this=exp.table_(zone, quoted=True), exists=True)
    table = exp.Create(
        kind="TABLE",
        this=exp.Schema(this=exp.table_(name, db=zone, quoted=True), expressions=columns),
    )
    return [schema.sql("duckdb"), table.sql("duckdb")]


def plan(script: ScriptTranslation, rendered: Sequence[str], catalog: Catalog) -> str | None:
    """None when DuckDB binds every rendered table of ``script`` over empty tables of the
    catalog's schema, else the first error (``table: message``)."""
    defined = {f"{t.zone}.{t.name}" for t in script.tables}
    reads = sorted({lake for t in script.tables for lake in t.source_tables} - defined)
    connection = connect_duckdb()
    try:
        for lake in reads:
            for statement in empty_table_ddl(catalog, lake):
                connection.execute(statement)
        for position, (table, sql) in enumerate(zip(script.tables, rendered, strict=True)):
            try:
                # Binding resolves every name and type; no row is read until a fetch.
                connection.sql(sql).columns  # noqa: B018
                if position < len(rendered) - 1:
                    # A later table of the script reads this one.
                    view = exp.Create(
                        kind="VIEW",
                        this=exp.table_(table.name, db=table.zone, quoted=True),
                        expression=sqlglot.parse_one(sql, read="duckdb"),
                    )
                    connection.execute(
                        exp.Create(
                            kind="SCHEMA", this=exp.table_(table.zone, quoted=True), exists=True
                        ).sql("duckdb")
                    )
                    connection.execute(view.sql("duckdb"))
            except duckdb.Error as error:
                return f"{table.name}: {_one_line(str(error))}"
    finally:
        connection.close()
    return None


# --- batches over every core --------------------------------------------------------


@dataclass(frozen=True)
class Batch:
    root: str
    source: CatalogSource
    queries: tuple[tuple[int, CorpusQuery], ...]  # (position in the corpus order, query)


@dataclass(frozen=True)
class BatchResult:
    source: CatalogSource
    results: tuple[tuple[int, QueryResult], ...]
    problems: tuple[str, ...]
    catalog_seconds: float  # importing the batch's schema (0 when the worker had it)


def run_batch(batch: Batch) -> BatchResult:
    """One task: the batch's catalog (built once per worker) and its queries."""
    # sqlglot logs each statement it falls back to a Command for; the results say it once.
    logging.getLogger("sqlglot").setLevel(logging.ERROR)
    started = time.perf_counter()
    built = build_catalog(batch.source)
    catalog_seconds = time.perf_counter() - started
    root = Path(batch.root)
    return BatchResult(
        batch.source,
        tuple((position, run_query(root, query, built)) for position, query in batch.queries),
        built.problems,
        catalog_seconds,
    )


def _batches(root: Path, queries: Sequence[CorpusQuery]) -> list[Batch]:
    by_source: dict[CatalogSource, list[tuple[int, CorpusQuery]]] = {}
    for position, query in enumerate(queries):
        by_source.setdefault(query.catalog, []).append((position, query))
    batches = [
        Batch(str(root), source, tuple(members[i : i + BATCH_QUERIES]))
        for source, members in by_source.items()
        for i in range(0, len(members), BATCH_QUERIES)
    ]
    # The costliest first (a big schema to import), so that no core finishes long after
    # the others on the last heavy batch.
    return sorted(batches, key=lambda b: (-b.source.cost, -len(b.queries), b.queries[0][0]))


def sample_queries(queries: Sequence[CorpusQuery], per_group: int) -> list[CorpusQuery]:
    """``per_group`` queries of each corpus and dialect, those with the smallest schemas
    first (a quick run), in corpus order."""
    chosen: set[int] = set()
    groups: dict[tuple[str, str], list[tuple[int, CorpusQuery]]] = {}
    for position, query in enumerate(queries):
        groups.setdefault((query.corpus, query.dialect), []).append((position, query))
    for members in groups.values():
        cheapest = sorted(members, key=lambda m: (m[1].catalog.cost, m[0]))[:per_group]
        chosen.update(position for position, _ in cheapest)
    return [q for position, q in enumerate(queries) if position in chosen]


def run(
    root: Path | None = None, *, sample: int | None = None, workers: int | None = None
) -> CorpusBenchmark:
    root = (root or corpora_root()).resolve()
    queries = corpus_queries(root)
    if sample is not None:
        queries = sample_queries(queries, sample)
    workers = workers or worker_count()
    started = time.perf_counter()
    found: dict[int, QueryResult] = {}
    problems: dict[str, list[str]] = {}
    catalog_seconds = 0.0
    for batch in ordered_map(
        run_batch, _batches(root, queries), workers=workers, min_items=2, chunksize=1
    ):
        found.update(batch.results)
        catalog_seconds += batch.catalog_seconds
        if batch.problems:
            label = _source_label(root, batch.source)
            problems[label] = list(batch.problems)
    results = [found[position] for position in sorted(found)]
    return CorpusBenchmark(
        corpora=str(root),
        queries=len(results),
        seconds=round(time.perf_counter() - started, 1),
        catalog_seconds=round(catalog_seconds, 1),
        translate_seconds=round(sum(r.seconds for r in results), 1),
        workers=workers,
        machine=f"{platform.machine()} {platform.processor() or ''} {os.cpu_count()} cores".strip(),
        python=platform.python_version(),
        sqlglot=sqlglot.__version__,
        translator_version=TRANSLATOR_VERSION,
        groups=summarize(results),
        results=results,
        catalog_problems=dict(sorted(problems.items())),
    )


def _source_label(root: Path, source: CatalogSource) -> str:
    paths = [Path(p) for p in source.path.split(os.pathsep) if p]
    shown = [str(p.relative_to(root)) if p.is_relative_to(root) else str(p) for p in paths]
    return f"{source.kind}:{','.join(shown) or source.dialect}"


def summarize(results: Sequence[QueryResult]) -> list[GroupSummary]:
    groups: dict[tuple[str, str, bool], list[QueryResult]] = {}
    for result in results:
        groups.setdefault((result.corpus, result.dialect, result.has_schema), []).append(result)
    summaries = []
    for (corpus, dialect, has_schema), members in groups.items():
        refused = [r for r in members if r.status == "refused"]
        translated = [r for r in members if r.status == "translated"]
        summaries.append(
            GroupSummary(
                corpus=corpus,
                dialect=dialect,
                has_schema=has_schema,
                queries=len(members),
                translated=len(translated),
                refused=len(refused),
                crashed=sum(r.status == "crashed" for r in members),
                planned=sum(bool(r.planned) for r in translated),
                broken=sum(r.planned is False for r in translated),
                first_rules=_most_first(Counter(r.first_rule or "?" for r in refused)),
                all_rules=_most_first(Counter(rule for r in refused for rule in r.rules)),
            )
        )
    return summaries


def _most_first(counts: Counter[str]) -> dict[str, int]:
    return dict(sorted(counts.items(), key=lambda item: (-item[1], item[0])))


# --- report -------------------------------------------------------------------------


def _rules(rules: Mapping[str, int], limit: int | None = TOP_RULES) -> str:
    shown = list(rules.items())[:limit]
    return ", ".join(f"{rule} {n}" for rule, n in shown)


def _group_table(groups: Sequence[GroupSummary]) -> list[str]:
    lines = [
        "| corpus | dialect | queries | translated | refused | crashed | planned | broken "
        "| top refusal rules (first error) |",
        "|---|---|---:|---:|---:|---:|---:|---:|---|",
    ]
    for g in groups:
        lines.append(
            f"| {g.corpus} | {g.dialect} | {g.queries} | {g.translated} | {g.refused} "
            f"| {g.crashed} | {g.planned} | {g.broken} | {_rules(g.first_rules)} |"
        )
    total = [sum(getattr(g, k) for g in groups) for k in GROUP_COUNTS]
    lines.append("| **all** | | " + " | ".join(f"**{n}**" for n in total) + " | |")
    return lines


GROUP_COUNTS = ("queries", "translated", "refused", "crashed", "planned", "broken")


def render_markdown(result: CorpusBenchmark) -> str:
    with_schema = [g for g in result.groups if g.has_schema]
    without = [g for g in result.groups if not g.has_schema]
    lines = [
        "# Corpus benchmark",
        "",
        f"{result.queries} queries from `{result.corpora}` in {result.seconds} s on "
        f"{result.workers} workers ({result.machine}); sqlglot {result.sqlglot}, translator "
        f"{result.translator_version}. Summed over the workers, {result.catalog_seconds} s went to "
        f"importing schemas and {result.translate_seconds} s to translating and rendering.",
        "",
        "Translated = every table translated and rendered for DuckDB; planned = DuckDB binds "
        "it over empty tables of the catalog; broken = translated but DuckDB cannot plan it.",
        "",
        "## Corpora with a schema",
        "",
        *_group_table(with_schema),
        "",
        "## Corpora without a schema (only the DDL in each file)",
        "",
        *_group_table(without),
        "",
        "## Every rule a refusal names",
        "",
        "| corpus | dialect | rules (refusals naming each) |",
        "|---|---|---|",
        *(f"| {g.corpus} | {g.dialect} | {_rules(g.all_rules, None)} |" for g in result.groups),
        "",
    ]
    crashes = [r for r in result.results if r.status == "crashed"]
    broken = [r for r in result.results if r.planned is False]
    lines += [f"## Crashes ({len(crashes)})", ""]
    lines += [
        f"- `{r.file}` ({r.stage}): {r.crash}"
        + (f" (at {' → '.join(r.traceback)})" if r.traceback else "")
        for r in crashes
    ] or ["None."]
    lines += ["", f"## Broken translations ({len(broken)})", ""]
    lines += [f"- `{r.file}`: {r.plan_error}" for r in broken] or ["None."]
    if result.catalog_problems:
        lines += ["", "## Schema text the DDL importer refused", ""]
        for label, problems in result.catalog_problems.items():
            lines.append(f"- {label}: {len(problems)} refused, e.g. {_one_line(problems[0], 240)}")
    return "\n".join(lines) + "\n"


def write(result: CorpusBenchmark, path: Path = RESULTS_PATH) -> tuple[Path, Path]:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(asdict(result), indent=2) + "\n")
    markdown = path.with_suffix(".md")
    markdown.write_text(render_markdown(result))
    return path, markdown


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks.corpus_bench", description=__doc__.splitlines()[0]
    )
    parser.add_argument(
        "--corpora",
        type=Path,
        default=None,
        help="default: $PLUMBLINE_CORPORA or ../shared/corpora",
    )
    parser.add_argument(
        "--out",
        type=Path,
        default=RESULTS_PATH,
        help="the JSON; the Markdown is written next to it",
    )
    parser.add_argument(
        "--sample", type=int, default=None, help="only N queries per corpus and dialect"
    )
    args = parser.parse_args(argv)
    root = args.corpora or corpora_root()
    if not root.is_dir():
        print(f"corpus: skipped, no corpora at {root} (set --corpora or ${CORPORA_ENV})")
        return
    result = run(root, sample=args.sample)
    json_path, markdown_path = write(result, args.out)
    print(render_markdown(result).split("## Every rule")[0].rstrip())
    print(f"results written to {json_path} and {markdown_path.name}")


if __name__ == "__main__":
    main()
