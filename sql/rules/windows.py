"""Teradata's own moving and cumulative functions, as the standard's window functions."""

from __future__ import annotations

from sqlglot import exp

from sql.rules.base import Context, rule
from sql.rules.build import INTEGER_TYPES, cast, clone, integer_literal, lit, type_of
from sql.rules.division import DECIMAL_TYPES

# Teradata's largest width of a moving function.
MAX_WIDTH = 4096
# Name -> whether the function takes a width before its sort keys.
MOVING_FUNCTIONS = {"CSUM": False, "MSUM": True, "MAVG": True, "MDIFF": True}


def _refusal(ctx: Context, node: exp.Expr, message: str) -> exp.Expr:
    ctx.report("error", "TD-MOVING-FUNCTION", node, message)
    return node


def _frame(width: int | None) -> exp.WindowSpec:
    """ROWS UNBOUNDED PRECEDING (``width`` None), else the current row and ``width`` - 1
    before it."""
    if width is None:
        start: exp.Expr | str = "UNBOUNDED"
    else:
        start = lit(width - 1)
    return exp.WindowSpec(kind="ROWS", start=start, start_side="PRECEDING", end="CURRENT ROW")


@rule(
    "TD-MOVING-FUNCTION",
    "rewrite",
    ("teradata",),
    (exp.Anonymous,),
    "Teradata's CSUM(x, k ...), MSUM(x, w, k ...), MAVG(x, w, k ...) and MDIFF(x, w, k ...) "
    "over the rows sorted by k ascending (NULLs first, as Teradata sorts them) are the "
    "window functions Teradata's documentation names as their equivalents (T611, T612, "
    "T615): SUM(x) OVER (ORDER BY k ROWS UNBOUNDED PRECEDING), SUM(x) and AVG(x) OVER (ORDER "
    "BY k ROWS BETWEEN w - 1 PRECEDING AND CURRENT ROW), which use the rows there are while "
    "fewer than w precede, and x - LAG(x, w) OVER (ORDER BY k), NULL for the first w rows. "
    "CSUM and MSUM keep the type of x (Teradata: 'uses the default data type of "
    "value_expression'); MAVG is an average, a FLOAT as Teradata's window AVG is (of an exact "
    "x: AVG(CAST(x AS DOUBLE PRECISION))). Rows tied on k are taken in an order neither "
    "Teradata nor the standard fixes, in both. Refused: a query with GROUP BY (where "
    "Teradata restarts the functions per group without aggregating), a width that is not an "
    "integer literal from 1 to 4096, and MLINREG.",
    (
        (
            "teradata",
            "SELECT o_orderkey, CSUM(o_totalprice, o_orderdate) AS s FROM SALES_DB.ORDERS",
            'SELECT "orders"."o_orderkey" AS "o_orderkey", CAST(SUM("orders"."o_totalprice") '
            'OVER (ORDER BY "orders"."o_orderdate" ASC NULLS FIRST ROWS BETWEEN UNBOUNDED '
            'PRECEDING AND CURRENT ROW) AS DECIMAL(15, 2)) AS "s" FROM "raw"."orders" AS '
            '"orders"',
        ),
        (
            "teradata",
            "SELECT o_orderkey, MDIFF(o_totalprice, 2, o_orderdate, o_orderkey) AS d "
            "FROM SALES_DB.ORDERS",
            'SELECT "orders"."o_orderkey" AS "o_orderkey", "orders"."o_totalprice" - '
            'LAG("orders"."o_totalprice", 2) OVER (ORDER BY "orders"."o_orderdate" ASC NULLS '
            'FIRST, "orders"."o_orderkey" ASC NULLS FIRST) AS "d" FROM "raw"."orders" AS '
            '"orders"',
        ),
    ),
)
def moving_function(node: exp.Anonymous, ctx: Context) -> exp.Expr | None:
    name = node.name.upper()
    if name == "MLINREG":
        return _refusal(
            ctx, node, "MLINREG's moving linear regression has no standard window function"
        )
    if name not in MOVING_FUNCTIONS:
        return None
    arguments = node.expressions
    has_width = MOVING_FUNCTIONS[name]
    keys = arguments[2:] if has_width else arguments[1:]
    if not keys:
        return _refusal(
            ctx, node, f"{name} takes a value{', a width' if has_width else ''} and sort keys"
        )
    width = integer_literal(arguments[1]) if has_width else None
    if has_width and (width is None or not 1 <= width <= MAX_WIDTH):
        return _refusal(ctx, node, f"{name}'s width is an integer literal from 1 to {MAX_WIDTH}")
    select = node.find_ancestor(exp.Select)
    if select is not None and select.args.get("group") is not None:
        return _refusal(
            ctx,
            node,
            f"with GROUP BY, Teradata restarts {name} per group without aggregating the rows, "
            "which no standard query of the same shape does",
        )
    value = arguments[0]
    order = exp.Order(
        expressions=[exp.Ordered(this=clone(k), desc=False, nulls_first=True) for k in keys]
    )
    if name == "MDIFF":
        assert width is not None
        previous = exp.Window(
            this=exp.Lag(this=clone(value), offset=lit(width)), order=order, over="OVER"
        )
        return exp.Sub(this=clone(value), expression=previous)
    if name == "MAVG":
        # Teradata's window AVG of a number is a FLOAT ("Result Type and Format"), as AVG
        # is (AVG-DECIMAL): the engines' average of an exact x is exact, and not that.
        exact = type_of(value) in {*INTEGER_TYPES, *DECIMAL_TYPES}
        aggregate: exp.Expr = exp.Avg(this=cast(value, "DOUBLE") if exact else clone(value))
    else:
        aggregate = exp.Sum(this=clone(value))
    window = exp.Window(this=aggregate, order=order, spec=_frame(width), over="OVER")
    if name == "MAVG" or value.type is None or value.type.is_type(exp.DType.UNKNOWN):
        return window
    return exp.Cast(this=window, to=value.type.copy())
