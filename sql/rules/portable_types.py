"""Output column types: the same on DuckDB and Spark, and the ones the source dialect gives.

The same ANSI SQL gives equal values but different column types on the two engines wherever
the standard leaves a result type implementation-defined: ``EXTRACT``, ``CHAR_LENGTH`` and the
ranking functions are ``BIGINT`` on DuckDB and ``INT`` on Spark, ``SUM`` of ``DECIMAL(p, s)``
is ``DECIMAL(38, s)`` on DuckDB and ``DECIMAL(p + 10, s)`` on Spark, decimal products differ in
precision, and so on. A table built on either engine must have one schema, so every output
column whose type the engines would give differently is cast to the type the source dialect
gives (T-SQL ``DATEPART`` is ``INT``, Redshift ``SUM`` of ``DECIMAL(p, s)`` is
``DECIMAL(38, s)``, ...).

Each engine and each source dialect is a :class:`TypeSystem`: the result types of the numeric
constructs translation emits, with the documentation they come from. Where a source's type is
not documented (or depends on a server setting the text cannot show) the column is cast to the
narrowest type that holds what either engine computes, which changes no value.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import ClassVar, Literal

from sqlglot import exp
from sqlglot.optimizer.scope import Scope

from sql.ansi import Ansi
from sql.portable import PortableRaiseError
from sql.rules.base import ALL_DIALECTS, Context, rule
from sql.rules.build import TIMESTAMP_TYPES, data_type, type_of
from sql.scopes import build as build_scopes
from sql.scopes import current as current_scopes

MAX_PRECISION = 38


@dataclass(frozen=True)
class Numeric:
    """A result type as far as it matters here: an exact or approximate number, or
    ``OPAQUE`` for anything else (strings, dates, booleans...), which both engines take from
    the ANSI text and so never differ on."""

    kind: Literal["INT", "BIGINT", "DECIMAL", "REAL", "DOUBLE", "OPAQUE"]
    precision: int = 0
    scale: int = 0

    @property
    def is_integer(self) -> bool:
        return self.kind in ("INT", "BIGINT")

    @property
    def is_exact(self) -> bool:
        return self.is_integer or self.kind == "DECIMAL"

    @property
    def is_approximate(self) -> bool:
        return self.kind in ("REAL", "DOUBLE")

    def sql(self) -> str:
        if self.kind == "DECIMAL":
            return f"DECIMAL({self.precision}, {self.scale})"
        return {"INT": "INTEGER", "BIGINT": "BIGINT", "REAL": "REAL", "DOUBLE": "DOUBLE"}.get(
            self.kind, "?"
        )


INT = Numeric("INT")
BIGINT = Numeric("BIGINT")
REAL = Numeric("REAL")
DOUBLE = Numeric("DOUBLE")
OPAQUE = Numeric("OPAQUE")
# Decimal digits an integer needs (INT: 2147483647, BIGINT: 9223372036854775807).
INTEGER_DIGITS = {"INT": 10, "BIGINT": 19}


def fixed(precision: int, scale: int) -> Numeric:
    """DECIMAL(precision, scale)."""
    return Numeric("DECIMAL", precision, scale)


def integer_digits(value: Numeric) -> int:
    return INTEGER_DIGITS[value.kind] if value.is_integer else value.precision - value.scale


def keep_integer_digits(precision: int, scale: int) -> Numeric:
    """SQL Server's rule for a decimal result over 38 digits, which Spark copies: keep the
    integer digits and give up scale, down to 6 digits."""
    if precision <= MAX_PRECISION:
        return fixed(precision, scale)
    whole = precision - scale
    return fixed(MAX_PRECISION, max(MAX_PRECISION - whole, min(scale, 6)))


def wider(types: Iterable[Numeric | None]) -> Numeric | None:
    """The narrowest type that holds every value of ``types`` exactly, or None when there is
    none (an exact and an approximate number, more than 38 digits)."""
    known = list(types)
    if not known or any(t is None for t in known):
        return None
    values = [t for t in known if t is not None]
    if all(t == OPAQUE for t in values):
        return OPAQUE
    if any(t == OPAQUE for t in values):
        return None
    if all(t.is_approximate for t in values):
        return REAL if all(t == REAL for t in values) else DOUBLE  # a REAL is a DOUBLE exactly
    if any(t.is_approximate for t in values):
        return None
    if all(t.is_integer for t in values):
        return BIGINT if BIGINT in values else INT
    whole = max(integer_digits(t) for t in values)
    scale = max(t.scale for t in values)
    if whole + scale > MAX_PRECISION:
        return None
    return fixed(whole + scale, scale)


def common(types: Iterable[Numeric | None], real_with_exact: Numeric | None) -> Numeric | None:
    """The type CASE, COALESCE or a set operation gives values of ``types`` (NULLs left out):
    an approximate number when any is one (``real_with_exact`` for REAL beside exact
    numbers), else :func:`wider`."""
    known = list(types)
    if not known or any(t is None or t == OPAQUE for t in known):
        return wider(known)
    if DOUBLE in known:
        return DOUBLE
    if REAL in known and any(t.is_exact for t in known if t is not None):
        return real_with_exact
    return wider(known)


def holds(target: Numeric, value: Numeric) -> bool:
    """Whether casting ``value`` to ``target`` keeps every value that fits in ``target``'s
    range: same kind of number, no lost decimals. A narrower range is allowed, since a cast
    that overflows is an error on both engines, as it is in the source."""
    if target == value:
        return True
    if not (target.is_exact and value.is_exact):
        return False
    return target.scale >= value.scale


class TypeSystem:
    """How one engine or source dialect types the numeric results of the ANSI constructs that
    translation emits. Class attributes are the results of functions whose type does not
    depend on their arguments; methods type the arithmetic and aggregates that do."""

    name: ClassVar[str]
    # EXTRACT(YEAR | MONTH | DAY ... FROM date or timestamp).
    DATE_PART: ClassVar[Numeric]
    # EXTRACT(DAY FROM timestamp - timestamp): the day differences (DATEDIFF, date - date).
    DAY_COUNT: ClassVar[Numeric]
    # CHAR_LENGTH, POSITION.
    LENGTH: ClassVar[Numeric]
    ROW_NUMBER: ClassVar[Numeric]
    # RANK, DENSE_RANK.
    RANK: ClassVar[Numeric]
    NTILE: ClassVar[Numeric]
    COUNT: ClassVar[Numeric] = BIGINT
    # EXTRACT(SECOND ...): a fraction on some systems; None where casting would change it.
    SECOND: ClassVar[Numeric | None] = None
    # A REAL (32-bit float) combined with an exact number; None where not documented.
    REAL_WITH_EXACT: ClassVar[Numeric | None] = None

    def literal(self, node: exp.Literal) -> Numeric:
        text = node.name.lstrip("+-")
        if "e" in text.lower():
            return DOUBLE
        if "." not in text:
            return INT if abs(int(text)) <= 2**31 - 1 else BIGINT
        whole, fraction = text.split(".", 1)
        significant = (whole + fraction).lstrip("0") or "0"
        return fixed(max(len(significant), len(fraction)), len(fraction))

    def as_decimal(self, value: Numeric, node: exp.Expr | None = None) -> Numeric:
        """``value`` as the decimal that arithmetic with a decimal operand converts it to
        (``node``: the operand, when it is one of a binary operator)."""
        if value.is_integer:
            return fixed(INTEGER_DIGITS[value.kind], 0)
        return value

    def bounded(self, precision: int, scale: int) -> Numeric | None:
        """A decimal result whose rule asks for more than 38 digits: kept to 38, same scale
        (the source then fails on a value that overflows, as the engines do)."""
        if precision <= MAX_PRECISION:
            return fixed(precision, scale)
        return fixed(MAX_PRECISION, scale) if scale <= MAX_PRECISION else None

    def add(self, left: Numeric, right: Numeric) -> Numeric | None:
        """Decimal + or -: one digit more than the wider operand (SQL Server, Redshift,
        Teradata, Snowflake, DuckDB and Spark all document this rule)."""
        scale = max(left.scale, right.scale)
        whole = max(integer_digits(left), integer_digits(right)) + 1
        return self.bounded(whole + scale, scale)

    def multiply(self, left: Numeric, right: Numeric) -> Numeric | None:
        return self.bounded(left.precision + right.precision + 1, left.scale + right.scale)

    def sum(self, value: Numeric) -> Numeric | None:
        if value.kind == "DECIMAL":
            return fixed(MAX_PRECISION, value.scale)
        return BIGINT if value.is_integer else DOUBLE

    def average(self, value: Numeric) -> Numeric | None:
        # AVG of a decimal is a DOUBLE on DuckDB and a DECIMAL on Spark: the values differ
        # too, so no cast makes them equal. None is left here: AVG-DECIMAL writes the source's
        # average (Teradata's REAL) or refuses it, AVG-INTEGER the T-SQL and Redshift integer
        # averages.
        return None if value.kind == "DECIMAL" else DOUBLE

    def rounded(self, value: Numeric, digits: int) -> Numeric | None:
        return None

    def floor(self, value: Numeric) -> Numeric | None:
        return None


class DuckDB(TypeSystem):
    # https://duckdb.org/docs/sql/data_types/numeric and DuckDB's binders. The two engine
    # systems are checked against the installed engines by tests/sql/test_portable_types.py.
    name = "duckdb"
    DATE_PART = DAY_COUNT = LENGTH = ROW_NUMBER = RANK = NTILE = BIGINT
    SECOND = BIGINT
    REAL_WITH_EXACT = REAL

    def literal(self, node: exp.Literal) -> Numeric:
        value = super().literal(node)
        if value.kind != "DECIMAL":
            return value
        # DuckDB counts a leading zero: 0.05 is DECIMAL(3, 2) (Spark: DECIMAL(2, 2)).
        whole, fraction = node.name.lstrip("+-").split(".", 1)
        return fixed(len(whole or "0") + len(fraction), len(fraction))

    def multiply(self, left: Numeric, right: Numeric) -> Numeric | None:
        precision, scale = left.precision + right.precision, left.scale + right.scale
        if left.precision <= 18 and right.precision <= 18:
            # Two 64-bit decimals multiply in 64 bits, with an overflow check.
            precision = min(precision, 18)
            return fixed(precision, scale) if scale <= precision else None
        return self.bounded(precision, scale)

    def rounded(self, value: Numeric, digits: int) -> Numeric | None:
        if value.kind != "DECIMAL":
            return value
        return fixed(value.precision, min(value.scale, digits))

    def floor(self, value: Numeric) -> Numeric | None:
        return fixed(value.precision, 0) if value.kind == "DECIMAL" else value


class Spark(TypeSystem):
    # https://spark.apache.org/docs/latest/sql-ref-datatypes.html and Spark's DecimalPrecision
    # (ANSI mode, the default since Spark 4: a cast that overflows is an error).
    name = "spark"
    DATE_PART = DAY_COUNT = LENGTH = ROW_NUMBER = RANK = NTILE = INT
    SECOND = fixed(8, 6)
    REAL_WITH_EXACT = DOUBLE

    def as_decimal(self, value: Numeric, node: exp.Expr | None = None) -> Numeric:
        if isinstance(node, exp.Literal) and node.is_int:
            # An integer literal takes the precision of its digits.
            return fixed(len(node.name.lstrip("+-")), 0)
        if value.kind == "BIGINT":
            return fixed(20, 0)
        return super().as_decimal(value, node)

    def bounded(self, precision: int, scale: int) -> Numeric | None:
        return keep_integer_digits(precision, scale)

    def sum(self, value: Numeric) -> Numeric | None:
        if value.kind == "DECIMAL":
            return fixed(min(MAX_PRECISION, value.precision + 10), value.scale)
        return super().sum(value)

    def rounded(self, value: Numeric, digits: int) -> Numeric | None:
        if value.kind != "DECIMAL":
            return value
        scale = min(value.scale, digits)
        return self.bounded(integer_digits(value) + 1 + scale, scale)

    def floor(self, value: Numeric) -> Numeric | None:
        if value.kind == "DECIMAL":
            return fixed(integer_digits(value) + 1, 0)
        return BIGINT if value.is_approximate else value


class TSQL(TypeSystem):
    # DATEPART / DATEDIFF / LEN / CHARINDEX return int; ROW_NUMBER, RANK, DENSE_RANK, NTILE
    # bigint; SUM of decimal(p, s) is decimal(38, s); p1 + p2 + 1 digits for a product
    # (learn.microsoft.com: "Precision, scale, and length (Transact-SQL)").
    name = "tsql"
    DATE_PART = DAY_COUNT = LENGTH = INT
    ROW_NUMBER = RANK = NTILE = BIGINT
    COUNT = INT

    def bounded(self, precision: int, scale: int) -> Numeric | None:
        return keep_integer_digits(precision, scale)

    def sum(self, value: Numeric) -> Numeric | None:
        return value if value.is_integer else super().sum(value)

    def rounded(self, value: Numeric, digits: int) -> Numeric | None:
        return value  # ROUND returns the type of its argument


class Snowflake(TypeSystem):
    # Snowflake documents EXTRACT / DATE_PART as NUMBER, DATEDIFF and the ranking functions as
    # "an integer", INTEGER being NUMBER(38, 0), but not the precision it infers for each. These
    # values (date parts, day counts, string positions, row numbers) fit BIGINT, which keeps
    # the column an integer as both engines compute it; DECIMAL(38, 0) would be read as a
    # fractional number by the contracts and model code. SUM of NUMBER(p, s) is NUMBER(38, s).
    name = "snowflake"
    DATE_PART = DAY_COUNT = LENGTH = ROW_NUMBER = RANK = NTILE = BIGINT

    def multiply(self, left: Numeric, right: Numeric) -> Numeric | None:
        # Leading digits add up; the scale is s1 + s2, but no more than max(s1, s2, 12).
        scale = min(left.scale + right.scale, max(left.scale, right.scale, 12))
        return self.bounded(integer_digits(left) + integer_digits(right) + scale, scale)


class BigQuery(TypeSystem):
    # Every integer result is INT64; every exact decimal result is NUMERIC, i.e. DECIMAL(38, 9)
    # (parameterized NUMERIC(P, S) columns constrain storage only; expressions are NUMERIC).
    name = "bigquery"
    DATE_PART = DAY_COUNT = LENGTH = ROW_NUMBER = RANK = NTILE = BIGINT
    NUMERIC: ClassVar[Numeric] = fixed(38, 9)

    def add(self, left: Numeric, right: Numeric) -> Numeric | None:
        return self.NUMERIC

    def multiply(self, left: Numeric, right: Numeric) -> Numeric | None:
        return self.NUMERIC

    def sum(self, value: Numeric) -> Numeric | None:
        return self.NUMERIC if value.kind == "DECIMAL" else super().sum(value)

    def rounded(self, value: Numeric, digits: int) -> Numeric | None:
        return self.NUMERIC if value.kind == "DECIMAL" else value


class Redshift(TypeSystem):
    # docs.aws.amazon.com/redshift: EXTRACT returns INTEGER (for TIMESTAMP, TIME, intervals),
    # DATEDIFF BIGINT, LEN / POSITION INTEGER, ROW_NUMBER and NTILE BIGINT, RANK and
    # DENSE_RANK INTEGER, COUNT and SUM of integers BIGINT, SUM of DECIMAL(p, s)
    # DECIMAL(38, s); a product has p1 + p2 + 1 digits ("Computations with numeric values").
    # DATE_PART returns DOUBLE PRECISION, but sqlglot parses it into the same node as EXTRACT,
    # so both get EXTRACT's INTEGER, which holds every date part exactly. Date subtraction is
    # INTEGER and DATEDIFF BIGINT; both become the same day count, typed as the wider.
    name = "redshift"
    DATE_PART = LENGTH = RANK = INT
    DAY_COUNT = ROW_NUMBER = NTILE = BIGINT

    def rounded(self, value: Numeric, digits: int) -> Numeric | None:
        return value  # ROUND returns the type of its argument


class Teradata(TypeSystem):
    # docs.teradata.com: EXTRACT returns INTEGER (SECOND: DECIMAL with the field's scale),
    # DATE - DATE and CHARACTERS INTEGER, RANK and ROW_NUMBER INTEGER (COUNT_mode default).
    # SUM of DECIMAL(n, m) is DECIMAL(p, m) with p set by the MaxDecimal DBS Control field
    # (15 for n <= 15 at its default); the setting is not in the SQL, so SUM and decimal
    # arithmetic are typed as with MaxDecimal 38, the widest, which no result the source
    # could return overflows.
    name = "teradata"
    DATE_PART = DAY_COUNT = LENGTH = ROW_NUMBER = RANK = NTILE = INT
    COUNT = INT

    def multiply(self, left: Numeric, right: Numeric) -> Numeric | None:
        return self.bounded(left.precision + right.precision, left.scale + right.scale)

    def sum(self, value: Numeric) -> Numeric | None:
        return value if value.is_integer else super().sum(value)


class Oracle(TypeSystem):
    # Oracle computes every number as NUMBER, a decimal floating point of 38 digits, which has
    # no exact ANSI type. Integer results (EXTRACT, date differences, LENGTH, ROW_NUMBER) are
    # typed BIGINT, as for Snowflake; decimal results DECIMAL(38, s), with the scale the
    # arithmetic gives, which holds every value that NUMBER would give exactly.
    name = "oracle"
    DATE_PART = DAY_COUNT = LENGTH = ROW_NUMBER = RANK = NTILE = COUNT = BIGINT

    def bounded(self, precision: int, scale: int) -> Numeric | None:
        return fixed(MAX_PRECISION, scale) if scale <= MAX_PRECISION else None

    def rounded(self, value: Numeric, digits: int) -> Numeric | None:
        if value.kind != "DECIMAL":
            return value
        return fixed(MAX_PRECISION, min(value.scale, digits))


ENGINES: tuple[TypeSystem, ...] = (DuckDB(), Spark())
SOURCES: dict[str, TypeSystem] = {
    system.name: system
    for system in (BigQuery(), Oracle(), Redshift(), Snowflake(), Teradata(), TSQL())
}
# The windowed functions whose type does not depend on an argument, by TypeSystem attribute.
RANKING: dict[type[exp.Expr], str] = {
    exp.DenseRank: "RANK",
    exp.Ntile: "NTILE",
    exp.Rank: "RANK",
    exp.RowNumber: "ROW_NUMBER",
}
# Aggregates and functions whose result has their first argument's type.
SAME_AS_ARGUMENT = (
    exp.Abs,
    exp.AnyValue,
    exp.FirstValue,
    exp.Lag,
    exp.LastValue,
    exp.Lead,
    exp.Max,
    exp.Min,
    exp.Neg,
    exp.NthValue,
    exp.Nullif,
    exp.Paren,
)
APPROXIMATE = (exp.CumeDist, exp.PercentRank)
NUMBER_TYPES = {
    exp.DType.BIGINT: BIGINT,
    exp.DType.DOUBLE: DOUBLE,
    # sqlglot's FLOAT has the width the ANSI dialect writes it with (sql/ansi.py).
    exp.DType.FLOAT: DOUBLE
    if Ansi.Generator.TYPE_MAPPING.get(exp.DType.FLOAT) == "DOUBLE PRECISION"
    else REAL,
    exp.DType.INT: INT,
}


def numeric_of(data: exp.DataType | None) -> Numeric | None:
    """The :class:`Numeric` of a declared type: a column's or a CAST's."""
    if data is None or data.this == exp.DType.UNKNOWN:
        return None
    if data.this == exp.DType.DECIMAL:
        params = [p.this.name for p in data.expressions if isinstance(p.this, exp.Literal)]
        if len(params) == 2:
            return fixed(int(params[0]), int(params[1]))
        return fixed(int(params[0]), 0) if len(params) == 1 else None
    return NUMBER_TYPES.get(data.this, OPAQUE)


class Projections:
    """Resolves a column to the projections that define it, through derived tables, CTEs and
    LATERAL subqueries (every branch of a set operation)."""

    def __init__(self, tree: exp.Expr, scopes: Sequence[Scope] | None = None) -> None:
        self._tree = tree
        self._built = scopes  # the tree's scopes, if built already (sql/scopes.py)

    @classmethod
    def of(cls, tree: exp.Expr, scopes: Sequence[Scope] | None = None) -> Projections:
        return cls(tree, scopes)

    @functools.cached_property
    def scopes(self) -> dict[int, Scope]:
        # Built on the first column that needs it: most output columns are typed without.
        built = self._built if self._built is not None else build_scopes(self._tree)
        return {id(scope.expression): scope for scope in built}

    def defining(self, column: exp.Column) -> list[exp.Expr] | None:
        """The projections a column of a derived table reads, None for a lake table column."""
        node: exp.Expr | None = column.parent
        while node is not None and id(node) not in self.scopes:
            node = node.parent
        if node is None:
            return None
        source = self.scopes[id(node)].sources.get(column.table)
        if not isinstance(source, Scope) or isinstance(source.expression, exp.Unnest):
            return None  # a lake table's column, or an array's element: of its declared type
        projections = []
        # A derived table that names its columns (``(...) AS t(a, b)``) names them by position.
        alias = source.expression.parent.args.get("alias") if source.expression.parent else None
        named = [c.name for c in alias.columns] if isinstance(alias, exp.TableAlias) else []
        if named:
            if named.count(column.name) != 1:
                return []
            position = named.index(column.name)
            for select in branches(source.expression):
                if len(select.expressions) <= position:
                    return []
                projections.append(select.expressions[position].unalias())
            return projections
        for select in branches(source.expression):
            found = [p for p in select.expressions if p.alias_or_name == column.name]
            if len(found) != 1:
                return []
            projections.append(found[0].unalias())
        return projections


def branches(query: exp.Expr) -> list[exp.Select]:
    """The SELECTs whose rows a query returns: itself, or every branch of a set operation."""
    while isinstance(query, (exp.Subquery, exp.Paren, exp.Lateral)):
        query = query.this
    if isinstance(query, exp.Select):
        return [query]
    if isinstance(query, exp.SetOperation):
        return branches(query.this) + branches(query.expression)
    return []


def _is_interval(node: exp.Expr) -> bool:
    while isinstance(node, exp.Paren):
        node = node.this
    if not isinstance(node, exp.Sub):
        return False
    return type_of(node.this) in {*TIMESTAMP_TYPES, exp.DType.DATE}


@dataclass(frozen=True)
class Typer:
    """The result type of an expression in one :class:`TypeSystem`; None when unknown."""

    system: TypeSystem
    projections: Projections
    # Each node's type, once computed: a derived table's column read by several columns of
    # the output is typed once (nothing changes the tree while one Typer types it).
    known: dict[int, Numeric | None] = field(default_factory=dict, compare=False, repr=False)

    def __call__(self, node: exp.Expr) -> Numeric | None:
        known = self.known
        key = id(node)
        if key not in known:
            known[key] = self._type(node)
        return known[key]

    def _type(self, node: exp.Expr) -> Numeric | None:
        # Which of the cases below a node falls in depends on its class alone (save one, whose
        # guard _case checks): looked up once per class rather than tested case by case.
        kind = type(node)
        case = _CASES.get(kind)
        if case is None:
            case = _CASES[kind] = _case(kind)
        return case(self, node)

    def _column(self, node: exp.Column) -> Numeric | None:
        defining = self.projections.defining(node)
        if defining is None:
            return numeric_of(node.type)
        return self.common(self(p) for p in defining) if defining else None

    def _literal(self, node: exp.Literal) -> Numeric | None:
        return OPAQUE if node.is_string else self.system.literal(node)

    def _sorted_value(self, node: exp.WithinGroup) -> Numeric | None:
        # one of the sorted values, of their type
        keys = node.expression.expressions if isinstance(node.expression, exp.Order) else []
        return self(keys[0].this) if len(keys) == 1 else None

    def _subquery(self, node: exp.Subquery) -> Numeric | None:
        selects = branches(node)
        return self(selects[0].expressions[0].unalias()) if len(selects) == 1 else None

    def common(self, types: Iterable[Numeric | None]) -> Numeric | None:
        return common(types, self.system.REAL_WITH_EXACT)

    def _approximate(self, left: Numeric, right: Numeric) -> Numeric | None:
        """The type of arithmetic with a REAL or DOUBLE operand."""
        if DOUBLE in (left, right):
            return DOUBLE
        return REAL if left == right else self.system.REAL_WITH_EXACT

    def _extract(self, node: exp.Extract) -> Numeric | None:
        part = node.this.name.upper()
        if part == "SECOND":
            return self.system.SECOND
        if part == "DAY" and _is_interval(node.expression):
            return self.system.DAY_COUNT
        return self.system.DATE_PART

    def _arithmetic(self, node: exp.Expr) -> Numeric | None:
        left, right = self(node.this), self(node.expression)
        if left is None or right is None:
            return None
        if OPAQUE in (left, right):
            return OPAQUE  # date and interval arithmetic, typed by the ANSI text
        operands = (left, right)
        if left.is_approximate or right.is_approximate:
            return self._approximate(left, right)
        if left.is_integer and right.is_integer:
            return BIGINT if BIGINT in operands else INT
        if isinstance(node, exp.Mod):
            return None
        left = self.system.as_decimal(left, node.this)
        right = self.system.as_decimal(right, node.expression)
        if isinstance(node, exp.Mul):
            return self.system.multiply(left, right)
        return self.system.add(left, right)

    def _division(self, node: exp.Div) -> Numeric | None:
        left, right = self(node.this), self(node.expression)
        if left is not None and right is not None and (left.is_approximate or right.is_approximate):
            return None if OPAQUE in (left, right) else self._approximate(left, right)
        # Integer quotients are cast by DIV-INTEGER and decimal ones written exactly by
        # DIV-DECIMAL (or refused); a bare one is a DOUBLE on DuckDB and a DECIMAL on Spark,
        # with different values, which a cast cannot reconcile.
        return None

    def _common(self, node: exp.Expr) -> Numeric | None:
        if isinstance(node, exp.Case):
            values = [branch.args.get("true") for branch in node.args.get("ifs") or []]
            values.append(node.args.get("default"))
        elif isinstance(node, exp.If):
            values = [node.args.get("true"), node.args.get("false")]
        else:
            values = [node.this, *node.expressions]
        # A guard's failing branch (RAISE_ERROR) is never a value: the type is the others'.
        typed = [
            self(v)
            for v in values
            if v is not None and not isinstance(v, (exp.Null, PortableRaiseError))
        ]
        if any(t is not None and t.kind == "DECIMAL" for t in typed):
            # Integers widen to the decimal of their digits, which differ (BIGINT is
            # DECIMAL(19, 0) on DuckDB, DECIMAL(20, 0) on Spark).
            typed = [self.system.as_decimal(t) if t is not None else None for t in typed]
        return self.common(typed)

    def _aggregate_or_function(self, node: exp.Expr) -> Numeric | None:
        if isinstance(node, (exp.Sum, exp.Avg, exp.Round, exp.Floor, exp.Ceil)):
            value = self(node.this)
            if value is None or value == OPAQUE:
                return None
            if value.is_integer and not isinstance(node, (exp.Sum, exp.Avg)):
                return value
            if isinstance(node, exp.Sum):
                return self.system.sum(value)
            if isinstance(node, exp.Avg):
                return self.system.average(value)
            if isinstance(node, (exp.Floor, exp.Ceil)):
                return self.system.floor(value)
            digits = node.args.get("decimals")
            if digits is None:
                return self.system.rounded(value, 0)
            if isinstance(digits, exp.Literal) and digits.is_int:
                return self.system.rounded(value, int(digits.name))
            return None
        annotated = numeric_of(node.type)
        if annotated in (None, OPAQUE):
            # A string, date or boolean function: both engines give the type the ANSI text
            # names. A function annotation could not type is assumed to be one of those.
            return OPAQUE
        return annotated if annotated in (REAL, DOUBLE) else None


# Typer's cases in the order they are tried: the node classes each takes, and what it gives.
# A case with a guard takes only the nodes the guard holds for; the others go on to the next.
_Case = Callable[[Typer, exp.Expr], Numeric | None]
_ORDERED_CASES: tuple[tuple[tuple[type, ...], _Case, Callable[[exp.Expr], bool] | None], ...] = (
    ((exp.Window,), lambda typer, node: typer(node.this), None),
    (
        (exp.Distinct,),
        lambda typer, node: typer(node.expressions[0]) if len(node.expressions) == 1 else None,
        None,
    ),
    ((exp.Column,), Typer._column, None),
    ((exp.Literal,), Typer._literal, None),
    # A field of a row, an element of an array: of the type the catalog declares.
    ((exp.Dot, exp.Bracket), lambda typer, node: numeric_of(node.type), None),
    ((exp.Cast, exp.TryCast), lambda typer, node: numeric_of(node.to), None),
    (
        (exp.Null, exp.Boolean, exp.Predicate, exp.Connector, exp.Not),
        lambda typer, node: OPAQUE,
        None,
    ),
    (SAME_AS_ARGUMENT, lambda typer, node: typer(node.this), None),
    (
        (exp.WithinGroup,),
        Typer._sorted_value,
        lambda node: isinstance(node.this, exp.PercentileDisc),
    ),
    ((exp.Subquery,), Typer._subquery, None),
    *(
        (
            (node_type,),
            lambda typer, node, attribute=attribute: getattr(typer.system, attribute),
            None,
        )
        for node_type, attribute in RANKING.items()
    ),
    (APPROXIMATE, lambda typer, node: DOUBLE, None),
    ((exp.Count,), lambda typer, node: typer.system.COUNT, None),
    ((exp.Length, exp.StrPosition, exp.ArraySize), lambda typer, node: typer.system.LENGTH, None),
    ((exp.Extract,), Typer._extract, None),
    ((exp.Add, exp.Sub, exp.Mul, exp.Mod), Typer._arithmetic, None),
    ((exp.Div,), Typer._division, None),
    ((exp.Case, exp.If, exp.Coalesce, exp.Greatest, exp.Least), Typer._common, None),
)
_CASES: dict[type, _Case] = {}


def _case(kind: type, start: int = 0) -> _Case:
    """The first of ``_ORDERED_CASES`` from ``start`` that takes nodes of class ``kind``
    (any other node: an aggregate or function)."""
    for index in range(start, len(_ORDERED_CASES)):
        types, case, guard = _ORDERED_CASES[index]
        if issubclass(kind, types):
            if guard is None:
                return case
            otherwise = _case(kind, index + 1)
            return lambda typer, node: case(typer, node) if guard(node) else otherwise(typer, node)
    return Typer._aggregate_or_function


@dataclass(frozen=True)
class Verdict:
    """What one output column needs: ``cast`` to a type, nothing, or a warning."""

    cast: Numeric | None
    engines: tuple[Numeric | None, ...]
    undecided: bool = False


def output_type(values: list[exp.Expr], dialect: str, projections: Projections) -> Verdict:
    """The verdict for the output column computed by ``values`` (one per set operation
    branch) when translated from ``dialect``."""

    def typed(system: TypeSystem) -> Numeric | None:
        typer = Typer(system, projections)
        return typer.common(typer(value) for value in values)

    engines = tuple(typed(engine) for engine in ENGINES)
    if len(set(engines)) == 1 and engines[0] is not None:
        return Verdict(None, engines)
    target = typed(SOURCES[dialect])
    known = [e for e in engines if e is not None]
    if target is None or len(known) < len(engines) or not all(holds(target, e) for e in known):
        target = wider(engines)
    if target is None or target == OPAQUE or not target.is_exact:
        return Verdict(None, engines, undecided=len(known) < len(engines) or target is None)
    return Verdict(target, engines)


def _cast(select: exp.Select, position: int, target: Numeric) -> None:
    """The output column at ``position`` of ``select`` cast to ``target``, under its name."""
    expressions = list(select.expressions)
    projection = expressions[position]
    # The value moves into the CAST (no copy): the projection that held it is dropped.
    cast = exp.Cast(this=projection.unalias(), to=data_type(target.sql()))
    cast.meta["generated"] = True
    expressions[position] = exp.alias_(cast, projection.alias_or_name, quoted=True, copy=False)
    select.set("expressions", expressions)


@rule(
    "PORTABLE-TYPE",
    "rewrite",
    ALL_DIALECTS,
    # No node types: it needs the final query's whole output list, so sql/translate.py runs
    # it once, after every other rule.
    (),
    "An output column whose type DuckDB and Spark would give differently (EXTRACT, "
    "CHAR_LENGTH, POSITION and ranking functions: BIGINT vs INT; SUM of DECIMAL(p, s): "
    "DECIMAL(38, s) vs DECIMAL(p + 10, s); decimal products...) is cast to the type the source "
    "gives: INT for T-SQL, Teradata and Redshift date parts, lengths and ranks (BIGINT for "
    "T-SQL ranks, Redshift ROW_NUMBER and DATEDIFF), BIGINT for BigQuery INT64 and for "
    "Snowflake and Oracle integers, DECIMAL(38, s) for sums (BigQuery NUMERIC: DECIMAL(38, 9)). "
    "Where the source's type is not documented, to the narrowest type holding what either "
    "engine computes. A column whose engine types stay unknown (MOD of decimals, ROUND to "
    "a computed number of places, an operand of unknown type) warns; the values of AVG and "
    "division of exact numbers are AVG-DECIMAL's, AVG-INTEGER's, DIV-INTEGER's and "
    "DIV-DECIMAL's.",
    (
        (
            "tsql",
            "SELECT DATEPART(year, o_orderdate) AS y, SUM(o_totalprice) AS v FROM dbo.Orders "
            "GROUP BY DATEPART(year, o_orderdate)",
            'SELECT CAST(EXTRACT(YEAR FROM "orders"."o_orderdate") AS INTEGER) AS "y", CAST(SUM("orders"."o_totalprice") AS DECIMAL(38, 2)) AS "v" FROM "raw"."orders" AS "orders" GROUP BY EXTRACT(YEAR FROM "orders"."o_orderdate")',
        ),
        (
            "bigquery",
            "SELECT EXTRACT(YEAR FROM o_orderdate) AS y, SUM(o_totalprice) AS v "
            "FROM sales.orders GROUP BY 1",
            'SELECT CAST(EXTRACT(YEAR FROM "orders"."o_orderdate") AS BIGINT) AS "y", CAST(SUM("orders"."o_totalprice") AS DECIMAL(38, 9)) AS "v" FROM "raw"."orders" AS "orders" GROUP BY EXTRACT(YEAR FROM "orders"."o_orderdate")',
        ),
        (
            "redshift",
            "SELECT o_orderkey, RANK() OVER (ORDER BY o_totalprice DESC) AS r, "
            "ROW_NUMBER() OVER (ORDER BY o_totalprice DESC) AS n FROM sales.orders",
            'SELECT "orders"."o_orderkey" AS "o_orderkey", CAST(RANK() OVER (ORDER BY "orders"."o_totalprice" DESC NULLS FIRST) AS INTEGER) AS "r", CAST(ROW_NUMBER() OVER (ORDER BY "orders"."o_totalprice" DESC NULLS FIRST) AS BIGINT) AS "n" FROM "raw"."orders" AS "orders"',
        ),
    ),
    phase="final",
)
def portable_output_types(tree: exp.Expr, ctx: Context) -> exp.Expr:
    """Cast each output column of the final query (in every set operation branch alike) whose
    type would differ between DuckDB and Spark to the source dialect's type."""
    selects = branches(tree)
    widths = {len(select.expressions) for select in selects}
    if len(widths) != 1:
        return tree  # a set operation of unequal branches: the engines refuse it anyway
    projections = Projections.of(tree, current_scopes(ctx.scopes, tree))
    for position in range(widths.pop()):
        columns = [select.expressions[position] for select in selects]
        verdict = output_type([c.unalias() for c in columns], ctx.dialect, projections)
        if verdict.cast is not None:
            for select in selects:
                _cast(select, position, verdict.cast)
            ctx.applied.add("PORTABLE-TYPE")
        elif verdict.undecided:
            ctx.report(
                "warning",
                "PORTABLE-TYPE",
                columns[0],
                f"column {columns[0].alias_or_name!r} may get different types on DuckDB and "
                "Spark; CAST it to the type you mean",
            )
    return tree
