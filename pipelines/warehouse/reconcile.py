"""Reconcile a built table against a reference result (Lakebridge's "reconcile", any engine).

The reference is the legacy warehouse's exported output (a snapshot: CSV or Parquet), an
independent hand-written reference query over the same inputs, or the legacy database
itself (:mod:`pipelines.warehouse.legacy_database`: only aggregates and hashes cross the
wire). Pure code over DuckDB: no Dagster.

In time linear in the rows and memory bounded by ``memory_limit`` (DuckDB spills to a
folder of the reconciliation's own beyond it), exactly:

1. **Aggregates first**, one scan per side: the row count and, per column, the non-NULL
   count, minimum and maximum, the sum of numbers (exact for integers and decimals: no
   DOUBLE in between), and an order-insensitive hash-sum of the rows. Without a key, equal
   counts and hash-sums mean the same multiset of rows, and the comparison stops there.
2. **Rows by hash**, otherwise: one fingerprint per row (:mod:`reconcile_queries`) on each
   side, kept in a DuckDB database in the spill folder. With a key, the fingerprints join on
   the key's hash and compare the row hashes; without one, they compare as multisets through
   a grouped count.
3. **The first differing rows** are read again only for the hashes that differ.

Values compare exactly: an integer with a decimal of the same value is the same value,
text byte for byte, NULL only with NULL (:mod:`row_hash` defines the canonical value of
each type). A tolerance applies only where declared: the table's own ``tolerance`` per
numeric column, and for a floating-point column (REAL or DOUBLE on either side, whose last
bits depend on summation order) the run's ``Thresholds.relative_tolerance`` where the table
declares none. A column with a tolerance is compared by value within it, ``|a - b| <=
t * max(|a|, |b|, 1)``: matched by key, or, without a key, among rows that agree in every
other column, paired in order of their values.

A reconciliation holds the data it compared (sample rows, the minimum and maximum of text
columns): ``Reconciliation.masked`` is what may be shown of it.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import math
import tempfile
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from decimal import Decimal
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

import duckdb
import pyarrow as pa
from sqlglot import exp

from pipelines.lake.store import parquet_source
from pipelines.warehouse import reconcile_rows as rows
from pipelines.warehouse.engines.base import EngineError, bind_views, table_name
from pipelines.warehouse.engines.duckdb_engine import connect_duckdb
from pipelines.warehouse.reconcile_queries import (
    ACTUAL,
    EXPECTED,
    LOCAL_DIALECT,
    HashMode,
    Pair,
    Plan,
    aggregate_query,
    fingerprint_query,
    sample_query,
)
from pipelines.warehouse.row_hash import Column, RowHashError, decimal_digits, duckdb_kind

if TYPE_CHECKING:
    from pipelines.contracts import TableMasking

SAMPLE_ROWS = 5
# The measures whose values are the column's data; counts and null counts are not.
VALUE_MEASURES = frozenset({"min", "max", "sum", "values"})
# DuckDB's memory for one reconciliation; beyond it, joins, groupings and the fingerprints
# spill to the reconciliation's folder. docs/benchmarks.md has what it costs.
RECONCILE_MEMORY_LIMIT = "1GB"
VIEWS = ("actual", "expected")


class ReconcileError(RuntimeError):
    """A side of the reconciliation cannot be read; one line, never a credential."""


@dataclass(frozen=True)
class Thresholds:
    """How far a table may be from its reference and still reconcile."""

    # Relative tolerance of floating-point columns (REAL or DOUBLE on either side) whose
    # table declares none: their last bits depend on the order of summation. Never applied
    # to integers, decimals, text or dates, which compare exactly unless the table declares
    # a tolerance of its own. 0: floating-point values compare exactly as stored.
    relative_tolerance: float = 1e-9
    # Fraction of rows (of the larger side) allowed to be unmatched.
    max_unmatched_fraction: float = 0.0

    def __post_init__(self) -> None:
        if not (self.relative_tolerance >= 0 and 0 <= self.max_unmatched_fraction <= 1):
            raise ValueError(
                "relative_tolerance must be >= 0 and max_unmatched_fraction within [0, 1]"
            )


@dataclass(frozen=True)
class ColumnDifference:
    column: str
    measure: str  # count, nulls, min, max, sum, missing, extra
    actual: object
    expected: object

    def describe(self) -> str:
        if self.measure in ("missing", "extra"):
            return f"{self.column}: {'not in the table' if self.measure == 'missing' else 'not in the reference'}"
        detail = ""
        if isinstance(self.actual, float) and isinstance(self.expected, float):
            detail = f" (off by {self.actual - self.expected:+.6g})"
        return f"{self.column}: {self.measure} {self.actual!r} != {self.expected!r}{detail}"


def _is_number(value: object) -> bool:
    return isinstance(value, int | float | Decimal) and not isinstance(value, bool)


@dataclass(frozen=True)
class Comparison:
    """One measure of one column (or of the table: ``column`` None), on both sides."""

    column: str | None
    measure: str  # rows, unmatched rows, present, count, nulls, min, max, sum, key, unique key
    built: object
    reference: object
    passed: bool

    @property
    def difference(self) -> float | int | None:
        """built - reference, for numbers (an exact difference of integers stays one)."""
        if not (_is_number(self.built) and _is_number(self.reference)):
            return None
        if isinstance(self.built, int) and isinstance(self.reference, int):
            return self.built - self.reference
        if isinstance(self.built, float) or isinstance(self.reference, float):
            return float(self.built) - float(self.reference)  # type: ignore[arg-type]
        return float(Decimal(self.built) - Decimal(self.reference))  # type: ignore[arg-type]

    def as_difference(self) -> ColumnDifference:
        """A failed column comparison as a difference: a column on one side only is
        ``missing`` (not built) or ``extra`` (not in the reference)."""
        assert self.column is not None and not self.passed
        if self.measure == "present":
            return ColumnDifference(self.column, "extra" if self.built else "missing", None, None)
        return ColumnDifference(self.column, self.measure, self.built, self.reference)

    def masked(self, masking: TableMasking) -> Comparison:
        if self.column is None or self.measure not in VALUE_MEASURES:
            return self
        if not masking.hides(self.column):
            return self
        return replace(
            self,
            built=masking.value(self.column, self.built),
            reference=masking.value(self.column, self.reference),
        )


@dataclass(frozen=True)
class Reconciliation:
    passed: bool
    actual_rows: int
    expected_rows: int
    only_in_table: int = 0
    only_in_reference: int = 0
    # Up to SAMPLE_ROWS unmatched rows of each side: column -> canonical text (NULL: None),
    # over the columns both sides have.
    sample_only_in_table: list[dict[str, object]] = field(default_factory=list)
    sample_only_in_reference: list[dict[str, object]] = field(default_factory=list)
    # Every measure compared, passed or not: what a results table shows.
    comparisons: list[Comparison] = field(default_factory=list)
    # How the rows were compared: "aggregates" (the hash-sums settled it) or "rows".
    compared_by: str = "rows"

    @property
    def differences(self) -> list[ColumnDifference]:
        """The column measures that differ (a column on one side only first)."""
        return column_differences(self.comparisons)

    @property
    def columns_differing(self) -> list[str]:
        return sorted({d.column for d in self.differences})

    def masked(self, masking: TableMasking) -> Reconciliation:
        """The reconciliation as it may be shown: the sample rows, and the minimum, maximum
        and sum of each column ``masking`` hides, through ``masking``."""
        return replace(
            self,
            comparisons=[c.masked(masking) for c in self.comparisons],
            sample_only_in_table=[masking.row(row) for row in self.sample_only_in_table],
            sample_only_in_reference=[masking.row(row) for row in self.sample_only_in_reference],
        )

    def summary(self) -> str:
        if self.passed:
            return f"reconciled: {self.actual_rows:,} rows, every column and row matches"
        parts = [f"{self.actual_rows:,} rows vs {self.expected_rows:,} in the reference"]
        if self.differences:
            parts.append("columns differing: " + ", ".join(self.columns_differing))
        if self.only_in_table or self.only_in_reference:
            parts.append(
                f"{self.only_in_table:,} rows only in the table, "
                f"{self.only_in_reference:,} only in the reference"
            )
        return "not reconciled: " + "; ".join(parts)


# -- what is compared ----------------------------------------------------------------------


@dataclass(frozen=True)
class SnapshotFiles:
    """The legacy warehouse's exported output: a CSV file (header, types detected by
    DuckDB; ``""`` is an empty string, an unquoted empty field NULL, as sources read them), or
    a Parquet file or folder of Parquet files. Read where it lies, never into memory."""

    path: Path


@dataclass(frozen=True)
class ReferenceQuery:
    """A hand-written reference query (DuckDB SQL) over ``inputs`` (``zone.table`` ->
    Parquet folder), run inside the reconciliation: its result is never held in memory."""

    sql: str
    inputs: Mapping[str, Path]
    file: str = "<reference>"


class RemoteSession(Protocol):
    """An open connection to another engine that holds one side (the legacy database)."""

    dialect: str
    source: exp.Expr  # what the side's queries read FROM

    def columns(self) -> list[Column]: ...

    def fetch(self, query: exp.Select) -> list[dict[str, Any]]: ...

    def stream(self, query: exp.Select) -> pa.RecordBatchReader: ...


class RemoteSide(Protocol):
    def session(self) -> contextlib.AbstractContextManager[RemoteSession]: ...


LocalSource = Path | pa.Table | SnapshotFiles | ReferenceQuery
Source = LocalSource | RemoteSide


def read_snapshot(path: Path) -> pa.Table:
    """The legacy warehouse's exported output at ``path`` (see :class:`SnapshotFiles`), in
    memory: for small snapshots and tests; a reconciliation reads it where it lies."""
    with connect_duckdb() as con:
        return _snapshot_relation(con, path).to_arrow_table()


def _snapshot_relation(con: duckdb.DuckDBPyConnection, path: Path) -> duckdb.DuckDBPyRelation:
    if path.suffix.lower() == ".csv":
        return con.read_csv(str(path), header=True, allow_quoted_nulls=False)
    return con.read_parquet(parquet_source(path))


def _register(con: duckdb.DuckDBPyConnection, source: LocalSource, view: str) -> None:
    if isinstance(source, pa.Table):
        con.register(view, source)
    elif isinstance(source, SnapshotFiles):
        _snapshot_relation(con, source.path).create_view(view)
    elif isinstance(source, ReferenceQuery):
        for key, path in source.inputs.items():
            zone, table = key.split(".", 1)
            con.read_parquet(parquet_source(path)).create_view(table_name(zone, table))
        bound = bind_views(source.sql, "duckdb", source.inputs, file=source.file)
        try:
            con.sql(bound).create_view(view)
        except duckdb.Error as exc:
            raise EngineError(f"{source.file}: duckdb: {exc}") from exc
    else:
        con.read_parquet(parquet_source(Path(source))).create_view(view)


def _is_local(source: Source) -> bool:
    return isinstance(source, Path | pa.Table | SnapshotFiles | ReferenceQuery | str)


@dataclass
class _Side:
    """One side as the comparison sees it, wherever its rows are."""

    index: int
    dialect: str
    source: exp.Expr
    columns: dict[str, tuple[Column, str | None]]  # name -> (column, DuckDB type | None)
    fetch: Callable[[exp.Select], list[dict[str, Any]]]
    # A fingerprint query, read into the reconciliation's DuckDB for as long as the block
    # runs: what to read it FROM there (once).
    fingerprints: Callable[[exp.Select, HashMode], contextlib.AbstractContextManager[exp.Expr]]

    @property
    def local(self) -> bool:
        return self.dialect == LOCAL_DIALECT


def _local_side(con: duckdb.DuckDBPyConnection, index: int) -> _Side:
    view = VIEWS[index]
    relation = con.view(view)
    columns = {
        name: (Column(name, duckdb_kind(str(t)), _scale(str(t)), "_NS" in str(t)), str(t))
        for name, t in zip(relation.columns, relation.types, strict=True)
    }
    source = exp.to_table(view, quoted=True)

    def fetch(query: exp.Select) -> list[dict[str, Any]]:
        relation = con.sql(query.sql(LOCAL_DIALECT))
        return [dict(zip(relation.columns, row, strict=True)) for row in relation.fetchall()]

    @contextlib.contextmanager
    def fingerprints(query: exp.Select, mode: HashMode) -> Iterator[exp.Expr]:
        yield _identities(query.subquery("fingerprints"), query, mode)

    return _Side(index, LOCAL_DIALECT, source, columns, fetch, fingerprints)


def _remote_side(con: duckdb.DuckDBPyConnection, session: RemoteSession, index: int) -> _Side:
    columns = {c.name: (c, None) for c in session.columns()}

    @contextlib.contextmanager
    def fingerprints(query: exp.Select, mode: HashMode) -> Iterator[exp.Expr]:
        # Streamed into the one query that reads it, a record batch at a time.
        view = f"remote_fingerprints_{index}"
        con.register(view, session.stream(query))
        try:
            yield _identities(exp.to_table(view, quoted=True), query, mode)
        finally:
            con.unregister(view)

    return _Side(index, session.dialect, session.source, columns, session.fetch, fingerprints)


def _scale(duckdb_type: str) -> int | None:
    digits = decimal_digits(duckdb_type)
    return digits[1] if digits else None


def _hex_identity(value: exp.Expr) -> exp.Expr:
    """An MD5's 32 hex digits as one 128-bit integer: compact, and compared fast."""
    return exp.Cast(
        this=exp.DPipe(this=exp.Literal.string("0x"), expression=value),
        to=exp.DataType.build("UHUGEINT", dialect=LOCAL_DIALECT),
    )


