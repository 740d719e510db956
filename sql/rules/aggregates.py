"""Aggregates whose result type or syntax differs between dialects."""

from __future__ import annotations

from sqlglot import exp

from sql.rules.base import ALL_DIALECTS, Context, rule
from sql.rules.build import INTEGER_TYPES, cast, clone, lit, type_of


@rule(
    "AVG-INTEGER",
    "rewrite",
    ("tsql", "redshift"),
    (exp.Avg,),
    "AVG of an integer column is an integer truncated toward zero in T-SQL and Redshift: "
    "(SUM(x) - MOD(SUM(x), COUNT(x))) / COUNT(x), NULL for an empty group.",
    (
        (
            "tsql",
            "SELECT AVG(o_shippriority) AS a FROM dbo.Orders",
            'SELECT CAST((SUM("orders"."o_shippriority") - MOD(SUM("orders"."o_shippriority"), NULLIF(COUNT("orders"."o_shippriority"), 0))) / NULLIF(COUNT("orders"."o_shippriority"), 0) AS BIGINT) AS "a" FROM "raw"."orders" AS "orders"',
        ),
    ),
    phase="final",
)
def avg_integer(node: exp.Expr, ctx: Context) -> exp.Expr | None:
    value = node.this
    if (
        type_of(value.expressions[0] if isinstance(value, exp.Distinct) else value)
        not in INTEGER_TYPES
    ):
        return None
    total = exp.Sum(this=clone(value))
    count = exp.Nullif(this=exp.Count(this=clone(value)), expression=exp.Literal.number(0))
    whole = exp.Paren(
        this=exp.Sub(this=total, expression=exp.Mod(this=clone(total), expression=count))
    )
    return cast(exp.Div(this=whole, expression=clone(count)), "BIGINT")


@rule(
    "LISTAGG-WITHIN-GROUP",
    "rewrite",
    ("redshift", "snowflake", "oracle", "teradata"),
    (exp.WithinGroup,),
    "LISTAGG([DISTINCT] x, sep) WITHIN GROUP (ORDER BY ...) keeps its order in the ANSI LISTAGG.",
    (
        (
            "redshift",
            "SELECT LISTAGG(DISTINCT p_brand, '|') WITHIN GROUP (ORDER BY p_brand) AS b FROM sales.part",
            'SELECT LISTAGG(DISTINCT "part"."p_brand", \'|\') WITHIN GROUP (ORDER BY "part"."p_brand" ASC NULLS LAST) AS "b" FROM "raw"."part" AS "part"',
        ),
    ),
)
def listagg_within_group(node: exp.Expr, ctx: Context) -> exp.Expr | None:
    aggregate = node.this
    if not isinstance(aggregate, exp.GroupConcat):
        return None
    value = aggregate.this
    separator = aggregate.args.get("separator")
    if isinstance(value, exp.Distinct) and len(value.expressions) == 2 and separator is None:
        # Redshift parses LISTAGG(DISTINCT x, sep) as DISTINCT over (x, sep).
        value, separator = exp.Distinct(expressions=[value.expressions[0]]), value.expressions[1]
    order = clone(node.expression)
    order.set("this", clone(value))
    return exp.GroupConcat(
        this=order, separator=clone(separator) if separator else exp.Literal.string("")
    )


# The integer type each source gives GROUPING (T-SQL's tinyint has no ANSI type; INTEGER holds
# its values). DuckDB computes GROUPING as BIGINT and Spark as TINYINT, so the translation
# always casts: both engines then agree with the source.
GROUPING_TYPES = {"tsql": "INTEGER", "redshift": "INTEGER", "teradata": "INTEGER"}


@rule(
    "FN-GROUPING",
    "rewrite",
    ALL_DIALECTS,
    (exp.Grouping, exp.GroupingId),
    "GROUPING(c) (SQL:1999, T431) is kept, cast to the source's integer type (BIGINT; INTEGER "
    "for T-SQL, Redshift and Teradata) since DuckDB and Spark type it differently. "
    "GROUPING(c1, ..., cn) and GROUPING_ID(c1, ..., cn) become the bit vector the standard "
    "defines: 2^(n-1) * GROUPING(c1) + ... + GROUPING(cn).",
    (
        (
            "tsql",
            "SELECT o_orderstatus, GROUPING(o_orderstatus) + GROUPING(o_orderpriority) AS g "
            "FROM dbo.Orders GROUP BY ROLLUP (o_orderstatus, o_orderpriority)",
            'SELECT "orders"."o_orderstatus" AS "o_orderstatus", CAST(GROUPING("orders"."o_orderstatus") AS INTEGER) + CAST(GROUPING("orders"."o_orderpriority") AS INTEGER) AS "g" FROM "raw"."orders" AS "orders" GROUP BY ROLLUP ("orders"."o_orderstatus", "orders"."o_orderpriority")',
        ),
        (
            "snowflake",
            "SELECT GROUPING_ID(o_orderstatus, o_orderpriority) AS g, COUNT(*) AS n "
            "FROM SALES.ORDERS GROUP BY CUBE (o_orderstatus, o_orderpriority)",
            'SELECT CAST(GROUPING("orders"."o_orderstatus") * 2 + GROUPING("orders"."o_orderpriority") AS BIGINT) AS "g", COUNT(*) AS "n" FROM "raw"."orders" AS "orders" GROUP BY CUBE ("orders"."o_orderstatus", "orders"."o_orderpriority")',
        ),
    ),
)
def grouping(node: exp.Expr, ctx: Context) -> exp.Expr | None:
    columns = node.expressions
    if not columns:
        return None  # GROUPING() of nothing: left for the generator to refuse
    total: exp.Expr | None = None
    for position, column in enumerate(columns):
        term: exp.Expr = exp.Grouping(expressions=[clone(column)])
        weight = 2 ** (len(columns) - 1 - position)
        if weight > 1:
            term = exp.Mul(this=term, expression=lit(weight))
        total = term if total is None else exp.Add(this=total, expression=term)
    return cast(total, GROUPING_TYPES.get(ctx.dialect, "BIGINT"))


