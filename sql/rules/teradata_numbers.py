"""Teradata's exact numbers where the engines' CAST would give another value.

BYTEINT, an 8-bit integer (-128 to 127) that the standard has no type for. sqlglot reads
``BYTEINT`` as SMALLINT, so ``CAST(300 AS BYTEINT)`` came out as ``CAST(300 AS SMALLINT)``:
300 where Teradata stops with a numeric overflow (error 2616, "Integer Data Types": BYTEINT
holds -128 to 127). plumbline's Teradata dialect reads it as TINYINT
(``sql/source_dialects.py``), which no rule but TD-BYTEINT writes out: the CAST becomes a
SMALLINT (which holds every BYTEINT) that raises outside BYTEINT's range, and its type
records the declared BYTEINT, as a catalog column's does, so that TD-SET-TYPES holds a later
SELECT's values to that range too. A VOLATILE table's BYTEINT column is guarded the same
way, since a script's INSERT is a CAST to the column's type.

DECIMAL places. Teradata rounds a value cast (or inserted) into a DECIMAL with fewer places
by DBS Control's RoundHalfwayMagUp, by default a halfway value to the even digit; the
engines take it away from zero. TD-DECIMAL-ROUNDING writes the even digit's case out, as
FN-ROUND does for ROUND.
"""

from __future__ import annotations

from decimal import ROUND_HALF_EVEN, ROUND_HALF_UP, Decimal

from sqlglot import exp

from sql.catalog import DECLARED_META
from sql.rules.base import Context, rule
from sql.rules.build import VOLATILE, guarded, lit, type_of, type_params
from sql.rules.dialect_specific import cast_rule as cast_to_integer
from sql.rules.functions import halfway_to_even
from sql.tree import clone, preorder

RULE = "TD-BYTEINT"
DECIMAL_RULE = "TD-DECIMAL-ROUNDING"
LOWEST, HIGHEST = -128, 127


def byteint() -> exp.DataType:
    """SMALLINT, recorded as Teradata's declared BYTEINT."""
    kind = exp.DataType.build("SMALLINT")
    kind.meta[DECLARED_META] = ("teradata", "BYTEINT")
    return kind


def _number_literal(node: exp.Expr) -> tuple[exp.Literal, bool] | None:
    """A number literal as written, and whether it is negated; None for anything else."""
    negative = isinstance(node, exp.Neg)
    value = node.this if negative else node
    if not isinstance(value, exp.Literal) or value.is_string:
        return None
    return value, negative


def _literal_number(node: exp.Expr) -> int | None:
    """The integer a literal of digits alone (or its negation) writes; None for anything else."""
    found = _number_literal(node)
    if found is None or not found[0].name.isdigit():
        return None
    return -int(found[0].name) if found[1] else int(found[0].name)


@rule(
    RULE,
    "rewrite",
    ("teradata",),
    (exp.Cast,),
    "Teradata's BYTEINT holds -128 to 127 and raises a numeric overflow for any other value; "
    "the standard has no 8-bit integer. CAST(x AS BYTEINT) becomes CAST(x AS SMALLINT), "
    "guarded to raise outside -128 to 127 (a whole-number literal is checked here: inside "
    "the range it needs no guard, outside it the query is refused, since Teradata would stop). "
    "A value that changes each time it is read (RANDOM) is refused: the guard reads it twice.",
    (
        (
            "teradata",
            "SELECT CAST(o_shippriority AS BYTEINT) AS p FROM SALES_DB.ORDERS",
            'SELECT CASE WHEN CAST("orders"."o_shippriority" AS SMALLINT) < -128 OR '
            'CAST("orders"."o_shippriority" AS SMALLINT) > 127 THEN RAISE_ERROR(\'TD-BYTEINT: '
            "numeric overflow: Teradata''s BYTEINT holds -128 to 127') ELSE "
            'CAST("orders"."o_shippriority" AS SMALLINT) END AS "p" FROM "raw"."orders" AS '
            '"orders"',
        ),
    ),
)
def byteint_cast(node: exp.Expr, ctx: Context) -> exp.Expr | None:
    target = node.args.get("to")
    if not isinstance(target, exp.DataType) or target.this is not exp.DType.TINYINT:
        return None
    value = node.this
    number = _literal_number(value)
    if number is not None:
        if LOWEST <= number <= HIGHEST:
            return exp.Cast(this=clone(value), to=byteint())
        ctx.report(
            "error",
            RULE,
            value,
            f"numeric overflow: Teradata's BYTEINT holds {LOWEST} to {HIGHEST}, not {number}",
        )
        return node
    if any(isinstance(n, VOLATILE) for n in preorder(value)):
        ctx.report(
            "error",
            RULE,
            value,
            "Teradata raises a numeric overflow where this value lies outside BYTEINT's "
            "-128 to 127, and a guard would compute it again, which gives another value "
            "here; CAST it to SMALLINT or INTEGER",
        )
        return node
    # A fraction is cut off first (CAST-TO-INTEGER; the nodes a rule writes are not
    # visited again): 127.9 is 127, in range.
    converted = exp.Cast(this=clone(value), to=byteint())
    converted = cast_to_integer(converted, ctx) or converted
    outside = exp.Or(
        this=exp.LT(this=clone(converted), expression=lit(LOWEST)),
        expression=exp.GT(this=clone(converted), expression=lit(HIGHEST)),
    )
    why = f"numeric overflow: Teradata's BYTEINT holds {LOWEST} to {HIGHEST}"
    return guarded(converted, outside, RULE, why, at=node)