def _identities(source: exp.Expr, query: exp.Select, mode: HashMode) -> exp.Expr:
    """A fingerprint query's rows read from ``source``, its MD5s (canonical mode) as
    128-bit integers."""
    selects: list[exp.Expr] = []
    for expression in query.expressions:
        column = exp.column(expression.alias, quoted=True)
        if mode == "canonical" and expression.alias in ("k", "h"):
            selects.append(exp.alias_(_hex_identity(column), expression.alias, quoted=True))
        else:
            selects.append(column)
    return exp.select(*selects).from_(source).subquery("identified")


# -- the plan ------------------------------------------------------------------------------


def _matching_name(name: str, names: Sequence[str], case_insensitive: bool) -> str | None:
    if name in names:
        return name
    if case_insensitive:
        folded = [n for n in names if n.lower() == name.lower()]
        if len(folded) == 1:
            return folded[0]
    return None


def _plan(
    actual: _Side,
    expected: _Side,
    key: Sequence[str],
    tolerance: Mapping[str, float],
    thresholds: Thresholds,
) -> tuple[Plan, list[Comparison]]:
    """The common columns (the built table's names and order) and how each compares; and a
    ``present`` comparison for each column on one side only."""
    # Another engine may fold names (Snowflake: upper case): matched whatever their case.
    loose = not expected.local
    expected_names = list(expected.columns)
    pairs, matched = [], set()
    for name, (column, duckdb_type) in actual.columns.items():
        other = _matching_name(name, expected_names, loose)
        if other is None:
            continue
        matched.add(other)
        e_column, e_type = expected.columns[other]
        pair = Pair(name, (column, e_column), (duckdb_type, e_type))
        numeric = all(k.numeric for k in pair.kinds)
        allowed: float | None = None
        if name not in key and numeric:
            if name in tolerance:
                allowed = float(tolerance[name])
            elif pair.approximate:
                allowed = thresholds.relative_tolerance
        pairs.append(replace(pair, tolerance=allowed))
    presence = [
        Comparison(c, "present", False, True, False) for c in expected_names if c not in matched
    ] + [
        Comparison(c, "present", True, False, False)
        for c in actual.columns
        if c not in {p.name for p in pairs}
    ]
    mode: HashMode = "typed" if actual.local and expected.local else "canonical"
    return Plan(tuple(pairs), tuple(key), mode), presence


