"""Conversion functions whose meaning is a standard CAST: Snowflake's TO_NUMBER family.

Snowflake documents ``TO_NUMBER(x)`` (``TO_DECIMAL``, ``TO_NUMERIC``) as the conversion that
``CAST(x AS NUMBER(p, s))`` and ``x::NUMBER(p, s)`` perform: NUMBER(38, 0) unless a precision
and scale are given, a string that is not a number is an error, and a value with more
fractional digits than the scale is rounded half away from zero
(https://docs.snowflake.com/en/sql-reference/functions/to_decimal). ANSI CAST to DECIMAL(p, s)
fails on the same malformed strings and out-of-range values, and DuckDB and Spark (ANSI mode)
round half away from zero too (tests/sql/rules/test_conversions.py), so the function is that
CAST, which then follows the CAST rules like any written cast. The TRY_ forms are TRY_CAST,
left to FN-TRY-CAST-NUMBER (sql/rules/safe_casts.py) for a string.

Oracle's and Teradata's TO_NUMBER(x) return NUMBER without a precision, a floating decimal
with no exact ANSI type. Oracle's of text is read under a stated assumption, the number of
decimal places its numbers have (``oracle_number_scale``): CAST(x AS DECIMAL(38, scale)), with
a warning naming it; of anything else, and Teradata's, it is refused. A format model
(TO_NUMBER(s, '999.99'), Redshift's only form) parses by the model's own rules: refused.
"""

from __future__ import annotations

from sqlglot import exp

from sql.rules.base import Context, rule
from sql.rules.build import STRING_TYPES, clone, integer_literal, type_of
from sql.source_dialects import semantics


def _decimal(precision: int, scale: int) -> exp.DataType:
    return exp.DataType(
        this=exp.DType.DECIMAL,
        expressions=[
            exp.DataTypeParam(this=exp.Literal.number(precision)),
            exp.DataTypeParam(this=exp.Literal.number(scale)),
        ],
        nested=False,
    )


@rule(
    "FN-TO-NUMBER",
    "rewrite",
    ("snowflake",),
    (exp.ToNumber,),
    "Snowflake's TO_NUMBER / TO_DECIMAL / TO_NUMERIC(x [, p [, s]]) without a format is "
    "CAST(x AS DECIMAL(p, s)) (DECIMAL(38, 0) by default), as Snowflake documents: a string "
    "that is not a number is an error, extra fractional digits are rounded half away from "
    "zero, in Snowflake as in the engines; the CAST rules then apply. TRY_TO_NUMBER and its "
    "synonyms are TRY_CAST (FN-TRY-CAST-NUMBER for a string, FN-TRY-CAST otherwise).",
    (
        (
            "snowflake",
            "SELECT TO_NUMBER(o_clerk) AS n, TO_DECIMAL(o_comment, 10, 2) AS d FROM SALES.ORDERS",
            'SELECT CAST("orders"."o_clerk" AS DECIMAL(38, 0)) AS "n", '
            'CAST("orders"."o_comment" AS DECIMAL(10, 2)) AS "d" FROM "raw"."orders" AS "orders"',
        ),
    ),
    phase="syntax",
)
def to_number(node: exp.Expr, ctx: Context) -> exp.Expr | None:
    if node.args.get("format") is not None:
        return None  # FMT-TO-NUMBER
    precision = integer_literal(node.args.get("precision"))
    scale = integer_literal(node.args.get("scale"))
    if precision is None or scale is None:
        return None  # FMT-TO-NUMBER
    kind = exp.TryCast if node.args.get("safe") else exp.Cast
    converted = kind(this=clone(node.this), to=_decimal(precision, scale))
    # Still the source's conversion: the later phases' CAST rules apply to it.
    converted.meta.update(node.meta)
    converted.meta["source"] = True
    return converted


