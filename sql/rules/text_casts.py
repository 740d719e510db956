"""CAST of a string column to a date or time type: each dialect reads the text its own way.

A string *literal* is read here once, at translation (DATE-LITERAL); a column's strings are
read when the query runs, by rules that differ between the dialects and from the engines'.
DuckDB accepts ISO dates with one-digit months and days and surrounding blanks; Spark also
accepts partial dates ('2024' is 2024-01-01) and a 'T' after the day. So only a source whose
reading is one fixed format is translated, behind a guard that makes every other string fail
as it fails in the source.
"""

from __future__ import annotations

from sqlglot import exp

from sql.rules.base import ALL_DIALECTS, Context, rule
from sql.rules.build import STRING_TYPES, TIMESTAMP_TYPES, cast, clone, lit, type_of

TEMPORAL_TYPES = {
    exp.DType.DATE,
    exp.DType.TIME,
    exp.DType.TIMETZ,
    exp.DType.TIMESTAMPTZ,
    exp.DType.TIMESTAMPLTZ,
    exp.DType.TIMESTAMPNTZ,
    *TIMESTAMP_TYPES,
}

# How each dialect reads a string as a date or time, where that reading is not one format.
READINGS = {
    "snowflake": "DATE_INPUT_FORMAT / TIMESTAMP_INPUT_FORMAT (AUTO by default: several "
    "formats detected per value, and a string of digits read as seconds since 1970)",
    "tsql": "the session's DATEFORMAT and LANGUAGE ('01/02/2024' is January 2 or February 1)",
    "oracle": "NLS_DATE_FORMAT / NLS_TIMESTAMP_FORMAT",
    "teradata": "the column's or the session's FORMAT",
    "redshift": "its lenient date parser (many layouts, e.g. '20240105', 'Jan 5 2024')",
    "bigquery": "its canonical formats with optional fractions and zones",
}

# BigQuery's canonical DATE text, YYYY-[M]M-[D]D (year 1 to 9999): what it casts, and the
# only text the guard lets through to the engines, which read it the same way.
BIGQUERY_DATE = (
    "^([0-9]{3}[1-9]|[0-9]{2}[1-9][0-9]|[0-9][1-9][0-9]{2}|[1-9][0-9]{3})-[0-9]{1,2}-[0-9]{1,2}$"
)


def _text_to_temporal(node: exp.Expr) -> bool:
    """CAST(string value AS DATE / TIME / TIMESTAMP) of a value that is not a literal."""
    assert isinstance(node, exp.Cast)
    return (
        node.args["to"].this in TEMPORAL_TYPES
        and not isinstance(node.this, exp.Literal)
        and type_of(node.this) in STRING_TYPES
    )


@rule(
    "CAST-FROM-TEXT",
    "rewrite",
    ("bigquery",),
    (exp.Cast,),
    "BigQuery CAST(string AS DATE) reads only YYYY-[M]M-[D]D and raises on anything else; the "
    "engines read more (blanks, partial dates), so the string goes through a guard: "
    "CAST(CASE WHEN s IS NULL OR s LIKE_REGEX '<canonical>' THEN s ELSE '' END AS DATE), "
    "which raises wherever BigQuery does.",
    (
        (
            "bigquery",
            "SELECT CAST(o_comment AS DATE) AS d FROM sales.orders",
            'SELECT CAST(CASE WHEN "orders"."o_comment" IS NULL OR "orders"."o_comment" '
            f"LIKE_REGEX '{BIGQUERY_DATE}' THEN \"orders\".\"o_comment\" ELSE '' END AS DATE) "
            'AS "d" FROM "raw"."orders" AS "orders"',
        ),
    ),
    phase="final",
)
def bigquery_text_to_date(node: exp.Expr, ctx: Context) -> exp.Expr | None:
    if not _text_to_temporal(node) or node.args["to"].this != exp.DType.DATE:
        return None
    text = node.this
    canonical = exp.Or(
        this=exp.Is(this=clone(text), expression=exp.Null()),
        expression=exp.RegexpLike(this=clone(text), expression=lit(BIGQUERY_DATE)),
    )
    guarded = exp.Case(ifs=[exp.If(this=canonical, true=clone(text))], default=lit(""))
    return cast(guarded, "DATE")


@rule(
    "CAST-FROM-TEXT-SETTINGS",
    "refuse",
    ALL_DIALECTS,
    (exp.Cast,),
    "CAST of a string column to DATE, TIME or TIMESTAMP reads the text by the source's "
    "settings (Snowflake TIME_INPUT_FORMAT and the zoned types; its DATE and TIMESTAMP_NTZ are "
    "SF-AUTO-DATE; T-SQL DATEFORMAT / LANGUAGE, Oracle "
    "NLS_DATE_FORMAT, Teradata FORMAT, Redshift's lenient parser, BigQuery's canonical "
    "timestamp forms), which the engines' CAST does not share: refused (BigQuery DATE is "
    "CAST-FROM-TEXT). String literals are read at translation (DATE-LITERAL).",
    (
        ("snowflake", "SELECT o_comment::TIME AS d FROM SALES.ORDERS", "1:8"),
        ("tsql", "SELECT CAST(o_comment AS DATETIME) AS d FROM dbo.Orders", "1:13"),
    ),
    phase="final",
)
def text_to_temporal(node: exp.Expr, ctx: Context) -> exp.Expr | None:
    if not _text_to_temporal(node):
        return None
    ctx.report(
        "error",
        "CAST-FROM-TEXT-SETTINGS",
        node,
        f"{ctx.dialect} reads a string as {node.args['to'].sql().upper()} by "
        f"{READINGS[ctx.dialect]}; the engines read other strings, so the result would differ: "
        "parse it with an explicit format (TO_DATE(s, 'YYYY-MM-DD'), CONVERT with a style) "
        "or keep the column typed",
    )
    return node
