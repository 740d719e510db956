"""Division: the one operator whose meaning differs most between dialects.

``7 / 2`` is 3 in T-SQL, Teradata and Redshift (integer operands give an integer,
truncated toward zero) and 3.5 in Snowflake, BigQuery and Oracle. ANSI leaves the
result type of integer division implementation-defined, so an integer quotient is never
emitted bare: truncation is spelled ``(a - MOD(a, b)) / b`` (exact in every engine,
MOD takes the dividend's sign; of BIGINTs, which DuckDB's DOUBLE division would round past
2^53, sql/rules/exact_division.py's exact quotient) and a fractional quotient casts the
dividend first. A quotient with a DECIMAL operand is the source's DECIMAL, worked out
exactly where the source documents its scale and rounding (Teradata; Snowflake, whose
integer quotients are NUMBERs too), else refused.
Oracle divides (and averages) NUMBERs, integers included, in decimal floating point of 38
significant digits: bare, refused; rounded or truncated to n places, exact (DIV-ROUNDED).
"""

from __future__ import annotations

from sqlglot import exp

from sql.rules.base import ALL_DIALECTS, Context, rule
from sql.rules.build import (
    INTEGER_TYPES,
    NUMERIC_TYPES,
    case_when,
    cast,
    clone,
    integer_literal,
    lit,
    paren,
    type_of,
)
from sql.rules.exact_division import (
    MAX_DIGITS,
    WHOLE,
    Rounding,
    exact_quotient,
    integer_quotient,
)
from sql.rules.portable_types import SOURCES, Projections, Typer
from sql.source_dialects import semantics

APPROXIMATE_TYPES = {exp.DType.DOUBLE, exp.DType.FLOAT}
DECIMAL_TYPES = {exp.DType.DECIMAL, exp.DType.BIGDECIMAL}
EXACT_TYPES = {*INTEGER_TYPES, *DECIMAL_TYPES}
# DIV-ROUNDED's places: 0 to 36 (sql/rules/exact_division.py scaled)
MOST_PLACES = MAX_DIGITS - 2


def rounded_places(node: exp.Round | exp.Trunc) -> int | None:
    """n of ROUND(x, n) or TRUNC(x, n) (0 where n is left out) where it is an integer
    literal of 0 to MOST_PLACES, else None."""
    if node.args.get("truncate") is not None:
        return None
    decimals = node.args.get("decimals")
    places = 0 if decimals is None else integer_literal(decimals)
    return places if places is not None and 0 <= places <= MOST_PLACES else None


def _unwrapped(node: exp.Expr) -> exp.Expr:
    while isinstance(node, exp.Paren):
        node = node.this
    return node


def _power_of_ten(node: exp.Expr) -> int | None:
    """k of an integer literal 10^k (k >= 1), else None."""
    value = integer_literal(node)
    if value is None or value < 10:
        return None
    text = str(value)
    return len(text) - 1 if text == "1" + "0" * (len(text) - 1) else None


def _scaled(node: exp.Expr) -> tuple[exp.Expr, int]:
    """(x, k) of ``node`` = x * 10^k or 10^k * x (through parentheses; k an integer literal's
    power of ten), else (``node``, 0)."""
    node = _unwrapped(node)
    if isinstance(node, exp.Mul):
        for value, factor in ((node.this, node.expression), (node.expression, node.this)):
            k = _power_of_ten(factor)
            if k is not None:
                return _unwrapped(value), k
    return node, 0


def _rounded(node: exp.Expr) -> bool:
    """Whether ``node`` (through parentheses, and a product with a power of ten) is x of a
    ROUND(x, n) or TRUNC(x, n) whose n DIV-ROUNDED takes (rounded_places)."""
    child, parent = node, node.parent
    if isinstance(parent, exp.Window) and parent.this is child:
        child, parent = parent, parent.parent  # AVG(x) OVER w
    while isinstance(parent, exp.Paren):
        child, parent = parent, parent.parent
    if isinstance(parent, exp.Mul) and _scaled(parent)[0] is _unwrapped(child):
        child, parent = parent, parent.parent
        while isinstance(parent, exp.Paren):
            child, parent = parent, parent.parent
    return (
        isinstance(parent, exp.Round | exp.Trunc)
        and parent.this is child
        and rounded_places(parent) is not None
    )


def _averaged(node: exp.Avg) -> exp.Expr:
    value = node.this
    return value.expressions[0] if isinstance(value, exp.Distinct) else value


def decimal_float_refused(node: exp.Expr, ctx: Context, rule_id: str) -> bool:
    """Where the dialect divides and averages exact numbers in decimal floating point of 38
    significant digits (Oracle: QUOTIENT_IS_DECIMAL_FLOAT), a quotient or AVG of exact
    numbers (``node``) has no exact ANSI form but rounded or truncated to n places: there
    it is left to DIV-ROUNDED, elsewhere refused. False for other dialects."""
    if not semantics(ctx.dialect).QUOTIENT_IS_DECIMAL_FLOAT:
        return False
    if _rounded(node):
        return True  # DIV-ROUNDED's
    if isinstance(node, exp.Avg):
        what, rounded, binary = "an AVG", "ROUND(AVG(x), n)", "AVG(CAST(x AS BINARY_DOUBLE))"
    else:
        what, rounded, binary = "a quotient", "ROUND(a / b, n)", "a CAST to BINARY_DOUBLE"
    ctx.report(
        "error",
        rule_id,
        node,
        f"{what} of NUMBERs (integers included) is a decimal floating-point number of 38 "
        "significant digits in Oracle (1/3 is .3333333333333333333333333333333333333333), "
        f"which no exact ANSI type holds; {rounded} (or TRUNC) to the places meant, n an "
        f"integer literal of 0 to {MOST_PLACES}, translates exactly, and {binary} makes it "
        "binary floating point",
    )
    return True


