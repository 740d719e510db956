"""Reconcile a built table against a reference result (Lakebridge's "reconcile", any engine).

Compares row counts, per-column aggregates (count, nulls, min, max, and sum for numbers)
and the multiset of rows, on canonical values so that DECIMAL on one side and DOUBLE on
the other compare equal when they hold the same number. Pure code over DuckDB: no Dagster.

A reconciliation holds the data it compared (sample rows, the minimum and maximum of text
columns): ``Reconciliation.masked`` is what may be shown of it.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING

import duckdb
import pyarrow as pa
from sqlglot import exp

from pipelines.lake.store import parquet_source
from pipelines.warehouse.engines.digest import NUMERIC_PREFIXES, canonical_value
from pipelines.warehouse.engines.duckdb_engine import connect_duckdb

if TYPE_CHECKING:
    from pipelines.contracts import TableMasking

SAMPLE_ROWS = 5
# The measures whose values are the column's data; counts and null counts are not.
VALUE_MEASURES = frozenset({"min", "max", "sum"})


@dataclass(frozen=True)
class Thresholds:
    """How far a table may be from its reference and still reconcile."""

    # Relative difference allowed between numeric aggregates (sums of floats differ in the
    # last bits between engines and summation orders).
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


@dataclass(frozen=True)
class Comparison:
    """One measure of one column (or of the table: ``column`` None), on both sides."""

    column: str | None
    measure: str  # rows, unmatched rows, present, count, nulls, min, max, sum
    built: object
    reference: object
    passed: bool

    @property
    def difference(self) -> float | int | None:
        """built - reference, for numbers."""
        numbers = (int, float)
        if (
            isinstance(self.built, numbers)
            and isinstance(self.reference, numbers)
            and not isinstance(self.built, bool)
            and not isinstance(self.reference, bool)
        ):
            return self.built - self.reference
        return None

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


def read_snapshot(path: Path) -> pa.Table:
    """The legacy warehouse's exported output at ``path``: a CSV file (header, types
    detected by DuckDB), or a Parquet file or folder of Parquet files."""
    with connect_duckdb() as con:
        if path.suffix.lower() == ".csv":
            # "" is an empty string, an unquoted empty field NULL (as sources read them).
            relation = con.read_csv(str(path), header=True, allow_quoted_nulls=False)
        else:
            relation = con.read_parquet(parquet_source(path))
        return relation.to_arrow_table()


def _columns(con: duckdb.DuckDBPyConnection, view: str) -> dict[str, str]:
    relation = con.table(view)
    return {name: str(t) for name, t in zip(relation.columns, relation.types, strict=True)}


def _aggregates(con: duckdb.DuckDBPyConnection, view: str, columns: dict[str, str]) -> dict:
    selects: list[exp.Expr] = [exp.alias_(exp.func("count", exp.Star()), "__rows")]
    for name, duck_type in columns.items():
        col = exp.column(name, quoted=True)
        numeric = duck_type.upper().startswith(NUMERIC_PREFIXES)
        # Numbers compare as DOUBLE (with tolerance), everything else as canonical text.
        value = exp.cast(col, "DOUBLE") if numeric else canonical_value(name, duck_type)
        selects += [
            exp.alias_(exp.func("count", col), f"{name}__count"),
            exp.alias_(exp.func("min", value), f"{name}__min"),
            exp.alias_(exp.func("max", value), f"{name}__max"),
        ]
        if numeric:
            selects.append(exp.alias_(exp.func("sum", value.copy()), f"{name}__sum"))
    query = exp.select(*selects).from_(exp.to_identifier(view, quoted=True))
    relation = con.sql(query.sql("duckdb"))
    return dict(zip(relation.columns, relation.fetchall()[0], strict=True))


def _canonical_rows(view: str, columns: dict[str, str]) -> exp.Select:
    """Each row as the canonical text of its columns (NULL stays NULL: EXCEPT ALL takes two
    NULLs as the same value)."""
    values: list[exp.Expr] = [
        exp.alias_(canonical_value(name, t), name, quoted=True) for name, t in columns.items()
    ]
    # Without a common column, rows still count: each one is the same empty row.
    return exp.select(*(values or [exp.alias_(exp.Literal.number(1), "__row")])).from_(
        exp.to_identifier(view, quoted=True)
    )


def _duplicate_keys(con: duckdb.DuckDBPyConnection, view: str, key: Sequence[str]) -> bool:
    """Whether some value of ``key`` names more than one row of ``view``."""
    columns = [exp.column(k, quoted=True) for k in key]
    repeated = (
        exp.select(*columns)
        .from_(exp.to_identifier(view, quoted=True))
        .group_by(*columns)
        .having(exp.func("count", exp.Star()) > 1)
    )
    query = exp.select(exp.func("count", exp.Star())).from_(repeated.subquery("repeated"))
    return con.sql(query.sql("duckdb")).fetchall()[0][0] > 0


def _qualified(expression: exp.Expr, side: str) -> exp.Expr:
    """``expression`` with each column read from the side ``side`` of a join."""
    return expression.transform(
        lambda node: (
            exp.column(node.name, table=side, quoted=True) if isinstance(node, exp.Column) else node
        )
    )


def _keyed_unmatched(
    actual: dict[str, str],
    expected: dict[str, str],
    key: Sequence[str],
    tolerance: Mapping[str, float],
    default_tolerance: float,
) -> tuple[exp.Select, exp.Select]:
    """(rows of the table, rows of the reference) that have no row of the same key on the
    other side, or whose values differ there beyond the tolerances; as canonical text."""
    present = "__plumbline_present"

    def side(view: str) -> exp.Subquery:
        return (
            exp.select(exp.Star(), exp.alias_(exp.true(), present))
            .from_(exp.to_identifier(view, quoted=True))
            .subquery(view[0])
        )

    joined = exp.and_(
        *(
            exp.NullSafeEQ(
                this=exp.column(k, "a", quoted=True), expression=exp.column(k, "e", quoted=True)
            )
            for k in key
        )
    )
    matches: list[exp.Expr] = []
    for name, duck_type in actual.items():
        if name in key:
            continue
        a, e = exp.column(name, "a", quoted=True), exp.column(name, "e", quoted=True)
        if duck_type.upper().startswith(NUMERIC_PREFIXES) and expected[name].upper().startswith(
            NUMERIC_PREFIXES
        ):
            allowed = exp.Literal.number(repr(float(tolerance.get(name, default_tolerance))))
            a_value, e_value = exp.cast(a, "DOUBLE"), exp.cast(e, "DOUBLE")
            # math.isclose(a, e, rel_tol=t, abs_tol=t), as _close compares aggregates.
            bound = exp.func(
                "greatest",
                exp.Mul(
                    this=allowed,
                    expression=exp.func("greatest", exp.Abs(this=a_value), exp.Abs(this=e_value)),
                ),
                allowed.copy(),
            )
            close = exp.Abs(this=exp.Sub(this=a_value.copy(), expression=e_value.copy())) <= bound
            either_null = exp.or_(a.copy().is_(exp.null()), e.copy().is_(exp.null()))
            both_null = exp.and_(a.copy().is_(exp.null()), e.copy().is_(exp.null()))
            matches.append(exp.case().when(either_null, both_null).else_(close))
        else:
            matches.append(
                exp.NullSafeEQ(
                    this=_qualified(canonical_value(name, duck_type), "a"),
                    expression=_qualified(canonical_value(name, expected[name]), "e"),
                )
            )
    differs = exp.or_(
        exp.column(present, "a").is_(exp.null()),
        exp.column(present, "e").is_(exp.null()),
        exp.not_(exp.and_(*matches)) if matches else exp.false(),
    )
    # One join; each side's columns as canonical text under "<side>.<column>".
    sides = {"a": actual, "e": expected}
    selected = [
        exp.alias_(_qualified(canonical_value(n, t), alias), f"{alias}.{n}", quoted=True)
        for alias, columns in sides.items()
        for n, t in columns.items()
    ] + [
        exp.alias_(exp.column(present, alias), f"{alias}.{present}", quoted=True) for alias in sides
    ]
    pairs = (
        exp.select(*selected)
        .from_(side("actual"))
        .join(side("expected"), on=joined, join_type="full outer")
        .where(differs)
    )

    def rows(alias: str) -> exp.Select:
        return (
            exp.select(
                *(
                    exp.alias_(exp.column(f"{alias}.{n}", quoted=True), n, quoted=True)
                    for n in sides[alias]
                )
            )
            .from_(pairs.subquery("pairs"))
            .where(exp.column(f"{alias}.{present}", quoted=True).is_(exp.null()).not_())
        )

    return rows("a"), rows("e")


def _close(actual: float | None, expected: float | None, tolerance: float) -> bool:
    if actual is None or expected is None:
        return actual is expected
    return math.isclose(actual, expected, rel_tol=tolerance, abs_tol=tolerance)


def reconcile(
    table: Path | pa.Table,
    reference: Path | pa.Table,
    thresholds: Thresholds | None = None,
    *,
    key: Sequence[str] = (),
    tolerance: Mapping[str, float] | None = None,
) -> Reconciliation:
    """Compare ``table`` (what was built) with ``reference`` (what the legacy logic gives).

    ``tolerance`` gives numeric columns a relative tolerance of their own (default the
    thresholds'). With ``key``, rows are matched by those columns and compared column by
    column within the tolerances (a row whose values differ counts as unmatched on both
    sides); without it, rows compare as a multiset of canonical values, exactly."""
    thresholds = thresholds or Thresholds()
    tolerance = dict(tolerance or {})
    row_key = tuple(key)
    with connect_duckdb() as con:
        for view, source in (("actual", table), ("expected", reference)):
            if isinstance(source, pa.Table):
                con.from_arrow(source).create_view(view)
            else:
                con.read_parquet(parquet_source(source)).create_view(view)
        actual_cols, expected_cols = _columns(con, "actual"), _columns(con, "expected")
        # A column on one side only: present in the table (built) or in the reference.
        comparisons = [
            Comparison(c, "present", False, True, False)
            for c in expected_cols
            if c not in actual_cols
        ] + [
            Comparison(c, "present", True, False, False)
            for c in actual_cols
            if c not in expected_cols
        ]
        common = {c: actual_cols[c] for c in actual_cols if c in expected_cols}
        common_expected = {c: expected_cols[c] for c in common}

        actual_aggs = _aggregates(con, "actual", common)
        expected_aggs = _aggregates(con, "expected", common_expected)
        for name in common:
            for measure in ("count", "min", "max", "sum"):
                key = f"{name}__{measure}"
                if key not in actual_aggs or key not in expected_aggs:
                    continue
                a, e = actual_aggs[key], expected_aggs[key]
                numeric = isinstance(a, float) or isinstance(e, float)
                allowed = tolerance.get(name, thresholds.relative_tolerance)
                same = _close(a, e, allowed) if numeric else a == e
                comparisons.append(Comparison(name, measure, a, e, same))
            a_nulls = actual_aggs["__rows"] - actual_aggs[f"{name}__count"]
            e_nulls = expected_aggs["__rows"] - expected_aggs[f"{name}__count"]
            comparisons.append(Comparison(name, "nulls", a_nulls, e_nulls, a_nulls == e_nulls))

        missing_key = [k for k in row_key if k not in common]
        if missing_key:
            comparisons += [Comparison(k, "key", False, True, False) for k in missing_key]
            row_key = ()
        if row_key:
            duplicated = [v for v in ("actual", "expected") if _duplicate_keys(con, v, row_key)]
            if duplicated:
                # Rows cannot be matched by a key that repeats: say on which side.
                unique = ("actual" not in duplicated, "expected" not in duplicated)
                comparisons.append(Comparison(None, "unique key", *unique, False))
                row_key = ()
        if row_key:
            only_table, only_reference = _keyed_unmatched(
                common, common_expected, row_key, tolerance, thresholds.relative_tolerance
            )
        else:
            only_table = _canonical_rows("actual", common).except_(
                _canonical_rows("expected", common_expected), distinct=False
            )
            only_reference = _canonical_rows("expected", common_expected).except_(
                _canonical_rows("actual", common), distinct=False
            )
        counts, samples = [], []
        for query in (only_table, only_reference):
            diff = exp.select("*").from_(query.subquery("diff"))
            count = exp.select(exp.func("count", exp.Star())).from_(query.subquery("diff"))
            counts.append(con.sql(count.sql("duckdb")).fetchall()[0][0])
            order = [exp.column(name, quoted=True) for name in common] or ["__row"]
            sample = diff.order_by(*order).limit(SAMPLE_ROWS)
            samples.append(
                [
                    dict(zip(common, row[: len(common)], strict=True))
                    for row in con.sql(sample.sql("duckdb")).fetchall()
                ]
            )

    actual_rows, expected_rows = actual_aggs["__rows"], expected_aggs["__rows"]
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
