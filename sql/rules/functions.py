"""Common scalar and aggregate functions outside SQL:2016, rewritten to standard forms."""

from __future__ import annotations

from decimal import Decimal

from sqlglot import exp

from sql.rules.base import ALL_DIALECTS, Context, rule
from sql.rules.build import (
    INTEGER_TYPES,
    NUMERIC_TYPES,
    cast,
    clone,
    integer_literal,
    is_null,
    lit,
    type_of,
)
from sql.rules.case_sensitivity import collated_search
from sql.rules.division import rounds_a_quotient
from sql.source_dialects import semantics

MAX_GREATEST_ARGS = 4


def _pick(left: exp.Expr, right: exp.Expr, compare: type[exp.Expr], ignore_nulls: bool) -> exp.Expr:
    chosen = exp.If(this=compare(this=clone(left), expression=clone(right)), true=clone(left))
    if ignore_nulls:
        ifs = [
            exp.If(this=is_null(left), true=clone(right)),
            exp.If(this=is_null(right), true=clone(left)),
            chosen,
        ]
    else:
        either_null = exp.Or(this=is_null(left), expression=is_null(right))
        ifs = [exp.If(this=either_null, true=exp.Null()), chosen]
    return exp.Case(ifs=ifs, default=clone(right))


@rule(
    "FN-GREATEST-LEAST",
    "rewrite",
    ALL_DIALECTS,
    (exp.Greatest, exp.Least),
    f"GREATEST / LEAST of up to {MAX_GREATEST_ARGS} values becomes CASE, keeping the dialect's NULL "
    "rule: NULL if any argument is NULL (Snowflake, Oracle, BigQuery, Teradata), or NULLs "
    "ignored (T-SQL, Redshift).",
    (
        (
            "snowflake",
            "SELECT GREATEST(l_shipdate, l_commitdate) AS latest FROM SALES.LINEITEM",
            'SELECT CASE WHEN "lineitem"."l_shipdate" IS NULL OR "lineitem"."l_commitdate" IS NULL THEN NULL WHEN "lineitem"."l_shipdate" >= "lineitem"."l_commitdate" THEN "lineitem"."l_shipdate" ELSE "lineitem"."l_commitdate" END AS "latest" FROM "raw"."lineitem" AS "lineitem"',
        ),
    ),
)
def greatest_least(node: exp.Expr, ctx: Context) -> exp.Expr | None:
    values = [node.this, *node.expressions]
    if len(values) > MAX_GREATEST_ARGS:
        ctx.report("error", "FN-GREATEST-LEAST", node, f"more than {MAX_GREATEST_ARGS} arguments")
        return None
    # sqlglot's parser marks every GREATEST as ignoring NULLs where its dialect flag
    # LEAST_GREATEST_IGNORES_NULLS is set, which Oracle and Teradata keep from sqlglot's
    # default though their GREATEST is NULL when any argument is; the mark names an explicit
    # variant (Snowflake's GREATEST_IGNORE_NULLS) only where that flag is off.
    parser_marks_all = getattr(semantics(ctx.dialect), "LEAST_GREATEST_IGNORES_NULLS", True)
    explicit = bool(node.args.get("ignore_nulls")) and not parser_marks_all
    ignore_nulls = explicit or semantics(ctx.dialect).GREATEST_IGNORES_NULLS
    compare = exp.GTE if isinstance(node, exp.Greatest) else exp.LTE
    result = values[0]
    for value in values[1:]:
        result = _pick(result, value, compare, ignore_nulls)
    return result


def _as_flag(condition: exp.Expr) -> exp.Expr:
    # 1 for TRUE, 0 for FALSE, NULL for NULL: MAX/MIN over it is a NULL-aware OR/AND.
    return exp.Case(
        ifs=[
            exp.If(this=clone(condition), true=lit(1)),
            exp.If(this=exp.Not(this=exp.Paren(this=clone(condition))), true=lit(0)),
        ]
    )


