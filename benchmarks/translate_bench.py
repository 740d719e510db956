"""Translation time next to sqlglot doing the same work on the same input.

sqlglot's part is what any exact translation needs at least: parse in the source dialect,
``qualify`` (names resolved, stars expanded, columns qualified against the schema),
``annotate_types``, generate. Same sqlglot, same text, same catalog (``catalog.schema()``'s
column types as a ``MappingSchema``, keyed by the names the SQL writes, since sqlglot does
not resolve legacy names to lake tables), same process, same garbage collector regime
(``translate_script`` freezes the heap after parsing, ``gc.freeze``; the sqlglot side
does too, so neither pays for collecting the other's or this process's objects, and each
pays for its own). ``ROUNDS`` rounds, each a pass of either side over the workload,
back to back, the collector emptied before each pass and the order alternated; the ratio
is the median of the rounds' ratios (each taken between passes a moment apart, so that
drift in a shared machine's speed falls on both). Target: plumbline / sqlglot <=
``TARGET_RATIO``. (This replaces the earlier target of
2x a bare ``sqlglot.transpile``, which neither qualifies nor types: it measured the price
of exactness against a translation that is not exact.)

The legacy corpus (``sql/legacy/*/*.sql`` with ``sql/catalog.yaml``) is always measured;
``--spider2`` adds the Spider2 queries that translate (and that sqlglot qualifies), each
with its own schema: minutes, most of them reading the schemas and finding those queries.
A per-phase breakdown of each side's time says where it goes. Then ``translate_sources``
loads the legacy tree, and a synthetic one of ``--tree-files`` copies, on one core and on
a pool of every core.

    python -m benchmarks.translate_bench [--rounds N] [--spider2] [--corpora DIR]
        [--tree-files N] [--out FILE]

``--scaling`` measures instead how the time and memory of one long script grow with its
length: a synthetic Snowflake script (``synthetic_script``: CTAS, CTEs, temporary helpers
and their DROPs, INSERT ... SELECT, views over tables defined earlier in the script) of each
of ``--sizes`` statements, translated as `plumbline translate` does, each size in a fresh
process so that its peak RSS is its own. Target: per-statement CPU time at the largest size
<= ``SCALING_TARGET`` x that at the smallest.

    python -m benchmarks.translate_bench --scaling [--sizes 1000,10000,70000] [--out FILE]
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import gc
import json
import logging
import os
import platform
import re
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from collections.abc import Callable, Iterator, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path

import sqlglot
from sqlglot.errors import SqlglotError
from sqlglot.optimizer.annotate_types import annotate_types
from sqlglot.optimizer.qualify import qualify
from sqlglot.schema import MappingSchema

import sql.parallel
import sql.scopes
import sql.translate
from benchmarks.corpora import build_catalog, corpora_root, corpus_queries, query_text
from pipelines.translation.store import legacy_sources, translate_sources
from sql.assumptions import Assumptions, load_assumptions
from sql.catalog import Catalog, load_catalog
from sql.diagnostics import TranslationError
from sql.lineage import column_lineage
from sql.parallel import worker_count
from sql.source_dialects import SOURCE_DIALECTS, CaseSpecific
from sql.translate import TRANSLATOR_VERSION, translate_script

REPO_ROOT = Path(__file__).resolve().parent.parent
LEGACY_ROOT = REPO_ROOT / "sql" / "legacy"
RESULTS_PATH = REPO_ROOT / "benchmarks" / "results" / "translate.json"
SCALING_RESULTS_PATH = REPO_ROOT / "benchmarks" / "results" / "translate_scaling.json"
TARGET_RATIO = 1.3
# Per-statement time of the longest script over that of the shortest: translation is linear.
SCALING_TARGET = 1.3
SCALING_SIZES = (1_000, 10_000, 70_000)
ROUNDS = 15
# The synthetic tree for the load-time measurement, and best of how many loads.
TREE_FILES = 400
TREE_ROUNDS = 3


@dataclass(frozen=True)
class Case:
    """One file to translate, with what both sides get."""

    label: str
    sql: str
    dialect: str
    name: str
    catalog: Catalog
    schema: MappingSchema  # sqlglot's: the catalog's columns under the names the SQL writes
    assumptions: Assumptions


@dataclass(frozen=True)
class Comparison:
    corpus: str
    files: int
    rounds: int
    plumbline_seconds: float  # median round, the whole workload
    sqlglot_seconds: float
    ratio: float  # median of the rounds' plumbline / sqlglot
    target_ratio: float
    # The rounds' ratios, lowest and highest, and that of each side's best round.
    ratio_low: float
    ratio_high: float
    ratio_of_bests: float
    plumbline_ms_per_file: float
    sqlglot_ms_per_file: float
    # Where plumbline's time goes (one instrumented pass): phase -> share of the total.
    phases: dict[str, float]
    # The same for sqlglot's steps.
    sqlglot_phases: dict[str, float]


@dataclass(frozen=True)
class TreeLoad:
    """``translate_sources`` over a whole tree (what `plumbline contracts lint` translates),
    on one core and on every core, pool start-up included; best of ``rounds``."""

    files: int
    workers: int
    serial_seconds: float
    parallel_seconds: float  # a pool of every core, however few the files
    speedup: float
    default_uses_pool: bool  # what translate_sources chose for this tree, at this load
    # The 1-minute load average when the choice was made, and the cores it left free
    # (sql.parallel.free_cores): the pool only gets the free ones.
    load_average: float = 0.0
    free_cores: int = 0


@dataclass(frozen=True)
class TranslateBenchmark:
    comparisons: list[Comparison]
    tree_loads: list[TreeLoad]
    lineage_ms_per_file: float
    translator_version: str
    python: str
    sqlglot: str
    machine: str


def legacy_schema(catalog: Catalog, dialect: str) -> MappingSchema:
    """``catalog.schema()``'s columns under each lake table's longest legacy name in
    ``dialect``: sqlglot matches a shorter name the SQL writes (``SALES.ORDERS`` for
    ``PROD_DW.SALES.ORDERS``) by its suffix when only one table has it."""
    columns = catalog.schema()
    names = catalog.legacy.get(dialect, {})
    depth = max((len(key) for key in names), default=1)
    nested: dict = {}
    for key, lake in sorted(names.items()):
        if len(key) != depth:
            continue
        zone, table = lake.split(".")
        node = nested
        for part in key[:-1]:
            node = node.setdefault(part, {})
        node[key[-1]] = columns[zone][table]
    return MappingSchema(nested, dialect=SOURCE_DIALECTS[dialect])


def plumbline(case: Case) -> None:
    translate_script(
        case.sql,
        case.dialect,
        file=case.label,
        name=case.name,
        catalog=case.catalog,
        assumptions=case.assumptions,
    )


def sqlglot_same_work(case: Case) -> None:
    dialect = SOURCE_DIALECTS[case.dialect]
    statements = sqlglot.parse(case.sql, read=dialect)
    # What translate_script does after parsing. Without it, a quarter of this side's time
    # went to full collections over this whole process's heap, which plumbline's side skips.
    gc.freeze()
    try:
        for statement in statements:
            if statement is None:
                continue
            # Not validated: a script's own temporary tables are in no schema.
            statement = qualify(
                statement,
                dialect=dialect,
                schema=case.schema,
                validate_qualify_columns=False,
                quote_identifiers=True,
                identify=True,
            )
            statement = annotate_types(statement, schema=case.schema, dialect=dialect)
            statement.sql(dialect=_Generic)
    finally:
        gc.unfreeze()


class _Generic(sqlglot.Dialect):
    """sqlglot's default generator, which also writes the nodes plumbline's source parsers
    add for syntax sqlglot does not read (Teradata's ``x (CASESPECIFIC)`` attribute) as
    their operand, so that the sqlglot side generates every statement it parsed."""

    class Generator(sqlglot.Generator):
        TRANSFORMS = {
            **sqlglot.Generator.TRANSFORMS,
            CaseSpecific: lambda self, e: self.sql(e, "this"),
        }


def _workload_seconds(run: Callable[[Case], None], cases: Sequence[Case]) -> float:
    # Each pass starts from an empty collector: the garbage of the pass before (the other
    # side's, in a round) is not collected on this one's time. CPU time of this process
    # (translation is CPU-bound and single-threaded): on a shared machine, the time other
    # processes hold its core is not counted on whichever side was running then.
    gc.collect()
    started = time.process_time()
    for case in cases:
        run(case)
    return time.process_time() - started


def compare(corpus: str, cases: Sequence[Case], rounds: int) -> Comparison:
    for case in cases:  # warm caches on both sides (dialect classes, rule tables)
        plumbline(case)
        sqlglot_same_work(case)
    times: dict[str, list[float]] = {"plumbline": [], "sqlglot": []}
    sides = [("plumbline", plumbline), ("sqlglot", sqlglot_same_work)]
    for round_number in range(rounds):
        for side, run in sides if round_number % 2 == 0 else reversed(sides):
            times[side].append(_workload_seconds(run, cases))
    ratios = [p / s for p, s in zip(times["plumbline"], times["sqlglot"], strict=True)]
    median = {side: statistics.median(seconds) for side, seconds in times.items()}
    return Comparison(
        corpus=corpus,
        files=len(cases),
        rounds=rounds,
        plumbline_seconds=round(median["plumbline"], 3),
        sqlglot_seconds=round(median["sqlglot"], 3),
        ratio=round(statistics.median(ratios), 2),
        target_ratio=TARGET_RATIO,
        ratio_low=round(min(ratios), 2),
        ratio_high=round(max(ratios), 2),
        ratio_of_bests=round(min(times["plumbline"]) / min(times["sqlglot"]), 2),
        plumbline_ms_per_file=round(1000 * median["plumbline"] / len(cases), 2),
        sqlglot_ms_per_file=round(1000 * median["sqlglot"] / len(cases), 2),
        phases=_phases(plumbline, cases, PLUMBLINE_PHASES),
        sqlglot_phases=_phases(sqlglot_same_work, cases, SQLGLOT_PHASES),
    )


# --- where the time goes ------------------------------------------------------------

# Names in a module's globals that the pipeline calls; none calls another of its list, so
# their times add up. Timed by wrapping them for one extra pass (never in the timed rounds).
PLUMBLINE_PHASES: dict[str, tuple[object, str]] = {
    "parse (tokenize + parse)": (sql.translate, "_parse"),
    "split script": (sql.translate, "split_script"),
    "rules (syntax, typed, arithmetic, final)": (sql.translate, "apply_rules"),
    "resolve table names": (sql.translate, "_resolve_tables"),
    "fold identifiers": (sql.translate, "_fold_identifiers"),
    "build the typed schema": (sql.translate, "_typed_schema"),
    "qualify": (sql.translate, "_qualified"),
    # Once per statement, for validation, annotation and the portable-type rule.
    "build scopes": (sql.scopes, "build"),
    "validate qualified columns": (sql.scopes, "validate_columns"),
    "annotate_types": (sql.scopes, "annotate"),
    "annotate again where rules rewrote": (sql.translate, "retype"),
    "refuse opaque uses": (sql.translate, "_refuse_opaque_uses"),
    "portable output types": (sql.translate, "portable_output_types"),
    "generate (checks + ANSI)": (sql.translate, "_generate"),
}
SQLGLOT_PHASES: dict[str, tuple[object, str]] = {
    "parse (tokenize + parse)": (sqlglot, "parse"),
    "qualify": (sys.modules[__name__], "qualify"),
    "annotate_types": (sys.modules[__name__], "annotate_types"),
}


@contextlib.contextmanager
def _timing(phases: dict[str, tuple[object, str]], spent: dict[str, float]) -> Iterator[None]:
    # A phase the pipeline no longer has (renamed, merged) is left out, not an error.
    phases = {label: (m, name) for label, (m, name) in phases.items() if hasattr(m, name)}
    originals = {label: getattr(module, name) for label, (module, name) in phases.items()}

    def timed(label: str, function: Callable) -> Callable:
        @functools.wraps(function)
        def wrapper(*args, **kwargs):
            started = time.process_time()
            try:
                return function(*args, **kwargs)
            finally:
                spent[label] += time.process_time() - started

        return wrapper

    try:
        for label, (module, name) in phases.items():
            setattr(module, name, timed(label, originals[label]))
        yield
    finally:
        for label, (module, name) in phases.items():
            setattr(module, name, originals[label])


def _phases(
    run: Callable[[Case], None], cases: Sequence[Case], phases: dict[str, tuple[object, str]]
) -> dict[str, float]:
    spent: dict[str, float] = defaultdict(float)
    with _timing(phases, spent):
        total = _workload_seconds(run, cases)
    shares = {label: spent[label] / total for label in phases if label in spent}
    shares["other"] = max(0.0, 1 - sum(shares.values()))
    return {label: round(share, 3) for label, share in shares.items()}


# --- a whole tree on every core -------------------------------------------------


def synthetic_tree(root: Path, files: int) -> Path:
    """A legacy tree of ``files`` files under ``root``: the repository's legacy queries,
    copied round-robin under new names (``<name>_<n>.sql``) so that each defines its own
    table. (Not its scripts: a script names the tables it creates, which two copies would
    then both create.)"""
    sources = [
        path
        for path in sorted(LEGACY_ROOT.glob("*/*.sql"))
        if not re.search(r"\b(CREATE|INSERT)\b", path.read_text(), re.IGNORECASE)
    ]
    for n in range(files):
        source = sources[n % len(sources)]
        target = root / source.parent.name / f"{source.stem}_{n // len(sources)}.sql"
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(source, target)
    return root


def tree_load(root: Path, rounds: int) -> TreeLoad:
    catalog = load_catalog()
    files = len(legacy_sources(root))
    seconds = {}
    for workers in (1, worker_count()):
        best = float("inf")
        for _ in range(rounds):
            with _workers(workers):
                started = time.perf_counter()
                translate_sources(root, catalog)
                best = min(best, time.perf_counter() - started)
        seconds[workers] = best
    serial, parallel = seconds[1], seconds[worker_count()]
    free = sql.parallel.free_cores()
    return TreeLoad(
        files=files,
        workers=worker_count(),
        serial_seconds=round(serial, 2),
        parallel_seconds=round(parallel, 2),
        speedup=round(serial / parallel, 2),
        default_uses_pool=sql.parallel.pays_off(files, free),
        load_average=round(os.getloadavg()[0], 2),
        free_cores=free,
    )


@contextlib.contextmanager
def _workers(count: int) -> Iterator[None]:
    """``sql.parallel`` with ``count`` workers (1: the serial path), a pool whatever the
    tree's size."""
    original = sql.parallel.worker_count, sql.parallel.free_cores, sql.parallel.STARTUP_ITEMS
    sql.parallel.worker_count, sql.parallel.STARTUP_ITEMS = (lambda: count), 0
    sql.parallel.free_cores = lambda: count  # whatever the load
    try:
        yield
    finally:
        (sql.parallel.worker_count, sql.parallel.free_cores, sql.parallel.STARTUP_ITEMS) = original


# --- workloads ----------------------------------------------------------------------


def legacy_cases() -> list[Case]:
    catalog = load_catalog()
    assumptions = load_assumptions()
    files = sorted(LEGACY_ROOT.glob("*/*.sql"))
    if not files:
        raise SystemExit(f"no legacy SQL under {LEGACY_ROOT}")
    schemas = {d: legacy_schema(catalog, d) for d in {p.parent.name for p in files}}
    return [
        Case(
            str(p.relative_to(REPO_ROOT)),
            p.read_text(),
            p.parent.name,
            p.stem,
            catalog,
            schemas[p.parent.name],
            assumptions,
        )
        for p in files
    ]


def spider2_cases(root: Path) -> list[Case]:
    """The Spider2 queries that translate, each with its own schema_dir's catalog."""
    cases = []
    schemas: dict[tuple[int, str], MappingSchema] = {}
    for query in corpus_queries(root):
        if query.corpus != "spider2":
            continue
        catalog = build_catalog(query.catalog).catalog
        key = (id(catalog), query.dialect)
        if key not in schemas:
            schemas[key] = legacy_schema(catalog, query.dialect)
        case = Case(
            query.file,
            query_text(root, query),
            query.dialect,
            query.name,
            catalog,
            schemas[key],
            Assumptions().with_overrides(dict(query.assumptions)),
        )
        try:
            plumbline(case)
            sqlglot_same_work(case)
        except (TranslationError, SqlglotError):
            continue
        cases.append(case)
    return cases


def run(
    rounds: int = ROUNDS, spider2_root: Path | None = None, tree_files: int = TREE_FILES
) -> TranslateBenchmark:
    legacy = legacy_cases()
    comparisons = [compare("legacy", legacy, rounds)]
    if spider2_root is not None:
        comparisons.append(compare("spider2 (translated)", spider2_cases(spider2_root), rounds))
    loads = [tree_load(LEGACY_ROOT, TREE_ROUNDS)]
    if tree_files:
        with tempfile.TemporaryDirectory() as scratch:
            loads.append(tree_load(synthetic_tree(Path(scratch), tree_files), TREE_ROUNDS))
    catalog = legacy[0].catalog
    translations = [
        t
        for case in legacy
        for t in translate_script(case.sql, case.dialect, name=case.name, catalog=catalog).tables
    ]
    started = time.perf_counter()
    for translation in translations:
        column_lineage(translation, catalog)
    lineage_seconds = time.perf_counter() - started
    return TranslateBenchmark(
        comparisons=comparisons,
        tree_loads=loads,
        lineage_ms_per_file=round(1000 * lineage_seconds / len(translations), 2),
        translator_version=TRANSLATOR_VERSION,
        python=platform.python_version(),
        sqlglot=sqlglot.__version__,
        machine=f"{platform.machine()} {platform.processor()}".strip(),
    )


# --- one long script: time and memory per statement ---------------------------------

# A legacy script's usual statements over the repository's catalog (sql/catalog.yaml), in
# Snowflake, repeated in groups. ``{n}`` (the group) makes each table's name unique, and
# ``{m}`` names the report table the group defined first; ``{k}`` varies a constant.
SCRIPT_STATEMENTS = (
    "-- step {n}: revenue per customer and segment\n"
    "CREATE OR REPLACE TABLE RPT_{n} AS\n"
    "SELECT C.C_CUSTKEY AS CUSTOMER_KEY, C.C_MKTSEGMENT AS SEGMENT,\n"
    "       ZEROIFNULL(SUM(O.O_TOTALPRICE)) AS REVENUE,\n"
    "       IFF(C.C_ACCTBAL < 0, 'IN_DEBT', 'OK') AS CREDIT_FLAG\n"
    "FROM SALES.CUSTOMER C\n"
    "LEFT JOIN SALES.ORDERS O\n"
    "  ON O.O_CUSTKEY = C.C_CUSTKEY AND O.O_ORDERDATE >= '1995-01-01'::DATE\n"
    "WHERE C.C_NATIONKEY = {k}\n"
    "GROUP BY C.C_CUSTKEY, C.C_MKTSEGMENT, C.C_ACCTBAL;\n",
    "DROP TABLE IF EXISTS LATE_{n};\n",
    "CREATE TABLE LATE_{n} AS\n"
    "WITH LATE AS (\n"
    "    SELECT L_ORDERKEY, L_SHIPMODE, DATEDIFF(DAY, L_COMMITDATE, L_RECEIPTDATE) AS DAYS_LATE\n"
    "    FROM PROD_DW.SALES.LINEITEM WHERE L_RECEIPTDATE > L_COMMITDATE\n"
    ")\n"
    "SELECT L_SHIPMODE, COUNT(*) AS LATE_LINES, AVG(DAYS_LATE::FLOAT) AS AVG_DAYS_LATE\n"
    "FROM LATE GROUP BY L_SHIPMODE;\n",
    "CREATE TEMPORARY TABLE TMP_{n} AS\n"
    "SELECT O_ORDERKEY, O_CUSTKEY, NVL(O_ORDERPRIORITY, 'NONE') AS PRIORITY\n"
    "FROM SALES.ORDERS WHERE O_ORDERSTATUS = 'F';\n",
    "INSERT INTO PRIO_{n} (PRIORITY, ORDERS)\n"
    "SELECT PRIORITY, COUNT(*) FROM TMP_{n} GROUP BY PRIORITY;\n",
    "DROP TABLE TMP_{n};\n",
    "CREATE OR REPLACE VIEW TOP_{n} AS\n"
    "SELECT CUSTOMER_KEY, REVENUE FROM RPT_{m}\n"
    "QUALIFY ROW_NUMBER() OVER (PARTITION BY SEGMENT ORDER BY REVENUE DESC) <= 10;\n",
    "CREATE TABLE MODES_{n} AS\n"
    "SELECT L_SHIPMODE AS MODE, 'LATE' AS KIND FROM SALES.LINEITEM\n"
    "WHERE L_RECEIPTDATE > L_COMMITDATE AND L_LINENUMBER = {k}\n"
    "UNION ALL\n"
    "SELECT L_SHIPMODE, 'ON_TIME' FROM SALES.LINEITEM WHERE L_RECEIPTDATE <= L_COMMITDATE;\n",
)


def synthetic_script(statements: int) -> str:
    """A Snowflake script of exactly ``statements`` statements, every one of which translates
    (a script cut inside a group of statements still does)."""
    parts = []
    for index in range(statements):
        group, position = divmod(index, len(SCRIPT_STATEMENTS))
        parts.append(SCRIPT_STATEMENTS[position].format(n=group, m=group, k=group % 25))
    return "".join(parts)


@dataclass(frozen=True)
class ScriptSize:
    """One synthetic script translated as `plumbline translate` does, in a fresh process."""

    statements: int
    tables: int
    seconds: float  # wall clock
    cpu_seconds: float  # this process's CPU time: what the ratio is taken on
    ms_per_statement: float  # CPU
    peak_rss_mb: float  # the process's peak while translating
    rss_growth_mb: float  # that peak less the RSS before translating (imports, the text)
    kb_per_statement: float  # rss_growth_mb per statement


@dataclass(frozen=True)
class ScalingBenchmark:
    sizes: list[ScriptSize]
    # ms_per_statement at the largest size over that at the smallest.
    ratio: float
    target_ratio: float
    translator_version: str
    python: str
    sqlglot: str
    machine: str


def _peak_rss_mb() -> float:
    kilobytes = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return kilobytes / (1024 * 1024) if sys.platform == "darwin" else kilobytes / 1024


def script_size(statements: int) -> ScriptSize:
    """Translate ``synthetic_script(statements)`` here and measure it; run by ``scaling`` in
    a process of its own (``--scaling-child``)."""
    sql = synthetic_script(statements)
    before = _peak_rss_mb()
    started, started_cpu = time.perf_counter(), time.process_time()
    # Past the product's limit (sql/source_limits.py) too: how the cost grows is the point.
    script = translate_script(
        sql, "snowflake", file="synthetic.sql", name="synthetic", max_statements=statements
    )
    script.script_sql()
    seconds, cpu = time.perf_counter() - started, time.process_time() - started_cpu
    peak = _peak_rss_mb()
    return ScriptSize(
        statements=statements,
        tables=len(script.tables),
        seconds=round(seconds, 2),
        cpu_seconds=round(cpu, 2),
        ms_per_statement=round(1000 * cpu / statements, 3),
        peak_rss_mb=round(peak, 1),
        rss_growth_mb=round(peak - before, 1),
        kb_per_statement=round(1024 * (peak - before) / statements, 1),
    )


def scaling(sizes: Sequence[int]) -> ScalingBenchmark:
    measured = []
    for statements in sorted(sizes):
        child = subprocess.run(
            [
                sys.executable,
                "-m",
                "benchmarks.translate_bench",
                "--scaling-child",
                str(statements),
            ],
            cwd=REPO_ROOT,
            capture_output=True,
            text=True,
            check=False,
        )
        if child.returncode != 0:
            raise SystemExit(
                f"translating a {statements}-statement script failed:\n{child.stderr[-4000:]}"
            )
        measured.append(ScriptSize(**json.loads(child.stdout.splitlines()[-1])))
    return ScalingBenchmark(
        sizes=measured,
        ratio=round(measured[-1].ms_per_statement / measured[0].ms_per_statement, 2),
        target_ratio=SCALING_TARGET,
        translator_version=TRANSLATOR_VERSION,
        python=platform.python_version(),
        sqlglot=sqlglot.__version__,
        machine=f"{platform.machine()} {platform.processor()}".strip(),
    )


def scaling_summary(result: ScalingBenchmark) -> str:
    lines = ["translate, one synthetic Snowflake script per size (a fresh process each)"]
    for size in result.sizes:
        lines.append(
            f"  {size.statements:>7,} statements ({size.tables:,} tables): "
            f"{size.ms_per_statement:.2f} ms CPU per statement ({size.seconds:.1f} s wall), "
            f"peak RSS {size.peak_rss_mb:.0f} MB (+{size.kb_per_statement:.1f} kB per statement)"
        )
    verdict = "within" if result.ratio <= result.target_ratio else "ABOVE"
    first, last = result.sizes[0].statements, result.sizes[-1].statements
    lines.append(
        f"  per statement, {last:,} over {first:,}: {result.ratio:.2f}x "
        f"({verdict} the {result.target_ratio}x target)"
    )
    return "\n".join(lines)


def summary(result: TranslateBenchmark) -> str:
    lines = []
    for c in result.comparisons:
        verdict = "within" if c.ratio <= c.target_ratio else "ABOVE"
        lines += [
            f"translate, {c.corpus}: {c.files} files, median of {c.rounds} rounds",
            f"  plumbline translate_script        : {c.plumbline_ms_per_file:>8.2f} ms per file",
            f"  sqlglot parse+qualify+annotate+sql: {c.sqlglot_ms_per_file:>8.2f} ms per file",
            f"  ratio (time)                      : {c.ratio:>8.2f}x "
            f"({verdict} the {c.target_ratio}x target; rounds {c.ratio_low:.2f}-"
            f"{c.ratio_high:.2f}, of each side's best {c.ratio_of_bests:.2f})",
            "  plumbline's time: "
            + ", ".join(f"{k} {v:.0%}" for k, v in c.phases.items() if v >= 0.005),
            "  sqlglot's time: " + ", ".join(f"{k} {v:.0%}" for k, v in c.sqlglot_phases.items()),
        ]
    for load in result.tree_loads:
        lines.append(
            f"tree load ({load.files} files): {load.serial_seconds:.2f} s on 1 core, "
            f"{load.parallel_seconds:.2f} s on {load.workers} ({load.speedup:.2f}x); "
            f"translate_sources uses {'the pool' if load.default_uses_pool else 'one core'} "
            f"(load {load.load_average:.1f}: {load.free_cores} free)"
        )
    lines.append(
        f"column lineage: {result.lineage_ms_per_file:.2f} ms per table (once per materialization)"
    )
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks.translate_bench", description=__doc__.splitlines()[0]
    )
    parser.add_argument(
        "--rounds", type=int, default=ROUNDS, help=f"median of N rounds (default {ROUNDS})"
    )
    parser.add_argument(
        "--spider2", action="store_true", help="also the translated Spider2 queries"
    )
    parser.add_argument("--corpora", type=Path, default=None, help="default: ../shared/corpora")
    parser.add_argument(
        "--tree-files", type=int, default=TREE_FILES, help="synthetic tree size (0: none)"
    )
    parser.add_argument(
        "--scaling", action="store_true", help="time and memory of one script by its length"
    )
    parser.add_argument(
        "--sizes",
        type=lambda text: [int(n) for n in text.split(",")],
        default=list(SCALING_SIZES),
        help="statements per script, for --scaling (default 1000,10000,70000)",
    )
    parser.add_argument("--scaling-child", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args(argv)
    # sqlglot warns for each construct its generic generator drops (Oracle's (+)); the
    # baseline's output is timed, not used.
    logging.getLogger("sqlglot").setLevel(logging.ERROR)
    if args.scaling_child is not None:
        print(json.dumps(asdict(script_size(args.scaling_child))))
        return
    if args.scaling:
        scaled = scaling(args.sizes)
        out = args.out or SCALING_RESULTS_PATH
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(json.dumps(asdict(scaled), indent=2) + "\n")
        print(scaling_summary(scaled))
        print(f"results written to {out}")
        return
    spider2_root = (args.corpora or corpora_root()) if args.spider2 else None
    result = run(args.rounds, spider2_root, args.tree_files)
    out = args.out or RESULTS_PATH
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(asdict(result), indent=2) + "\n")
    print(summary(result))
    print(f"results written to {out}")


if __name__ == "__main__":
    main()
