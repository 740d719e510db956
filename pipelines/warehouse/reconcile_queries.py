"""The queries a reconciliation runs on each side, as sqlglot trees in that side's dialect.

One scan per side gives the aggregates (:func:`aggregate_query`): the row count, each
column's non-NULL count, minimum, maximum and (numbers) sum, and the row hash-sum. Only when
they do not settle the verdict does a second scan give one fingerprint per row
(:func:`fingerprint_query`: the key's hash, the hash of the exactly compared columns and the
values of the columns compared within a tolerance), and a third, only when rows differ, the
first differing rows (:func:`sample_query`).

Two ways to hash a row, one :class:`Plan` decides:

* ``typed``: both sides are DuckDB relations in one connection. The row hash is DuckDB's
  ``hash()`` of the typed values, each column cast to one type both sides hold exactly (an
  INTEGER and a DECIMAL(10,0) both as DECIMAL(38,0)... or, where no type holds both, the
  canonical text of :mod:`pipelines.warehouse.row_hash`). 64 bits, ~20x faster than MD5 of
  text.
* ``canonical``: one side is another engine. Both hash the canonical text with MD5
  (:mod:`pipelines.warehouse.row_hash`), each in its own dialect.

Pure sqlglot: no engine here.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from sqlglot import exp

from pipelines.warehouse.row_hash import (
    Column,
    Kind,
    RowHashError,
    canonical_text,
    decimal_digits,
    dialect,
    hash_sum,
    row_hash,
)

HashMode = Literal["typed", "canonical"]
ACTUAL, EXPECTED = 0, 1
LOCAL_DIALECT = "duckdb"
# The widest exact type DuckDB's typed hash casts both sides of a column to.
MAX_DECIMAL_DIGITS = 38


@dataclass(frozen=True)
class Pair:
    """One column both sides have: as each holds it, and how it is compared."""

    name: str  # as the built table names it
    sides: tuple[Column, Column]  # (built, reference)
    duckdb_types: tuple[str | None, str | None]  # None: not a DuckDB side
    # Relative tolerance: compared by value within it (never hashed). None: exactly.
    tolerance: float | None = None

    @property
    def kinds(self) -> tuple[Kind, Kind]:
        return self.sides[0].kind, self.sides[1].kind

    @property
    def approximate(self) -> bool:
        return Kind.APPROXIMATE in self.kinds

    @property
    def exact_numbers(self) -> bool:
        return all(k.exact_number for k in self.kinds)

    @property
    def same_kind(self) -> bool:
        kinds = set(self.kinds)
        return len(kinds) == 1 or kinds == {Kind.TIMESTAMP, Kind.TIMESTAMPTZ}

    @property
    def summed(self) -> bool:
        return all(k.numeric for k in self.kinds)

    def common_type(self) -> str | None:
        """The DuckDB type both sides' values are hashed as (typed mode); None: as canonical
        text."""
        first, second = self.duckdb_types
        if first is None or second is None:
            return None
        if self.tolerance is not None and self.summed:
            return "DOUBLE"
        if first == second and self.kinds[0] is not Kind.OTHER:
            return first
        if self.exact_numbers:
            a, e = decimal_digits(first), decimal_digits(second)
            if a is None or e is None:
                return None
            digits, scale = max(a[0], e[0]), max(a[1], e[1])
            if scale == 0 and digits < MAX_DECIMAL_DIGITS + 1 and "UHUGEINT" not in (first, second):
                return "HUGEINT"
            if digits + scale <= MAX_DECIMAL_DIGITS:
                return f"DECIMAL({digits + scale}, {scale})"
            return None
        if set(self.kinds) <= {Kind.TIMESTAMP, Kind.TIMESTAMPTZ}:
            if "TIMESTAMP_NS" in (first, second):
                return None
            return "TIMESTAMP"
        if self.kinds == (Kind.TEXT, Kind.TEXT):
            return "VARCHAR"
        if first == second:
            return first
        return None


@dataclass(frozen=True)
class Plan:
    """What both sides compute: the common columns in the built table's order, the key, and
    how rows are hashed."""

    pairs: tuple[Pair, ...]
    key: tuple[str, ...]
    mode: HashMode

    @property
    def hashed(self) -> tuple[Pair, ...]:
        """The columns compared exactly, through the row hash."""
        return tuple(p for p in self.pairs if p.tolerance is None)

    @property
    def toleranced(self) -> tuple[Pair, ...]:
        return tuple(p for p in self.pairs if p.tolerance is not None)

    @property
    def key_pairs(self) -> tuple[Pair, ...]:
        by_name = {p.name: p for p in self.pairs}
        return tuple(by_name[k] for k in self.key)


def _value(pair: Pair, side: int) -> exp.Column:
    return exp.column(pair.sides[side].name, quoted=True)


def _cast(value: exp.Expr, kind: str, dialect_name: str) -> exp.Cast:
    return exp.Cast(this=value, to=exp.DataType.build(kind, dialect=dialect_name))


def _as_double(pair: Pair, side: int, dialect_name: str) -> exp.Expr:
    return _cast(_value(pair, side), dialect(dialect_name).double_type, dialect_name)


def _typed(pair: Pair, side: int) -> exp.Expr:
    """The value DuckDB's typed hash takes: cast to the pair's common type, or its canonical
    text where none holds both."""
    common = pair.common_type()
    if common is None:
        return canonical_text(pair.sides[side], LOCAL_DIALECT)
    if common == pair.duckdb_types[side]:
        return _value(pair, side)
    return _cast(_value(pair, side), common, LOCAL_DIALECT)


def _typed_hash(values: Sequence[exp.Expr]) -> exp.Expr:
    return exp.Anonymous(this="HASH", expressions=list(values) or [exp.Literal.string("")])


def row_hash_expression(
    pairs: Sequence[Pair], side: int, mode: HashMode, dialect_name: str
) -> exp.Expr:
    """The hash of ``pairs``' values on one side: a UBIGINT (typed) or MD5 hex (canonical)."""
    if mode == "typed":
        return _typed_hash([_typed(p, side) for p in pairs])
    for pair in pairs:
        if pair.sides[side].kind is Kind.APPROXIMATE:
            raise RowHashError(
                f"column {pair.name} is a floating-point number on one side: it cannot be "
                "hashed across engines; declare a tolerance for it"
            )
    return row_hash([p.sides[side] for p in pairs], dialect_name)