@rule(
    "FN-BOOL-AGG",
    "rewrite",
    ("snowflake", "bigquery", "redshift"),
    (exp.LogicalOr, exp.LogicalAnd),
    "LOGICAL_OR / BOOLOR_AGG and LOGICAL_AND / BOOLAND_AGG become MAX / MIN over a 1/0 CASE "
    "compared with 1 (NULL for an empty or all-NULL group, as in the source).",
    (
        (
            "bigquery",
            "SELECT LOGICAL_OR(o_totalprice > 1000) AS any_big FROM sales.orders",
            'SELECT MAX(CASE WHEN "orders"."o_totalprice" > 1000 THEN 1 WHEN NOT ("orders"."o_totalprice" > 1000) THEN 0 END) = 1 AS "any_big" FROM "raw"."orders" AS "orders"',
        ),
    ),
)
def bool_agg(node: exp.Expr, ctx: Context) -> exp.Expr | None:
    aggregate = exp.Max if isinstance(node, exp.LogicalOr) else exp.Min
    return exp.EQ(this=aggregate(this=_as_flag(node.this)), expression=lit(1))


def _truncated(node: exp.Round, ctx: Context) -> exp.Expr | None:
    """T-SQL ROUND(x, n, f) with f not 0: x truncated toward zero to n decimal places (to
    10^-n when n is negative), as x - MOD(x, 10^-n) (MOD takes the dividend's sign, so the
    remainder removed is the digits past the n-th, whatever the sign), cast back to x's type
    as T-SQL keeps it. Exact for integers and decimals; a float's decimal digits are not
    exact binary fractions, so truncating one is refused."""
    value, places = node.this, integer_literal(node.args.get("decimals") or lit(0))
    value_type = node.this.type
    if places is None or value_type is None or type_of(value) not in NUMERIC_TYPES:
        ctx.report(
            "error",
            "FN-ROUND",
            node,
            "ROUND(x, n, 1) truncates: translated for an integer or decimal x and an integer "
            "literal n only",
        )
        return None
    if type_of(value) in (exp.DType.DOUBLE, exp.DType.FLOAT):
        ctx.report(
            "error",
            "FN-ROUND",
            node,
            "ROUND(x, n, 1) of a floating-point value truncates binary fractions whose "
            "decimal digits no standard form reproduces exactly",
        )
        return None
    scale = 0
    if type_of(value) == exp.DType.DECIMAL and len(value_type.expressions) == 2:
        scale = int(value_type.expressions[1].this.name)
    if places >= scale:
        return clone(value)  # no digits past the n-th to remove
    step = "1" + "0" * -places if places <= 0 else "0." + "0" * (places - 1) + "1"
    remainder = exp.Mod(this=clone(value), expression=exp.Literal.number(step))
    truncated = exp.Sub(this=clone(value), expression=remainder)
    # T-SQL's ROUND of a TINYINT or SMALLINT is an INT.
    small = value_type.this in (exp.DType.TINYINT, exp.DType.SMALLINT)
    return exp.Cast(this=truncated, to=exp.DataType.build("INT") if small else value_type.copy())


