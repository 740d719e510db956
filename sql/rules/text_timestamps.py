"""TO_TIMESTAMP of a string with a format of fixed-width digit fields, read field by field.

``TO_TIMESTAMP(s, 'YYYY-MM-DD HH24:MI:SS')`` reads text whose every field has the format's
width the same way in every source and engine: the ISO text built from the fields, cast to
TIMESTAMP (which checks each field's range). Text of another shape (fewer digits, other
separators) is read by rules of each source's own (Snowflake and Oracle apply formats
leniently), so it is turned into a string no engine reads as a timestamp: the CAST raises,
as FMT-TO-DATE does for dates.
"""

from __future__ import annotations

from sqlglot import exp

from sql.rules.base import Context, rule
from sql.rules.build import cast, clone, lit, type_of
from sql.rules.dates import _mapping_is_ntz
from sql.rules.formats import TEXT_TYPES
from sql.source_dialects import semantics

# strftime code (as sqlglot reads each dialect's format model) -> (field, width).
FIELDS = {
    "%Y": ("year", 4),
    "%m": ("month", 2),
    "%d": ("day", 2),
    "%H": ("hour", 2),
    "%M": ("minute", 2),
    "%S": ("second", 2),
}
SEPARATORS = "-/.:, "
# The time fields a format may name: none, the hour, hour and minute, or all three.
TIME_PREFIXES = ((), ("hour",), ("hour", "minute"), ("hour", "minute", "second"))


class LayoutRefusal(ValueError):
    """A format this rule does not read; the message names the element."""


def layout_of(codes: str) -> tuple[list[str], dict[str, int]]:
    """What each position of the text must hold ("digit" or a separator) and the 1-based
    position of each field; raises LayoutRefusal for any other element, or fields missing."""
    layout: list[str] = []
    fields: dict[str, int] = {}
    position = 0
    while position < len(codes):
        code = codes[position : position + 2]
        if code in FIELDS:
            field, width = FIELDS[code]
            if field in fields:
                raise LayoutRefusal(f"'{code}' is given twice")
            fields[field] = len(layout) + 1
            layout.extend("digit" for _ in range(width))
            position += 2
        elif codes[position] in SEPARATORS:
            layout.append(codes[position])
            position += 1
        else:
            element = code if codes[position] == "%" else codes[position]
            raise LayoutRefusal(
                f"'{element}' is not a fixed-width year, month, day, 24-hour, minute or "
                "second element"
            )
    times = tuple(f for f in ("hour", "minute", "second") if f in fields)
    if not {"year", "month", "day"} <= fields.keys() or times not in TIME_PREFIXES:
        raise LayoutRefusal(
            "the format needs a year, a month and a day, and the hour before minutes and seconds"
        )
    return layout, fields


def text_to_timestamp(text: exp.Expr, codes: str) -> exp.Expr:
    """``text`` read as a TIMESTAMP by ``codes`` where it has exactly the format's shape and a
    year other than 0000; any other text becomes one no engine reads, so that the CAST
    raises."""
    layout, fields = layout_of(codes)
    checks: list[exp.Expr] = [
        exp.EQ(this=exp.Length(this=clone(text)), expression=lit(len(layout)))
    ]
    for position, kind in enumerate(layout, start=1):
        char = exp.Substring(this=clone(text), start=lit(position), length=lit(1))
        if kind == "digit":
            checks.append(exp.Between(this=char, low=lit("0"), high=lit("9")))
        else:
            checks.append(exp.EQ(this=char, expression=lit(kind)))

    def piece(field: str) -> exp.Expr:
        if field not in fields:
            return lit("00")
        width = FIELDS[next(c for c, (f, _) in FIELDS.items() if f == field)][1]
        return exp.Substring(this=clone(text), start=lit(fields[field]), length=lit(width))

    checks.append(exp.NEQ(this=piece("year"), expression=lit("0000")))
    # The time of day is checked here: DuckDB reads hour 24 as the next day's midnight.
    for field, highest in (("hour", "23"), ("minute", "59"), ("second", "59")):
        if field in fields:
            checks.append(exp.LTE(this=piece(field), expression=lit(highest)))
    parts: list[exp.Expr] = [
        piece("year"),
        lit("-"),
        piece("month"),
        lit("-"),
        piece("day"),
        lit(" "),
        piece("hour"),
        lit(":"),
        piece("minute"),
        lit(":"),
        piece("second"),
    ]
    iso = parts[0]
    for part in parts[1:]:
        iso = exp.DPipe(this=iso, expression=part)
    valid = checks[0]
    for check in checks[1:]:
        valid = exp.And(this=valid, expression=check)
    unreadable = exp.DPipe(this=lit("not a timestamp in the format: "), expression=clone(text))
    return cast(exp.Case(ifs=[exp.If(this=valid, true=iso)], default=unreadable), "TIMESTAMP")


