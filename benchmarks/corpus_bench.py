"""Translation coverage on public SQL corpora (``shared/corpora``, see its README.md).

Every query of every corpus is translated with the catalog its corpus states
(``benchmarks/corpora.py``) and rendered for DuckDB, then classified:

- translated: every table it defines translated and rendered; DuckDB then *plans* each one
  over empty tables of the catalog's schema (bound) and *runs* it there (each table built,
  the first row of the last fetched). One DuckDB cannot plan or run is a broken
  translation: a bug, since a translation is exact or refused;
- refused: a ``TranslationError`` (its first error's rule, and every rule it names);
- crashed: any other exception, with the file and the innermost frames: a bug too.

Corpora without a schema (sqlfluff's fixtures) use only the DDL the file itself holds, so
most of their queries refuse with NAME-UNKNOWN; they are reported apart.

A query with a schema is *readable* unless it reads a table its corpus has no schema for:
translation reported the table unknown (NAME-UNKNOWN) and no catalog table has its schema
(or dataset) and name, whatever its database or project (a BigQuery wildcard
``dataset.events_*`` matches the tables of its dataset whose names start ``events_``). A
query refused before names are resolved (it does not parse) counts as readable. A query that reads ``EXTERNAL_QUERY(conn,
...)`` (BigQuery's federated query of an external database, whose tables no corpus has a
schema for) is not readable: its missing tables name the connection. The translated share of
readable queries is issue 33's measure.

A corpus states the query parameters its scheduler gives (bigquery-etl: ``submission_date``
as a DATE, as its Airflow DAGs pass ``--parameter=submission_date:DATE:{{ds}}``, here a fixed
date), as it states default namespaces.

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
import re
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
    BIGQUERY_ETL_PARAMETERS,
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
from sql.catalog import Catalog, fold
from sql.diagnostics import Diagnostic, TranslationError
from sql.parallel import ordered_map, worker_count
from sql.parameters import QueryParameter
from sql.render import render
from sql.translate import TRANSLATOR_VERSION, ScriptTranslation, Translation, translate_script

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
    ran: bool | None = None  # run over empty tables; None unless translated and planned
    run_error: str | None = None
    # Tables it reads that no catalog table names under any qualification (the corpus has
    # no schema for them); a query with a schema and none of them is readable.
    missing_tables: tuple[str, ...] = ()
    readable: bool = False

    @property
    def broken(self) -> bool:
        """Translated, but DuckDB cannot plan or run it over empty tables."""
        return self.planned is False or self.ran is False


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
    broken: int  # translated, but DuckDB cannot plan or run it
    first_rules: dict[str, int]  # refusals by their first error's rule, most first
    all_rules: dict[str, int]  # refusals naming each rule (a refusal may name several)
    ran: int = 0  # translated and run over empty tables
    readable: int = 0  # with a schema for every table they read (see the module's doc)
    readable_translated: int = 0
    readable_share: float | None = None  # readable_translated / readable


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
    external = external_connections(text) if query.dialect == "bigquery" else ()
    readable = query.catalog.has_schema and not external
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
                parameters=_parameters(query),
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
        missing = external + missing_tables(errors, catalog, query.dialect)
        return QueryResult(
            **common,
            missing_tables=missing,
            readable=readable and not missing,
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
            missing_tables=external,
            readable=readable,
            status="crashed",
            seconds=time.perf_counter() - started,
            stage="translate" if script is None else "render",
            crash=f"{type(error).__name__}: {_one_line(str(error))}",
            traceback=_frames(error),
        )
    seconds = time.perf_counter() - started
    plan_error = plan(script, rendered, catalog)
    run_error = execute(script, rendered, catalog) if plan_error is None else None
    return QueryResult(
        **common,
        missing_tables=external,
        readable=readable,
        status="translated",
        seconds=seconds,
        tables=tuple(t.name for t in script.tables),
        planned=plan_error is None,
        plan_error=plan_error,
        ran=None if plan_error is not None else run_error is None,
        run_error=run_error,
    )


_EXTERNAL_QUERY = re.compile(r"\bEXTERNAL_QUERY\s*\(", re.IGNORECASE)


def external_connections(text: str) -> tuple[str, ...]:
    """``EXTERNAL_QUERY(<connection>)`` for each connection a BigQuery ``text`` queries
    federated (the external database's tables have no schema in any corpus)."""
    if not _EXTERNAL_QUERY.search(text):
        return ()
    try:
        statements = sqlglot.parse(text, read="bigquery")
    except sqlglot.errors.SqlglotError:
        return ()
    found: list[str] = []
    for statement in statements:
        if statement is None:
            continue
        for call in statement.find_all(exp.Anonymous):
            if call.name.upper() != "EXTERNAL_QUERY":
                continue
            first = call.expressions[0] if call.expressions else None
            connection = first.name if isinstance(first, exp.Literal) else "?"
            label = f"EXTERNAL_QUERY({connection})"
            if label not in found:
                found.append(label)
    return tuple(found)


def _parameters(query: CorpusQuery) -> dict[str, QueryParameter]:
    """The query parameters its corpus runs ``query`` with (``corpora.py``)."""
    return {name: QueryParameter(*value.split(":", 1)) for name, value in query.parameters}


# NAME-UNKNOWN's message quotes the name as written (sql/catalog.py, Catalog.resolve_name).
_UNKNOWN_NAME = re.compile(
    r"^(?:table|no table of the catalog matches the wildcard table) "
    r"(['\"])(?P<name>.+?)\1(?: is not in the catalog| \(no table name)"
)


def missing_tables(errors: Sequence[Diagnostic], catalog: Catalog, dialect: str) -> tuple[str, ...]:
    """The names of NAME-UNKNOWN ``errors`` that no table of ``catalog`` has: a legacy name of
    ``dialect`` whose last two parts (dataset or schema, and table) match, compared as the
    dialect compares them; the parts before (project, database) may differ, as a corpus'
    default namespaces do. A table of the same name in another dataset or schema is another
    table (bigquery-etl's ``amo_prod.x`` is a view over ``addons_derived.x``, whose columns
    it need not share). A BigQuery wildcard ``dataset.prefix*`` names the tables of its
    dataset whose names start ``prefix``: it is missing when the catalog has none there."""
    keys = list(catalog.legacy.get(dialect, {}))
    missing = []
    for error in errors:
        found = _UNKNOWN_NAME.match(error.message) if error.rule == "NAME-UNKNOWN" else None
        if found is None:
            continue  # a name computed at run time (IDENTIFIER(...)): not a missing schema
        written = found.group("name")
        parts = [fold(part, dialect) for part in written.split(".")]
        last = parts[-1]
        known = any(
            (key[-1].startswith(last[:-1]) if last.endswith("*") else key[-1] == last)
            and (len(parts) < 2 or len(key) < 2 or key[-2] == parts[-2])
            for key in keys
        )
        if not known and written not in missing:
            missing.append(written)
    return tuple(missing)


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


def _create_inputs(
    connection: duckdb.DuckDBPyConnection, script: ScriptTranslation, catalog: Catalog
) -> None:
    """Every lake table ``script`` reads and does not define, empty, with the catalog's types."""
    defined = {f"{t.zone}.{t.name}" for t in script.tables}
    for lake in sorted({lake for t in script.tables for lake in t.source_tables} - defined):
        for statement in empty_table_ddl(catalog, lake):
            connection.execute(statement)


def plan(script: ScriptTranslation, rendered: Sequence[str], catalog: Catalog) -> str | None:
    """None when DuckDB binds every rendered table of ``script`` over empty tables of the
    catalog's schema, else the first error (``table: message``)."""
    connection = connect_duckdb()
    try:
        _create_inputs(connection, script, catalog)
        for position, (table, sql) in enumerate(zip(script.tables, rendered, strict=True)):
            try:
                # Binding resolves every name and type; no row is read until a fetch.
                connection.sql(sql).columns  # noqa: B018
                if position < len(rendered) - 1:
                    # A later table of the script reads this one.
                    _create(connection, "VIEW", table, sql)
            except duckdb.Error as error:
                return f"{table.name}: {_one_line(str(error))}"
    finally:
        connection.close()
    return None


def _create(connection: duckdb.DuckDBPyConnection, kind: str, table: Translation, sql: str) -> None:
    """``CREATE kind zone.name AS sql`` (a VIEW or a TABLE), its schema created first."""
    connection.execute(
        exp.Create(kind="SCHEMA", this=exp.table_(table.zone, quoted=True), exists=True).sql(
            "duckdb"
        )
    )
    create = exp.Create(
        kind=kind,
        this=exp.table_(table.name, db=table.zone, quoted=True),
        expression=sqlglot.parse_one(sql, read="duckdb"),
    )
    connection.execute(create.sql("duckdb"))


def execute(script: ScriptTranslation, rendered: Sequence[str], catalog: Catalog) -> str | None:
    """None when DuckDB runs every rendered table of ``script`` over empty tables of the
    catalog's schema (each earlier table built as a table, the first row of the last
    fetched: a query that makes rows of its own is not run to its end), else the first
    error (``table: message``).

    An error the rendered SQL raises on purpose, with ``error('...')``, is the source's own
    exception on that data (a division by zero over an empty table, as ``x / COUNT(*)``
    raises in the source), as is DuckDB's own division by zero (an exact quotient's MOD by
    a COUNT of 0): the translation ran as it should, and the run stops there."""
    connection = connect_duckdb()
    try:
        _create_inputs(connection, script, catalog)
        for position, (table, sql) in enumerate(zip(script.tables, rendered, strict=True)):
            try:
                if position == len(rendered) - 1:
                    connection.execute(sql).fetchone()
                    continue
                _create(connection, "TABLE", table, sql)
            except duckdb.Error as error:
                if _raised_on_purpose(error, sql):
                    return None
                return f"{table.name}: {_one_line(str(error))}"
    finally:
        connection.close()
    return None


# DuckDB's own error for an integer or DECIMAL division (or MOD) by zero: every source
# dialect raises one there too (an exact quotient divides with MOD: sql/rules/exact_division.py).
_DIVISION_BY_ZERO = "Division by zero in expression "


def _raised_on_purpose(error: duckdb.Error, sql: str) -> bool:
    """Whether ``error`` is one that ``sql`` raises itself with DuckDB's ``error(message)``,
    or DuckDB's division by zero, which the source raises as well."""
    if not isinstance(error, duckdb.InvalidInputException):
        return False
    message = str(error).removeprefix("Invalid Input Error: ").strip()
    if message.startswith(_DIVISION_BY_ZERO):
        return True
    raised = {
        call.expressions[0].name
        for call in sqlglot.parse_one(sql, read="duckdb").find_all(exp.Anonymous)
        if call.name.lower() == "error" and call.expressions and call.expressions[0].is_string
    }
    return message in raised


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
                broken=sum(r.broken for r in translated),
                first_rules=_most_first(Counter(r.first_rule or "?" for r in refused)),
                all_rules=_most_first(Counter(rule for r in refused for rule in r.rules)),
                ran=sum(bool(r.ran) for r in translated),
                readable=sum(r.readable for r in members),
                readable_translated=sum(r.readable for r in translated),
                readable_share=_ratio(
                    sum(r.readable for r in translated), sum(r.readable for r in members)
                ),
            )
        )
    return summaries


