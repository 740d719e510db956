"""Aggregates whose result type or syntax differs between dialects."""

from __future__ import annotations

from sqlglot import exp

from sql.ansi import PAIR_AGGREGATES
from sql.rules.base import ALL_DIALECTS, Context, rule
from sql.rules.build import (
    INTEGER_TYPES,
    cast,
    clone,
    guarded,
    lit,
    type_of,
    type_params,
    typed,
)
from sql.rules.dialect_specific import trailing_blanks_guard
from sql.rules.division import (
    DECIMAL_TYPES,
    decimal_float_refused,
    operand_type,
    truncated_quotient,
)
from sql.source_dialects import semantics


@rule(
    "AVG-INTEGER",
    "rewrite",
    ("tsql", "redshift"),
    (exp.Avg,),
    "AVG of an integer column is an integer truncated toward zero in T-SQL (INT for TINYINT, "
    "SMALLINT and INT, BIGINT for BIGINT) and Redshift (BIGINT): (SUM(x) - MOD(SUM(x), "
    "COUNT(x))) / COUNT(x), NULL for an empty group; a BIGINT quotient is worked out exactly "
    "(sql/rules/exact_division.py: DuckDB would divide in DOUBLE). A sum beyond the result "
    "type stops the statement, as the source's overflow error does.",
    (
        (
            "tsql",
            "SELECT AVG(o_shippriority) AS a FROM dbo.Orders",
            'SELECT CASE WHEN SUM("orders"."o_shippriority") < -2147483648 OR SUM("orders"."o_shippriority") > 2147483647 THEN RAISE_ERROR(\'AVG-INTEGER: arithmetic overflow: the sum exceeds AVG\'\'s INTEGER\') ELSE CAST((SUM("orders"."o_shippriority") - MOD(SUM("orders"."o_shippriority"), NULLIF(COUNT("orders"."o_shippriority"), 0))) / NULLIF(COUNT("orders"."o_shippriority"), 0) AS INTEGER) END AS "a" FROM "raw"."orders" AS "orders"',
        ),
    ),
    phase="final",
)
def avg_integer(node: exp.Expr, ctx: Context) -> exp.Expr | None:
    value = node.this
    kind = type_of(value.expressions[0] if isinstance(value, exp.Distinct) else value)
    if kind not in INTEGER_TYPES:
        return None
    wide = kind == exp.DType.BIGINT or not semantics(ctx.dialect).AVERAGE_OF_INT_IS_INT
    result_type = "BIGINT" if wide else "INTEGER"
    total = exp.Sum(this=clone(value))
    count = exp.Nullif(this=exp.Count(this=clone(value)), expression=exp.Literal.number(0))
    # A sum beyond the result type is an overflow error in the source; within an INTEGER's
    # range the quotient's DOUBLE on DuckDB is exact.
    quotient = truncated_quotient(total, count, result_type, "AVG-INTEGER", node)
    lowest, highest = (-(2**63), 2**63 - 1) if wide else (-(2**31), 2**31 - 1)
    overflow = exp.Or(
        this=exp.LT(this=clone(total), expression=lit(lowest)),
        expression=exp.GT(this=clone(total), expression=lit(highest)),
    )
    why = f"arithmetic overflow: the sum exceeds AVG's {result_type}"
    return guarded(quotient, overflow, "AVG-INTEGER", why, at=node)


def _distinct_as_doubles(value: exp.Expr) -> bool:
    """Whether distinct values of ``value`` are distinct DOUBLEs: an integer of 32 bits or
    less, or a DECIMAL of at most 15 digits (a double tells apart any two numbers of 15
    significant digits)."""
    kind = value.type
    if kind is None:
        return False
    if kind.this in {exp.DType.TINYINT, exp.DType.SMALLINT, exp.DType.INT}:
        return True
    params = type_params(kind) if kind.this == exp.DType.DECIMAL else None
    return bool(params) and params[0] <= 15


