"""Teradata gives a set operation's columns the types of its first SELECT.

Teradata converts the values of every later SELECT of a UNION / INTERSECT / EXCEPT (and of
a recursive query's recursive part, which is a UNION ALL with its seed) to the type of the
first SELECT's column, in both session modes: text longer than the first SELECT's column is
cut to its length without an error (Snowflake's migration guide for Teradata, "UNION ALL
Data Migration": a VARCHAR(20) column over a VARCHAR(10) one keeps 10 characters). The
standard, DuckDB and Spark give the column a type that holds both sides, so the longer text
comes out whole: a different value, with no error. So (TD-SET-TYPES):

- a later SELECT's text column is cut to the first SELECT's declared length n with
  ``SUBSTRING(x FROM 1 FOR n)`` wherever its own length is larger or not declared (the cut
  is the conversion itself: VARCHAR(n) keeps the first n characters). A length is known
  from a catalog column, a CAST or a literal; an expression's type here is sqlglot's, not
  Teradata's (a CASE of a VARCHAR(10) column and a longer literal is VARCHAR(10) here), so
  a first column that is one has a length not known;
- a later number that the first SELECT's exact type may not hold is guarded: where it lies
  outside that type's range the statement stops (``RAISE_ERROR``), as Teradata stops with a
  numeric overflow (error 2616), and every other value is Teradata's. The first type is
  a catalog column's declared one (a BYTEINT column is -128..127 though the lake stores
  SMALLINT), a CAST's, or a literal's as Teradata's "Integer Literals" and "Decimal
  Literals" give it: ``1`` is BYTEINT, ``1000`` SMALLINT, ``70000`` INTEGER, a larger one
  DECIMAL(n, 0), ``1.25`` DECIMAL(3, 2). So a recursive query seeded with ``SELECT 1``
  stops at 128, in Teradata and here. A guard rather than a refusal: Teradata's answer
  where the value does not fit is an error, and the guard gives that error, not a value;
  every row before it is exact, and a query whose data never overflows runs as it does in
  Teradata. A later value needs no guard only where its own type (declared, a CAST's, a
  literal's value) fits; an expression's type here is sqlglot's, not the engines' range
  (``MAX(d) * 2`` exceeds d's DECIMAL(8, 2)). A first column of any other expression has
  sqlglot's type, not Teradata's (SUM of a DECIMAL(8, 2) is wider there), so where it
  overflows is not known: left as written, since Teradata raises there rather than giving
  another value;
- refused, located at the later SELECT's column, wherever the conversion would change values
  in a way that has no exact form here, with how to write it so that it translates:
  - the first SELECT's text column of unknown length (a literal, an expression) or CHAR(n)
    (Teradata pads shorter text to n) over a later column of another type or length;
  - a later DECIMAL with more places than the first's (Teradata rounds them away) or a
    fraction under a first integer column; an expression's places are those Teradata gives
    it (``PORTABLE-TYPE``'s Teradata types: a product of two DECIMAL(8, 2) has 4), not
    sqlglot's (2);
  - a later fraction under a first DECIMAL whose places are not known here (a quotient's);
  - a later number under a first decimal literal written with a leading zero (``0.5``:
    whether the zero counts in its precision is not written), unless it fits the narrower
    reading; and a later number to guard that calls RANDOM() or the like (the guard would
    compute another value than the one it returns);
  - a later TIMESTAMP(q) or TIME(q) under a first TIMESTAMP(p) or TIME(p) with p < q:
    Teradata's "TIMESTAMP-to-TIMESTAMP Conversion" documents an error for a target of lower
    precision, and nothing documents what a set operation does with the digits (truncated,
    rounded or an error), so no form is known to be exact. p and q are declared ones (a
    catalog column's, a CAST's); an expression's digits here are sqlglot's, so a later one's
    q is taken as 6 and a first one's p as 0;
  - a later DATE under a first TIMESTAMP, or the reverse (or TIME and TIMESTAMP): Teradata
    converts between them through the session time zone ("DATE-to-TIMESTAMP Conversion":
    the time 00:00:00 adjusted to UTC by the session's displacement; "TIMESTAMP-to-DATE" AT
    LOCAL; a TIME takes the current date), a setting the text does not show, and the
    engines keep a TIMESTAMP where Teradata gives a DATE;
  - a later column of another kind than the first's (text, number, date and time): Teradata
    converts it by its own rules (a number to text through its format, text to a number or
    a date by parsing it), where the engines give the column a common type instead;
  - a later column whose type is not known here (an expression the type annotation cannot
    type, a column of a table whose type is not declared) under a first column of any type
    above: whether its values change cannot be told. A CAST in the later SELECT (or the
    type declared in the catalog) translates.

A column of a WITH query or a derived table that is a literal has the literal's type (and
length), so ``WITH f(y) AS (SELECT 'foo'), g(y) AS (SELECT 'FOO') SELECT y FROM f UNION ALL
SELECT y FROM g`` is two literals of one length, as without the WITH queries.

Left as written: later columns of the first's type or narrower, NULL, one column of one table
on both sides, and first columns of approximate numbers (FLOAT: the engines' common type is
the same DOUBLE) or of types these checks do not cover.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from decimal import Decimal, localcontext

from sqlglot import exp

from sql.catalog import declared_type
from sql.portable import PortableRaiseError
from sql.rules.base import Context, rule
from sql.rules.build import (
    INTEGER_TYPES,
    NUMERIC_TYPES,
    STRING_TYPES,
    VOLATILE,
    clone,
    derived_value,
    guarded,
    lit,
    type_params,
)
from sql.rules.portable_types import SOURCES, Projections, Typer, branches
from sql.tree import preorder

RULE = "TD-SET-TYPES"
# Later column types whose places a narrower first column rounds away.
_FRACTIONS = {exp.DType.DECIMAL, exp.DType.DOUBLE, exp.DType.FLOAT}
# Fractional-second digits of a TIMESTAMP or TIME written without them: the ANSI defaults,
# which the catalog's types follow (Teradata's TIME is imported as TIME(6)).
_DEFAULT_FRACTION = {exp.DType.TIMESTAMP: 6, exp.DType.TIME: 0}
_MOMENTS = {
    exp.DType.DATE,
    exp.DType.TIME,
    exp.DType.TIMETZ,
    exp.DType.TIMESTAMP,
    exp.DType.TIMESTAMPTZ,
    exp.DType.TIMESTAMPLTZ,
    exp.DType.DATETIME,
}
# Teradata's integer types by the values they hold ("Integer Data Types"); BYTEINT is known
# from the column's declared type, the lake stores it as SMALLINT.
_INTEGER_RANGES = {
    "BYTEINT": (-128, 127),
    "SMALLINT": (-32768, 32767),
    "INTEGER": (-2147483648, 2147483647),
    "BIGINT": (-9223372036854775808, 9223372036854775807),
}
_RANGE_OF_TYPE = {
    exp.DType.TINYINT: "BYTEINT",
    exp.DType.SMALLINT: "SMALLINT",
    exp.DType.INT: "INTEGER",
    exp.DType.BIGINT: "BIGINT",
}
# Digits of the decimal arithmetic that checks a literal's places (DECIMAL(38) at most).
_PRECISION = 80
# Nesting of WITH queries and derived tables followed to find what a column stands for.
_MAX_DEPTH = 32


@dataclass(frozen=True)
class Cut:
    """Cut the later text to ``length`` characters."""

    length: int


@dataclass(frozen=True)
class Guard:
    """Stop where the later number lies outside ``low``..``high``, the first type's range."""

    low: Decimal
    high: Decimal
    type_name: str