def operand_type(node: exp.Expr, ctx: Context) -> exp.DType | None:
    """The type of a quotient's or AVG's operand as the source types it: sqlglot's
    annotation, save where the dialect's decimal literals are exact NUMBERs
    (DECIMAL_LITERAL_IS_EXACT: Snowflake's and T-SQL's 1.5 is NUMBER(2, 1)), which sqlglot types
    DOUBLE, and with them what it computes from them (``x * 1.5``): there the source's type
    (sql/rules/portable_types.py Typer). None (the rules refuse) where it cannot tell an
    operand typed DOUBLE from such literals exact or not, and where one holds a literal with
    an exponent (1.5e0), whose type that dialect's pages found here do not give (T-SQL's and
    Teradata's are FLOATs: EXPONENT_LITERAL_IS_FLOAT)."""
    kind = type_of(node)
    if kind not in APPROXIMATE_TYPES or not semantics(ctx.dialect).DECIMAL_LITERAL_IS_EXACT:
        return kind
    literals = [literal.name.lower() for literal in _uncast_numbers(node)]
    if (
        any("e" in literal for literal in literals)
        and not semantics(ctx.dialect).EXPONENT_LITERAL_IS_FLOAT
    ):
        return None
    value = Typer(SOURCES[ctx.dialect], Projections.of(node.root()))(node)
    if value is not None and value.is_approximate:
        return kind
    if value is not None and value.is_exact:
        return {"INT": exp.DType.INT, "BIGINT": exp.DType.BIGINT}.get(value.kind, exp.DType.DECIMAL)
    return None if any("." in literal for literal in literals) else kind


def _uncast_numbers(node: exp.Expr) -> list[exp.Literal]:
    """The number literals in ``node`` that no CAST around them types."""
    if isinstance(node, exp.Literal):
        return [] if node.is_string else [node]
    if isinstance(node, (exp.Cast, exp.TryCast)):
        return []
    return [found for child in node.iter_expressions() for found in _uncast_numbers(child)]


def _scale(node: exp.Expr, ctx: Context) -> int | None:
    """The scale the source gives an exact operand (0 for an integer), None if unknown."""
    value = Typer(SOURCES[ctx.dialect], Projections.of(node.root()))(node)
    return value.scale if value is not None and value.is_exact else None


def decimal_division(
    node: exp.Expr, dividend: exp.Expr, divisor: exp.Expr, ctx: Context, rule_id: str
) -> exp.Expr | None:
    """A quotient of exact numbers, one of them a DECIMAL (in Snowflake, integers too): the
    source's DECIMAL result, computed exactly (sql/rules/exact_division.py), where the source
    documents its scale and rounding; else refused, with the way to write it that translates.

    Teradata: DECIMAL(38, max(n, j)), halves rounded as RoundHalfwayMagUp says (an
    assumption, warned). Snowflake ("Arithmetic operators", Scale and precision in arithmetic
    operations, Division): "Leading digits: L = L1 + S2; Scale: S = max(S1, min(S1 + 6,
    12))", precision "always limited to 38"; and its last digit is rounded half away from
    zero, documented by release note BCR-1400 (2023_08 bundle): "DIV0 and DIV0NULL round the
    output half away from zero. This is consistent with the results from using the division
    operator (/)" (its example: 5/9 is 0.555556). So a halfway quotient (1/128 = .0078125)
    is .007813, and needs no guard: no other reading is documented. The result is
    DECIMAL(38, S) (Snowflake's type has L1 + S2 + S digits, at most 38: the same values,
    no more than 38 - S whole digits). exact_quotient stops the statement (an overflow) at a
    dividend of 10^36 or more in units of the quotient's last place plus the divisor's scale
    (10^30 for integer / integer), where Snowflake may still give a value: stopped, never a
    value that differs."""
    if decimal_float_refused(node, ctx, rule_id):
        return None
    dialect = semantics(ctx.dialect)
    if not (dialect.DECIMAL_QUOTIENT_KEEPS_LARGER_SCALE or dialect.QUOTIENT_ADDS_SIX_PLACES):
        undocumented = dialect.EXACT_QUOTIENT_UNDOCUMENTED
        ctx.report(
            "error",
            rule_id,
            node,
            f"division of exact numbers, one a DECIMAL: {undocumented}, so no translation "
            "gives its value; CAST an operand to DOUBLE PRECISION (FLOAT) to divide in binary "
            "floating point",
        )
        return None
    scales = _scale(dividend, ctx), _scale(divisor, ctx)
    if scales[0] is None or scales[1] is None:
        ctx.report(
            "error",
            rule_id,
            node,
            "cannot tell the scale of this division's operands, which sets its result's; "
            "CAST them to the DECIMAL(p, s) intended",
        )
        return None
    rounding: Rounding
    if dialect.QUOTIENT_ADDS_SIX_PLACES:
        scale = max(scales[0], min(scales[0] + 6, 12))
        rounding = "half_away"
    else:
        scale = max(scales)
        setting = ctx.assume("teradata_round_halfway_mag_up")
        rounding = "half_away" if setting == "TRUE" else "half_even"
        ctx.report(
            "warning",
            rule_id,
            node,
            "a halfway quotient rounds "
            f"{'away from zero' if setting == 'TRUE' else 'to the even digit'}, assuming "
            f"RoundHalfwayMagUp {setting} (teradata_round_halfway_mag_up)",
        )
    quotient = exact_quotient(
        paren(clone(dividend)),
        scales[0],
        paren(clone(divisor)),
        scales[1],
        scale,
        rounding,
        rule_id,
        node,
    )
    if quotient is None:
        ctx.report(
            "error",
            rule_id,
            node,
            f"this quotient's {scale} places leave no exact form on Spark (its products keep "
            "38 digits); CAST the operands to a DECIMAL with fewer digits",
        )
        return None
    ctx.applied.add(rule_id)
    return quotient