# -- aggregates ----------------------------------------------------------------------------


def _normal(value: object, pair: Pair | None = None) -> object:
    """A value fetched from either engine, in one form: exact numbers another engine wrote as
    text as decimals, a timestamp with time zone as its UTC wall time."""
    if isinstance(value, str) and pair is not None and pair.exact_numbers:
        return Decimal(value)
    if isinstance(value, dt.datetime) and value.tzinfo is not None:
        return value.astimezone(dt.UTC).replace(tzinfo=None)
    return value


def _close(actual: object, expected: object, tolerance: float) -> bool:
    if actual is None or expected is None:
        return actual is expected
    a, e = float(actual), float(expected)  # type: ignore[arg-type]
    if a == e or (math.isnan(a) and math.isnan(e)):
        return True
    return math.isclose(a, e, rel_tol=tolerance, abs_tol=tolerance)


def _same(actual: object, expected: object, pair: Pair) -> bool:
    if pair.tolerance is not None:
        return _close(actual, expected, pair.tolerance)
    if pair.exact_numbers and _is_number(actual) and _is_number(expected):
        return Decimal(actual) == Decimal(expected)  # type: ignore[arg-type]
    # A DATE never equals a TIMESTAMP in Python either.
    return actual == expected


def _aggregate_comparisons(
    plan: Plan, aggregates: tuple[dict[str, Any], dict[str, Any]]
) -> list[Comparison]:
    actual, expected = aggregates
    comparisons = []
    for i, pair in enumerate(plan.pairs):
        for measure in ("count", "min", "max", "sum"):
            name = f"c{i}_{measure}"
            if name not in actual:
                continue
            a, e = _normal(actual[name], pair), _normal(expected[name], pair)
            same = a == e if measure == "count" else _same(a, e, pair)
            comparisons.append(Comparison(pair.name, measure, a, e, same))
        a_nulls = actual["rows"] - actual[f"c{i}_count"]
        e_nulls = expected["rows"] - expected[f"c{i}_count"]
        comparisons.append(Comparison(pair.name, "nulls", a_nulls, e_nulls, a_nulls == e_nulls))
    return comparisons


