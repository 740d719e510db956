"""Row generators as recursive queries (SQL:1999 T131, in a derived table: T132).

Oracle's ``CONNECT BY LEVEL <= n`` over DUAL, BigQuery's ``UNNEST(GENERATE_ARRAY(...))`` and
``UNNEST(GENERATE_DATE_ARRAY(...))`` and Snowflake's ``TABLE(GENERATOR(ROWCOUNT => n))`` each
produce a numbered run of rows. The standard form is a recursive common table expression in a
derived table: row ``k`` (from 0) holds the value ``start + k * step``, computed from ``k``
(not by adding to the previous value) so that a month step from the 28th or earlier is the
same however the source computes it. Bounds must be literals: a bound from a column would
make the series depend on the row, which a derived table cannot see.
"""

from __future__ import annotations

from sqlglot import exp

from sql.rules.base import Context, rule
from sql.rules.build import cast, integer_literal, lit
from sql.rules.calendar import iso_date

SERIES = "series"  # the recursive query's name, inside the derived table only
# Units of GENERATE_DATE_ARRAY's step: days (and weeks) are exact for any start; months,
# quarters and years only from a start on the 28th or earlier, where no step is clamped to
# a month's end (so adding k months to the start and adding a month k times agree).
DAY_STEPS = {"DAY": 1, "WEEK": 7}
MONTH_STEPS = {"MONTH": 1, "QUARTER": 3, "YEAR": 12}
LAST_UNCLAMPED_DAY = 28


def _column(name: str, table: str = SERIES) -> exp.Column:
    return exp.column(name, table=table, quoted=True)


def series(
    start: exp.Expr, value_of: exp.Expr, end: exp.Expr | None, *, keep_first: bool
) -> exp.Select:
    """SELECT k, v FROM a recursive series: k = 0, 1, ...; v = ``start`` for k = 0 and
    ``value_of`` (an expression of ``series.k``) after; rows while v <= ``end``. With
    ``keep_first`` the first row stays even past ``end`` (Oracle's CONNECT BY root row)."""
    k, v = _column("k"), _column("v")
    first = exp.select(
        exp.alias_(lit(0), "k", quoted=True), exp.alias_(start.copy(), "v", quoted=True)
    )
    step = exp.select(exp.Add(this=k.copy(), expression=lit(1)), value_of.copy()).from_(
        exp.to_table(SERIES, quoted=True)
    )
    if end is not None:
        step = step.where(exp.LTE(this=value_of.copy(), expression=end.copy()))
    cte = exp.CTE(
        this=exp.union(first, step, distinct=False),
        alias=exp.TableAlias(
            this=exp.to_identifier(SERIES, quoted=True),
            columns=[exp.to_identifier("k", quoted=True), exp.to_identifier("v", quoted=True)],
        ),
    )
    outer = exp.select(
        exp.alias_(k.copy(), "k", quoted=True), exp.alias_(v.copy(), "v", quoted=True)
    ).from_(exp.to_table(SERIES, quoted=True))
    if end is not None and not keep_first:
        outer = outer.where(exp.LTE(this=v.copy(), expression=end.copy()))
    outer.set("with_", exp.With(expressions=[cte], recursive=True))
    return outer


def _derived(query: exp.Select, alias: str, columns: list[str]) -> exp.Subquery:
    """``(query) AS alias(columns...)``: the series' k and v under the source's names."""
    return exp.Subquery(
        this=query,
        alias=exp.TableAlias(
            this=exp.to_identifier(alias),
            columns=[exp.to_identifier(c) for c in columns],
        ),
    )


def _date(node: exp.Expr | None) -> str | None:
    """The ISO date a literal (``'2024-01-01'``, ``DATE '2024-01-01'``) names."""
    if isinstance(node, exp.Cast) and node.to.is_type(exp.DType.DATE):
        node = node.this
    if isinstance(node, (exp.TsOrDsToDate, exp.TimeStrToTime)):
        node = node.this
    if isinstance(node, exp.Literal) and node.is_string:
        return iso_date(node.name)
    return None


def _refuse(ctx: Context, node: exp.Expr, message: str) -> exp.Expr:
    ctx.report("error", "ROW-GENERATOR", node, message)
    return node