@rule(
    "AVG-DECIMAL",
    "rewrite",
    ALL_DIALECTS,
    (exp.Avg,),
    "AVG of an exact number has the source's result type, which neither engine gives (DuckDB "
    "averages a DECIMAL as a DOUBLE, Spark to a DECIMAL of 4 more places). Teradata's AVG of an "
    "integer or DECIMAL is a REAL, a 64-bit float: AVG(CAST(x AS DOUBLE PRECISION)). Elsewhere "
    "AVG of a DECIMAL is refused: T-SQL (decimal(38, max(s, 6))), Redshift (DECIMAL(38, s)) "
    "and BigQuery (NUMERIC) document its type but not how its last digit is rounded, "
    "Snowflake neither, for integers too (its AVG of a NUMBER(38, 0) is a NUMBER of places its "
    "AVG page does not give: refused, where SUM(x) / COUNT(x) divides at the documented scale "
    "of a quotient, DIV-INTEGER). Writing AVG(CAST(x AS DOUBLE PRECISION)) (FLOAT) averages in "
    "binary floating point, which translates. Oracle averages integers and DECIMALs alike in decimal "
    "floating point of 38 digits: refused; ROUND(AVG(x), n) translates (DIV-ROUNDED), as does "
    "AVG(CAST(x AS BINARY_DOUBLE)). Integer averages: AVG-INTEGER (T-SQL, Redshift), a DOUBLE "
    "in BigQuery (FLOAT64).",
    (
        (
            "teradata",
            "SELECT AVG(o_totalprice) AS a FROM SALES_DB.ORDERS",
            'SELECT AVG(CAST("orders"."o_totalprice" AS DOUBLE PRECISION)) AS "a" FROM '
            '"raw"."orders" AS "orders"',
        ),
    ),
    phase="final",
)
def avg_decimal(node: exp.Expr, ctx: Context) -> exp.Expr | None:
    value = node.this
    argument = value.expressions[0] if isinstance(value, exp.Distinct) else value
    kind = operand_type(argument, ctx)
    if semantics(ctx.dialect).AVERAGE_OF_EXACT_IS_FLOAT and kind in {
        *INTEGER_TYPES,
        *DECIMAL_TYPES,
    }:
        floating = cast(argument, "DOUBLE")
        if isinstance(value, exp.Distinct) and not _distinct_as_doubles(argument):
            ctx.report(
                "error",
                "AVG-DECIMAL",
                node,
                "AVG(DISTINCT x) averages Teradata's REALs of x's distinct exact values, and "
                "values of more than 15 digits may be one DOUBLE; write AVG(DISTINCT CAST(x AS "
                "FLOAT)) if they are distinct as floats too",
            )
            return None
        if isinstance(value, exp.Distinct):
            return exp.Avg(this=exp.Distinct(expressions=[floating]))
        return exp.Avg(this=floating)
    if kind in INTEGER_TYPES | DECIMAL_TYPES and decimal_float_refused(node, ctx, "AVG-DECIMAL"):
        return None
    if kind is None and semantics(ctx.dialect).DECIMAL_LITERAL_IS_EXACT:
        ctx.report(
            "error",
            "AVG-DECIMAL",
            node,
            "cannot tell whether this AVG's argument is an exact number, whose average differs "
            "from a float's; CAST it to the type intended",
        )
        return None
    if kind in INTEGER_TYPES and semantics(ctx.dialect).AVERAGE_OF_INT_IS_NUMBER:
        what = "an integer"
    elif kind in DECIMAL_TYPES:
        what = "a DECIMAL"
    else:
        return None
    undocumented = semantics(ctx.dialect).EXACT_QUOTIENT_UNDOCUMENTED
    quotient = (
        "; SUM(x) / COUNT(x) divides exactly at the quotient's documented scale (DIV-INTEGER, "
        "DIV-DECIMAL)"
        if semantics(ctx.dialect).QUOTIENT_ADDS_SIX_PLACES
        else ""
    )
    ctx.report(
        "error",
        "AVG-DECIMAL",
        node,
        f"AVG of {what}: {undocumented}, so no translation gives its value; write "
        "AVG(CAST(x AS DOUBLE PRECISION)) (FLOAT) to average in binary floating point"
        f"{quotient}",
    )
    return None