@dataclass(frozen=True)
class Refuse:
    message: str


@dataclass(frozen=True)
class Exact:
    """What an exact number type holds: ``places`` after the point, values within
    ``low``..``high``; ``name`` as messages show it. ``widest`` is set where Teradata's
    documentation leaves the range open between ``high`` and it (a decimal literal
    written with a leading zero: its precision may or may not count that zero)."""

    name: str
    places: int
    low: Decimal
    high: Decimal
    widest: Decimal | None = None


Outcome = Cut | Guard | Refuse | None


def _data_type(projection: exp.Expr) -> exp.DataType | None:
    node = projection.unalias()
    while isinstance(node, exp.Paren):
        node = node.this
    data_type = node.type
    if data_type is None or data_type.this is exp.DType.UNKNOWN:
        return None
    return data_type


def _origin(value: exp.Expr) -> exp.Expr:
    """What ``value`` stands for: through parentheses, run-time guards (a guarded CAST to
    BYTEINT is that CAST) and the columns of WITH queries and derived tables (a column of
    ``WITH f(y) AS (SELECT 'foo')`` is the literal 'foo')."""
    for _ in range(_MAX_DEPTH):
        while isinstance(value, exp.Paren) or _is_guard(value):
            value = value.this if isinstance(value, exp.Paren) else value.args["default"]
        found = derived_value(value) if isinstance(value, exp.Column) and value.table else None
        if found is None:
            return value
        value = found
    return value


