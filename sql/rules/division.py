"""Division: the one operator whose meaning differs most between dialects.

``7 / 2`` is 3 in T-SQL, Teradata and Redshift (integer operands give an integer,
truncated toward zero) and 3.5 in Snowflake, BigQuery and Oracle. ANSI leaves the
result type of integer division implementation-defined, so an integer quotient is never
emitted bare: truncation is spelled ``(a - MOD(a, b)) / b`` (exact in every engine,
MOD takes the dividend's sign) and a fractional quotient casts the dividend first.
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
    lit,
    paren,
    type_of,
)
from sql.source_dialects import semantics


def exact_division(
    node: exp.Expr, dividend: exp.Expr, divisor: exp.Expr, ctx: Context, rule_id: str
) -> exp.Expr | None:
    left, right = type_of(dividend), type_of(divisor)
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
    if left not in INTEGER_TYPES or right not in INTEGER_TYPES:
        return exp.Div(this=paren(clone(dividend)), expression=paren(clone(divisor)))
    if semantics(ctx.dialect).TYPED_DIVISION:
        result_type = "BIGINT" if exp.DType.BIGINT in (left, right) else "INTEGER"
        remainder = exp.Mod(this=clone(dividend), expression=clone(divisor))
        whole = exp.Paren(this=exp.Sub(this=paren(clone(dividend)), expression=remainder))
        return cast(exp.Div(this=whole, expression=paren(clone(divisor))), result_type)
    quotient = exp.Div(this=cast(dividend, "DOUBLE"), expression=paren(clone(divisor)))
    if semantics(ctx.dialect).INTEGER_DIVISION_IS_DECIMAL:
        # Snowflake returns NUMBER with scale 6 for integer / integer.
        return cast(quotient, "DECIMAL(38, 6)")
    return quotient


@rule(
    "DIV-INTEGER",
    "rewrite",
    ALL_DIALECTS,
    (exp.Div,),
    "Integer / integer keeps the source dialect's meaning: truncated toward zero in T-SQL, "
    "Teradata and Redshift; fractional in Snowflake (rounded to 6 decimals), BigQuery and "
    "Oracle. Refused when the operand types cannot be inferred.",
    (
        (
            "tsql",
            "SELECT l_quantity / 2 AS h, l_linenumber / 2 AS n FROM dbo.LineItem",
            'SELECT "lineitem"."l_quantity" / 2 AS "h", CAST(("lineitem"."l_linenumber" - MOD("lineitem"."l_linenumber", 2)) / 2 AS INTEGER) AS "n" FROM "raw"."lineitem" AS "lineitem"',
        ),
        (
            "snowflake",
            "SELECT l_linenumber / 2 AS n FROM PROD_DW.SALES.LINEITEM",
            'SELECT CAST(CAST("lineitem"."l_linenumber" AS DOUBLE PRECISION) / 2 AS DECIMAL(38, 6)) AS "n" FROM "raw"."lineitem" AS "lineitem"',
        ),
    ),
    phase="final",
)
def integer_division(node: exp.Expr, ctx: Context) -> exp.Expr | None:
    return exact_division(node, node.this, node.expression, ctx, "DIV-INTEGER")


@rule(
    "FN-SAFE-DIVIDE",
    "rewrite",
    ("bigquery",),
    (exp.SafeDivide,),
    "SAFE_DIVIDE(a, b) becomes CASE WHEN b = 0 THEN NULL ELSE a / b END, dividing as BigQuery does.",
    (
        (
            "bigquery",
            "SELECT SAFE_DIVIDE(o_totalprice, o_shippriority) AS r FROM sales.orders",
            'SELECT CASE WHEN "orders"."o_shippriority" = 0 THEN NULL ELSE "orders"."o_totalprice" / "orders"."o_shippriority" END AS "r" FROM "raw"."orders" AS "orders"',
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
            'SELECT CAST(("orders"."o_orderkey" - MOD("orders"."o_orderkey", 7)) / 7 AS BIGINT) AS "week_bucket" FROM "raw"."orders" AS "orders"',
        ),
    ),
    phase="final",
)
def integer_div(node: exp.Expr, ctx: Context) -> exp.Expr | None:
    if type_of(node.this) not in INTEGER_TYPES or type_of(node.expression) not in INTEGER_TYPES:
        ctx.report("error", "FN-INTDIV", node, "DIV is translated for integer operands only")
        return None
    remainder = exp.Mod(this=clone(node.this), expression=clone(node.expression))
    whole = exp.Paren(this=exp.Sub(this=paren(clone(node.this)), expression=remainder))
    return cast(exp.Div(this=whole, expression=paren(clone(node.expression))), "BIGINT")