def _hash_sums(plan: Plan, aggregates: dict[str, Any]) -> tuple[int, ...]:
    names = ("hash_sum",) if plan.mode == "typed" else ("hash_hi", "hash_lo")
    return tuple(int(Decimal(str(aggregates[n] or 0))) for n in names)


# -- rows ----------------------------------------------------------------------------------


def _samples(
    con: duckdb.DuckDBPyConnection, plan: Plan, side: _Side, table: str
) -> list[dict[str, object]]:
    """The first rows of ``side`` whose fingerprint is in ``table`` (``only_actual`` or
    ``only_expected``): read again, only those."""
    column = "k" if plan.key else "h"
    fingerprint: exp.Expr = exp.column(column, quoted=True)
    if side.local:
        if plan.mode == "canonical":
            fingerprint = _hex_identity(fingerprint)
        column_of = exp.column(column, quoted=True)
        where: exp.Expr = exp.In(
            this=fingerprint,
            query=exp.select(column_of).from_(exp.to_table(table, quoted=True)).subquery(),
        )
    else:
        # Another engine: the few differing hashes, as its own hex text.
        identities = rows.first_identities(con, table, column, SAMPLE_ROWS)
        hashes = [format(value, "032x") for value in identities]
        where = exp.In(this=fingerprint, expressions=[exp.Literal.string(h) for h in hashes])
    query = sample_query(plan, side.index, side.source, side.dialect, where, SAMPLE_ROWS)
    names = [p.name for p in plan.pairs]
    return [
        dict(zip(names, [_shown(v) for v in row.values()], strict=True)) if names else {}
        for row in side.fetch(query)
    ]


