"""MEDIAN and PERCENTILE_CONT: the standard's interpolated percentile (SQL:2008 T612),
computed exactly from the sorted values, in the type each source returns.

The engines' own PERCENTILE_CONT / quantile_cont compute in DOUBLE (Spark) or round to the
argument's scale (DuckDB's decimals), so neither is the sources' result. The standard
defines the value: with N values sorted, RN = 1 + p * (N - 1), FRN = FLOOR(RN),
CRN = CEILING(RN), the value at RN when FRN = CRN = RN, else
(CRN - RN) * v(FRN) + (RN - FRN) * v(CRN). With p a literal of k decimals, RN - FRN has k
decimals too, so for exact numbers the result has the argument's scale plus k, computed
without rounding; the sorted values are the standard's ARRAY_AGG (S098) read by subscript.
"""

from __future__ import annotations

from decimal import Decimal, InvalidOperation

from sqlglot import exp

from sql.rules.base import Context, rule
from sql.rules.build import INTEGER_TYPES, cast, clone, lit, type_of
from sql.source_dialects import semantics

FLOATING_TYPES = {exp.DType.DOUBLE, exp.DType.FLOAT}
# Digits of each integer type: its values as DECIMAL(digits, 0).
INTEGER_DIGITS = {
    exp.DType.TINYINT: 3,
    exp.DType.SMALLINT: 5,
    exp.DType.INT: 10,
    exp.DType.BIGINT: 19,
}
# The widest DECIMAL both engines compute without rounding (past it, Spark drops scale).
MAX_PRECISION = 38
# The scale each source adds to a NUMBER(p, s) argument. Snowflake returns NUMBER(p + 3,
# s + 3): its docs show MEDIAN of integers as 3.000 and PERCENTILE_CONT(0.25) of integers as
# 12.500; a p of more than 3 decimals would need its undocumented rounding. Oracle returns a
# NUMBER (38 digits), typed DECIMAL(38, s + k) as sql/rules/portable_types.py types Oracle's
# decimals: the exact value has k more decimals than the argument.
SNOWFLAKE_EXTRA_SCALE = 3


class PercentileError(Exception):
    """Why a percentile of this argument has no exact form here."""


def _fraction(node: exp.Expr) -> Decimal | None:
    """The value of a number literal from 0 to 1, else None."""
    if not (isinstance(node, exp.Literal) and not node.is_string):
        return None
    try:
        value = Decimal(node.name)
    except InvalidOperation:
        return None
    return value if 0 <= value <= 1 else None


def _decimals(value: Decimal) -> int:
    exponent = value.normalize().as_tuple().exponent
    return -exponent if isinstance(exponent, int) and exponent < 0 else 0


def _exact_type(node: exp.Expr) -> tuple[int, int] | None:
    """(precision, scale) of an exact numeric ``node``, None for any other type."""
    kind = type_of(node)
    if kind in INTEGER_DIGITS:
        return INTEGER_DIGITS[kind], 0
    if kind != exp.DType.DECIMAL or node.type is None:
        return None
    params = [p.this if isinstance(p, exp.DataTypeParam) else p for p in node.type.expressions]
    if len(params) != 2 or not all(isinstance(p, exp.Literal) and p.is_int for p in params):
        return None
    return int(params[0].name), int(params[1].name)