@rule(
    "FN-ROUND",
    "rewrite",
    ALL_DIALECTS,
    (exp.Round,),
    "ROUND(x[, n]) is kept for exact numerics with an integer n (half away from zero in every "
    "source and engine); a floating-point x to n places is ROUND(x * 10^n) / 10^n, which "
    "both engines compute alike (their ROUND(x, n) differ: DuckDB rounds the binary value, "
    "Spark the decimal text), with a warning for n <> 0, its ties as the dialect documents "
    "(Oracle's BINARY_DOUBLE to even; refused where undocumented); on "
    "dates (Oracle ROUND(date, fmt)) it is refused. T-SQL's ROUND(x, n, f) with f not 0 "
    "truncates: x - MOD(x, 10^-n) cast back to x's type, for an integer or decimal x and an "
    "integer literal n (a float, or a computed n or f, is refused); f = 0 is ROUND(x, n). "
    "Teradata rounds a DECIMAL halfway value as DBS Control's RoundHalfwayMagUp says, by "
    "default to the even digit (2.5 -> 2): a halfway value with an even kept digit is "
    "rounded as its truncation (CASE over MOD), under the "
    "teradata_round_halfway_mag_up assumption (a warning). Oracle's ROUND of a quotient or "
    "AVG of NUMBERs: DIV-ROUNDED.",
    (
        (
            "oracle",
            "SELECT ROUND(CAST(o_totalprice AS BINARY_DOUBLE)) AS p FROM SALES.ORDERS",
            'SELECT CASE WHEN CAST("orders"."o_totalprice" AS DOUBLE PRECISION) - '
            'FLOOR(CAST("orders"."o_totalprice" AS DOUBLE PRECISION)) = 0.5 THEN 2 * '
            'ROUND(CAST("orders"."o_totalprice" AS DOUBLE PRECISION) / 2) ELSE '
            'ROUND(CAST("orders"."o_totalprice" AS DOUBLE PRECISION)) END AS "p" FROM '
            '"raw"."orders" AS "orders"',
        ),
        (
            "tsql",
            "SELECT ROUND(o_totalprice, 1, 1) AS p, ROUND(o_custkey, -2, 1) AS c, "
            "ROUND(o_totalprice, 1, 0) AS r FROM dbo.Orders",
            'SELECT CAST("orders"."o_totalprice" - MOD("orders"."o_totalprice", 0.1) AS '
            'DECIMAL(15, 2)) AS "p", CAST("orders"."o_custkey" - MOD("orders"."o_custkey", 100) '
            'AS BIGINT) AS "c", ROUND("orders"."o_totalprice", 1) AS "r" FROM "raw"."orders" AS '
            '"orders"',
        ),
    ),
    phase="final",
)
def round_number(node: exp.Expr, ctx: Context) -> exp.Expr | None:
    if rounds_a_quotient(node, ctx):
        return None  # DIV-ROUNDED's: an Oracle quotient or average of exact numbers
    value_type = type_of(node.this)
    decimals = node.args.get("decimals")
    mode = node.args.get("truncate")
    if (
        mode is not None
        and semantics(ctx.dialect).ROUND_MODE_TRUNCATES
        and integer_literal(mode) is not None
    ):
        if integer_literal(mode) != 0:
            return _truncated(node, ctx)
        node.set("truncate", None)  # function 0: the ordinary rounding
        mode = None
    if mode is not None or (decimals is not None and type_of(decimals) not in INTEGER_TYPES):
        ctx.report(
            "error", "FN-ROUND", node, "ROUND with a non-integer precision or a mode argument"
        )
        return None
    if value_type not in NUMERIC_TYPES:
        ctx.report(
            "error", "FN-ROUND", node, "ROUND of a non-numeric value (e.g. a date) has no ANSI form"
        )
        return None
    if value_type in (exp.DType.DOUBLE, exp.DType.FLOAT):
        return _rounded_float(node, ctx)
    if semantics(ctx.dialect).ROUND_HALFWAY_IS_A_SETTING:
        return _halfway_by_setting(node, ctx)
    return None