@rule(
    DECIMAL_RULE,
    "rewrite",
    ("teradata",),
    (exp.Cast,),
    "Teradata rounds a DECIMAL value that does not fit the places of the DECIMAL it is cast to "
    '(or inserted into) as DBS Control\'s RoundHalfwayMagUp says ("Rounding", Data Types and '
    "Literals): by default a halfway value to the even digit (.025 is .02 in a DECIMAL(3,2)), "
    "where the engines' CAST takes it away from zero (.03). A halfway value whose kept digit is "
    "even is cast as its truncation (CASE over MOD), under the teradata_round_halfway_mag_up "
    "assumption (a warning); a number literal is rounded here.",
    (
        (
            "teradata",
            "SELECT CAST(o_totalprice AS DECIMAL(12,1)) AS p FROM SALES_DB.ORDERS",
            'SELECT CAST(CASE WHEN ABS(MOD("orders"."o_totalprice", 0.1)) = 0.05 AND '
            'MOD(("orders"."o_totalprice" - MOD("orders"."o_totalprice", 0.1)), 0.2) = 0 THEN '
            '"orders"."o_totalprice" - MOD("orders"."o_totalprice", 0.1) ELSE '
            '"orders"."o_totalprice" END AS DECIMAL(12, 1)) AS "p" FROM "raw"."orders" AS '
            '"orders"',
        ),
    ),
)
def decimal_cast(node: exp.Expr, ctx: Context) -> exp.Expr | None:
    target = node.args.get("to")
    if not isinstance(target, exp.DataType) or target.this is not exp.DType.DECIMAL:
        return None
    params = type_params(target)
    if not params:
        return None
    places = params[1] if len(params) > 1 else 0
    value = node.this
    literal = _literal_decimal(value)  # Teradata types 0.025 DECIMAL(4,3) ("Decimal Literals")
    if literal is None and type_of(value) is not exp.DType.DECIMAL:
        return None  # an integer has no places to remove; a float's conversion is not this
    known = value.type if isinstance(value.type, exp.DataType) else None
    scale = type_params(known) if known is not None and literal is None else None
    if scale is not None and len(scale) == 2 and scale[1] <= places:
        return None  # no places to remove (a value of unknown places is treated below)
    if ctx.assume("teradata_round_halfway_mag_up") == "TRUE":
        return None
    if literal is not None:
        step = Decimal(1).scaleb(-places)
        rounded = literal.quantize(step, rounding=ROUND_HALF_EVEN)
        if rounded == literal.quantize(step, rounding=ROUND_HALF_UP):
            return None  # not a halfway value the engines would take the other way
        _assumed(node, ctx)
        return exp.Cast(this=exp.Literal.number(format(rounded, "f")), to=target.copy())
    _assumed(node, ctx)
    return exp.Cast(this=halfway_to_even(value, places), to=target.copy())


def _assumed(node: exp.Expr, ctx: Context) -> None:
    ctx.report(
        "warning",
        DECIMAL_RULE,
        node,
        "a halfway value rounds to the even digit, assuming RoundHalfwayMagUp FALSE "
        "(teradata_round_halfway_mag_up)",
    )


def _literal_decimal(node: exp.Expr) -> Decimal | None:
    """The number a decimal literal (or its negation) writes; None for anything else (1e5 is
    a FLOAT literal)."""
    found = _number_literal(node)
    if found is None or "e" in found[0].name.lower():
        return None
    try:
        number = Decimal(found[0].name)
    except ArithmeticError:
        return None
    return -number if found[1] else number