def truncated_quotient(
    dividend: exp.Expr, divisor: exp.Expr, result_type: str, rule_id: str, at: exp.Expr
) -> exp.Expr:
    """Integer ``dividend / divisor`` truncated toward zero, as ``result_type`` (INTEGER or
    BIGINT). Of INTEGERs, ``(a - MOD(a, b)) / b``: an exact multiple divided, which DuckDB
    does in DOUBLE, exact below 2^53, so for 32-bit operands. Of BIGINTs, which may be
    larger, the exact integer quotient of sql/rules/exact_division.py."""
    if result_type == "INTEGER":
        remainder = exp.Mod(this=clone(dividend), expression=clone(divisor))
        whole = exp.Paren(this=exp.Sub(this=paren(clone(dividend)), expression=remainder))
        return cast(exp.Div(this=whole, expression=paren(clone(divisor))), result_type)
    units = integer_quotient(
        cast(clone(dividend), WHOLE), cast(clone(divisor), WHOLE), "truncate", rule_id, at
    )
    return cast(units, result_type)


def exact_division(
    node: exp.Expr, dividend: exp.Expr, divisor: exp.Expr, ctx: Context, rule_id: str
) -> exp.Expr | None:
    left, right = operand_type(dividend, ctx), operand_type(divisor, ctx)
    if left is None or right is None:
        ctx.report(
            "error",
            rule_id,
            node,
            "cannot tell the operand types of this division, and its result differs between "
            "integer and fractional operands; CAST the operands to the intended type",
        )
        return None
    if left not in NUMERIC_TYPES or right not in NUMERIC_TYPES:
        ctx.report("error", rule_id, node, "division of non-numeric operands has no exact form")
        return None
    if left in APPROXIMATE_TYPES or right in APPROXIMATE_TYPES:
        return exp.Div(this=paren(clone(dividend)), expression=paren(clone(divisor)))
    if decimal_float_refused(node, ctx, rule_id):
        return None
    if left not in INTEGER_TYPES or right not in INTEGER_TYPES:
        return decimal_division(node, dividend, divisor, ctx, rule_id)
    if semantics(ctx.dialect).TYPED_DIVISION:
        result_type = "BIGINT" if exp.DType.BIGINT in (left, right) else "INTEGER"
        return truncated_quotient(dividend, divisor, result_type, rule_id, node)
    if semantics(ctx.dialect).QUOTIENT_ADDS_SIX_PLACES:
        # Snowflake's integers are NUMBER(38, 0): their quotient is a NUMBER of 6 places.
        return decimal_division(node, dividend, divisor, ctx, rule_id)
    return exp.Div(this=cast(dividend, "DOUBLE"), expression=paren(clone(divisor)))


