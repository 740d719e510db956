"""Aggregates whose result type or syntax differs between dialects."""

from __future__ import annotations

from sqlglot import exp

from sql.rules import Context, rule
from sql.rules.build import INTEGER_TYPES, cast, clone, type_of


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