def _rounded_float(node: exp.Round, ctx: Context) -> exp.Expr | None:
    """ROUND of a binary floating-point x. The engines' ROUND(x, n) differ for n <> 0: DuckDB
    rounds the double's exact value (2.675 is 2.67499...: 2.67), Spark its shortest decimal
    text (2.68). Both round a double to an integer alike, halves away from zero (a double
    whose shortest text ends in .5 is that half exactly), so x * 10^n, computed in binary,
    is rounded to an integer and divided back (x / 10^-n and multiplied for n < 0): one value
    on both engines (2.675 * 100 is 267.5: 2.68), as BigQuery, Snowflake and T-SQL document
    ROUND for an integer; for decimal places, where a source may round the exact value
    instead, with a warning. Oracle's
    BINARY_DOUBLE halves go to the even integer (y - FLOOR(y) = 0.5 exactly: 2 * ROUND(y /
    2), exact in binary); Redshift ("platform dependent") and Teradata document no tie:
    refused, as is a computed n."""
    places = integer_literal(node.args.get("decimals") or lit(0))
    ties = semantics(ctx.dialect).FLOAT_ROUND_TIES
    if places is None or ties is None:
        ctx.report(
            "error",
            "FN-ROUND",
            node,
            "ROUND of a floating-point value to a computed number of places"
            if places is None
            else "ROUND of a floating-point value: how this dialect breaks a tie (2.5) is not "
            "documented; CAST it to a DECIMAL first",
        )
        return None
    value = node.this
    power = cast(exp.Literal.number(10 ** abs(places)), "DOUBLE")
    if places > 0:
        scaled: exp.Expr = exp.Mul(this=clone(value), expression=power)
    elif places < 0:
        scaled = exp.Div(this=clone(value), expression=power)
    else:
        scaled = clone(value)
    if ties == "away":
        whole: exp.Expr = exp.Round(this=scaled)
    else:
        half = exp.EQ(
            this=exp.Sub(this=clone(scaled), expression=exp.Floor(this=clone(scaled))),
            expression=exp.Literal.number("0.5"),
        )
        halved = exp.Round(this=exp.Div(this=clone(scaled), expression=lit(2)))
        twice = exp.Mul(this=lit(2), expression=halved)
        whole = exp.Case(ifs=[exp.If(this=half, true=twice)], default=exp.Round(this=scaled))
    if places == 0:
        return None if ties == "away" else whole
    ctx.report(
        "warning",
        "FN-ROUND",
        node,
        f"ROUND of a floating-point value to {places} places rounds x scaled by a power of "
        "10 in binary, to an integer (2.675 * 100 is 267.5: 2.68); a source rounding the "
        "double's exact value (2.67499...) gives 2.67 there",
    )
    back = exp.Div if places > 0 else exp.Mul
    return back(this=exp.Paren(this=whole), expression=power.copy())


def _step(places: int, tenths: int = 10) -> exp.Expr:
    """``tenths`` / 10 times 10^-places as an exact literal: 0.01 for 2, 10 for -1, with
    tenths 5 half of that (0.005), with 20 twice it."""
    value = Decimal(tenths).scaleb(-places - 1).normalize()
    return exp.Literal.number(format(value, "f"))


def halfway_to_even(value: exp.Expr, places: int) -> exp.Expr:
    """``value``, an exact number, made ready for a rounding to ``places`` that takes halves
    away from zero (the engines' ROUND and CAST to DECIMAL) so that it takes them to the
    even digit instead. Exactly halfway means the digits removed are MOD(x, step) = +/- step
    / 2, and the digit kept is even when x truncated (x - MOD(x, step)) is a multiple of 2 *
    step: then the truncated value, which the rounding leaves as it is, else x."""
    removed = exp.Mod(this=clone(value), expression=_step(places))
    halfway = exp.EQ(this=exp.Abs(this=removed.copy()), expression=_step(places, 5))
    truncated = exp.Sub(this=clone(value), expression=removed.copy())
    kept = exp.Mod(this=exp.Paren(this=truncated.copy()), expression=_step(places, 20))
    even = exp.EQ(this=kept, expression=lit(0))
    return exp.Case(
        ifs=[exp.If(this=exp.And(this=halfway, expression=even), true=truncated)],
        default=clone(value),
    )


def _halfway_by_setting(node: exp.Round, ctx: Context) -> exp.Expr | None:
    """Teradata's ROUND of an exact number, whose halfway values round as DBS Control's
    RoundHalfwayMagUp says (https://docs.teradata.com/r/Teradata-VantageTM-Database-Utilities/
    July-2021/DBS-Control-dbscontrol/DBS-Control-Fields/RoundHalfwayMagUp): TRUE away from
    zero, as ROUND does everywhere else; FALSE, the default, to the even digit (2.5 -> 2):
    ROUND of :func:`halfway_to_even`."""
    value = node.this
    places = integer_literal(node.args.get("decimals") or lit(0))
    if places is None:
        ctx.report("error", "FN-ROUND", node, "ROUND's places must be an integer literal here")
        return None
    scale = 0
    kind = value.type
    if type_of(value) == exp.DType.DECIMAL and kind is not None and len(kind.expressions) == 2:
        scale = int(kind.expressions[1].this.name)
    if places >= scale:
        return None  # no digits to remove: no halfway value
    setting = ctx.assume("teradata_round_halfway_mag_up")
    ctx.report(
        "warning",
        "FN-ROUND",
        node,
        f"a halfway value rounds {'away from zero' if setting == 'TRUE' else 'to the even digit'}, "
        f"assuming RoundHalfwayMagUp {setting} (teradata_round_halfway_mag_up)",
    )
    if setting == "TRUE":
        return None
    # Inside ROUND, cast back to x's type, the result keeps ROUND's type.
    chosen = halfway_to_even(value, places)
    rounded = clone(node)
    rounded.set("this", exp.Cast(this=chosen, to=kind.copy()) if kind is not None else chosen)
    return rounded