def _bound(
    aggregate: type[exp.Min] | type[exp.Max], pair: Pair, side: int, dialect_name: str
) -> exp.Expr:
    """The column's minimum or maximum, in a form both engines' values compare in."""
    column = pair.sides[side]
    if pair.tolerance is not None:
        return aggregate(this=_as_double(pair, side, dialect_name))
    if not pair.same_kind or column.kind in (Kind.BOOLEAN, Kind.BINARY, Kind.OTHER):
        return aggregate(this=canonical_text(column, dialect_name))
    if column.kind.exact_number and dialect_name != LOCAL_DIALECT:
        # Another engine's driver may hand a NUMERIC over as text or as a float: the
        # extreme's exact text is read back as a decimal.
        total = aggregate(this=_value(pair, side))
        return canonical_text(Column("bound", Kind.DECIMAL), dialect_name, total)
    if column.kind is Kind.TEXT and dialect_name != LOCAL_DIALECT:
        return aggregate(this=dialect(dialect_name).binary_order(_value(pair, side)))
    return aggregate(this=_value(pair, side))


def _sum_value(pair: Pair, side: int, dialect_name: str) -> exp.Expr:
    column = pair.sides[side]
    if pair.tolerance is not None or pair.approximate:
        return exp.Sum(this=_as_double(pair, side, dialect_name))
    if dialect_name == LOCAL_DIALECT:
        # DuckDB sums integers into HUGEINT and decimals into DECIMAL(38, s): exact.
        return exp.Sum(this=_value(pair, side))
    d = dialect(dialect_name)
    value: exp.Expr = _value(pair, side)
    if column.kind is Kind.INTEGER:
        value = _cast(value, d.wide_type, dialect_name)
    total = exp.Sum(this=value)
    return canonical_text(Column("sum", Kind.DECIMAL), dialect_name, total)