@rule(
    "DIV-INTEGER",
    "rewrite",
    ALL_DIALECTS,
    (exp.Div,),
    "Integer / integer keeps the source dialect's meaning: truncated toward zero in T-SQL, "
    "Teradata and Redshift; fractional in BigQuery (a FLOAT64) and Oracle (refused bare: "
    "DIV-ROUNDED); in Snowflake a NUMBER of 6 places, its last digit rounded half away from "
    "zero, worked out exactly in whole units with MOD (sql/rules/exact_division.py, as "
    "DIV-DECIMAL; a dividend of 10^30 or more stops the statement with an overflow). Refused "
    "when the operand types cannot be inferred (a DECIMAL operand: DIV-DECIMAL).",
    (
        (
            "tsql",
            "SELECT l_linenumber / 2 AS n FROM dbo.LineItem",
            'SELECT CAST(("lineitem"."l_linenumber" - MOD("lineitem"."l_linenumber", 2)) / 2 AS INTEGER) AS "n" FROM "raw"."lineitem" AS "lineitem"',
        ),
        (
            "snowflake",
            "SELECT l_linenumber / 2 AS n FROM PROD_DW.SALES.LINEITEM",
            'SELECT CAST(CAST(CASE WHEN NOT (CAST((CAST(CAST("lineitem"."l_linenumber" AS DECIMAL(30, 0)) * 1000000 AS DECIMAL(38, 0)) - MOD(CAST(CAST("lineitem"."l_linenumber" AS DECIMAL(30, 0)) * 1000000 AS DECIMAL(38, 0)), CAST(2 AS DECIMAL(38, 0)))) / CAST(2 AS DECIMAL(38, 0)) AS DECIMAL(38, 0)) + CAST(((CAST(CAST("lineitem"."l_linenumber" AS DECIMAL(30, 0)) * 1000000 AS DECIMAL(38, 0)) - MOD(CAST(CAST("lineitem"."l_linenumber" AS DECIMAL(30, 0)) * 1000000 AS DECIMAL(38, 0)), CAST(2 AS DECIMAL(38, 0)))) - CAST((CAST(CAST("lineitem"."l_linenumber" AS DECIMAL(30, 0)) * 1000000 AS DECIMAL(38, 0)) - MOD(CAST(CAST("lineitem"."l_linenumber" AS DECIMAL(30, 0)) * 1000000 AS DECIMAL(38, 0)), CAST(2 AS DECIMAL(38, 0)))) / CAST(2 AS DECIMAL(38, 0)) AS DECIMAL(38, 0)) * CAST(2 AS DECIMAL(38, 0))) / CAST(2 AS DECIMAL(38, 0)) AS DECIMAL(38, 0))) * CAST(2 AS DECIMAL(38, 0)) = (CAST(CAST("lineitem"."l_linenumber" AS DECIMAL(30, 0)) * 1000000 AS DECIMAL(38, 0)) - MOD(CAST(CAST("lineitem"."l_linenumber" AS DECIMAL(30, 0)) * 1000000 AS DECIMAL(38, 0)), CAST(2 AS DECIMAL(38, 0)))) THEN RAISE_ERROR(\'DIV-INTEGER: the exact quotient is beyond what this engine divides exactly\') ELSE CAST((CAST((CAST(CAST("lineitem"."l_linenumber" AS DECIMAL(30, 0)) * 1000000 AS DECIMAL(38, 0)) - MOD(CAST(CAST("lineitem"."l_linenumber" AS DECIMAL(30, 0)) * 1000000 AS DECIMAL(38, 0)), CAST(2 AS DECIMAL(38, 0)))) / CAST(2 AS DECIMAL(38, 0)) AS DECIMAL(38, 0)) + CAST(((CAST(CAST("lineitem"."l_linenumber" AS DECIMAL(30, 0)) * 1000000 AS DECIMAL(38, 0)) - MOD(CAST(CAST("lineitem"."l_linenumber" AS DECIMAL(30, 0)) * 1000000 AS DECIMAL(38, 0)), CAST(2 AS DECIMAL(38, 0)))) - CAST((CAST(CAST("lineitem"."l_linenumber" AS DECIMAL(30, 0)) * 1000000 AS DECIMAL(38, 0)) - MOD(CAST(CAST("lineitem"."l_linenumber" AS DECIMAL(30, 0)) * 1000000 AS DECIMAL(38, 0)), CAST(2 AS DECIMAL(38, 0)))) / CAST(2 AS DECIMAL(38, 0)) AS DECIMAL(38, 0)) * CAST(2 AS DECIMAL(38, 0))) / CAST(2 AS DECIMAL(38, 0)) AS DECIMAL(38, 0))) + CASE WHEN (2 * ABS(MOD(CAST(CAST("lineitem"."l_linenumber" AS DECIMAL(30, 0)) * 1000000 AS DECIMAL(38, 0)), CAST(2 AS DECIMAL(38, 0)))) >= ABS(CAST(2 AS DECIMAL(38, 0)))) AND (MOD(CAST(CAST("lineitem"."l_linenumber" AS DECIMAL(30, 0)) * 1000000 AS DECIMAL(38, 0)), CAST(2 AS DECIMAL(38, 0))) < 0 AND CAST(2 AS DECIMAL(38, 0)) > 0 OR MOD(CAST(CAST("lineitem"."l_linenumber" AS DECIMAL(30, 0)) * 1000000 AS DECIMAL(38, 0)), CAST(2 AS DECIMAL(38, 0))) > 0 AND CAST(2 AS DECIMAL(38, 0)) < 0) THEN -1 WHEN 2 * ABS(MOD(CAST(CAST("lineitem"."l_linenumber" AS DECIMAL(30, 0)) * 1000000 AS DECIMAL(38, 0)), CAST(2 AS DECIMAL(38, 0)))) >= ABS(CAST(2 AS DECIMAL(38, 0))) THEN 1 ELSE 0 END AS DECIMAL(38, 0)) END AS DECIMAL(31, 0)) * 0.000001 AS DECIMAL(38, 6)) AS "n" FROM "raw"."lineitem" AS "lineitem"',
        ),
    ),
    phase="final",
)
def integer_division(node: exp.Expr, ctx: Context) -> exp.Expr | None:
    if _has_decimal_operand(node, ctx):
        return None  # DIV-DECIMAL's
    return exact_division(node, node.this, node.expression, ctx, "DIV-INTEGER")


def _has_decimal_operand(node: exp.Expr, ctx: Context) -> bool:
    types = {operand_type(node.this, ctx), operand_type(node.expression, ctx)}
    return not types & APPROXIMATE_TYPES and bool(types & DECIMAL_TYPES) and types <= NUMERIC_TYPES


