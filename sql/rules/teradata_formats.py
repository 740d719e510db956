"""Teradata's TO_CHAR without a format, and text read as a TIME by a FORMAT phrase.

TO_CHAR(Numeric) without a format converts the number "to a string exactly long enough to
hold its significant digits" (Teradata Vantage, Data Types and Literals, TO_CHAR(Numeric)):
for an integer, its digits after a minus sign where negative, which is what CAST to VARCHAR
prints on both engines. Where the digits of a decimal or a float stop, and how TO_CHAR of a
date or time prints without a format, the documentation does not say: those are refused,
naming what is missing. (TO_CHAR with a format is sql/rules/formats.py's.)
"""

from __future__ import annotations

from sqlglot import exp

from sql.rules.base import Context, rule
from sql.rules.build import INTEGER_TYPES, TIMESTAMP_TYPES, type_of

# Types TO_CHAR(DateTime) takes (Teradata: DATE, TIMESTAMP, TIMESTAMP WITH TIME ZONE).
_DATETIME_TYPES = {exp.DType.DATE, exp.DType.TIMESTAMPTZ, *TIMESTAMP_TYPES}
# Types neither TO_CHAR(Numeric) nor TO_CHAR(DateTime) takes: Teradata does not convert them
# implicitly for a function of its embedded services.
_NOT_TAKEN = {
    exp.DType.TIME: "a TIME",
    exp.DType.TIMETZ: "a TIME WITH TIME ZONE",
    exp.DType.INTERVAL: "an INTERVAL",
}
_INEXACT_NUMBERS = {exp.DType.DECIMAL, exp.DType.DOUBLE, exp.DType.FLOAT}


@rule(
    "TD-TO-CHAR",
    "rewrite",
    ("teradata",),
    (exp.ToChar,),
    "Teradata's TO_CHAR(n) of an integer without a format is the text of its significant "
    "digits (a minus sign before a negative one): CAST(n AS VARCHAR), which both engines "
    "print alike. Refused, naming what is missing: TO_CHAR without a format of a DECIMAL or "
    "a FLOAT (where the digits stop is not documented) and of a DATE or TIMESTAMP (no "
    "documented default format), and TO_CHAR of a TIME or an INTERVAL, which Teradata's "
    "TO_CHAR does not take.",
    (
        (
            "teradata",
            "SELECT TO_CHAR(o_custkey) AS k FROM SALES_DB.ORDERS",
            'SELECT CAST("orders"."o_custkey" AS VARCHAR) AS "k" FROM "raw"."orders" AS "orders"',
        ),
    ),
    phase="typed",
)
def teradata_to_char(node: exp.Expr, ctx: Context) -> exp.Expr | None:
    value = node.this
    kind = type_of(value)
    if kind in _NOT_TAKEN:
        ctx.report(
            "error",
            "TD-TO-CHAR",
            node,
            f"TO_CHAR of {_NOT_TAKEN[kind]}: Teradata's TO_CHAR takes "
            "a number, a DATE or a TIMESTAMP, and fails on this; cast the value to one first",
        )
        return node
    if any(v is not None for key, v in node.args.items() if key != "this"):
        return None  # a format: FMT-DATETIME, else the FMT-TO-CHAR refusal
    if kind in INTEGER_TYPES:
        return exp.Cast(this=value.copy(), to=exp.DataType.build("VARCHAR"))
    if kind in _DATETIME_TYPES:
        why = (
            "Teradata's documentation gives TO_CHAR of a date or time no default format; "
            "write the format ('YYYY-MM-DD', 'YYYY-MM-DD HH24:MI:SS')"
        )
    elif kind in _INEXACT_NUMBERS:
        why = (
            "TO_CHAR of a DECIMAL or FLOAT without a format prints its significant digits by "
            "rules Teradata does not document (trailing zeros, exponents); write the format"
        )
    else:
        return None  # an unknown type: the FMT-TO-CHAR refusal
    ctx.report("error", "TD-TO-CHAR", node, f"TO_CHAR without a format: {why}")
    return node


@rule(
    "TD-TIME-FORMAT",
    "refuse",
    ("teradata",),
    (exp.StrToTime,),
    "Teradata's CAST(s AS TIME FORMAT '...') reads text as a TIME of day, a type Spark does "
    "not have (ANSI-UNSUPPORTED refuses TIME everywhere): refused by name.",
    (("teradata", "SELECT CAST('15h33m' AS TIME(0) FORMAT 'HHhMIm') AS t", "1:13"),),
    phase="typed",
)
def teradata_time_format(node: exp.Expr, ctx: Context) -> exp.Expr | None:
    target = node.args.get("target_type")
    if not (isinstance(target, exp.DataType) and target.this in _NOT_TAKEN):
        return None  # a TIMESTAMP: the FMT-TO-CHAR refusal
    ctx.report(
        "error",
        "TD-TIME-FORMAT",
        node,
        f"CAST(... AS {target.sql('teradata')} FORMAT '...') reads the text as a time of day: "
        "Spark has no TIME type, so no translation holds one; read it as a TIMESTAMP or keep "
        "the text",
    )
    return node