def _array_series(generator: exp.Expr, ctx: Context) -> exp.Select | None:
    """GENERATE_ARRAY / GENERATE_DATE_ARRAY of literals as a series query; None (reported)
    when it has none."""
    k = _column("k")
    next_k = exp.Paren(this=exp.Add(this=k, expression=lit(1)))
    if isinstance(generator, exp.GenerateSeries):
        start, end = (
            integer_literal(generator.args.get("start")),
            integer_literal(generator.args.get("end")),
        )
        step_node = generator.args.get("step")
        step = 1 if step_node is None else integer_literal(step_node)
        if start is None or end is None or step is None or step <= 0:
            _refuse(
                ctx,
                generator,
                "GENERATE_ARRAY is translated for integer literal bounds and a positive "
                "literal step only",
            )
            return None
        value = exp.Add(this=lit(start), expression=exp.Mul(this=next_k, expression=lit(step)))
        return series(lit(start), value, lit(end), keep_first=False)
    start_day = _date(generator.args.get("start"))
    end_day = _date(generator.args.get("end"))
    step_node = generator.args.get("step")
    amount, unit = 1, "DAY"
    if step_node is not None:
        if not isinstance(step_node, exp.Interval):
            start_day = None
        else:
            amount_node = step_node.this
            if isinstance(amount_node, exp.Literal) and amount_node.is_string:
                amount_node = exp.Literal.number(amount_node.name)
            amount = integer_literal(amount_node) or 0
            unit = step_node.text("unit").upper()
    if start_day is None or end_day is None or amount <= 0:
        _refuse(
            ctx,
            generator,
            "GENERATE_DATE_ARRAY is translated for literal dates and a positive literal step",
        )
        return None
    if unit in DAY_STEPS:
        days, unit_name = amount * DAY_STEPS[unit], "DAY"
        interval = exp.Interval(this=exp.Literal.string(str(days)), unit=exp.var(unit_name))
    elif unit in MONTH_STEPS and int(start_day[8:]) <= LAST_UNCLAMPED_DAY:
        months = amount * MONTH_STEPS[unit]
        interval = exp.Interval(this=exp.Literal.string(str(months)), unit=exp.var("MONTH"))
    else:
        _refuse(
            ctx,
            generator,
            f"GENERATE_DATE_ARRAY by {unit} from day {start_day[8:]} of a month depends on "
            "how each step is clamped to a month's end",
        )
        return None
    first = cast(lit(start_day), "DATE")
    value = cast(
        exp.Add(this=first.copy(), expression=exp.Mul(this=next_k, expression=interval)), "DATE"
    )
    return series(first, value, cast(lit(end_day), "DATE"), keep_first=False)


@rule(
    "ROW-GENERATOR",
    "rewrite",
    ("oracle", "snowflake", "bigquery"),
    (exp.Connect, exp.Unnest, exp.TableFromRows),
    "Row generators become a recursive query in a derived table (T131/T132): Oracle and "
    "Snowflake `SELECT ... LEVEL ... FROM DUAL CONNECT BY LEVEL <= n` (the first row is always "
    "there, as in Oracle), BigQuery `UNNEST(GENERATE_ARRAY(a, b[, step]))` and "
    "`UNNEST(GENERATE_DATE_ARRAY(d1, d2[, INTERVAL n unit]))` with their `WITH OFFSET`, and "
    "Snowflake `TABLE(GENERATOR(ROWCOUNT => n))`, whose `ROW_NUMBER() OVER (ORDER BY SEQ4())` "
    "(or SEQ1, SEQ2, SEQ8) numbers the rows 1 to n. Bounds must be literals; month, quarter and year steps must start "
    "on a month's 28th day or earlier (no step is clamped); SEQ4() itself may have gaps and "
    "stays refused.",
    (
        (
            "bigquery",
            "SELECT n FROM UNNEST(GENERATE_ARRAY(1, 3)) AS n",
            'SELECT "n"."n" AS "n" FROM (WITH RECURSIVE "series"("k", "v") AS (SELECT 0 AS "k", 1 AS "v" UNION ALL SELECT "series"."k" + 1 AS "k", 1 + ("series"."k" + 1) * 1 AS "v" FROM "series" AS "series" WHERE 1 + ("series"."k" + 1) * 1 <= 3) SELECT "series"."k" AS "_offset", "series"."v" AS "n" FROM "series" AS "series" WHERE "series"."v" <= 3) AS "n"',
        ),
        (
            "oracle",
            "SELECT LEVEL AS n FROM DUAL CONNECT BY LEVEL <= 3",
            'SELECT "levels"."level" AS "n" FROM (WITH RECURSIVE "series"("k", "v") AS (SELECT 0 AS "k", 1 AS "v" UNION ALL SELECT "series"."k" + 1 AS "k", 1 + ("series"."k" + 1) AS "v" FROM "series" AS "series" WHERE 1 + ("series"."k" + 1) <= 3) SELECT "series"."k" AS "_k", "series"."v" AS "level" FROM "series" AS "series") AS "levels"',
        ),
    ),
    phase="syntax",
)
def row_generator(node: exp.Expr, ctx: Context) -> exp.Expr | None:
    if isinstance(node, exp.Connect):
        return _connect_by_level(node, ctx)
    if isinstance(node, exp.TableFromRows):
        return _generator(node, ctx)
    return _unnest_series(node, ctx)