@rule(
    "DIV-DECIMAL",
    "rewrite",
    ALL_DIALECTS,
    (exp.Div,),
    "A quotient of exact numbers, one of them a DECIMAL, is the source's DECIMAL, computed "
    "exactly on both engines (DuckDB divides DECIMALs as DOUBLEs, Spark rounds to a scale of "
    "its own): Teradata's DECIMAL(m, n) / DECIMAL(k, j) is DECIMAL(38, max(n, j)), its last "
    "digit rounded as RoundHalfwayMagUp says (halves to the even digit by default), worked out "
    "in whole units with MOD (sql/rules/exact_division.py), where a quotient the engine could "
    "not divide exactly stops the statement. Snowflake's NUMBER(p1, s1) / NUMBER(p2, s2) "
    "(integers and decimal literals such as 1.5 included) is a NUMBER of scale max(s1, "
    "min(s1 + 6, 12)), its last digit rounded half away from zero, worked out the same way "
    "(an operand of unknown scale, or scales that leave Spark's 38 digits no room, refused). "
    "The other dialects document a result type but not how its last digit is rounded "
    "(Oracle: a decimal floating point of 38 digits): refused; CAST an operand to DOUBLE "
    "PRECISION to divide in binary floating point.",
    (
        (
            "teradata",
            "SELECT o_totalprice / 3 AS t FROM SALES_DB.ORDERS",
            'SELECT CAST(CAST(CASE WHEN NOT (CAST((CAST(CAST("orders"."o_totalprice" AS DECIMAL(34, 2)) * 100 AS DECIMAL(38, 0)) - MOD(CAST(CAST("orders"."o_totalprice" AS DECIMAL(34, 2)) * 100 AS DECIMAL(38, 0)), CAST(3 AS DECIMAL(38, 0)))) / CAST(3 AS DECIMAL(38, 0)) AS DECIMAL(38, 0)) + CAST(((CAST(CAST("orders"."o_totalprice" AS DECIMAL(34, 2)) * 100 AS DECIMAL(38, 0)) - MOD(CAST(CAST("orders"."o_totalprice" AS DECIMAL(34, 2)) * 100 AS DECIMAL(38, 0)), CAST(3 AS DECIMAL(38, 0)))) - CAST((CAST(CAST("orders"."o_totalprice" AS DECIMAL(34, 2)) * 100 AS DECIMAL(38, 0)) - MOD(CAST(CAST("orders"."o_totalprice" AS DECIMAL(34, 2)) * 100 AS DECIMAL(38, 0)), CAST(3 AS DECIMAL(38, 0)))) / CAST(3 AS DECIMAL(38, 0)) AS DECIMAL(38, 0)) * CAST(3 AS DECIMAL(38, 0))) / CAST(3 AS DECIMAL(38, 0)) AS DECIMAL(38, 0))) * CAST(3 AS DECIMAL(38, 0)) = (CAST(CAST("orders"."o_totalprice" AS DECIMAL(34, 2)) * 100 AS DECIMAL(38, 0)) - MOD(CAST(CAST("orders"."o_totalprice" AS DECIMAL(34, 2)) * 100 AS DECIMAL(38, 0)), CAST(3 AS DECIMAL(38, 0)))) THEN RAISE_ERROR(\'DIV-DECIMAL: the exact quotient is beyond what this engine divides exactly\') ELSE CAST((CAST((CAST(CAST("orders"."o_totalprice" AS DECIMAL(34, 2)) * 100 AS DECIMAL(38, 0)) - MOD(CAST(CAST("orders"."o_totalprice" AS DECIMAL(34, 2)) * 100 AS DECIMAL(38, 0)), CAST(3 AS DECIMAL(38, 0)))) / CAST(3 AS DECIMAL(38, 0)) AS DECIMAL(38, 0)) + CAST(((CAST(CAST("orders"."o_totalprice" AS DECIMAL(34, 2)) * 100 AS DECIMAL(38, 0)) - MOD(CAST(CAST("orders"."o_totalprice" AS DECIMAL(34, 2)) * 100 AS DECIMAL(38, 0)), CAST(3 AS DECIMAL(38, 0)))) - CAST((CAST(CAST("orders"."o_totalprice" AS DECIMAL(34, 2)) * 100 AS DECIMAL(38, 0)) - MOD(CAST(CAST("orders"."o_totalprice" AS DECIMAL(34, 2)) * 100 AS DECIMAL(38, 0)), CAST(3 AS DECIMAL(38, 0)))) / CAST(3 AS DECIMAL(38, 0)) AS DECIMAL(38, 0)) * CAST(3 AS DECIMAL(38, 0))) / CAST(3 AS DECIMAL(38, 0)) AS DECIMAL(38, 0))) + CASE WHEN (2 * ABS(MOD(CAST(CAST("orders"."o_totalprice" AS DECIMAL(34, 2)) * 100 AS DECIMAL(38, 0)), CAST(3 AS DECIMAL(38, 0)))) > ABS(CAST(3 AS DECIMAL(38, 0))) OR (2 * ABS(MOD(CAST(CAST("orders"."o_totalprice" AS DECIMAL(34, 2)) * 100 AS DECIMAL(38, 0)), CAST(3 AS DECIMAL(38, 0)))) = ABS(CAST(3 AS DECIMAL(38, 0))) AND MOD((CAST(CAST("orders"."o_totalprice" AS DECIMAL(34, 2)) * 100 AS DECIMAL(38, 0)) - MOD(CAST(CAST("orders"."o_totalprice" AS DECIMAL(34, 2)) * 100 AS DECIMAL(38, 0)), CAST(3 AS DECIMAL(38, 0)))), (2 * CAST(3 AS DECIMAL(38, 0)))) <> 0)) AND (MOD(CAST(CAST("orders"."o_totalprice" AS DECIMAL(34, 2)) * 100 AS DECIMAL(38, 0)), CAST(3 AS DECIMAL(38, 0))) < 0 AND CAST(3 AS DECIMAL(38, 0)) > 0 OR MOD(CAST(CAST("orders"."o_totalprice" AS DECIMAL(34, 2)) * 100 AS DECIMAL(38, 0)), CAST(3 AS DECIMAL(38, 0))) > 0 AND CAST(3 AS DECIMAL(38, 0)) < 0) THEN -1 WHEN 2 * ABS(MOD(CAST(CAST("orders"."o_totalprice" AS DECIMAL(34, 2)) * 100 AS DECIMAL(38, 0)), CAST(3 AS DECIMAL(38, 0)))) > ABS(CAST(3 AS DECIMAL(38, 0))) OR (2 * ABS(MOD(CAST(CAST("orders"."o_totalprice" AS DECIMAL(34, 2)) * 100 AS DECIMAL(38, 0)), CAST(3 AS DECIMAL(38, 0)))) = ABS(CAST(3 AS DECIMAL(38, 0))) AND MOD((CAST(CAST("orders"."o_totalprice" AS DECIMAL(34, 2)) * 100 AS DECIMAL(38, 0)) - MOD(CAST(CAST("orders"."o_totalprice" AS DECIMAL(34, 2)) * 100 AS DECIMAL(38, 0)), CAST(3 AS DECIMAL(38, 0)))), (2 * CAST(3 AS DECIMAL(38, 0)))) <> 0) THEN 1 ELSE 0 END AS DECIMAL(38, 0)) END AS DECIMAL(35, 0)) * 0.01 AS DECIMAL(38, 2)) AS "t" FROM "raw"."orders" AS "orders"',
        ),
    ),
    phase="final",
)
def decimal_quotient(node: exp.Expr, ctx: Context) -> exp.Expr | None:
    if not _has_decimal_operand(node, ctx):
        return None
    return decimal_division(node, node.this, node.expression, ctx, "DIV-DECIMAL")