def result_types(value: exp.Expr, decimals: int, dialect: str) -> tuple[str, str]:
    """(the type the values are interpolated in, the source's result type) for a percentile
    with a fraction of ``decimals`` decimals; raises PercentileError."""
    kind = type_of(value)
    if kind in FLOATING_TYPES and semantics(dialect).PERCENTILE_OF_DOUBLE_IS_DOUBLE:
        return "DOUBLE", "DOUBLE"
    exact = _exact_type(value)
    if exact is None or not semantics(dialect).PERCENTILE_OF_DECIMAL_IS_DECIMAL:
        shown = kind.value if kind else "this value"
        raise PercentileError(
            f"{dialect}'s interpolated percentile of {shown} has no documented result type to "
            "match: translated for DOUBLE values, and for Snowflake's and Oracle's exact numbers"
        )
    precision, scale = exact
    # The interpolation: two products of DECIMAL(k + 1, k) weights and the values, and their
    # sum, exact while its precision fits 38 digits. Wider values are interpolated in fewer
    # digits: a value within k + 2 digits of 38 fails that cast (an error, never a rounded
    # result), where the source's own result would be at most 2 digits from overflowing.
    working_precision = min(precision, MAX_PRECISION - decimals - 2)
    if working_precision <= scale:
        raise PercentileError(
            f"interpolating DECIMAL({precision}, {scale}) values by a {decimals}-decimal "
            f"fraction needs more than {MAX_PRECISION} digits"
        )
    working = f"DECIMAL({working_precision}, {scale})"
    if semantics(dialect).PERCENTILE_ADDS_SCALE:
        if decimals > SNOWFLAKE_EXTRA_SCALE:
            raise PercentileError(
                "Snowflake rounds an interpolated percentile to 3 more decimals than its "
                f"argument, in a way it does not document; this fraction has {decimals}"
            )
        # Snowflake's integers are NUMBER(38, 0)
        source_precision = MAX_PRECISION if kind in INTEGER_TYPES else precision
        extra = SNOWFLAKE_EXTRA_SCALE
        target_precision = min(MAX_PRECISION, source_precision + extra)
    else:
        extra = decimals
        target_precision = MAX_PRECISION
    if scale + extra > MAX_PRECISION - 1:
        raise PercentileError(f"the percentile of a scale-{scale} number has no DECIMAL type")
    return working, f"DECIMAL({target_precision}, {scale + extra})"


def interpolated_percentile(
    value: exp.Expr, fraction: Decimal, desc: bool, working: str, target: str
) -> exp.Expr:
    """The standard's PERCENTILE_CONT(fraction) WITHIN GROUP (ORDER BY value [DESC]), cast
    to ``target``: NULL over no value, else the interpolation between the sorted values at
    FRN and CRN (see the module docstring), each in ``working``."""
    decimals = _decimals(fraction)
    present = exp.Where(this=exp.Not(this=exp.Is(this=clone(value), expression=exp.Null())))
    count = exp.Count(this=clone(value))

    def sorted_values() -> exp.Expr:
        order = exp.Order(
            this=clone(value),
            expressions=[exp.Ordered(this=clone(value), desc=desc, nulls_first=desc)],
        )
        return exp.Filter(this=exp.ArrayAgg(this=order), expression=present.copy())

    # RN - 1 = p * (N - 1), exact: p is a decimal literal
    offset = exp.Mul(
        this=exp.Literal.number(str(fraction)),
        expression=exp.Paren(this=exp.Sub(this=count.copy(), expression=lit(1))),
    )

    def position(rounding: type[exp.Floor] | type[exp.Ceil]) -> exp.Expr:
        return exp.Add(
            this=cast(rounding(this=exp.Paren(this=offset.copy())), "BIGINT"), expression=lit(1)
        )

    def at(rounding: type[exp.Floor] | type[exp.Ceil]) -> exp.Expr:
        element = exp.Bracket(this=sorted_values(), expressions=[position(rounding)])
        return cast(element, working)

    weight_type = "DOUBLE" if working == "DOUBLE" else f"DECIMAL({decimals + 1}, {decimals})"
    # RN - FRN and CRN - RN = 1 - (RN - FRN), where FRN < CRN
    above = cast(
        exp.Sub(
            this=exp.Paren(this=offset.copy()),
            expression=exp.Floor(this=exp.Paren(this=offset.copy())),
        ),
        weight_type,
    )
    below = cast(exp.Sub(this=lit(1), expression=above.copy()), weight_type)
    interpolated = exp.Add(
        this=exp.Mul(this=below, expression=at(exp.Floor)),
        expression=exp.Mul(this=above.copy(), expression=at(exp.Ceil)),
    )
    whole = exp.EQ(
        this=exp.Floor(this=exp.Paren(this=offset.copy())), expression=exp.Paren(this=offset.copy())
    )
    return cast(
        exp.Case(
            ifs=[
                exp.If(this=exp.EQ(this=count.copy(), expression=lit(0)), true=exp.Null()),
                exp.If(this=whole, true=at(exp.Floor)),
            ],
            default=interpolated,
        ),
        target,
    )