def _is_guard(value: exp.Expr) -> bool:
    """A CASE that :func:`sql.rules.build.guarded` wrote: one WHEN that raises, the value after
    ELSE."""
    ifs = value.args.get("ifs") if isinstance(value, exp.Case) else None
    return (
        bool(ifs)
        and len(ifs) == 1
        and isinstance(ifs[0].args.get("true"), PortableRaiseError)
        and value.args.get("default") is not None
        and value.this is None
    )


def _type(origin: exp.Expr, annotated: exp.DataType | None) -> exp.DataType | None:
    """A CAST's own type (annotation may drop its parameters: DECIMAL(5, 0) is DECIMAL
    there), else the annotated one."""
    return origin.to if isinstance(origin, exp.Cast) else annotated


def _length(data_type: exp.DataType) -> int | None:
    params = type_params(data_type)
    return params[0] if params else None


@rule(
    RULE,
    "rewrite",
    ("teradata",),
    (exp.Union, exp.Intersect, exp.Except),
    "Teradata converts the columns of every later SELECT of a UNION / INTERSECT / EXCEPT (a "
    "recursive query's recursive part too) to the types of the first SELECT's: text longer "
    "than the first SELECT's VARCHAR(n) is cut to n characters without an error, a number "
    "the first column's type does not hold raises a numeric overflow. A later text column "
    "longer than n is written SUBSTRING(x FROM 1 FOR n); a later number that may not fit the "
    "first column's type (declared, a CAST's, or a literal's as Teradata types it: 1 is "
    "BYTEINT) is guarded to raise outside that type's range. Refused: a first text column of unknown length or CHAR(n) (padded) "
    "over a later column of another type; a later DECIMAL with more places than the first "
    "column's (rounded away); a later TIMESTAMP or TIME of more fractional digits than the "
    "first's (Teradata documents an error, not what a set operation gives); a DATE under a "
    "TIMESTAMP or the reverse (converted through the session time zone); a later column of "
    "another kind (text, number, date and time: Teradata's own conversion); and a later "
    "column of unknown type under any of these. A CAST in the first SELECT, or in the later one, "
    "translates.",
    (
        (
            "teradata",
            "SELECT code FROM SALES_DB.REGIONS_SHORT UNION ALL SELECT code FROM "
            "SALES_DB.REGIONS_LONG",
            'SELECT "regions_short"."code" AS "code" FROM "raw"."regions_short" AS '
            '"regions_short" UNION ALL SELECT SUBSTRING("regions_long"."code" FROM 1 FOR 3) '
            'AS "code" FROM "raw"."regions_long" AS "regions_long"',
        ),
    ),
)
def first_select_types(node: exp.Expr, ctx: Context) -> exp.Expr | None:
    if isinstance(node.parent, exp.SetOperation):
        return None  # the outermost set operation sees every SELECT
    selects = branches(node)
    if len(selects) < 2 or any(s.is_star for s in selects):
        return None
    first, later = selects[0], selects[1:]
    changed = False
    teradata = Typer(SOURCES["teradata"], Projections.of(node.root()))

    def places(value: exp.Expr) -> int | None:
        typed = teradata(value)
        return typed.scale if typed is not None and typed.is_exact else None

    for position, head in enumerate(first.selects):
        head_value = head.unalias()
        head_origin = _origin(head_value)
        head_type = _type(head_origin, _data_type(head))
        if head_type is None:
            continue
        head_source = _source(first, head_value)
        for select in later:
            if position >= len(select.selects):
                return None  # a column count Teradata refuses; left to the engines' error
            projection = select.selects[position]
            value = projection.unalias()
            if head_source is not None and head_source == _source(select, value):
                continue  # one column of one table: one type, nothing converted
            origin = _origin(value)
            if isinstance(origin, exp.Null):
                continue
            own = _type(origin, _data_type(projection))
            outcome = _outcome(head_origin, head_type, origin, own, places)
            if isinstance(outcome, Refuse):
                ctx.report("error", RULE, value, outcome.message)
                return node
            if outcome is None:
                continue
            if isinstance(outcome, Guard) and any(isinstance(n, VOLATILE) for n in preorder(value)):
                # The guard reads the value three times: each would be another.
                ctx.report(
                    "error",
                    RULE,
                    value,
                    f"Teradata raises a numeric overflow where this value lies outside the first "
                    f"SELECT's type ({outcome.type_name}), and a guard would compute it again, "
                    "which gives another value here; CAST the first SELECT's column to a type "
                    "that holds every SELECT's values",
                )
                return node
            written = _written(value, outcome)
            if isinstance(projection, exp.Alias):
                value.replace(written)
            else:
                projection.replace(exp.alias_(written, projection.alias_or_name))
            ctx.wrote(written)
            changed = True
    return node if changed else None