@rule(
    "DIV-ROUNDED",
    "rewrite",
    ("oracle",),
    (exp.Round, exp.Trunc),
    "Oracle divides NUMBERs, integers included, in decimal floating point of 38 significant "
    "digits (1/3 is .3333333333333333333333333333333333333333), which no DECIMAL(p, s) holds: "
    "a bare quotient or AVG of exact numbers is refused (DIV-INTEGER, DIV-DECIMAL, "
    "AVG-DECIMAL). ROUND(a / b, n) and ROUND(AVG(x), n) (or AVG(x) OVER w), n an integer "
    "literal of 0 to 36 "
    "(TRUNC likewise, and either times a power of ten: ROUND(a / b * 100, 2)), are the exact "
    "quotient (AVG: SUM(x) / COUNT(x)) rounded half away from "
    "zero (Oracle's ROUND of a NUMBER) or truncated to n places: DECIMAL(38, n), worked out "
    "in whole units with MOD (sql/rules/exact_division.py). Oracle rounds the quotient to "
    "its 38 digits before ROUND does, which gives another result only where the exact "
    "quotient is within a unit of its 38th digit of a rounding boundary: never, for a "
    "dividend under 10^36 in units of the quotient's last place, beyond which the statement "
    "stops (an overflow).",
    (
        (
            "oracle",
            "SELECT ROUND(AVG(o_shippriority), 2) AS a FROM SALES.ORDERS",
            'SELECT CAST(CAST(CASE WHEN NOT (CAST((CAST(CAST(SUM("orders"."o_shippriority") AS DECIMAL(34, 0)) * 100 AS DECIMAL(38, 0)) - MOD(CAST(CAST(SUM("orders"."o_shippriority") AS DECIMAL(34, 0)) * 100 AS DECIMAL(38, 0)), CAST(NULLIF(COUNT("orders"."o_shippriority"), 0) AS DECIMAL(38, 0)))) / CAST(NULLIF(COUNT("orders"."o_shippriority"), 0) AS DECIMAL(38, 0)) AS DECIMAL(38, 0)) + CAST(((CAST(CAST(SUM("orders"."o_shippriority") AS DECIMAL(34, 0)) * 100 AS DECIMAL(38, 0)) - MOD(CAST(CAST(SUM("orders"."o_shippriority") AS DECIMAL(34, 0)) * 100 AS DECIMAL(38, 0)), CAST(NULLIF(COUNT("orders"."o_shippriority"), 0) AS DECIMAL(38, 0)))) - CAST((CAST(CAST(SUM("orders"."o_shippriority") AS DECIMAL(34, 0)) * 100 AS DECIMAL(38, 0)) - MOD(CAST(CAST(SUM("orders"."o_shippriority") AS DECIMAL(34, 0)) * 100 AS DECIMAL(38, 0)), CAST(NULLIF(COUNT("orders"."o_shippriority"), 0) AS DECIMAL(38, 0)))) / CAST(NULLIF(COUNT("orders"."o_shippriority"), 0) AS DECIMAL(38, 0)) AS DECIMAL(38, 0)) * CAST(NULLIF(COUNT("orders"."o_shippriority"), 0) AS DECIMAL(38, 0))) / CAST(NULLIF(COUNT("orders"."o_shippriority"), 0) AS DECIMAL(38, 0)) AS DECIMAL(38, 0))) * CAST(NULLIF(COUNT("orders"."o_shippriority"), 0) AS DECIMAL(38, 0)) = (CAST(CAST(SUM("orders"."o_shippriority") AS DECIMAL(34, 0)) * 100 AS DECIMAL(38, 0)) - MOD(CAST(CAST(SUM("orders"."o_shippriority") AS DECIMAL(34, 0)) * 100 AS DECIMAL(38, 0)), CAST(NULLIF(COUNT("orders"."o_shippriority"), 0) AS DECIMAL(38, 0)))) THEN RAISE_ERROR(\'DIV-ROUNDED: the exact quotient is beyond what this engine divides exactly\') ELSE CAST((CAST((CAST(CAST(SUM("orders"."o_shippriority") AS DECIMAL(34, 0)) * 100 AS DECIMAL(38, 0)) - MOD(CAST(CAST(SUM("orders"."o_shippriority") AS DECIMAL(34, 0)) * 100 AS DECIMAL(38, 0)), CAST(NULLIF(COUNT("orders"."o_shippriority"), 0) AS DECIMAL(38, 0)))) / CAST(NULLIF(COUNT("orders"."o_shippriority"), 0) AS DECIMAL(38, 0)) AS DECIMAL(38, 0)) + CAST(((CAST(CAST(SUM("orders"."o_shippriority") AS DECIMAL(34, 0)) * 100 AS DECIMAL(38, 0)) - MOD(CAST(CAST(SUM("orders"."o_shippriority") AS DECIMAL(34, 0)) * 100 AS DECIMAL(38, 0)), CAST(NULLIF(COUNT("orders"."o_shippriority"), 0) AS DECIMAL(38, 0)))) - CAST((CAST(CAST(SUM("orders"."o_shippriority") AS DECIMAL(34, 0)) * 100 AS DECIMAL(38, 0)) - MOD(CAST(CAST(SUM("orders"."o_shippriority") AS DECIMAL(34, 0)) * 100 AS DECIMAL(38, 0)), CAST(NULLIF(COUNT("orders"."o_shippriority"), 0) AS DECIMAL(38, 0)))) / CAST(NULLIF(COUNT("orders"."o_shippriority"), 0) AS DECIMAL(38, 0)) AS DECIMAL(38, 0)) * CAST(NULLIF(COUNT("orders"."o_shippriority"), 0) AS DECIMAL(38, 0))) / CAST(NULLIF(COUNT("orders"."o_shippriority"), 0) AS DECIMAL(38, 0)) AS DECIMAL(38, 0))) + CASE WHEN (2 * ABS(MOD(CAST(CAST(SUM("orders"."o_shippriority") AS DECIMAL(34, 0)) * 100 AS DECIMAL(38, 0)), CAST(NULLIF(COUNT("orders"."o_shippriority"), 0) AS DECIMAL(38, 0)))) >= ABS(CAST(NULLIF(COUNT("orders"."o_shippriority"), 0) AS DECIMAL(38, 0)))) AND (MOD(CAST(CAST(SUM("orders"."o_shippriority") AS DECIMAL(34, 0)) * 100 AS DECIMAL(38, 0)), CAST(NULLIF(COUNT("orders"."o_shippriority"), 0) AS DECIMAL(38, 0))) < 0 AND CAST(NULLIF(COUNT("orders"."o_shippriority"), 0) AS DECIMAL(38, 0)) > 0 OR MOD(CAST(CAST(SUM("orders"."o_shippriority") AS DECIMAL(34, 0)) * 100 AS DECIMAL(38, 0)), CAST(NULLIF(COUNT("orders"."o_shippriority"), 0) AS DECIMAL(38, 0))) > 0 AND CAST(NULLIF(COUNT("orders"."o_shippriority"), 0) AS DECIMAL(38, 0)) < 0) THEN -1 WHEN 2 * ABS(MOD(CAST(CAST(SUM("orders"."o_shippriority") AS DECIMAL(34, 0)) * 100 AS DECIMAL(38, 0)), CAST(NULLIF(COUNT("orders"."o_shippriority"), 0) AS DECIMAL(38, 0)))) >= ABS(CAST(NULLIF(COUNT("orders"."o_shippriority"), 0) AS DECIMAL(38, 0))) THEN 1 ELSE 0 END AS DECIMAL(38, 0)) END AS DECIMAL(35, 0)) * 0.01 AS DECIMAL(38, 2)) AS "a" FROM "raw"."orders" AS "orders"',
        ),
    ),
    phase="final",
)
def rounded_quotient(node: exp.Expr, ctx: Context) -> exp.Expr | None:
    """Oracle's ROUND(x, n) or TRUNC(x, n) of a quotient or average of exact numbers, exact.

    Oracle's x is the exact quotient q rounded to (at least) 38 significant digits, q', and
    its ROUND or TRUNC of q' differs from that of q only where a boundary of the rounding
    (a half at place n + 1, or a whole unit at place n) lies between q and q'. In units of
    10^-(n + 1), q is N / D with N, D whole, and |q' - q| < |q| * 10^-37 = |N| / D * 10^-37;
    a boundary H is whole, and unless q = H, |q - H| = |N - H * D| / D >= 1 / D. So where
    |N| < 10^37 no boundary lies between them (and q = H has at most 37 digits, which q'
    keeps exactly). exact_quotient's dividend in units of 10^-n is under 10^36 (or the
    statement stops), so N, ten times it, is under 10^37: the rounded exact quotient is
    Oracle's value."""
    places = rounded_places(node)
    if places is None or not rounds_a_quotient(node, ctx):
        return None
    # (a / b) * 10^k: Oracle's quotient q', 38 digits, times 10^k is q' with its point moved,
    # no digit more to round; ROUND of it is ROUND of (a * 10^k) / b's 38 digits, below.
    argument, shift = _scaled(node.this)
    if isinstance(argument, exp.Div):
        dividend, divisor = argument.this, argument.expression
        scales = _scale(dividend, ctx), _scale(divisor, ctx)
        dividend, divisor = paren(clone(dividend)), paren(clone(divisor))
    else:
        # AVG(x), or AVG(x) OVER w: SUM(x) and COUNT(x), over the same window.
        window = argument if isinstance(argument, exp.Window) else None
        average = argument.this if window is not None else argument
        value = _averaged(average)

        def over(function: type[exp.Expr]) -> exp.Expr:
            if isinstance(average.this, exp.Distinct):
                call = function(this=exp.Distinct(expressions=[clone(value)]))
            else:
                call = function(this=clone(value))
            if window is None:
                return call
            framed = clone(window)
            framed.set("this", call)
            return framed

        scales = _scale(value, ctx), 0
        dividend = over(exp.Sum)
        divisor = exp.Nullif(this=over(exp.Count), expression=lit(0))
    if shift:
        dividend = exp.Mul(this=dividend, expression=lit(10**shift))
    if scales[0] is None or scales[1] is None:
        ctx.report(
            "error",
            "DIV-ROUNDED",
            node,
            "cannot tell the scale of this quotient's operands; CAST them to the NUMBER(p, s) "
            "intended",
        )
        return node
    if max(scales[0], places + scales[1]) == 0:
        # exact_quotient leaves a whole dividend as it is: kept under 10^36 here too
        dividend = exp.Cast(this=dividend, to=exp.DataType.build("DECIMAL(36, 0)"))
    rounding = "truncate" if isinstance(node, exp.Trunc) else "half_away"
    quotient = exact_quotient(
        dividend, scales[0], divisor, scales[1], places, rounding, "DIV-ROUNDED", node
    )
    if quotient is None:
        ctx.report(
            "error",
            "DIV-ROUNDED",
            node,
            f"{places} places of a quotient of operands of scales {scales[0]} and "
            f"{scales[1]} leave no exact form on Spark (its products keep 38 digits); ROUND "
            "to fewer places",
        )
        return node
    return quotient