def _ratio(part: int, whole: int) -> float | None:
    return round(part / whole, 4) if whole else None


def _most_first(counts: Counter[str]) -> dict[str, int]:
    return dict(sorted(counts.items(), key=lambda item: (-item[1], item[0])))


# --- report -------------------------------------------------------------------------


def _rules(rules: Mapping[str, int], limit: int | None = TOP_RULES) -> str:
    shown = list(rules.items())[:limit]
    return ", ".join(f"{rule} {n}" for rule, n in shown)


def _share(translated: int, readable: int) -> str:
    return f"{translated / readable:.1%}" if readable else "-"


def _group_table(groups: Sequence[GroupSummary]) -> list[str]:
    lines = [
        "| corpus | dialect | queries | translated | refused | crashed | planned | ran | broken "
        "| readable | translated of readable | top refusal rules (first error) |",
        "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|",
    ]
    for g in groups:
        lines.append(
            f"| {g.corpus} | {g.dialect} | {g.queries} | {g.translated} | {g.refused} "
            f"| {g.crashed} | {g.planned} | {g.ran} | {g.broken} | {g.readable} "
            f"| {g.readable_translated} ({_share(g.readable_translated, g.readable)}) "
            f"| {_rules(g.first_rules)} |"
        )
    total = {k: sum(getattr(g, k) for g in groups) for k in GROUP_COUNTS}
    share = _share(total["readable_translated"], total["readable"])
    cells = [f"**{total[k]}**" for k in GROUP_COUNTS[:-1]]
    cells.append(f"**{total['readable_translated']} ({share})**")
    lines.append("| **all** | | " + " | ".join(cells) + " | |")
    return lines