def _written(value: exp.Expr, outcome: Cut | Guard) -> exp.Expr:
    if isinstance(outcome, Cut):
        return exp.Substring(this=clone(value), start=lit(1), length=lit(outcome.length))
    outside = exp.Or(
        this=exp.LT(this=clone(value), expression=_number(outcome.low)),
        expression=exp.GT(this=clone(value), expression=_number(outcome.high)),
    )
    why = (
        f"numeric overflow: Teradata converts this value to the first SELECT's type "
        f"({outcome.type_name}), which holds {outcome.low} to {outcome.high}"
    )
    return guarded(clone(value), outside, RULE, why, at=value)


def _number(value: Decimal) -> exp.Expr:
    text = str(value)
    if text.startswith("-"):
        return exp.Neg(this=exp.Literal.number(text[1:]))
    return exp.Literal.number(text)


def _outcome(
    head: exp.Expr,
    head_type: exp.DataType,
    value: exp.Expr,
    own: exp.DataType | None,
    places: Callable[[exp.Expr], int | None],
) -> Outcome:
    """How Teradata's conversion of a later SELECT's column (``value``, of type ``own``) to
    the first SELECT's (``head``, of ``head_type``) is written exactly: None, as it is."""
    if own is None and isinstance(value, exp.Literal):
        own = exp.DataType.build("VARCHAR" if value.is_string else "DECIMAL")
    head_family, own_family = _family(head_type), _family(own)
    if head_family is not None and own_family is not None and head_family != own_family:
        return Refuse(
            f"Teradata converts this column ({own.sql()}) to the first SELECT's type "
            f"({head_type.sql()}) by its own conversion rules ({own_family} to {head_family}: "
            "formats, padding, the session time zone), where the engines give the column "
            "another type; CAST it in this SELECT to the first SELECT's type"
        )
    if head_type.this in STRING_TYPES:
        return _text(head, head_type, value, own)
    head_number = _exact(head, head_type)
    if head_number is not None:
        return _numeric(head_number, _declared(head), value, own, places)
    if head_type.this is exp.DType.DECIMAL and (own is None or own.this in _FRACTIONS):
        return Refuse(
            "Teradata converts this column to the first SELECT's type (DECIMAL of places not "
            "known here), which may round its places away; CAST the first SELECT's column to "
            "a DECIMAL(p, s) that holds every SELECT's values"
        )
    if head_type.this in (exp.DType.TIMESTAMP, exp.DType.TIME, exp.DType.DATE):
        return _moment(head_type, _declared(head), own, _declared(value))
    return None


def _family(data_type: exp.DataType | None) -> str | None:
    """text, number or datetime: the kinds between which Teradata's conversion in a set
    operation is another operation than the engines' common type; None for the others."""
    if data_type is None:
        return None
    if data_type.this in STRING_TYPES:
        return "text"
    if data_type.this in NUMERIC_TYPES:
        return "number"
    if data_type.this in _MOMENTS:
        return "datetime"
    return None


def _declared(node: exp.Expr) -> bool:
    """Whether ``node``'s type here is the one Teradata gives it: a literal's (by its digits),
    a CAST's, a catalog table's column (its declared type). Other expressions are typed by
    sqlglot's rules, not Teradata's (SUM of a DECIMAL(8, 2) is DECIMAL(8, 2) there, wider in
    Teradata), so neither a range to guard nor a range that needs no guard."""
    if isinstance(node, exp.Neg):
        node = node.this
    if isinstance(node, (exp.Literal, exp.Cast)):
        return True
    select = node.find_ancestor(exp.Select) if isinstance(node, exp.Column) else None
    source = _source(select, node) if select is not None else None
    return source is not None and bool(source[1])  # a WITH query's name has no database


def _unknown(head_shown: str) -> Refuse:
    return Refuse(
        f"the type of this column is not known here, and Teradata converts it to the first "
        f"SELECT's type ({head_shown}), which can change its values; CAST it in this SELECT "
        "to the type it has, or declare the column's type in the catalog as the legacy DDL "
        "does (`plumbline catalog import`)"
    )