def rounds_a_quotient(node: exp.Round, ctx: Context) -> bool:
    """Whether DIV-ROUNDED takes this ROUND (FN-ROUND leaves it)."""
    if not semantics(ctx.dialect).QUOTIENT_IS_DECIMAL_FLOAT or rounded_places(node) is None:
        return False
    argument, _ = _scaled(node.this)
    if isinstance(argument, exp.Window) and isinstance(argument.this, exp.Avg):
        argument = argument.this
    if isinstance(argument, exp.Div):
        operands = (argument.this, argument.expression)
    elif isinstance(argument, exp.Avg):
        operands = (_averaged(argument),)
    else:
        return False
    return all(operand_type(operand, ctx) in EXACT_TYPES for operand in operands)


@rule(
    "FN-SAFE-DIVIDE",
    "rewrite",
    ("bigquery",),
    (exp.SafeDivide,),
    "SAFE_DIVIDE(a, b) becomes CASE WHEN b = 0 THEN NULL ELSE a / b END, dividing as BigQuery does.",
    (
        (
            "bigquery",
            "SELECT SAFE_DIVIDE(o_orderkey, o_shippriority) AS r FROM sales.orders",
            'SELECT CASE WHEN "orders"."o_shippriority" = 0 THEN NULL ELSE CAST("orders"."o_orderkey" AS DOUBLE PRECISION) / "orders"."o_shippriority" END AS "r" FROM "raw"."orders" AS "orders"',
        ),
    ),
    phase="final",
)
def safe_divide(node: exp.Expr, ctx: Context) -> exp.Expr | None:
    quotient = exact_division(node, node.this, node.expression, ctx, "FN-SAFE-DIVIDE")
    if quotient is None:
        return None
    zero = exp.EQ(this=clone(node.expression), expression=lit(0))
    return case_when(zero, exp.Null(), quotient)