def aggregate_query(plan: Plan, side: int, source: exp.Expr, dialect_name: str) -> exp.Select:
    """``rows``, per column i ``c<i>_count``, ``c<i>_min``, ``c<i>_max`` (and ``c<i>_sum`` for
    numbers), and the row hash-sum (``hash_sum``, or ``hash_hi`` and ``hash_lo``)."""
    selects: list[exp.Expr] = [exp.alias_(exp.Count(this=exp.Star()), "rows", quoted=True)]
    for i, pair in enumerate(plan.pairs):
        value = _value(pair, side)
        selects.append(exp.alias_(exp.Count(this=value), f"c{i}_count", quoted=True))
        for aggregate, measure in ((exp.Min, "min"), (exp.Max, "max")):
            bound = _bound(aggregate, pair, side, dialect_name)
            selects.append(exp.alias_(bound, f"c{i}_{measure}", quoted=True))
        if pair.summed:
            selects.append(
                exp.alias_(_sum_value(pair, side, dialect_name), f"c{i}_sum", quoted=True)
            )
    if plan.mode == "typed":
        # Every column, the toleranced ones as DOUBLE: equal sums, equal multisets of rows.
        total = exp.Sum(this=row_hash_expression(plan.pairs, side, "typed", dialect_name))
        selects.append(exp.alias_(total, "hash_sum", quoted=True))
    else:
        hashed = row_hash_expression(plan.hashed, side, "canonical", dialect_name)
        high, low = hash_sum(hashed, dialect_name)
        selects += [
            exp.alias_(high, "hash_hi", quoted=True),
            exp.alias_(low, "hash_lo", quoted=True),
        ]
    return exp.select(*selects).from_(source)


def fingerprint_query(plan: Plan, side: int, source: exp.Expr, dialect_name: str) -> exp.Select:
    """One row per row: ``k`` (the key's hash, when keyed), ``h`` (the hash of the exactly
    compared columns, the key's included) and ``t<i>`` (each toleranced column as DOUBLE)."""
    selects: list[exp.Expr] = []
    if plan.key:
        key_hash = row_hash_expression(plan.key_pairs, side, plan.mode, dialect_name)
        selects.append(exp.alias_(key_hash, "k", quoted=True))
    hashed = row_hash_expression(plan.hashed, side, plan.mode, dialect_name)
    selects.append(exp.alias_(hashed, "h", quoted=True))
    for i, pair in enumerate(plan.toleranced):
        selects.append(exp.alias_(_as_double(pair, side, dialect_name), f"t{i}", quoted=True))
    return exp.select(*selects).from_(source)


def display_values(plan: Plan, side: int, dialect_name: str) -> list[exp.Expr]:
    """Each column's value as a person reads it (canonical text; NULL stays NULL)."""
    return [
        exp.alias_(canonical_text(p.sides[side], dialect_name), f"c{i}", quoted=True)
        for i, p in enumerate(plan.pairs)
    ]


def sample_query(
    plan: Plan,
    side: int,
    source: exp.Expr,
    dialect_name: str,
    where: exp.Expr,
    limit: int,
) -> exp.Select:
    """Up to ``limit`` rows of one side that satisfy ``where`` (over the side's ``k`` / ``h``
    / ``t<i>``, as :func:`fingerprint_query` names them), first by key, then by value; of
    rows that are the same, one."""
    fingerprint = fingerprint_query(plan, side, source, dialect_name)
    inner = exp.select(
        *display_values(plan, side, dialect_name),
        *fingerprint.expressions,
        *[exp.alias_(_value(p, side), f"o{i}", quoted=True) for i, p in enumerate(plan.pairs)],
    ).from_(source)
    chosen = exp.select(exp.Star()).from_(inner.subquery("fingerprinted")).where(where)
    copy = exp.Window(
        this=exp.RowNumber(),
        partition_by=[exp.column(e.alias, quoted=True) for e in fingerprint.expressions],
    )
    numbered = exp.select(exp.Star(), exp.alias_(copy, "copy", quoted=True)).from_(
        chosen.subquery("chosen")
    )
    by_name = {p.name: i for i, p in enumerate(plan.pairs)}
    first = [by_name[k] for k in plan.key]
    order = first + [i for i in range(len(plan.pairs)) if i not in first]
    outer = (
        exp.select(*(exp.column(f"c{i}", quoted=True) for i in range(len(plan.pairs))))
        .from_(numbered.subquery("numbered"))
        .where(exp.EQ(this=exp.column("copy", quoted=True), expression=exp.Literal.number(1)))
        .order_by(
            *(exp.Ordered(this=exp.column(f"o{i}", quoted=True), nulls_first=True) for i in order)
        )
        .limit(limit)
    )
    if not plan.pairs:
        outer.set("expressions", [exp.alias_(exp.Literal.number(1), "row", quoted=True)])
    return outer