def _source(select: exp.Select, value: exp.Expr) -> tuple[str, ...] | None:
    """(catalog, db, table, column) of a column that reads a table of ``select``'s FROM
    directly; None for anything else."""
    if not isinstance(value, exp.Column) or not value.table:
        return None
    for table in select.find_all(exp.Table):
        if table.parent_select is select and table.alias_or_name == value.table:
            return (table.catalog, table.db, table.name, value.name)
    return None


def _shown(head: exp.Expr, head_type: exp.DataType) -> str:
    if isinstance(head, exp.Literal):
        return f"the literal {head.sql()}"
    if _length(head_type) is not None and _declared(head):
        return head_type.sql()
    return f"{head_type.this.value} of unknown length"


def _text(
    head: exp.Expr, head_type: exp.DataType, value: exp.Expr, own: exp.DataType | None
) -> Outcome:
    if own is not None and own.this not in STRING_TYPES:
        return None  # not text: its conversion to text is not this rule's
    changes = Refuse(
        "Teradata converts this column to the type of the first SELECT's column "
        f"({_shown(head, head_type)}), which can change its text; declare the "
        "columns' lengths in the catalog as the legacy DDL does (`plumbline "
        "catalog import`), or CAST the first SELECT's column to a VARCHAR(n) "
        "that holds every SELECT's values"
    )
    if isinstance(head, exp.Literal) and head.is_string:
        # A literal's type is VARCHAR of its length: only a literal of that length is
        # certainly unchanged.
        same = (
            isinstance(value, exp.Literal) and value.is_string and len(value.name) == len(head.name)
        )
        return None if same else changes
    # An expression's length here is sqlglot's, not Teradata's (a CASE of a VARCHAR(10)
    # column and a longer literal is VARCHAR(10) here): only a declared one is known.
    length = _length(head_type) if _declared(head) else None
    if length is None:
        return changes
    own_length = _length(own) if own is not None and _declared(value) else None
    if isinstance(value, exp.Literal):
        own_length = len(value.name)
    if head_type.this is exp.DType.CHAR:
        # Teradata pads shorter text to n: only the same CHAR(n) is certainly unchanged.
        same = own is not None and own.this is exp.DType.CHAR and own_length == length
        return None if same else changes
    if own is None:
        return _unknown(head_type.sql())
    if own_length is not None and own_length <= length:
        return None
    return Cut(length)


def _exact(node: exp.Expr, data_type: exp.DataType | None) -> Exact | None:
    """What Teradata's exact number type of ``node`` holds: a number literal's by its
    digits, a column's by its declared type; None for anything else."""
    if isinstance(node, exp.Neg) and isinstance(node.this, exp.Literal):
        return None if node.this.is_string else _literal_type("-" + node.this.name)
    if isinstance(node, exp.Literal):
        return None if node.is_string else _literal_type(node.name)
    if data_type is None:
        return None
    declared = declared_type(data_type)
    if declared is not None and declared[0] == "teradata" and declared[1].upper() == "BYTEINT":
        return _integer("BYTEINT")
    if data_type.this in INTEGER_TYPES:
        return _integer(_RANGE_OF_TYPE[data_type.this])
    if data_type.this is exp.DType.DECIMAL:
        params = type_params(data_type)
        if not params:
            return None
        precision, places = params[0], params[1] if len(params) > 1 else 0
        return _decimal(precision, places)
    return None


def _integer(name: str) -> Exact:
    low, high = _INTEGER_RANGES[name]
    return Exact(name, 0, Decimal(low), Decimal(high))


def _decimal(precision: int, places: int) -> Exact:
    high = Decimal(10) ** (precision - places) - Decimal(1).scaleb(-places)
    return Exact(f"DECIMAL({precision}, {places})", places, -high, high)


def _literal_type(text: str) -> Exact | None:
    """Teradata's type of a number literal ("Integer Literals": the smallest of BYTEINT,
    SMALLINT, INTEGER that holds it, else DECIMAL(n, 0); "Decimal Literals": the digits
    written are the precision, those after the point the places); None for a FLOAT one."""
    digits = text.removeprefix("-")
    if not digits or any(c not in "0123456789." for c in digits) or digits.count(".") > 1:
        return None  # 1e5: a FLOAT literal
    whole, point, fraction = digits.partition(".")
    if not point:
        number = int(text)
        for name in ("BYTEINT", "SMALLINT", "INTEGER"):
            low, high = _INTEGER_RANGES[name]
            if low <= number <= high:
                return _integer(name)
        return _decimal(len(whole.lstrip("0")), 0)
    significant = whole.lstrip("0")
    exact = _decimal(len(significant) + len(fraction), len(fraction))
    if significant == whole:
        return exact
    # "0.5": whether the leading zero counts as a digit of the precision is not written.
    widest = _decimal(len(whole) + len(fraction), len(fraction)).high
    return replace(exact, widest=widest)