@rule(
    "LISTAGG-WITHIN-GROUP",
    "rewrite",
    ("redshift", "snowflake", "oracle", "teradata"),
    (exp.WithinGroup,),
    "LISTAGG([DISTINCT] x, sep) WITHIN GROUP (ORDER BY ...) keeps its order in the ANSI LISTAGG "
    "(with STRING-AGG's separator, and Redshift's guard for DISTINCT values that differ only in "
    "trailing blanks).",
    (
        (
            "redshift",
            "SELECT LISTAGG(p_brand, '|') WITHIN GROUP (ORDER BY p_size) AS b FROM sales.part",
            'SELECT LISTAGG(NULLIF("part"."p_brand", \'\'), \'|\') WITHIN GROUP (ORDER BY "part"."p_size" ASC NULLS LAST) AS "b" FROM "raw"."part" AS "part"',
        ),
        (
            "redshift",
            "SELECT LISTAGG(DISTINCT p_brand, '|') WITHIN GROUP (ORDER BY p_brand) AS b FROM sales.part",
            'SELECT CASE WHEN COUNT(DISTINCT NULLIF("part"."p_brand", \'\')) <> COUNT(DISTINCT TRIM(TRAILING \' \' FROM NULLIF("part"."p_brand", \'\'))) THEN RAISE_ERROR(\'STRING-AGG: Redshift\'\'s LISTAGG(DISTINCT ...) keeps one of the values that differ only in trailing blanks, whichever it meets first, and this group holds such values\') ELSE LISTAGG(DISTINCT NULLIF("part"."p_brand", \'\'), \'|\') WITHIN GROUP (ORDER BY NULLIF("part"."p_brand", \'\') ASC NULLS LAST) END AS "b" FROM "raw"."part" AS "part"',
        ),
    ),
)
def listagg_within_group(node: exp.Expr, ctx: Context) -> exp.Expr | None:
    aggregate = node.this
    if not isinstance(aggregate, exp.GroupConcat):
        return None
    # STRING-AGG has written the separator (the source's default where none is named) and
    # split Redshift's DISTINCT over (x, sep).
    value = aggregate.this
    separator = aggregate.args.get("separator")
    if separator is None:
        return node  # refused by STRING-AGG
    order = clone(node.expression)
    order.set("this", clone(value))
    kept = value.expressions[0] if isinstance(value, exp.Distinct) else value
    if isinstance(kept, exp.Nullif) and semantics(ctx.dialect).LISTAGG_SKIPS_EMPTY_STRINGS:
        # STRING-AGG left out '' values; DISTINCT needs its ordering key to be the value.
        for key in order.expressions:
            if key.this == kept.this:
                key.set("this", clone(kept))
    written = exp.GroupConcat(this=order, separator=clone(separator))
    if isinstance(value, exp.Distinct) and semantics(ctx.dialect).LISTAGG_SKIPS_EMPTY_STRINGS:
        return trailing_blanks_guard(node, written, value.expressions[0], ctx)
    return written


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
            'SELECT CASE WHEN GROUPING(TRIM(TRAILING \' \' FROM "orders"."o_orderstatus")) = 1 '
            'THEN NULL ELSE CASE WHEN MIN("orders"."o_orderstatus") <> '
            'MAX("orders"."o_orderstatus") THEN RAISE_ERROR(\'PAD-VARIANT: GROUP BY of '
            "o_orderstatus: a group holds values that differ only in trailing blanks, which the "
            "source takes for one value; which of them it shows is not determined') ELSE "
            'MIN("orders"."o_orderstatus") END END AS "o_orderstatus", '
            'CAST(GROUPING(TRIM(TRAILING \' \' FROM "orders"."o_orderstatus")) AS INTEGER) + '
            'CAST(GROUPING(TRIM(TRAILING \' \' FROM "orders"."o_orderpriority")) AS INTEGER) AS '
            '"g" FROM "raw"."orders" AS "orders" GROUP BY ROLLUP (TRIM(TRAILING \' \' FROM '
            '"orders"."o_orderstatus"), TRIM(TRAILING \' \' FROM "orders"."o_orderpriority"))',
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
    "type. p must be a literal from 0 to 1. Its window form (OVER) is refused "
    "(PERCENTILE_CONT and MEDIAN: sql/rules/percentiles.py).",
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
    ("snowflake", "oracle", "redshift"),
    (exp.Window,),
    "`RATIO_TO_REPORT(x) OVER (PARTITION BY p)` is x over the partition's sum, NULL where x "
    "is NULL: `x / SUM(x) OVER (PARTITION BY p)`, divided as the source divides (DIV-INTEGER; "
    "a DECIMAL x: DIV-DECIMAL). "
    "A zero sum is NULL in Snowflake (`NULLIF(SUM(...), 0)`); Oracle and Redshift do not "
    "document it, so there the division is left to fail as the standard's does (SQLSTATE "
    "22012), never to return a value they might not. Redshift returns FLOAT8: x and the sum "
    "are divided as DOUBLE PRECISION. The window's ORDER BY does not change the result and is "
    "dropped (kept, it would make the sum a running one); a frame is refused.",
    (
        (
            "snowflake",
            "SELECT RATIO_TO_REPORT(CAST(o_totalprice AS FLOAT)) OVER (PARTITION BY o_custkey) "
            "AS r FROM SALES.ORDERS",
            'SELECT CAST("orders"."o_totalprice" AS DOUBLE PRECISION) / NULLIF(SUM(CAST('
            '"orders"."o_totalprice" AS DOUBLE PRECISION)) OVER (PARTITION BY '
            '"orders"."o_custkey"), 0) AS "r" FROM "raw"."orders" AS "orders"',
        ),
        (
            "redshift",
            "SELECT RATIO_TO_REPORT(o_shippriority) OVER () AS r FROM sales.orders",
            'SELECT CAST("orders"."o_shippriority" AS DOUBLE PRECISION) / CAST(SUM('
            '"orders"."o_shippriority") OVER () AS DOUBLE PRECISION) AS "r" FROM "raw"."orders" '
            'AS "orders"',
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
    total: exp.Expr = exp.Window(
        this=exp.Sum(this=clone(value)),
        partition_by=[clone(p) for p in node.args.get("partition_by") or []],
        over="OVER",
    )
    numerator: exp.Expr = clone(value)
    if semantics(ctx.dialect).RATIO_TO_REPORT_OF_ZERO_IS_NULL:
        total = exp.Nullif(this=total, expression=lit(0))
    elif semantics(ctx.dialect).RATIO_TO_REPORT_IS_DOUBLE:
        numerator, total = cast(numerator, "DOUBLE"), cast(total, "DOUBLE")
    ratio = exp.Div(this=numerator, expression=total)
    # Written in the source's terms: the division, the sum and the NULLIF go through the
    # later phases as if the query had spelled them out.
    for written in ratio.walk():
        written.meta["source"] = True
    return ratio


def _keep_order(window: exp.Window, value: exp.Expr, largest: bool) -> list[exp.Ordered]:
    """The sort keys of ``MIN|MAX(value) KEEP (DENSE_RANK FIRST|LAST ORDER BY k ...)`` that
    put first a row of the kept rank whose value MIN (MAX) returns: the rank's keys (reversed
    for LAST), then the value itself, NULLs after every value, as MIN and MAX skip them."""
    first = bool(window.args.get("first"))
    keys = []
    for key in window.args["order"].expressions:
        desc, nulls_first = bool(key.args.get("desc")), bool(key.args.get("nulls_first"))
        if not first:  # the last rank in this order is the first in the reverse order
            desc, nulls_first = not desc, not nulls_first
        keys.append(exp.Ordered(this=clone(key.this), desc=desc, nulls_first=nulls_first))
    keys.append(exp.Ordered(this=clone(value), desc=largest, nulls_first=False))
    return keys


def _keep_refusal(ctx: Context, node: exp.Expr, message: str) -> exp.Expr:
    ctx.report("error", "FN-KEEP-DENSE-RANK", node, message)
    return node


@rule(
    "FN-KEEP-DENSE-RANK",
    "rewrite",
    ("oracle",),
    (exp.Window,),
    "Oracle's `MIN|MAX(x) KEEP (DENSE_RANK FIRST|LAST ORDER BY k ...)` aggregates x over the "
    "rows that rank first (last) by k, every row tied at that rank included. MIN (MAX) of "
    "those is the value of the first row in the order (k ..., x ASC (DESC) NULLS LAST), LAST "
    "reversing each key and its NULL placement, so the aggregate is the standard's "
    "`ARRAY_AGG(x ORDER BY ...)[1]` (S098, NULL over no rows) and the analytic form `... "
    "OVER (PARTITION BY p)` is `FIRST_VALUE(x) OVER (PARTITION BY p ORDER BY ... ROWS BETWEEN "
    "UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING)` (T617). Oracle sorts NULLs last ascending "
    "and first descending unless told; the translation spells the placement out. KEEP over "
    "SUM, AVG, COUNT, VARIANCE or STDDEV, which need every tied row's value rather than one, "
    "is refused.",
    (
        (
            "oracle",
            "SELECT o_custkey, MAX(o_totalprice) KEEP (DENSE_RANK FIRST ORDER BY o_orderdate) "
            "AS m FROM SALES.ORDERS GROUP BY o_custkey",
            'SELECT "orders"."o_custkey" AS "o_custkey", ARRAY_AGG("orders"."o_totalprice" '
            'ORDER BY "orders"."o_orderdate" ASC NULLS LAST, "orders"."o_totalprice" DESC '
            'NULLS LAST)[1] AS "m" FROM "raw"."orders" AS "orders" GROUP BY "orders"."o_custkey"',
        ),
        (
            "oracle",
            "SELECT MIN(o_orderdate) KEEP (DENSE_RANK LAST ORDER BY o_totalprice DESC) "
            "OVER (PARTITION BY o_custkey) AS m FROM SALES.ORDERS",
            'SELECT FIRST_VALUE("orders"."o_orderdate") OVER (PARTITION BY "orders"."o_custkey" '
            'ORDER BY "orders"."o_totalprice" ASC NULLS LAST, "orders"."o_orderdate" ASC NULLS '
            'LAST ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING) AS "m" FROM '
            '"raw"."orders" AS "orders"',
        ),
    ),
)
def keep_dense_rank(node: exp.Window, ctx: Context) -> exp.Expr | None:
    keep = node.this if isinstance(node.this, exp.Window) else node
    if keep.args.get("over") != "KEEP":
        return None
    if keep is node and isinstance(node.parent, exp.Window):
        return None  # the analytic form: rewritten with the OVER window around it
    aggregate = keep.this
    if not isinstance(aggregate, (exp.Min, exp.Max)) or isinstance(aggregate.this, exp.Distinct):
        return _keep_refusal(
            ctx,
            node,
            "KEEP (DENSE_RANK ...) is translated over MIN and MAX only: the other aggregates "
            "need every tied row's value, which no one standard expression gives",
        )
    order = keep.args.get("order")
    if not isinstance(order, exp.Order) or not order.expressions:
        return _keep_refusal(ctx, node, "KEEP (DENSE_RANK ...) needs an ORDER BY")
    value = aggregate.this
    keys = _keep_order(keep, value, largest=isinstance(aggregate, exp.Max))
    if keep is node:
        return exp.Bracket(
            this=exp.ArrayAgg(this=exp.Order(this=clone(value), expressions=keys)),
            expressions=[lit(1)],
        )
    if node.args.get("order") is not None or node.args.get("spec") is not None:
        return _keep_refusal(
            ctx, node, "an analytic KEEP (DENSE_RANK ...) takes only PARTITION BY in its OVER"
        )
    frame = exp.WindowSpec(
        kind="ROWS",
        start="UNBOUNDED",
        start_side="PRECEDING",
        end="UNBOUNDED",
        end_side="FOLLOWING",
    )
    return exp.Window(
        this=exp.FirstValue(this=clone(value)),
        partition_by=[clone(p) for p in node.args.get("partition_by") or []],
        order=exp.Order(expressions=keys),
        spec=frame,
        over="OVER",
    )


# The pair aggregates (sql.ansi.PAIR_AGGREGATES): each source computes them in floating
# point and returns a double (REGR_COUNT: an integer), NULL over no pair.
FLOATING_TYPES = {exp.DType.DOUBLE, exp.DType.FLOAT}
# Sources whose statistics of exact numbers are exact numbers themselves.
DECIMAL_STATISTICS = {
    "oracle": "Oracle computes statistics of NUMBER arguments in decimal and returns a NUMBER",
    # docs.teradata.com, "Result Type and Format" of the window aggregates
    "teradata": "Teradata returns statistics of a numeric argument in the argument's own type",
}


def _as_double(node: exp.Expr) -> exp.Expr:
    return clone(node) if type_of(node) in FLOATING_TYPES else cast(clone(node), "DOUBLE")


@rule(
    "FN-PAIR-AGGREGATE",
    "rewrite",
    ("snowflake", "bigquery", "teradata", "oracle"),
    (*PAIR_AGGREGATES, exp.Window),
    "CORR, COVAR_POP, COVAR_SAMP and REGR_* (SQL:2003 T621) over pairs (y, x) with neither "
    "NULL are the standard's functions over the arguments as doubles (the sources convert "
    "to floating point; Oracle and Teradata only for floating-point arguments: Oracle's "
    "NUMBER form computes in decimal, Teradata's returns the argument's type, both refused), "
    "the result a DOUBLE PRECISION (REGR_COUNT a BIGINT, Teradata's INTEGER as its "
    "COUNT). The standard's CORR and REGR_SLOPE are NULL where x (or, for CORR, y) has zero "
    "variance; Snowflake and Teradata document no other value there (sql/render.py keeps "
    "DuckDB from returning NaN); "
    "BigQuery documents NaN for a zero variance with two pairs or more, written out as "
    "`CASE WHEN REGR_COUNT(y, x) >= 2 AND (REGR_SXX(y, x) = 0 OR REGR_SYY(y, x) = 0) THEN "
    "CAST('NaN' AS DOUBLE PRECISION) ...`. As window functions (OVER) every aggregate the "
    "rewrite writes is over the same window.",
    (
        (
            "snowflake",
            "SELECT CORR(o_totalprice, o_shippriority) AS c FROM SALES.ORDERS",
            'SELECT CAST(CORR(CAST("orders"."o_totalprice" AS DOUBLE PRECISION), '
            'CAST("orders"."o_shippriority" AS DOUBLE PRECISION)) AS DOUBLE PRECISION) AS "c" '
            'FROM "raw"."orders" AS "orders"',
        ),
        (
            "teradata",
            "SELECT REGR_COUNT(o_totalprice, o_shippriority) AS n FROM SALES_DB.ORDERS",
            'SELECT CAST(REGR_COUNT(CAST("orders"."o_totalprice" AS DOUBLE PRECISION), '
            'CAST("orders"."o_shippriority" AS DOUBLE PRECISION)) AS INTEGER) AS "n" '
            'FROM "raw"."orders" AS "orders"',
        ),
    ),
)
def pair_aggregate(node: exp.Expr, ctx: Context) -> exp.Expr | None:
    window = node if isinstance(node, exp.Window) else None
    aggregate = node.this if window is not None else node
    if not isinstance(aggregate, PAIR_AGGREGATES):
        return None
    if window is None and isinstance(node.parent, exp.Window):
        return None  # rewritten with the window around it, each aggregate in it OVER the same

    def over(written: exp.Expr) -> exp.Expr:
        if window is None:
            return written
        copy = clone(window)
        copy.set("this", written)
        return copy

    y, x = aggregate.this, aggregate.expression
    counting = isinstance(aggregate, exp.RegrCount)
    if (
        semantics(ctx.dialect).STATISTICS_KEEP_DECIMAL
        and not counting
        and not (type_of(y) in FLOATING_TYPES and type_of(x) in FLOATING_TYPES)
    ):
        ctx.report(
            "error",
            "FN-PAIR-AGGREGATE",
            node,
            f"{DECIMAL_STATISTICS[ctx.dialect]}; the standard's is a double: translated for "
            "floating-point arguments only",
        )
        return node
    pair = {"this": _as_double(y), "expression": _as_double(x)}

    def pairs(kind: type[exp.Expr]) -> exp.Expr:
        return over(kind(**{k: clone(v) for k, v in pair.items()}))

    count_type = "INTEGER" if semantics(ctx.dialect).COUNT_IS_INTEGER else "BIGINT"
    result = cast(pairs(type(aggregate)), count_type if counting else "DOUBLE")
    if semantics(ctx.dialect).CORR_OF_CONSTANT_IS_NAN and isinstance(aggregate, exp.Corr):
        degenerate = exp.And(
            this=exp.GTE(this=pairs(exp.RegrCount), expression=lit(2)),
            expression=exp.Paren(
                this=exp.Or(
                    this=exp.EQ(this=pairs(exp.RegrSxx), expression=lit(0)),
                    expression=exp.EQ(this=pairs(exp.RegrSyy), expression=lit(0)),
                )
            ),
        )
        nan = exp.Cast(this=exp.Literal.string("NaN"), to=exp.DataType.build("DOUBLE"))
        result = typed(exp.Case(ifs=[exp.If(this=degenerate, true=nan)], default=result), "DOUBLE")
    return result


@rule(
    "FN-ANY-VALUE",
    "rewrite",
    ("bigquery", "snowflake"),
    (exp.AnyValue,),
    "BigQuery's `ANY_VALUE(x)` is x from some row of the group, any row it likes, skipping "
    "rows where x is NULL (NULL when every x is NULL or there is no row); Snowflake's is "
    '"some value of the expression from the group", non-deterministic (its documentation '
    "does not say whether a NULL may be chosen beside other values). `MIN(x)` is one of "
    "those choices in both, and the same on every engine, so it is an exact translation; "
    "the window form too (`MIN(x) OVER (PARTITION BY ...)`). `ANY_VALUE(x HAVING MAX|MIN y)`, "
    "which picks among the rows with the largest (smallest) y, and x of a type without an "
    "order (ARRAY, STRUCT) are refused.",
    (
        (
            "bigquery",
            "SELECT o_custkey, ANY_VALUE(o_orderstatus) AS s FROM sales.orders GROUP BY o_custkey",
            'SELECT "orders"."o_custkey" AS "o_custkey", MIN("orders"."o_orderstatus") AS "s" '
            'FROM "raw"."orders" AS "orders" GROUP BY "orders"."o_custkey"',
        ),
        (
            "snowflake",
            "SELECT o_custkey, ANY_VALUE(o_orderstatus) OVER (PARTITION BY o_custkey) AS s "
            "FROM SALES.ORDERS",
            'SELECT "orders"."o_custkey" AS "o_custkey", MIN("orders"."o_orderstatus") OVER '
            '(PARTITION BY "orders"."o_custkey") AS "s" FROM "raw"."orders" AS "orders"',
        ),
    ),
)
def any_value(node: exp.AnyValue, ctx: Context) -> exp.Expr | None:
    value = node.this
    if isinstance(value, exp.HavingMax) or type_of(value) in (
        exp.DType.ARRAY,
        exp.DType.STRUCT,
    ):
        ctx.report(
            "error",
            "FN-ANY-VALUE",
            node,
            "ANY_VALUE is translated as MIN, for a value with an order and without HAVING MAX|MIN",
        )
        return node
    return exp.Min(this=clone(value))


# Types MIN_BY / MAX_BY may return under the tie guard: the guard needs an order on the
# value, and equal values of it that are one value (-0.0 and 0.0 of a float are equal, and
# Snowflake may return either).
_UNORDERED_TYPES = {
    exp.DType.ARRAY,
    exp.DType.STRUCT,
    exp.DType.MAP,
    exp.DType.OBJECT,
    exp.DType.VARIANT,
    exp.DType.JSON,
    exp.DType.DOUBLE,
    exp.DType.FLOAT,
    exp.DType.UNKNOWN,
}


def _first_of_ties(value: exp.Expr, key: exp.Expr, largest: bool, *, last: bool) -> exp.Expr:
    """``ARRAY_AGG(value ORDER BY key, value) FILTER (WHERE key IS NOT NULL)[1]``: the value
    of a row with the smallest (``largest``: largest) key, the tied rows ordered by their
    values: NULL first and then ascending (``last``: descending and NULL after them)."""
    keys = [
        exp.Ordered(this=clone(key), desc=largest, nulls_first=False),
        exp.Ordered(this=clone(value), desc=last, nulls_first=not last),
    ]
    present = exp.Not(this=exp.Is(this=clone(key), expression=exp.Null()))
    aggregate = exp.Filter(
        this=exp.ArrayAgg(this=exp.Order(this=clone(value), expressions=keys)),
        expression=exp.Where(this=present),
    )
    element = exp.Bracket(this=aggregate, expressions=[lit(1)])
    if isinstance(value.type, exp.DataType):
        element.type = value.type.copy()
    return element


@rule(
    "FN-MIN-BY",
    "rewrite",
    ("snowflake",),
    (exp.ArgMin, exp.ArgMax),
    "Snowflake's `MIN_BY(x, k)` / `MAX_BY(x, k)` (ARG_MIN / ARG_MAX) is x on a row with the "
    "smallest (largest) k, rows whose k is NULL ignored, NULL when every k is NULL; x is "
    "not skipped when NULL. Where several rows hold that k, Snowflake's documentation calls "
    "the result non-deterministic: it is exact only when those rows hold one x. So the "
    "translation is the standard's `ARRAY_AGG(x ORDER BY k, x ASC NULLS FIRST) FILTER "
    "(WHERE k IS NOT NULL)[1]` (S098) with a run-time guard: the tied rows hold more than "
    "one x exactly when that element IS DISTINCT FROM the one ordered `x DESC NULLS LAST`, "
    "and then the statement stops (FN-MIN-BY). The array form (a third argument), the "
    "window form, an x that is a float (-0.0 and 0.0 tie as one value), an array, an "
    "object or of unknown type, and a k that is an array, an object or of unknown type are "
    "refused.",
    (
        (
            "snowflake",
            "SELECT o_custkey, MIN_BY(o_orderkey, o_totalprice) AS k FROM SALES.ORDERS "
            "GROUP BY o_custkey",
            'SELECT "orders"."o_custkey" AS "o_custkey", CASE WHEN (ARRAY_AGG('
            '"orders"."o_orderkey" ORDER BY "orders"."o_totalprice" ASC NULLS LAST, '
            '"orders"."o_orderkey" ASC NULLS FIRST) FILTER(WHERE NOT "orders"."o_totalprice" '
            'IS NULL))[1] IS DISTINCT FROM (ARRAY_AGG("orders"."o_orderkey" ORDER BY '
            '"orders"."o_totalprice" ASC NULLS LAST, "orders"."o_orderkey" DESC NULLS LAST) '
            'FILTER(WHERE NOT "orders"."o_totalprice" IS NULL))[1] THEN RAISE_ERROR(\'FN-MIN-BY: '
            "rows tied on the smallest or largest key hold different values, of which Snowflake "
            'returns any\') ELSE (ARRAY_AGG("orders"."o_orderkey" ORDER BY '
            '"orders"."o_totalprice" ASC NULLS LAST, "orders"."o_orderkey" ASC NULLS FIRST) '
            'FILTER(WHERE NOT "orders"."o_totalprice" IS NULL))[1] END AS "k" FROM "raw"."orders" '
            'AS "orders" GROUP BY "orders"."o_custkey"',
        ),
    ),
)
def min_by(node: exp.Expr, ctx: Context) -> exp.Expr | None:
    value, key = node.this, node.expression
    name = "MIN_BY" if isinstance(node, exp.ArgMin) else "MAX_BY"
    if node.args.get("count") is not None:
        ctx.report(
            "error",
            "FN-MIN-BY",
            node,
            f"{name} with a number of values returns an array, whose order among tied keys "
            "Snowflake does not fix",
        )
        return node
    if isinstance(node.parent, exp.Window):
        ctx.report("error", "FN-MIN-BY", node, f"{name} as a window function is not translated")
        return node
    if type_of(value) in _UNORDERED_TYPES or type_of(value) is None:
        ctx.report(
            "error",
            "FN-MIN-BY",
            value,
            f"{name} of a value that is a float, an array, an object or of unknown type: the "
            "guard on tied keys needs values that compare equal only when they are one value",
        )
        return node
    if type_of(key) in _UNORDERED_TYPES - {exp.DType.DOUBLE, exp.DType.FLOAT} or (
        type_of(key) is None
    ):
        ctx.report(
            "error",
            "FN-MIN-BY",
            key,
            f"{name} by a key that is an array, an object or of unknown type, whose order "
            "Snowflake and the engines do not share",
        )
        return node
    largest = isinstance(node, exp.ArgMax)
    first = _first_of_ties(value, key, largest, last=False)
    other = _first_of_ties(value, key, largest, last=True)
    differs = exp.NullSafeNEQ(this=first, expression=other)
    return guarded(
        _first_of_ties(value, key, largest, last=False),
        differs,
        "FN-MIN-BY",
        "rows tied on the smallest or largest key hold different values, of which Snowflake "
        "returns any",
        at=node,
    )