@rule(
    "FN-REPLACE",
    "rewrite",
    ALL_DIALECTS,
    (exp.Replace,),
    "REPLACE(s, from, to) is kept (an extension every target engine has with the same meaning); "
    "T-SQL matches `from` by collation: translated as tsql_collation_case says (SENSITIVE, "
    "the stated default, with a warning; INSENSITIVE refused). "
    "Oracle's REPLACE removes `from` where `to` is omitted or NULL, returns s where `from` is "
    "NULL (or ''), and its empty result is NULL.",
    (
        (
            "oracle",
            "SELECT REPLACE(o_clerk, 'Clerk#', '') AS clerk FROM SALES.ORDERS",
            'SELECT NULLIF(REPLACE("orders"."o_clerk", \'Clerk#\', \'\'), \'\') AS "clerk" FROM (SELECT NULLIF("orders"."o_clerk", \'\') AS "o_clerk" FROM "raw"."orders" AS "orders") AS "orders"',
        ),
    ),
)
def replace(node: exp.Expr, ctx: Context) -> exp.Expr | None:
    if not collated_search("REPLACE", [node.expression], node, ctx):
        return None
    if semantics(ctx.dialect).EMPTY_STRING_IS_NULL:
        # Oracle's REPLACE: "If replacement_string is omitted or null, then all occurrences of
        # search_string are removed. If search_string is null, then char is returned", and an
        # empty result is NULL (https://docs.oracle.com/en/database/oracle/oracle-database/
        # 19/sqlrf/REPLACE.html).
        text, search = node.this, node.expression
        replacement = node.args.get("replacement")
        fixed = clone(node)
        if replacement is None or isinstance(replacement, exp.Null):
            fixed.set("replacement", lit(""))
        elif not (isinstance(replacement, exp.Literal) and replacement.is_string):
            fixed.set("replacement", exp.Coalesce(this=clone(replacement), expressions=[lit("")]))
        if isinstance(search, exp.Null):
            return clone(text)
        result: exp.Expr = exp.Nullif(this=fixed, expression=lit(""))
        if not (isinstance(search, exp.Literal) and search.is_string):
            unsearched = exp.Is(this=clone(search), expression=exp.Null())
            result = exp.Case(ifs=[exp.If(this=unsearched, true=clone(text))], default=result)
        return result
    return node


@rule(
    "FN-LOG",
    "rewrite",
    ALL_DIALECTS,
    (exp.Log,),
    "LOG(base, x) is SQL:2016's general logarithm (T623) and stays as it is, base first as "
    "every source writes it (BigQuery's LOG(x, base) and LOG10(x) are read in that order). "
    "Redshift's and Teradata's one-argument LOG is base 10: LOG(10, x).",
    (
        (
            "redshift",
            "SELECT LOG(o_totalprice) AS l FROM sales.orders",
            'SELECT LOG(10, "orders"."o_totalprice") AS "l" FROM "raw"."orders" AS "orders"',
        ),
    ),
)
def logarithm(node: exp.Expr, ctx: Context) -> exp.Expr | None:
    if node.args.get("expression") is not None:
        return None  # LOG(base, x): standard as it stands
    if not semantics(ctx.dialect).LOG_DEFAULTS_TO_BASE_10:
        ctx.report("error", "FN-LOG", node, "LOG with one argument: give the base")
        return None
    return exp.Log(this=lit(10), expression=clone(node.this))