def _differing_values(
    plan: Plan, ours: list[dict[str, object]], theirs: list[dict[str, object]]
) -> list[Comparison]:
    """Rows of the same key on both sides, column by column: each column whose values differ
    (beyond its tolerance) in one of the sampled rows, once, with the first such values."""
    by_key = {tuple(row[k] for k in plan.key): row for row in theirs}
    found: dict[str, Comparison] = {}
    for row in ours:
        other = by_key.get(tuple(row[k] for k in plan.key))
        if other is None:
            continue
        for pair in plan.pairs:
            a, e = row[pair.name], other[pair.name]
            if pair.name in found or pair.name in plan.key:
                continue
            if pair.tolerance is not None and a is not None and e is not None:
                same = _close(a, e, pair.tolerance)
            else:
                same = a == e
            if not same:
                found[pair.name] = Comparison(pair.name, "values", a, e, False)
    return [found[p.name] for p in plan.pairs if p.name in found]


def _paired_values(con: duckdb.DuckDBPyConnection, plan: Plan) -> list[Comparison]:
    """Without a key: each toleranced column whose values differ beyond its tolerance
    between rows equal in every other column, once, with the first such values."""
    return [
        Comparison(name, "values", a, e, False) for name, a, e in rows.beyond_tolerance(con, plan)
    ]