def _refusal(ctx: Context, rule_id: str, node: exp.Expr, message: str) -> exp.Expr:
    ctx.report("error", rule_id, node, message)
    return node


@rule(
    "FN-MEDIAN",
    "rewrite",
    ("snowflake", "oracle", "redshift", "teradata"),
    (exp.Median,),
    "MEDIAN(x) as an aggregate is the standard's PERCENTILE_CONT(0.5) WITHIN GROUP (ORDER BY "
    "x) (T612), NULLs left out, NULL over no value, computed exactly from the sorted values "
    "(FN-PERCENTILE-CONT) in the source's result type: Snowflake's NUMBER(p + 3, s + 3) of a "
    "NUMBER(p, s) (an integer is NUMBER(38, 0)), Oracle's NUMBER as DECIMAL(38, s + 1), and "
    "DOUBLE PRECISION of a double. Refused: Redshift's MEDIAN of an exact number (its DECIMAL "
    "result's scale is not documented), Teradata's (result type not documented), MEDIAN as a "
    "window (OVER), and MEDIAN of dates.",
    (
        (
            "snowflake",
            "SELECT MEDIAN(o_shippriority) AS m FROM SALES.ORDERS",
            'SELECT CAST(CASE WHEN COUNT("orders"."o_shippriority") = 0 THEN NULL WHEN '
            'FLOOR((0.5 * (COUNT("orders"."o_shippriority") - 1))) = (0.5 * '
            '(COUNT("orders"."o_shippriority") - 1)) THEN CAST((ARRAY_AGG('
            '"orders"."o_shippriority" ORDER BY "orders"."o_shippriority" ASC NULLS LAST) '
            'FILTER(WHERE NOT "orders"."o_shippriority" IS NULL))[CAST(FLOOR((0.5 * '
            '(COUNT("orders"."o_shippriority") - 1))) AS BIGINT) + 1] AS DECIMAL(10, 0)) ELSE '
            'CAST(1 - CAST((0.5 * (COUNT("orders"."o_shippriority") - 1)) - FLOOR((0.5 * '
            '(COUNT("orders"."o_shippriority") - 1))) AS DECIMAL(2, 1)) AS DECIMAL(2, 1)) * '
            'CAST((ARRAY_AGG("orders"."o_shippriority" ORDER BY "orders"."o_shippriority" ASC '
            'NULLS LAST) FILTER(WHERE NOT "orders"."o_shippriority" IS NULL))[CAST(FLOOR((0.5 '
            '* (COUNT("orders"."o_shippriority") - 1))) AS BIGINT) + 1] AS DECIMAL(10, 0)) + '
            'CAST((0.5 * (COUNT("orders"."o_shippriority") - 1)) - FLOOR((0.5 * '
            '(COUNT("orders"."o_shippriority") - 1))) AS DECIMAL(2, 1)) * CAST((ARRAY_AGG('
            '"orders"."o_shippriority" ORDER BY "orders"."o_shippriority" ASC NULLS LAST) '
            'FILTER(WHERE NOT "orders"."o_shippriority" IS NULL))[CAST(CEILING((0.5 * '
            '(COUNT("orders"."o_shippriority") - 1))) AS BIGINT) + 1] AS DECIMAL(10, 0)) END '
            'AS DECIMAL(38, 3)) AS "m" FROM "raw"."orders" AS "orders"',
        ),
    ),
)
def median(node: exp.Median, ctx: Context) -> exp.Expr | None:
    value = node.this
    if isinstance(node.parent, exp.Window):
        return _refusal(
            ctx,
            "FN-MEDIAN",
            node,
            "MEDIAN is translated as an aggregate, not as a window function (OVER)",
        )
    half = Decimal("0.5")
    try:
        working, target = result_types(value, _decimals(half), ctx.dialect)
    except PercentileError as error:
        return _refusal(ctx, "FN-MEDIAN", node, f"MEDIAN: {error}")
    return interpolated_percentile(value, half, False, working, target)