@rule(
    "FMT-TO-NUMBER",
    "refuse",
    ("snowflake", "teradata", "redshift"),
    (exp.ToNumber,),
    "TO_NUMBER with a format model (TO_NUMBER(s, '999.99'); Redshift's only form) parses the "
    "text by the model's own rules, which no CAST follows; Teradata's TO_NUMBER(x) returns "
    "NUMBER without a precision, a floating decimal with no exact ANSI type (Oracle's: "
    "ORA-TO-NUMBER). Both are refused.",
    (
        ("snowflake", "SELECT TO_NUMBER(o_clerk, '999.99') AS n FROM SALES.ORDERS", "1:8"),
        ("teradata", "SELECT TO_NUMBER(o_clerk) AS n FROM sales.orders", "1:8"),
    ),
    phase="syntax",
)
def to_number_refused(node: exp.Expr, ctx: Context) -> exp.Expr | None:
    name = "TRY_TO_NUMBER" if node.args.get("safe") else "TO_NUMBER"
    if node.args.get("format") is not None:
        why = "a format model parses the text by its own rules, which no CAST follows"
    elif not semantics(ctx.dialect).TO_NUMBER_IS_INTEGER:
        why = (
            "it returns NUMBER without a precision, a floating decimal with no exact ANSI type; "
            "CAST to a NUMBER(p, s) instead"
        )
    else:
        why = "a precision or scale that is not a number literal"
    ctx.report("error", "FMT-TO-NUMBER", node, f"{name}: {why}")
    return None


@rule(
    "ORA-TO-NUMBER",
    "rewrite",
    ("oracle",),
    (exp.ToNumber,),
    "Oracle's TO_NUMBER(text) without a format returns NUMBER without a precision, a decimal "
    "floating point with no ANSI type; it becomes CAST(text AS DECIMAL(38, s)) under the "
    "stated assumption oracle_number_scale (s, 10 unless set: the decimal places the numbers "
    "have), with a warning naming it: digits past s are rounded half away from zero, and a "
    "number of more than 38 - s integer digits stops the query. Text Oracle reads as NULL "
    "('') is NULL. TO_NUMBER of a value that is not text, and with a format model (which "
    "parses the text by its own rules), is refused.",
    (
        (
            "oracle",
            "SELECT TO_NUMBER(o_clerk) AS n FROM SALES.ORDERS",
            'SELECT CAST("orders"."o_clerk" AS DECIMAL(38, 10)) AS "n" FROM (SELECT '
            'NULLIF("orders"."o_clerk", \'\') AS "o_clerk" FROM "raw"."orders" AS "orders") '
            'AS "orders"',
        ),
    ),
)
def oracle_to_number(node: exp.Expr, ctx: Context) -> exp.Expr | None:
    if node.args.get("format") is not None:
        ctx.report(
            "error",
            "ORA-TO-NUMBER",
            node,
            "TO_NUMBER: a format model parses the text by its own rules, which no CAST follows",
        )
        return None
    if type_of(node.this) not in STRING_TYPES:
        ctx.report(
            "error",
            "ORA-TO-NUMBER",
            node,
            "TO_NUMBER of a value that is not text returns NUMBER without a precision, a "
            "floating decimal with no exact ANSI type; CAST to a NUMBER(p, s) instead",
        )
        return None
    scale = ctx.assume("oracle_number_scale")
    ctx.report(
        "warning",
        "ORA-TO-NUMBER",
        node,
        f"TO_NUMBER reads the text as DECIMAL(38, {scale}): Oracle's NUMBER has no ANSI type, "
        f"and its numbers are assumed to have at most {scale} decimal places "
        f"(oracle_number_scale; more are rounded); {ctx.setting_note('oracle_number_scale')}",
        settings=("oracle_number_scale",),
    )
    converted = exp.Cast(this=clone(node.this), to=_decimal(38, scale))
    # Still a conversion of the source's: the later phases' CAST rules apply to it.
    converted.meta.update(node.meta)
    converted.meta["source"] = True
    return converted