def _shown(value: object) -> object:
    return None if value is None else str(value)


# -- the reconciliation --------------------------------------------------------------------


@contextlib.contextmanager
def _connection(scratch: Path | None, memory_limit: str) -> Iterator[duckdb.DuckDBPyConnection]:
    """A DuckDB database in a folder of its own (under ``scratch``, else the system's
    temporary folder), held to ``memory_limit`` and spilling there; removed afterwards."""
    if scratch is not None:
        scratch.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="reconcile-", dir=scratch) as folder:
        config = {"memory_limit": memory_limit, "temp_directory": str(Path(folder) / "spill")}
        con = connect_duckdb(str(Path(folder) / "reconcile.duckdb"), config=config)
        try:
            yield con
        finally:
            con.close()


def reconcile(
    table: Source,
    reference: Source,
    thresholds: Thresholds | None = None,
    *,
    key: Sequence[str] = (),
    tolerance: Mapping[str, float] | None = None,
    scratch: Path | None = None,
    memory_limit: str = RECONCILE_MEMORY_LIMIT,
) -> Reconciliation:
    """Compare ``table`` (what was built) with ``reference`` (what the legacy logic gives).

    Each is a Parquet file or folder, an Arrow table, :class:`SnapshotFiles`, a
    :class:`ReferenceQuery`, or (the reference) another engine's side, such as
    ``legacy_database.DatabaseSide``. ``tolerance`` gives numeric columns a relative
    tolerance of their own; floating-point columns without one get the thresholds'. With
    ``key``, rows are matched by those columns; without it, as a multiset. DuckDB works in a
    folder under ``scratch`` (the system's temporary folder by default), removed afterwards.
    Raises :class:`ReconcileError` when a side cannot be read."""
    thresholds = thresholds or Thresholds()
    tolerance = dict(tolerance or {})
    with contextlib.ExitStack() as stack:
        con = stack.enter_context(_connection(scratch, memory_limit))
        sides: list[_Side] = []
        for index, source in enumerate((table, reference)):
            if _is_local(source):
                _register(con, source, VIEWS[index])  # type: ignore[arg-type]
                sides.append(_local_side(con, index))
            else:
                session = stack.enter_context(source.session())  # type: ignore[union-attr]
                sides.append(_remote_side(con, session, index))
        try:
            return _reconcile(con, sides[ACTUAL], sides[EXPECTED], thresholds, key, tolerance)
        except RowHashError as error:
            raise ReconcileError(str(error)) from None
        except duckdb.Error as error:
            raise ReconcileError(f"duckdb: {' '.join(str(error).split())}") from None