def _unnest_series(node: exp.Expr, ctx: Context) -> exp.Expr | None:
    if ctx.dialect != "bigquery" or len(node.expressions) != 1:
        return None
    generator = node.expressions[0]
    if not isinstance(generator, (exp.GenerateSeries, exp.GenerateDateArray)):
        return None
    if not isinstance(node.parent, (exp.From, exp.Join)):
        return _refuse(ctx, node, "a generated array is translated only as a table in FROM")
    alias = node.args.get("alias")
    columns = [c.name for c in alias.columns] if alias is not None and alias.columns else []
    name = columns[0] if columns else (alias.name if alias is not None and alias.name else "")
    if not name:
        return _refuse(ctx, node, "UNNEST of a generated array needs an alias for its values")
    query = _array_series(generator, ctx)
    if query is None:
        return node  # refused
    offset = node.args.get("offset")
    offset_name = offset.name if isinstance(offset, exp.Identifier) else "_offset"
    return _derived(query, name, [offset_name, name])


def _generator(node: exp.Expr, ctx: Context) -> exp.Expr | None:
    generator = node.this
    if ctx.dialect != "snowflake" or not isinstance(generator, exp.Generator):
        return None
    if generator.args.get("time_limit") is not None:
        return _refuse(ctx, node, "GENERATOR(TIMELIMIT => ...) yields as many rows as time allows")
    count = integer_literal(generator.args.get("rowcount"))
    if count is None:
        return _refuse(ctx, node, "GENERATOR is translated for a literal ROWCOUNT only")
    alias = node.args.get("alias")
    name = alias.name if alias is not None and alias.name else "generator"
    select = node.find_ancestor(exp.Select)
    if select is not None:
        # ROW_NUMBER() OVER (ORDER BY SEQ4()) numbers the rows 1..n whatever gaps SEQ4 has,
        # and whatever order: the generated rows are alike (SEQ1 and SEQ2 wrap around).
        for seq in list(select.find_all(exp.Seq1, exp.Seq2, exp.Seq4, exp.Seq8)):
            ordered = seq.parent
            spec = ordered.parent.parent if ordered is not None and ordered.parent else None
            if (
                isinstance(ordered, exp.Ordered)
                and isinstance(spec, exp.Window)
                and isinstance(spec.this, exp.RowNumber)
            ):
                seq.replace(exp.column("k", table=name))
    return _derived(series(lit(1), _next_count(), lit(count), keep_first=False), name, ["k", "_v"])


def _connect_by_level(node: exp.Expr, ctx: Context) -> exp.Expr | None:
    select = node.parent
    if not isinstance(select, exp.Select) or node.args.get("start") is not None:
        return None
    condition = node.args.get("connect")
    bound: exp.Expr | None = None
    if isinstance(condition, (exp.LTE, exp.LT)) and _is_level(condition.this):
        bound = condition.expression
    elif isinstance(condition, (exp.GTE, exp.GT)) and _is_level(condition.expression):
        bound = condition.this
    count = integer_literal(bound)
    if count is None:
        return None  # ORA-CONNECT-BY refuses it, as a hierarchical query
    if isinstance(condition, (exp.LT, exp.GT)):
        count -= 1
    source = select.args.get("from_")
    if select.args.get("joins") or (
        source is not None
        and not (isinstance(source.this, exp.Table) and source.this.name.upper() == "DUAL")
    ):
        return None
    levels = series(lit(1), _next_count(), lit(count), keep_first=True)
    for column in list(select.find_all(exp.Column)):
        if _is_level(column) and column.find_ancestor(exp.Select) is select:
            column.replace(exp.column("level", table="levels", quoted=True))
    select.set("from_", exp.From(this=_derived(levels, "levels", ["_k", "level"])))
    node.pop()
    return node


def _next_count() -> exp.Expr:
    """The value after row k of a count from 1: 1 + (k + 1)."""
    return exp.Add(
        this=lit(1), expression=exp.Paren(this=exp.Add(this=_column("k"), expression=lit(1)))
    )


def _is_level(node: exp.Expr | None) -> bool:
    return isinstance(node, exp.Column) and not node.table and node.name.upper() == "LEVEL"