def _numeric(
    head: Exact,
    head_declared: bool,
    value: exp.Expr,
    own: exp.DataType | None,
    places: Callable[[exp.Expr], int | None],
) -> Outcome:
    def rounded(shown: str) -> Refuse:
        return Refuse(
            f"Teradata converts this column ({shown}) to the first SELECT's type "
            f"({head.name}), rounding away the places that type does not hold; CAST the "
            "first SELECT's column to a type that holds every SELECT's values"
        )

    if _exact(value, None) is not None:
        # A literal: its own value, not its type's range (5 under a BYTEINT column fits).
        with localcontext(prec=_PRECISION):
            amount = Decimal(value.sql())
            if amount != amount.quantize(Decimal(1).scaleb(-head.places)):
                return rounded(value.sql())
        low = high = amount
    elif own is None:
        return _unknown(head.name)
    elif own.this not in _FRACTIONS and own.this not in INTEGER_TYPES:
        return None  # not a number: its conversion to a number is not this rule's
    else:
        number = _exact(value, own)
        declared = _declared(value)
        # sqlglot types a product of DECIMAL(8, 2) columns DECIMAL(8, 2); Teradata's (and
        # the engines') has 4 places (sql/rules/portable_types.py types it as Teradata does).
        own_places = None if number is None else number.places if declared else places(value)
        if number is None or own_places is None or own_places > head.places:
            expression = (
                "an expression whose places are not known"
                if own_places is None
                else f"an expression of {own_places} places"
            )
            return rounded(own.sql() if declared else expression)
        low, high = number.low, number.high
        if not declared:
            # Its range here is sqlglot's, not the engines': only a guard is sure.
            low, high = min(low, head.low - 1), max(high, head.high + 1)
    if not head_declared:
        # Teradata's type of the first column is not known here, so neither is where it
        # overflows. Teradata raises there, it changes no value; left as written.
        return None
    if head.low <= low and high <= head.high:
        return None
    if head.widest is not None:
        return Refuse(
            "Teradata converts this column to the type of the first SELECT's literal, whose "
            f"precision its documentation leaves open ({head.name} or wider: whether the "
            "leading zero counts), so whether it overflows is not known; CAST the first "
            "SELECT's literal to a type that holds every SELECT's values"
        )
    return Guard(head.low, head.high, head.name)


def _moment(
    head_type: exp.DataType, head_declared: bool, own: exp.DataType | None, own_declared: bool
) -> Outcome:
    if own is None:
        return _unknown(head_type.sql())
    if _family(own) == "datetime" and head_type.this is not own.this:
        return Refuse(
            f"Teradata converts this column ({own.sql()}) to the first SELECT's type "
            f"({head_type.sql()}) through the session time zone (a TIME with the current "
            "date), a setting the SQL does not show, where the engines keep the wider type; "
            "write the conversion as a CAST in this SELECT, or CAST the first SELECT's column "
            "to the type of this one"
        )
    if head_type.this is not own.this or head_type.this not in _DEFAULT_FRACTION:
        return None
    # Fractional digits as Teradata has them: declared ones; an expression's (typed by
    # sqlglot) may be as many as six, and a first column's is not known below that.
    digits = _fraction(own) if own_declared else 6
    if digits > (_fraction(head_type) if head_declared else 0):
        kind = head_type.this.value
        shown = head_type.sql() if head_declared else f"{kind} of unknown precision"
        own_shown = own.sql() if own_declared else f"{kind} of up to 6 fractional digits"
        return Refuse(
            f"Teradata converts this column ({own_shown}) to the first SELECT's type "
            f"({shown}), which may hold fewer fractional-second digits: its documentation "
            "gives an error for a conversion to a lower precision and does not say what a "
            "set operation does with the digits, so no exact form is known; CAST the first "
            f"SELECT's column to {own.sql() if own_declared else f'{own.this.value}(6)'}"
        )
    return None


def _fraction(data_type: exp.DataType) -> int:
    params = type_params(data_type)
    return params[0] if params else _DEFAULT_FRACTION[data_type.this]