def _compare_rows(
    con: duckdb.DuckDBPyConnection, plan: Plan, actual: _Side, expected: _Side
) -> rows.Differences:
    """One scan of each side for its fingerprints, then compared by bucket and row."""
    for side in (actual, expected):
        query = fingerprint_query(plan, side.index, side.source, side.dialect)
        with side.fingerprints(query, plan.mode) as fingerprints:
            rows.store(con, side.index, fingerprints)
    return rows.keyed(con, plan) if plan.key else rows.multiset(con, plan)


def _reconcile(
    con: duckdb.DuckDBPyConnection,
    actual: _Side,
    expected: _Side,
    thresholds: Thresholds,
    key: Sequence[str],
    tolerance: Mapping[str, float],
) -> Reconciliation:
    plan, comparisons = _plan(actual, expected, key, tolerance, thresholds)
    missing_key = [k for k in key if k not in {p.name for p in plan.pairs}]
    if missing_key:
        plan = replace(plan, key=())
        comparisons += [Comparison(k, "key", False, True, False) for k in missing_key]

    aggregates = (
        actual.fetch(aggregate_query(plan, ACTUAL, actual.source, actual.dialect))[0],
        expected.fetch(aggregate_query(plan, EXPECTED, expected.source, expected.dialect))[0],
    )
    comparisons += _aggregate_comparisons(plan, aggregates)
    actual_rows, expected_rows = (int(a["rows"]) for a in aggregates)

    settled = (
        not plan.key
        and actual_rows == expected_rows
        and _hash_sums(plan, aggregates[0]) == _hash_sums(plan, aggregates[1])
        and (plan.mode == "typed" or not plan.toleranced)
    )
    counts, samples = (0, 0), ([], [])
    if not settled:
        differences = _compare_rows(con, plan, actual, expected)
        if any(differences.repeated):
            # Rows cannot be matched by a key that repeats: say on which side; as a multiset.
            built, reference = (not r for r in differences.repeated)
            comparisons.append(Comparison(None, "unique key", built, reference, False))
            plan = replace(plan, key=())
            differences = _compare_rows(con, plan, actual, expected)
        counts = (differences.only_actual, differences.only_expected)
        samples = tuple(  # type: ignore[assignment]
            _samples(con, plan, side, table) if count else []
            for side, table, count in (
                (actual, "only_actual", counts[0]),
                (expected, "only_expected", counts[1]),
            )
        )
        if plan.key:
            comparisons += _differing_values(plan, samples[0], samples[1])
        elif plan.toleranced and all(counts):
            comparisons += _paired_values(con, plan)

    unmatched = max(counts)
    allowed = thresholds.max_unmatched_fraction * max(actual_rows, expected_rows, 1)
    passed = (
        not differences_beyond(column_differences(comparisons), thresholds)
        and not any(c.column is None and not c.passed for c in comparisons)
        and actual_rows == expected_rows
        and unmatched <= allowed
    )
    table_comparisons = [
        Comparison(None, "rows", actual_rows, expected_rows, actual_rows == expected_rows),
        Comparison(None, "unmatched rows", counts[0], counts[1], unmatched <= allowed),
    ]
    return Reconciliation(
        passed=passed,
        comparisons=table_comparisons + comparisons,
        actual_rows=actual_rows,
        expected_rows=expected_rows,
        only_in_table=counts[0],
        only_in_reference=counts[1],
        sample_only_in_table=samples[0],
        sample_only_in_reference=samples[1],
        compared_by="aggregates" if settled else "rows",
    )


def column_differences(comparisons: list[Comparison]) -> list[ColumnDifference]:
    """The failed column comparisons, as differences."""
    return [c.as_difference() for c in comparisons if c.column is not None and not c.passed]


def differences_beyond(differences: list[ColumnDifference], thresholds: Thresholds) -> bool:
    """Column differences that fail reconciliation: any, unless row mismatches are tolerated,
    in which case aggregates over the tolerated rows may legitimately move."""
    if thresholds.max_unmatched_fraction == 0:
        return bool(differences)
    return any(d.measure in ("missing", "extra") for d in differences)