@rule(
    "FN-PERCENTILE-CONT",
    "rewrite",
    ("snowflake", "oracle", "redshift", "teradata"),
    (exp.WithinGroup,),
    "PERCENTILE_CONT(p) WITHIN GROUP (ORDER BY x [DESC]) as an aggregate is the standard's "
    "interpolated percentile (T612), NULLs left out, NULL over no value: with the N values "
    "sorted, RN = 1 + p * (N - 1), the value at RN when it is a whole number, else "
    "(CRN - RN) * v(FLOOR(RN)) + (RN - FRN) * v(CEILING(RN)), computed from the sorted values "
    "(`ARRAY_AGG(x ORDER BY x) FILTER (WHERE x IS NOT NULL)[i]`, S098) exactly, as DuckDB's "
    "and Spark's own functions do not. p must be a literal from 0 to 1. The result has the "
    "source's type: Snowflake's NUMBER(p + 3, s + 3) (p of at most 3 decimals: more would "
    "need Snowflake's undocumented rounding), Oracle's NUMBER as DECIMAL(38, s + k) for a p "
    "of k decimals, DOUBLE PRECISION of a double (also for Redshift). Refused: Redshift's "
    "and Teradata's percentiles of exact numbers (result scale not documented), the window "
    "form (OVER), and values whose interpolation needs more than 38 digits.",
    (
        (
            "oracle",
            "SELECT PERCENTILE_CONT(0.25) WITHIN GROUP (ORDER BY o_shippriority DESC) AS p "
            "FROM SALES.ORDERS",
            'SELECT CAST(CASE WHEN COUNT("orders"."o_shippriority") = 0 THEN NULL WHEN '
            'FLOOR((0.25 * (COUNT("orders"."o_shippriority") - 1))) = (0.25 * '
            '(COUNT("orders"."o_shippriority") - 1)) THEN CAST((ARRAY_AGG('
            '"orders"."o_shippriority" ORDER BY "orders"."o_shippriority" DESC NULLS FIRST) '
            'FILTER(WHERE NOT "orders"."o_shippriority" IS NULL))[CAST(FLOOR((0.25 * '
            '(COUNT("orders"."o_shippriority") - 1))) AS BIGINT) + 1] AS DECIMAL(10, 0)) ELSE '
            'CAST(1 - CAST((0.25 * (COUNT("orders"."o_shippriority") - 1)) - FLOOR((0.25 * '
            '(COUNT("orders"."o_shippriority") - 1))) AS DECIMAL(3, 2)) AS DECIMAL(3, 2)) * '
            'CAST((ARRAY_AGG("orders"."o_shippriority" ORDER BY "orders"."o_shippriority" DESC '
            'NULLS FIRST) FILTER(WHERE NOT "orders"."o_shippriority" IS NULL))[CAST(FLOOR((0.25 '
            '* (COUNT("orders"."o_shippriority") - 1))) AS BIGINT) + 1] AS DECIMAL(10, 0)) + '
            'CAST((0.25 * (COUNT("orders"."o_shippriority") - 1)) - FLOOR((0.25 * '
            '(COUNT("orders"."o_shippriority") - 1))) AS DECIMAL(3, 2)) * CAST((ARRAY_AGG('
            '"orders"."o_shippriority" ORDER BY "orders"."o_shippriority" DESC NULLS FIRST) '
            'FILTER(WHERE NOT "orders"."o_shippriority" IS NULL))[CAST(CEILING((0.25 * '
            '(COUNT("orders"."o_shippriority") - 1))) AS BIGINT) + 1] AS DECIMAL(10, 0)) END '
            'AS DECIMAL(38, 2)) AS "p" FROM "raw"."orders" AS "orders"',
        ),
    ),
)
def percentile_cont(node: exp.WithinGroup, ctx: Context) -> exp.Expr | None:
    function = node.this
    if not isinstance(function, exp.PercentileCont):
        return None
    order = node.expression
    keys = order.expressions if isinstance(order, exp.Order) else []
    if isinstance(node.parent, exp.Window) or len(keys) != 1:
        return _refusal(
            ctx,
            "FN-PERCENTILE-CONT",
            node,
            "PERCENTILE_CONT is translated as an aggregate over one sort key (not OVER a window)",
        )
    fraction = _fraction(function.this)
    if fraction is None:
        return _refusal(
            ctx,
            "FN-PERCENTILE-CONT",
            function.this,
            "PERCENTILE_CONT's fraction must be a number literal from 0 to 1",
        )
    (key,) = keys
    try:
        working, target = result_types(key.this, _decimals(fraction), ctx.dialect)
    except PercentileError as error:
        return _refusal(ctx, "FN-PERCENTILE-CONT", node, f"PERCENTILE_CONT: {error}")
    return interpolated_percentile(
        key.this, fraction.normalize(), bool(key.args.get("desc")), working, target
    )