@rule(
    "FN-INTDIV",
    "rewrite",
    ("bigquery", "snowflake"),
    (exp.IntDiv,),
    "DIV(a, b) on integers rounds toward zero: CAST((a - MOD(a, b)) / b AS BIGINT).",
    (
        (
            "bigquery",
            "SELECT DIV(o_orderkey, 7) AS week_bucket FROM sales.orders",
            'SELECT CAST(CASE WHEN NOT (CAST((CAST("orders"."o_orderkey" AS DECIMAL(38, 0)) - MOD(CAST("orders"."o_orderkey" AS DECIMAL(38, 0)), CAST(7 AS DECIMAL(38, 0)))) / CAST(7 AS DECIMAL(38, 0)) AS DECIMAL(38, 0)) + CAST(((CAST("orders"."o_orderkey" AS DECIMAL(38, 0)) - MOD(CAST("orders"."o_orderkey" AS DECIMAL(38, 0)), CAST(7 AS DECIMAL(38, 0)))) - CAST((CAST("orders"."o_orderkey" AS DECIMAL(38, 0)) - MOD(CAST("orders"."o_orderkey" AS DECIMAL(38, 0)), CAST(7 AS DECIMAL(38, 0)))) / CAST(7 AS DECIMAL(38, 0)) AS DECIMAL(38, 0)) * CAST(7 AS DECIMAL(38, 0))) / CAST(7 AS DECIMAL(38, 0)) AS DECIMAL(38, 0))) * CAST(7 AS DECIMAL(38, 0)) = (CAST("orders"."o_orderkey" AS DECIMAL(38, 0)) - MOD(CAST("orders"."o_orderkey" AS DECIMAL(38, 0)), CAST(7 AS DECIMAL(38, 0)))) THEN RAISE_ERROR(\'FN-INTDIV: the exact quotient is beyond what this engine divides exactly\') ELSE (CAST((CAST("orders"."o_orderkey" AS DECIMAL(38, 0)) - MOD(CAST("orders"."o_orderkey" AS DECIMAL(38, 0)), CAST(7 AS DECIMAL(38, 0)))) / CAST(7 AS DECIMAL(38, 0)) AS DECIMAL(38, 0)) + CAST(((CAST("orders"."o_orderkey" AS DECIMAL(38, 0)) - MOD(CAST("orders"."o_orderkey" AS DECIMAL(38, 0)), CAST(7 AS DECIMAL(38, 0)))) - CAST((CAST("orders"."o_orderkey" AS DECIMAL(38, 0)) - MOD(CAST("orders"."o_orderkey" AS DECIMAL(38, 0)), CAST(7 AS DECIMAL(38, 0)))) / CAST(7 AS DECIMAL(38, 0)) AS DECIMAL(38, 0)) * CAST(7 AS DECIMAL(38, 0))) / CAST(7 AS DECIMAL(38, 0)) AS DECIMAL(38, 0))) END AS BIGINT) AS "week_bucket" FROM "raw"."orders" AS "orders"',
        ),
    ),
    phase="final",
)
def integer_div(node: exp.Expr, ctx: Context) -> exp.Expr | None:
    if type_of(node.this) not in INTEGER_TYPES or type_of(node.expression) not in INTEGER_TYPES:
        ctx.report("error", "FN-INTDIV", node, "DIV is translated for integer operands only")
        return None
    return truncated_quotient(node.this, node.expression, "BIGINT", "FN-INTDIV", node)