def _fraction(node: exp.Expr) -> bool:
    """Whether ``node`` is a number literal from 0 to 1."""
    if not (isinstance(node, exp.Literal) and not node.is_string):
        return False
    try:
        return 0 <= float(node.name) <= 1
    except ValueError:
        return False


@rule(
    "FN-PERCENTILE-DISC",
    "rewrite",
    ("snowflake", "oracle", "redshift", "teradata"),
    (exp.WithinGroup,),
    "PERCENTILE_DISC(p) WITHIN GROUP (ORDER BY x) as an aggregate is the standard's inverse "
    "distribution function (T612): the first value in that order whose cumulative "
    "distribution reaches p, NULLs left out, the value itself (not interpolated) and of x's "
    "type. p must be a literal from 0 to 1. Its window form (OVER) and PERCENTILE_CONT / "
    "MEDIAN, whose interpolated result type and rounding differ between sources and engines, "
    "are refused.",
    (
        (
            "snowflake",
            "SELECT PERCENTILE_DISC(0.5) WITHIN GROUP (ORDER BY o_totalprice) AS m FROM SALES.ORDERS",
            'SELECT PERCENTILE_DISC(0.5) WITHIN GROUP (ORDER BY "orders"."o_totalprice" ASC '
            'NULLS LAST) AS "m" FROM "raw"."orders" AS "orders"',
        ),
    ),
)
def percentile_disc(node: exp.Expr, ctx: Context) -> exp.Expr | None:
    function = node.this
    if not isinstance(function, exp.PercentileDisc):
        return None
    order = node.expression
    keys = order.expressions if isinstance(order, exp.Order) else []
    if isinstance(node.parent, exp.Window) or len(keys) != 1:
        ctx.report(
            "error",
            "FN-PERCENTILE-DISC",
            node,
            "PERCENTILE_DISC is translated as an aggregate over one sort key (not OVER a window)",
        )
        return node
    if not _fraction(function.this):
        ctx.report(
            "error",
            "FN-PERCENTILE-DISC",
            function.this,
            "PERCENTILE_DISC's fraction must be a number literal from 0 to 1",
        )
        return node
    return node


@rule(
    "FN-RATIO-TO-REPORT",
    "rewrite",
    ("snowflake",),
    (exp.Window,),
    "Snowflake's `RATIO_TO_REPORT(x) OVER (PARTITION BY p)` is x over the partition's sum, "
    "NULL where x is NULL or the sum is 0: `x / NULLIF(SUM(x) OVER (PARTITION BY p), 0)`, "
    "divided as Snowflake divides (DIV-INTEGER). The window's ORDER BY does not change the "
    "result and is dropped (kept, it would make the sum a running one); a frame is refused.",
    (
        (
            "snowflake",
            "SELECT RATIO_TO_REPORT(o_totalprice) OVER (PARTITION BY o_custkey) AS r "
            "FROM SALES.ORDERS",
            'SELECT "orders"."o_totalprice" / NULLIF(SUM("orders"."o_totalprice") OVER '
            '(PARTITION BY "orders"."o_custkey"), 0) AS "r" FROM "raw"."orders" AS "orders"',
        ),
    ),
    phase="syntax",  # before FN-UNKNOWN sees the function
)
def ratio_to_report(node: exp.Window, ctx: Context) -> exp.Expr | None:
    function = node.this
    if not (isinstance(function, exp.Anonymous) and function.name.upper() == "RATIO_TO_REPORT"):
        return None
    if len(function.expressions) != 1 or node.args.get("spec") is not None:
        ctx.report(
            "error",
            "FN-RATIO-TO-REPORT",
            node,
            "RATIO_TO_REPORT takes one value and a window without a frame",
        )
        return node
    value = function.expressions[0]
    total = exp.Window(
        this=exp.Sum(this=clone(value)),
        partition_by=[clone(p) for p in node.args.get("partition_by") or []],
    )
    ratio = exp.Div(this=clone(value), expression=exp.Nullif(this=total, expression=lit(0)))
    # Written in the source's terms: the division, the sum and the NULLIF go through the
    # later phases as if the query had spelled them out.
    for written in ratio.walk():
        written.meta["source"] = True
    return ratio