GROUP_COUNTS = (
    "queries",
    "translated",
    "refused",
    "crashed",
    "planned",
    "ran",
    "broken",
    "readable",
    "readable_translated",
)


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
        "it over empty tables of the catalog; ran = DuckDB runs it there (each table built, "
        "the first row of the last fetched); broken = translated but DuckDB cannot plan or "
        "run it.",
        "",
        "Readable = the corpus has a schema for every table the query reads: translation "
        "reported no table unknown (NAME-UNKNOWN) that no catalog table names under any "
        "qualification (a BigQuery wildcard `dataset.events_*` matches the tables of its "
        "dataset whose names start `events_`); a query that does not parse counts as readable. "
        "A query reading `EXTERNAL_QUERY(connection, ...)` (a federated query of an external "
        "database, which no corpus has a schema for) is not readable. Translated of readable "
        "is issue 33's measure (target: 70%).",
        "",
        "Query parameters a corpus's scheduler gives, as it states default namespaces: "
        "bigquery-etl runs each query with `submission_date` as a DATE (its Airflow DAGs pass "
        "`--parameter=submission_date:DATE:{{ds}}`); here "
        + ", ".join(f"`{n}:{v}`" for n, v in BIGQUERY_ETL_PARAMETERS)
        + ".",
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
    broken = [r for r in result.results if r.broken]
    lines += [f"## Crashes ({len(crashes)})", ""]
    lines += [
        f"- `{r.file}` ({r.stage}): {r.crash}"
        + (f" (at {' → '.join(r.traceback)})" if r.traceback else "")
        for r in crashes
    ] or ["None."]
    lines += ["", f"## Broken translations ({len(broken)})", ""]
    lines += [f"- `{r.file}`: {r.plan_error or r.run_error}" for r in broken] or ["None."]
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