@rule(
    "BQ-PERCENTILE-CONT",
    "rewrite",
    ("bigquery",),
    (exp.Window,),
    "BigQuery's analytic PERCENTILE_CONT(x, p [IGNORE NULLS]) OVER ([PARTITION BY ...]) of a "
    "FLOAT64 x is the standard's interpolated percentile of each partition "
    "(FN-PERCENTILE-CONT's form), every aggregate in it over the same partition "
    "(`COUNT(x) OVER (...)`, `ARRAY_AGG(x ORDER BY x) FILTER (WHERE x IS NOT NULL) OVER "
    "(...)`): NULLs left out, NULL for a partition without a value, DOUBLE PRECISION as "
    "BigQuery's FLOAT64. Refused: RESPECT NULLS, a p that is not a literal from 0 to 1, and "
    "values of other types (NUMERIC's result is rounded to its scale, and INT64's is typed "
    "by its supertype with p: CAST the value to FLOAT64 to translate it).",
    (
        (
            "bigquery",
            "SELECT PERCENTILE_CONT(CAST(o_shippriority AS FLOAT64), 0.5) OVER (PARTITION BY "
            "o_custkey) AS m FROM sales.orders",
            'SELECT CAST(CASE WHEN COUNT(CAST("orders"."o_shippriority" AS DOUBLE PRECISION)) '
            'OVER (PARTITION BY "orders"."o_custkey") = 0 THEN NULL WHEN FLOOR((0.5 * '
            '(COUNT(CAST("orders"."o_shippriority" AS DOUBLE PRECISION)) OVER (PARTITION BY '
            '"orders"."o_custkey") - 1))) = (0.5 * (COUNT(CAST("orders"."o_shippriority" AS '
            'DOUBLE PRECISION)) OVER (PARTITION BY "orders"."o_custkey") - 1)) THEN '
            'CAST((ARRAY_AGG(CAST("orders"."o_shippriority" AS DOUBLE PRECISION) ORDER BY '
            'CAST("orders"."o_shippriority" AS DOUBLE PRECISION) ASC NULLS LAST) FILTER(WHERE NOT'
            ' CAST("orders"."o_shippriority" AS DOUBLE PRECISION) IS NULL) OVER (PARTITION BY '
            '"orders"."o_custkey"))[CAST(FLOOR((0.5 * (COUNT(CAST("orders"."o_shippriority" AS '
            'DOUBLE PRECISION)) OVER (PARTITION BY "orders"."o_custkey") - 1))) AS BIGINT) + 1] '
            'AS DOUBLE PRECISION) ELSE CAST(1 - CAST((0.5 * (COUNT(CAST("orders"."o_shippriority"'
            ' AS DOUBLE PRECISION)) OVER (PARTITION BY "orders"."o_custkey") - 1)) - FLOOR((0.5 *'
            ' (COUNT(CAST("orders"."o_shippriority" AS DOUBLE PRECISION)) OVER (PARTITION BY '
            '"orders"."o_custkey") - 1))) AS DOUBLE PRECISION) AS DOUBLE PRECISION) * '
            'CAST((ARRAY_AGG(CAST("orders"."o_shippriority" AS DOUBLE PRECISION) ORDER BY '
            'CAST("orders"."o_shippriority" AS DOUBLE PRECISION) ASC NULLS LAST) FILTER(WHERE NOT'
            ' CAST("orders"."o_shippriority" AS DOUBLE PRECISION) IS NULL) OVER (PARTITION BY '
            '"orders"."o_custkey"))[CAST(FLOOR((0.5 * (COUNT(CAST("orders"."o_shippriority" AS '
            'DOUBLE PRECISION)) OVER (PARTITION BY "orders"."o_custkey") - 1))) AS BIGINT) + 1] '
            'AS DOUBLE PRECISION) + CAST((0.5 * (COUNT(CAST("orders"."o_shippriority" AS DOUBLE '
            'PRECISION)) OVER (PARTITION BY "orders"."o_custkey") - 1)) - FLOOR((0.5 * '
            '(COUNT(CAST("orders"."o_shippriority" AS DOUBLE PRECISION)) OVER (PARTITION BY '
            '"orders"."o_custkey") - 1))) AS DOUBLE PRECISION) * '
            'CAST((ARRAY_AGG(CAST("orders"."o_shippriority" AS DOUBLE PRECISION) ORDER BY '
            'CAST("orders"."o_shippriority" AS DOUBLE PRECISION) ASC NULLS LAST) FILTER(WHERE NOT'
            ' CAST("orders"."o_shippriority" AS DOUBLE PRECISION) IS NULL) OVER (PARTITION BY '
            '"orders"."o_custkey"))[CAST(CEILING((0.5 * (COUNT(CAST("orders"."o_shippriority" AS '
            'DOUBLE PRECISION)) OVER (PARTITION BY "orders"."o_custkey") - 1))) AS BIGINT) + 1] '
            'AS DOUBLE PRECISION) END AS DOUBLE PRECISION) AS "m" FROM "raw"."orders" AS "orders"',
        ),
    ),
)
def bigquery_percentile_cont(node: exp.Window, ctx: Context) -> exp.Expr | None:
    function = node.this
    respects_nulls = isinstance(function, exp.RespectNulls)
    if isinstance(function, (exp.IgnoreNulls, exp.RespectNulls)):
        function = function.this
    if not isinstance(function, exp.PercentileCont):
        return None
    rule_id = "BQ-PERCENTILE-CONT"
    if respects_nulls:
        return _refusal(ctx, rule_id, node, "PERCENTILE_CONT ... RESPECT NULLS sorts NULLs in")
    if node.args.get("order") is not None or node.args.get("spec") is not None:
        return _refusal(ctx, rule_id, node, "PERCENTILE_CONT's window has only PARTITION BY")
    fraction = _fraction(function.expression)
    if fraction is None:
        return _refusal(
            ctx,
            rule_id,
            function,
            "PERCENTILE_CONT's fraction must be a number literal from 0 to 1",
        )
    value = function.this
    if type_of(value) not in FLOATING_TYPES:
        shown = type_of(value).value if type_of(value) else "this value"
        return _refusal(
            ctx,
            rule_id,
            node,
            f"PERCENTILE_CONT of {shown}: translated for FLOAT64 values, whose result is FLOAT64",
        )
    result = interpolated_percentile(value, fraction.normalize(), False, "DOUBLE", "DOUBLE")
    partition = node.args.get("partition_by") or []
    for aggregate in list(result.find_all(exp.Count, exp.Filter)):
        aggregate.replace(
            exp.Window(
                this=aggregate.copy(), partition_by=[p.copy() for p in partition], over="OVER"
            )
        )
    return result