@rule(
    "FMT-TO-TIMESTAMP",
    "rewrite",
    ("snowflake", "oracle"),
    (exp.StrToTime,),
    "TO_TIMESTAMP(s, 'YYYY-MM-DD HH24:MI:SS') of a string (Oracle; Snowflake's TO_TIMESTAMP_NTZ, "
    "and TO_TIMESTAMP under the assumed TIMESTAMP_TYPE_MAPPING = TIMESTAMP_NTZ, a warning), "
    "with a format of YYYY, MM, DD and optionally HH24, MI, SS, each once, and - / . : , or "
    "space between, becomes the CAST to TIMESTAMP of the ISO text built from the fields, when "
    "the text has exactly the format's width, digits and separators and a year other than "
    "0000, and a time of day up to 23:59:59: that text reads as the same moment everywhere. "
    "Other text, which each source "
    "reads by lenient rules of its own, raises, as a field out of range does. Other elements "
    "(12-hour clocks, fractions, names, zones), TRY_TO_TIMESTAMP and the session-zoned "
    "TO_TIMESTAMP_LTZ / _TZ are refused.",
    (
        (
            "oracle",
            "SELECT TO_TIMESTAMP(o_clerk, 'YYYY-MM-DD HH24:MI') AS t FROM SALES.ORDERS",
            'SELECT CAST(CASE WHEN CHAR_LENGTH("orders"."o_clerk") = 16 AND '
            "SUBSTRING(\"orders\".\"o_clerk\" FROM 1 FOR 1) BETWEEN '0' AND '9' AND "
            "SUBSTRING(\"orders\".\"o_clerk\" FROM 2 FOR 1) BETWEEN '0' AND '9' AND "
            "SUBSTRING(\"orders\".\"o_clerk\" FROM 3 FOR 1) BETWEEN '0' AND '9' AND "
            "SUBSTRING(\"orders\".\"o_clerk\" FROM 4 FOR 1) BETWEEN '0' AND '9' AND "
            'SUBSTRING("orders"."o_clerk" FROM 5 FOR 1) = \'-\' AND SUBSTRING("orders"."o_clerk" '
            "FROM 6 FOR 1) BETWEEN '0' AND '9' AND SUBSTRING(\"orders\".\"o_clerk\" FROM 7 FOR 1) "
            "BETWEEN '0' AND '9' AND SUBSTRING(\"orders\".\"o_clerk\" FROM 8 FOR 1) = '-' AND "
            "SUBSTRING(\"orders\".\"o_clerk\" FROM 9 FOR 1) BETWEEN '0' AND '9' AND "
            "SUBSTRING(\"orders\".\"o_clerk\" FROM 10 FOR 1) BETWEEN '0' AND '9' AND "
            'SUBSTRING("orders"."o_clerk" FROM 11 FOR 1) = \' \' AND SUBSTRING("orders"."o_clerk" '
            "FROM 12 FOR 1) BETWEEN '0' AND '9' AND SUBSTRING(\"orders\".\"o_clerk\" FROM 13 FOR 1) "
            "BETWEEN '0' AND '9' AND SUBSTRING(\"orders\".\"o_clerk\" FROM 14 FOR 1) = ':' AND "
            "SUBSTRING(\"orders\".\"o_clerk\" FROM 15 FOR 1) BETWEEN '0' AND '9' AND "
            "SUBSTRING(\"orders\".\"o_clerk\" FROM 16 FOR 1) BETWEEN '0' AND '9' AND "
            'SUBSTRING("orders"."o_clerk" FROM 1 FOR 4) <> \'0000\' AND '
            'SUBSTRING("orders"."o_clerk" FROM 12 FOR 2) <= \'23\' AND SUBSTRING("orders"."o_clerk"'
            " FROM 15 FOR 2) <= '59' THEN SUBSTRING(\"orders\".\"o_clerk\" FROM 1 FOR 4) || '-' || "
            'SUBSTRING("orders"."o_clerk" FROM 6 FOR 2) || \'-\' || SUBSTRING("orders"."o_clerk" '
            "FROM 9 FOR 2) || ' ' || SUBSTRING(\"orders\".\"o_clerk\" FROM 12 FOR 2) || ':' || "
            "SUBSTRING(\"orders\".\"o_clerk\" FROM 15 FOR 2) || ':' || '00' ELSE 'not a timestamp in "
            'the format: \' || "orders"."o_clerk" END AS TIMESTAMP) AS "t" FROM (SELECT '
            'NULLIF("orders"."o_clerk", \'\') AS "o_clerk" FROM "raw"."orders" AS "orders") AS '
            '"orders"',
        ),
    ),
)
def to_timestamp(node: exp.Expr, ctx: Context) -> exp.Expr | None:
    model = node.args.get("format")
    if not (isinstance(model, exp.Literal) and model.is_string) or node.args.get("safe"):
        return None  # a run-time format, TRY_TO_TIMESTAMP: left to the refusals
    if type_of(node.this) not in TEXT_TYPES:
        return None
    if semantics(ctx.dialect).TIMESTAMP_FOLLOWS_TYPE_MAPPING:
        target = node.args.get("target_type")
        kind = target.this if target is not None else None
        if kind == exp.DType.TIMESTAMP:
            if not _mapping_is_ntz("TO_TIMESTAMP", node, ctx):
                return node
        elif kind != exp.DType.TIMESTAMPNTZ:
            return None  # LTZ / TZ: the session time zone, refused as a format conversion
    try:
        return text_to_timestamp(node.this, model.name)
    except LayoutRefusal as refusal:
        ctx.report("error", "FMT-TO-TIMESTAMP", node, str(refusal))
        return node
