"""Clause-level constructs: row limits, QUALIFY, hints, APPLY, MINUS, ROWNUM, NULL ordering.

Rules with no node types run as passes in ``sql/translate.py`` (they need the whole
statement or the catalog); they are registered here so the catalog and docs list them.
"""

from __future__ import annotations

from dataclasses import dataclass

from sqlglot import exp

from sql.portable import PortableRpad
from sql.rules.base import ALL_DIALECTS, Context, rule
from sql.rules.build import (
    INTEGER_TYPES,
    NUMERIC_TYPES,
    cast,
    clone,
    data_type,
    extract,
    guarded,
    interval,
    lit,
    type_of,
    type_params,
    typed,
)
from sql.rules.case_sensitivity import compare as case_compare
from sql.rules.case_sensitivity import text_type, unwrap
from sql.rules.day_arithmetic import ORACLE_DATE_META
from sql.rules.strings import BLANKS_KEPT, BLANKS_UNDECIDED, tsql_blank_guard, tsql_like_value
from sql.source_dialects import CLOCK_DIGITS_META, UTC_CLOCK_META, semantics


def _noop(node: exp.Expr, ctx: Context) -> exp.Expr | None:
    return None


@rule(
    "TOP",
    "rewrite",
    ("tsql", "teradata", "redshift"),
    (exp.Limit,),
    "TOP n [PERCENT] [WITH TIES] becomes FETCH FIRST n [PERCENT] ROWS ONLY / WITH TIES: the "
    "standard's PERCENT count rounds up as T-SQL's does (sql/render.py runs both as a filter "
    "on ROW_NUMBER / RANK, which neither engine spells). A PERCENT that is not a number "
    "literal from 0 to 100 is refused.",
    (
        (
            "tsql",
            "SELECT TOP 5 WITH TIES o_orderkey FROM dbo.Orders ORDER BY o_totalprice DESC",
            'SELECT "orders"."o_orderkey" AS "o_orderkey" FROM "raw"."orders" AS "orders" ORDER BY "orders"."o_totalprice" DESC NULLS LAST FETCH FIRST 5 ROWS WITH TIES',
        ),
        (
            "tsql",
            "SELECT TOP (12.5) PERCENT o_orderkey FROM dbo.Orders ORDER BY o_totalprice",
            'SELECT "orders"."o_orderkey" AS "o_orderkey" FROM "raw"."orders" AS "orders" '
            'ORDER BY "orders"."o_totalprice" ASC NULLS FIRST FETCH FIRST 12.5 PERCENT ROWS ONLY',
        ),
    ),
)
def top(node: exp.Expr, ctx: Context) -> exp.Expr | None:
    if not node.meta.get("top"):
        return None
    options = node.args.get("limit_options")
    if options is not None and options.args.get("percent"):
        count = node.expression
        while isinstance(count, exp.Paren):
            count = count.this
        number = count.name if isinstance(count, exp.Literal) and not count.is_string else ""
        if not number or not 0 <= float(number) <= 100:
            ctx.report(
                "error",
                "TOP",
                node.expression,
                "TOP n PERCENT is translated for a number literal n from 0 to 100 (T-SQL "
                "raises on other values)",
            )
            return None
    return exp.Fetch(
        direction="FIRST", count=node.expression, limit_options=node.args.get("limit_options")
    )


@rule(
    "LIMIT",
    "rewrite",
    ("snowflake", "teradata", "bigquery", "redshift"),
    (exp.Limit,),
    "LIMIT n becomes FETCH FIRST n ROWS ONLY (OFFSET m becomes OFFSET m ROWS).",
    (
        (
            "bigquery",
            "SELECT o_orderkey FROM sales.orders ORDER BY o_orderkey LIMIT 10",
            'SELECT "orders"."o_orderkey" AS "o_orderkey" FROM "raw"."orders" AS "orders" ORDER BY "o_orderkey" ASC NULLS FIRST FETCH FIRST 10 ROWS ONLY',
        ),
    ),
)
def limit(node: exp.Expr, ctx: Context) -> exp.Expr | None:
    if node.this is not None:
        # BigQuery's LIMIT inside an aggregate (ARRAY_AGG, STRING_AGG) bounds its values, not
        # the rows: sql/rules/arrays.py translates it under a subscript, else it is refused.
        if not isinstance(node.parent, exp.ArrayAgg):
            ctx.report("error", "LIMIT", node, "LIMIT inside an aggregate is not translated")
        return None
    return exp.Fetch(
        direction="FIRST", count=node.expression, limit_options=node.args.get("limit_options")
    )


@rule(
    "QUALIFY",
    "rewrite",
    ("snowflake", "teradata", "bigquery"),
    (exp.Qualify,),
    "QUALIFY filters on window functions after they are computed: the query becomes a "
    "subquery that projects the window values, filtered by an outer WHERE.",
    (
        (
            "snowflake",
            "SELECT o_custkey, o_orderkey FROM SALES.ORDERS "
            "QUALIFY ROW_NUMBER() OVER (PARTITION BY o_custkey ORDER BY o_orderdate DESC) = 1",
            'SELECT "o_custkey", "o_orderkey" FROM (SELECT "orders"."o_custkey" AS "o_custkey", "orders"."o_orderkey" AS "o_orderkey", ROW_NUMBER() OVER (PARTITION BY "orders"."o_custkey" ORDER BY "orders"."o_orderdate" DESC NULLS FIRST) AS "_w" FROM "raw"."orders" AS "orders") AS "_t" WHERE "_w" = 1',
        ),
    ),
)
def qualify(node: exp.Expr, ctx: Context) -> exp.Expr | None:
    return node  # rewritten by a whole-statement pass once every rule has run


@rule(
    "TABLE-HINT",
    "info",
    ("tsql",),
    (exp.WithTableHint,),
    "Table hints such as WITH (NOLOCK) are dropped with an info diagnostic: they tune locking "
    "and plans, not results (NOLOCK's dirty reads cannot happen on an immutable lake).",
    (
        (
            "tsql",
            "SELECT o_orderkey FROM dbo.Orders WITH (NOLOCK)",
            'SELECT "orders"."o_orderkey" AS "o_orderkey" FROM "raw"."orders" AS "orders"',
        ),
    ),
)
def table_hint(node: exp.Expr, ctx: Context) -> exp.Expr | None:
    hints = ", ".join(e.sql("tsql") for e in node.expressions)
    ctx.report("info", "TABLE-HINT", node, f"table hint WITH ({hints}) dropped")
    node.pop()
    return node


@rule(
    "ORDER-NULLS",
    "rewrite",
    ALL_DIALECTS,
    (exp.Ordered,),
    "ORDER BY without NULLS FIRST/LAST gets the source dialect's default made explicit "
    "(NULLs sort high in Snowflake, Oracle and Redshift; low in T-SQL, Teradata and BigQuery).",
    (
        (
            "tsql",
            "SELECT o_orderkey FROM dbo.Orders ORDER BY o_orderdate",
            'SELECT "orders"."o_orderkey" AS "o_orderkey" FROM "raw"."orders" AS "orders" ORDER BY "orders"."o_orderdate" ASC NULLS FIRST',
        ),
    ),
)
def order_nulls(node: exp.Expr, ctx: Context) -> exp.Expr | None:
    return node  # the parser already resolved the dialect default; ANSI prints it


@rule(
    "APPLY",
    "rewrite",
    ("tsql",),
    (exp.Lateral,),
    "CROSS APPLY becomes CROSS JOIN LATERAL, OUTER APPLY becomes LEFT JOIN LATERAL ... ON TRUE.",
    (
        (
            "tsql",
            "SELECT c_custkey, x.o_orderkey FROM dbo.Customer c CROSS APPLY "
            "(SELECT TOP 1 o_orderkey FROM dbo.Orders o WHERE o.o_custkey = c.c_custkey "
            "ORDER BY o_orderdate DESC) x",
            'SELECT "c"."c_custkey" AS "c_custkey", "x"."o_orderkey" AS "o_orderkey" FROM "raw"."customer" AS "c" CROSS JOIN LATERAL (SELECT "o"."o_orderkey" AS "o_orderkey" FROM "raw"."orders" AS "o" WHERE "o"."o_custkey" = "c"."c_custkey" ORDER BY "o"."o_orderdate" DESC NULLS LAST FETCH FIRST 1 ROWS ONLY) AS "x"',
        ),
    ),
)
def apply_to_lateral(node: exp.Expr, ctx: Context) -> exp.Expr | None:
    if node.args.get("cross_apply") is None:
        return None
    if node.args.get("view") or not isinstance(node.this, (exp.Subquery, exp.Select)):
        ctx.report(
            "error", "APPLY", node, "APPLY is translated for a derived table (subquery) only"
        )
        return None
    return node


@rule(
    "ORA-MINUS",
    "rewrite",
    ("oracle", "teradata", "snowflake"),
    (exp.Except,),
    "MINUS becomes EXCEPT (both remove duplicates).",
    (
        (
            "oracle",
            "SELECT c_custkey FROM SALES.CUSTOMER MINUS SELECT o_custkey FROM SALES.ORDERS",
            'SELECT "customer"."c_custkey" AS "c_custkey" FROM "raw"."customer" AS "customer" EXCEPT SELECT "orders"."o_custkey" AS "o_custkey" FROM "raw"."orders" AS "orders"',
        ),
    ),
)
def minus(node: exp.Expr, ctx: Context) -> exp.Expr | None:
    if node.args.get("distinct") is not False:
        # EXCEPT is what the ANSI generator writes; the set operation's other rules still
        # apply to it (PAD-VARIANT compares its text as the source does).
        ctx.applied.add("ORA-MINUS")
    return None


@rule(
    "MOD",
    "rewrite",
    ALL_DIALECTS,
    (exp.Mod,),
    "`a % b` / `a MOD b` becomes MOD(a, b) (the result takes the dividend's sign everywhere).",
    (
        (
            "teradata",
            "SELECT o_orderkey MOD 7 AS bucket FROM SALES_DB.ORDERS",
            'SELECT MOD("orders"."o_orderkey", 7) AS "bucket" FROM "raw"."orders" AS "orders"',
        ),
    ),
)
def mod(node: exp.Expr, ctx: Context) -> exp.Expr | None:
    return node


@rule(
    "STRING-AGG",
    "rewrite",
    ALL_DIALECTS,
    (exp.GroupConcat,),
    "LISTAGG / STRING_AGG / GROUP_CONCAT becomes LISTAGG(x, sep) WITHIN GROUP (ORDER BY ...); "
    "without an order the value itself orders the list. The separator is always written: "
    "where the call names none, the source's default (Oracle and Redshift: none, their NULL; "
    "Snowflake: ''; BigQuery: ','), refused where the source documents none (Teradata); "
    "Oracle's and Redshift's NULL separator (Oracle's '' is NULL) puts nothing between "
    "values. Redshift leaves out '' values (NULLIF(x, '')), and its DISTINCT takes values "
    "that differ only in trailing blanks for one, keeping whichever it meets first: such a "
    "group stops the query at run time (a guard), any other runs exact.",
    (
        (
            "bigquery",
            "SELECT o_custkey, STRING_AGG(o_orderstatus, ',') AS s FROM sales.orders GROUP BY o_custkey",
            'SELECT "orders"."o_custkey" AS "o_custkey", LISTAGG("orders"."o_orderstatus", \',\') WITHIN GROUP (ORDER BY "orders"."o_orderstatus" ASC NULLS LAST) AS "s" FROM "raw"."orders" AS "orders" GROUP BY "orders"."o_custkey"',
        ),
        (
            "oracle",
            "SELECT LISTAGG(o_orderstatus) WITHIN GROUP (ORDER BY o_orderkey) AS s FROM SALES.ORDERS",
            'SELECT LISTAGG("orders"."o_orderstatus", \'\') WITHIN GROUP (ORDER BY "orders"."o_orderkey" ASC NULLS LAST) AS "s" FROM (SELECT "orders"."o_orderkey" AS "o_orderkey", NULLIF("orders"."o_orderstatus", \'\') AS "o_orderstatus" FROM "raw"."orders" AS "orders") AS "orders"',
        ),
        (
            "redshift",
            "SELECT LISTAGG(o_orderstatus) AS s FROM sales.orders",
            'SELECT LISTAGG(NULLIF("orders"."o_orderstatus", \'\'), \'\') WITHIN GROUP (ORDER BY NULLIF("orders"."o_orderstatus", \'\') ASC NULLS LAST) AS "s" FROM "raw"."orders" AS "orders"',
        ),
    ),
)
def string_agg(node: exp.Expr, ctx: Context) -> exp.Expr | None:
    flags = semantics(ctx.dialect)
    value = node.this
    order = value if isinstance(value, exp.Order) else None
    value = order.this if order is not None else value
    separator = node.args.get("separator")
    if isinstance(value, exp.Distinct) and len(value.expressions) == 2 and separator is None:
        # Redshift parses LISTAGG(DISTINCT x, sep) as DISTINCT over (x, sep).
        value, separator = exp.Distinct(expressions=[value.expressions[0]]), value.expressions[1]
    if separator is None:
        if flags.LISTAGG_DEFAULT_SEPARATOR is None:
            ctx.report(
                "error",
                "STRING-AGG",
                node,
                f"{ctx.dialect} documents no separator for a string aggregate that names none; "
                "name one",
            )
            return node
        separator = lit(flags.LISTAGG_DEFAULT_SEPARATOR)
    elif flags.LISTAGG_NULL_SEPARATOR_IS_NONE:
        if isinstance(separator, exp.Null):
            separator = lit("")
        elif not (isinstance(separator, exp.Literal) and separator.is_string):
            separator = exp.Coalesce(this=clone(separator), expressions=[lit("")])
    distinct = isinstance(value, exp.Distinct)
    if flags.LISTAGG_SKIPS_EMPTY_STRINGS:
        inner = value.expressions[0] if distinct else value
        kept = exp.Nullif(this=clone(inner), expression=lit(""))
        if order is not None:
            # DISTINCT needs its ordering key to be the value itself.
            for key in order.expressions:
                if key.this == inner:
                    key.set("this", clone(kept))
        value = exp.Distinct(expressions=[kept]) if distinct else kept
    if order is not None:
        order.set("this", value)
        node.set("this", order)
    else:
        node.set("this", value)
    node.set("separator", separator)
    if (
        distinct
        and flags.LISTAGG_SKIPS_EMPTY_STRINGS
        and not isinstance(node.parent, exp.WithinGroup)
    ):
        return trailing_blanks_guard(node, clone(node), value.expressions[0], ctx)
    return node


def trailing_blanks_guard(
    node: exp.Expr, aggregate: exp.Expr, value: exp.Expr, ctx: Context
) -> exp.Expr:
    """Redshift's LISTAGG(DISTINCT value) (``aggregate``, written in place of ``node``): one
    of the values of a group that differ only in trailing blanks, the first met. Exact for
    groups without such values; a group with them stops the query (the two counts differ)."""
    if isinstance(node.parent, exp.Window):
        ctx.report(
            "error",
            "STRING-AGG",
            node,
            "LISTAGG(DISTINCT ...) OVER keeps whichever of the values that differ only in "
            "trailing blanks Redshift meets first: no exact form",
        )
        return node
    as_written = exp.Count(this=exp.Distinct(expressions=[clone(value)]))
    compared = exp.Count(
        this=exp.Distinct(
            expressions=[exp.Trim(this=clone(value), position="TRAILING", expression=lit(" "))]
        )
    )
    return guarded(
        aggregate,
        exp.NEQ(this=as_written, expression=compared),
        "STRING-AGG",
        "Redshift's LISTAGG(DISTINCT ...) keeps one of the values that differ only in "
        "trailing blanks, whichever it meets first, and this group holds such values",
    )


@rule(
    "TSQL-CONVERT",
    "rewrite",
    ("tsql",),
    (exp.Convert,),
    "CONVERT(type, x) without a style becomes CAST(x AS type). CONVERT(VARCHAR, d, style) of "
    "a date or time with a style that prints only numbers (1-5, 10-12, 101-105, 110-112, 23, "
    "8, 24, 108, 20, 120) is the text of each field, zero-padded and joined; a shorter "
    "VARCHAR(n) truncates it as T-SQL does (`CONVERT(VARCHAR(7), d, 120)` is 'yyyy-mm'). "
    "Of a DATE, the styles of the date alone print its fields (`CONVERT(VARCHAR, d, 103)` is "
    "'dd/mm/yyyy'); a style with a time of day (20/120, 21/121, 8/108, ...) is refused: "
    "Microsoft's documentation states each style's text for a datetime, not what it prints "
    "for a date. Styles that print names, milliseconds or a varying fraction, and styles that "
    "parse text, are refused.",
    (
        (
            "tsql",
            "SELECT CONVERT(DECIMAL(10, 1), o_totalprice) AS p FROM dbo.Orders",
            'SELECT CAST("orders"."o_totalprice" AS DECIMAL(10, 1)) AS "p" FROM "raw"."orders" AS "orders"',
        ),
        (
            "tsql",
            "SELECT CONVERT(varchar, o_orderdate, 112) AS d FROM dbo.Orders",
            'SELECT SUBSTRING(CAST(EXTRACT(YEAR FROM "orders"."o_orderdate") + 10000 AS VARCHAR) '
            'FROM 2) || SUBSTRING(CAST(EXTRACT(MONTH FROM "orders"."o_orderdate") + 100 AS '
            'VARCHAR) FROM 2) || SUBSTRING(CAST(EXTRACT(DAY FROM "orders"."o_orderdate") + 100 '
            'AS VARCHAR) FROM 2) AS "d" FROM "raw"."orders" AS "orders"',
        ),
    ),
)
def tsql_convert(node: exp.Expr, ctx: Context) -> exp.Expr | None:
    if node.args.get("style") is not None:
        from sql.rules.formats import FormatRefusal, tsql_style

        try:
            return tsql_style(node)
        except FormatRefusal as refusal:
            ctx.report("error", "TSQL-CONVERT", node, f"CONVERT with {refusal}")
            return node
    converted = exp.Cast(this=clone(node.expression), to=clone(node.this))
    # Still the source's cast: the final phase's CAST rules (text, dates) apply to it.
    converted.meta.update(node.meta)
    converted.meta["source"] = True
    return cast_rule(converted, ctx) or converted


@rule(
    "CAST-TO-INTEGER",
    "rewrite",
    ALL_DIALECTS,
    (exp.Cast,),
    "CAST of a fractional number to an integer type truncates in T-SQL and Teradata and rounds "
    "half away from zero elsewhere; ANSI leaves it implementation-defined, so it is made explicit.",
    (
        (
            "tsql",
            "SELECT CAST(o_totalprice AS INT) AS p FROM dbo.Orders",
            'SELECT CAST("orders"."o_totalprice" - MOD("orders"."o_totalprice", 1) AS INTEGER) AS "p" FROM "raw"."orders" AS "orders"',
        ),
    ),
    phase="final",
)
def cast_rule(node: exp.Expr, ctx: Context) -> exp.Expr | None:
    target = node.args["to"].this
    source = type_of(node.this)
    if target not in INTEGER_TYPES or source not in NUMERIC_TYPES or source in INTEGER_TYPES:
        return None
    value = clone(node.this)
    if semantics(ctx.dialect).INTEGER_CAST_TRUNCATES:
        whole: exp.Expr = exp.Sub(
            this=value, expression=exp.Mod(this=clone(value), expression=lit(1))
        )
    else:
        whole = exp.Round(this=value, decimals=lit(0))
    return exp.Cast(this=whole, to=node.args["to"].copy())


def _without_trailing_spaces(node: exp.Expr) -> exp.Expr:
    if isinstance(node, exp.Literal) and node.is_string:
        return exp.Literal.string(node.name.rstrip(" "))
    return exp.Trim(this=clone(node), position="TRAILING", expression=lit(" "))


@rule(
    "PAD-COMPARISON",
    "rewrite",
    ("tsql", "teradata", "redshift"),
    (exp.EQ, exp.NEQ, exp.GT, exp.GTE, exp.LT, exp.LTE, exp.In, exp.Between),
    "T-SQL and Teradata compare strings as if the shorter were padded with spaces ('a' = 'a  '), "
    'and Redshift ignores trailing spaces when it compares ("Trailing spaces in VARCHAR and '
    'CHAR values are treated as semantically insignificant when values are compared"), so '
    "both sides lose trailing spaces: TRIM(TRAILING ' ' FROM x). Whether case counts is "
    "decided as TSQL-COLLATION and TD-CASESPECIFIC say (BETWEEN there: CASE-IMPLICIT).",
    (
        (
            "tsql",
            "SELECT c_custkey FROM dbo.Customer WHERE c_mktsegment = 'BUILDING  '",
            'SELECT "customer"."c_custkey" AS "c_custkey" FROM "raw"."customer" AS "customer" WHERE TRIM(TRAILING \' \' FROM "customer"."c_mktsegment") = \'BUILDING\'',
        ),
    ),
)
def pad_comparison(node: exp.Expr, ctx: Context) -> exp.Expr | None:
    flags = semantics(ctx.dialect)
    decides_case = flags.TEXT_CASE_IS_AN_ATTRIBUTE or flags.TEXT_COMPARES_BY_COLLATION
    if isinstance(node, exp.Between):
        bounds = (node.args.get("low"), node.args.get("high"))
        if (
            decides_case
            or not text_type(node.this)
            or not all(b is not None and text_type(b) for b in bounds)
        ):
            return None
        return exp.Between(
            this=_without_trailing_spaces(node.this),
            low=_without_trailing_spaces(bounds[0]),
            high=_without_trailing_spaces(bounds[1]),
        )
    if isinstance(node, exp.In):
        values = node.expressions
        if node.args.get("query") or not values or not text_type(node.this):
            return None
        if not all(text_type(v) for v in values):
            return None
        rewritten = exp.In(
            this=_without_trailing_spaces(node.this),
            expressions=[_without_trailing_spaces(v) for v in values],
        )
        if not decides_case:
            return rewritten
        return case_compare(node, rewritten, ("this", "expressions"), ctx)
    if not text_type(node.this) or not text_type(node.expression):
        return None
    rewritten = type(node)(
        this=_without_trailing_spaces(node.this),
        expression=_without_trailing_spaces(node.expression),
    )
    if not decides_case:
        return rewritten
    return case_compare(node, rewritten, ("this", "expression"), ctx)


@rule(
    "TSQL-COLLATION",
    "warn",
    ("tsql",),
    (exp.Like,),
    "T-SQL compares text (=, <, IN, LIKE, BETWEEN, and implicitly: CASE-IMPLICIT) by a "
    "collation the text does not show: the tsql_collation_case assumption. SENSITIVE (stated "
    "default) translates as written, with a warning wherever case could change the result; "
    "INSENSITIVE refuses those comparisons, since a case-insensitive collation compares by "
    "culture rules no standard function reproduces ('ß' = 'ss'). A comparison case cannot "
    "change (a side without letters, UPPER(x) = 'ABC') translates without either.",
    (
        (
            "tsql",
            "SELECT c_custkey FROM dbo.Customer WHERE c_name LIKE 'Customer#0001%'",
            'SELECT "customer"."c_custkey" AS "c_custkey" FROM "raw"."customer" AS "customer" WHERE "customer"."c_name" LIKE \'Customer#0001%\'',
        ),
    ),
)
def collation(node: exp.Expr, ctx: Context) -> exp.Expr | None:
    if not text_type(node.this):
        return None
    # Teradata's LIKE keeps the value's trailing blanks ("Pad characters are significant in
    # both the character expression, and in the pattern string"): SQL Server's drop is T-SQL's.
    by_collation = semantics(ctx.dialect).TEXT_COMPARES_BY_COLLATION
    treatment = tsql_like_value(node, ctx) if by_collation else BLANKS_KEPT
    if treatment is None:
        return node
    rewritten = clone(node)
    length = None if by_collation else _char_length(node.this)
    if length is not None:
        # A Teradata CHAR(n) value is its text padded with blanks to n, which LIKE matches
        # as it is; a lake value may hold its pad or not: trimmed, then padded to n.
        trimmed = exp.Trim(this=clone(unwrap(node.this)), position="TRAILING", expression=lit(" "))
        rewritten.set("this", PortableRpad(this=trimmed, length=lit(length), pad=lit(" ")))
    compared = case_compare(node, rewritten, ("this", "expression"), ctx)
    if treatment == BLANKS_UNDECIDED and isinstance(compared, exp.Like):
        ctx.applied.add("LIKE-PATTERN")
        return tsql_blank_guard(compared, node)
    return compared


def _char_length(value: exp.Expr) -> int | None:
    """n of a value typed CHAR(n), else None."""
    kind = unwrap(value).type
    if not isinstance(kind, exp.DataType) or kind.this not in (exp.DType.CHAR, exp.DType.NCHAR):
        return None
    params = type_params(kind)
    return params[0] if params is not None and len(params) == 1 else None


@rule(
    "TD-CASESPECIFIC",
    "warn",
    ("teradata",),
    (exp.Like,),
    "Teradata compares text case specific when either operand is CASESPECIFIC, else case "
    "blind, converting simple Latin letters to upper case first (SQL Functions, Expressions, "
    "and Predicates: Equality Comparison). An operand's attribute: written `x (NOT CS)`, else "
    "its column's declared one (catalog `casespecific`), else the session's default, NOT "
    "CASESPECIFIC in TERA mode and CASESPECIFIC in ANSI mode (the teradata_session_mode "
    "assumption, a warning where it decides). Case blind, both sides become the portable "
    "TRANSLATE(x, 'a..z', 'A..Z') (=, <, IN, LIKE, BETWEEN). LIKE keeps the value's trailing "
    "blanks (Teradata: pad characters are significant), a CHAR(n) value's pad included: "
    "RPAD(TRIM(TRAILING ' ' FROM c), n, ' '), whether the lake holds the pad or not. A letter as LIKE's ESCAPE is read at "
    "translation by Teradata's rules (the letter followed by _, % or itself is that character) "
    "and the pattern escaped with a backslash before folding. Refused: an expression over a "
    "declared column (its attribute is not documented), a letter ESCAPE with a pattern that is "
    "not a literal, holds the letter's other case (which of them escapes is not documented) or "
    "escapes another character (a Teradata error).",
    (
        (
            "teradata",
            "SELECT c_custkey FROM SALES_DB.CUSTOMER WHERE c_name (NOT CS) LIKE 'Customer#0001%'",
            'SELECT "customer"."c_custkey" AS "c_custkey" FROM "raw"."customer" AS "customer" '
            'WHERE TRANSLATE("customer"."c_name", \'abcdefghijklmnopqrstuvwxyz\', '
            "'ABCDEFGHIJKLMNOPQRSTUVWXYZ') LIKE 'CUSTOMER#0001%'",
        ),
        (
            "teradata",
            "SELECT c_custkey FROM SALES_DB.CUSTOMER WHERE c_name (NOT CS) LIKE 'Cusx_%' "
            "ESCAPE 'x'",
            'SELECT "customer"."c_custkey" AS "c_custkey" FROM "raw"."customer" AS "customer" '
            'WHERE TRANSLATE("customer"."c_name", \'abcdefghijklmnopqrstuvwxyz\', '
            "'ABCDEFGHIJKLMNOPQRSTUVWXYZ') LIKE 'CUS\\_%' ESCAPE '\\'",
        ),
        (
            "teradata",
            "SELECT c_custkey FROM SALES_DB.CUSTOMER WHERE c_name (CASESPECIFIC) LIKE 'Bob%'",
            'SELECT "customer"."c_custkey" AS "c_custkey" FROM "raw"."customer" AS "customer" '
            'WHERE "customer"."c_name" LIKE \'Bob%\'',
        ),
    ),
)
def casespecific(node: exp.Expr, ctx: Context) -> exp.Expr | None:
    return collation(node, ctx)


# A translated clock is exact when every value it gives is a value the legacy clock's type
# holds, and the relations the legacy documents between its clocks in one statement hold (a
# reading is never reproducible: the statement runs at another instant on another machine).
# A floor to the legacy digits keeps both: it is a value of the legacy type, never later than
# a finer reading of the same instant, and on the same day (Teradata: "CURRENT_DATE and
# CURRENT_TIMESTAMP always identify the same DATE"), where a rounding could reach the next
# second, even the next day. The engines' clocks give six digits: a value every clock type of
# six digits or more holds.
ENGINE_CLOCK_DIGITS = 6
# On a clock whose precision the query wrote (CURRENT_TIMESTAMP(0)), set by CLOCK-PRECISION.
CLOCK_PRECISION_META = "clock_precision"
CLOCK_DIALECTS = {
    "oracle": "Oracle",
    "redshift": "Redshift",
    "snowflake": "Snowflake",
    "teradata": "Teradata",
}


@dataclass(frozen=True)
class Clock:
    """What a legacy clock's documentation says its value is: ``zone`` True where its type is
    an instant or keeps a time zone, False where it is a date and time without one, None where
    the documentation found does not say (the translation then stays as it was)."""

    functions: str  # the functions the source parser reads as one node, as documented
    legacy_type: str
    zone: bool | None
    source: str  # the page, and its words


# Each dialect's clocks by the node its parser reads them as (a bare CURRENT_TIMESTAMP, one
# with sysdate set, CURRENT_DATETIME, LOCALTIMESTAMP), with their documented types. A clock
# without a time zone reads the zone-less clock (local_now); one with a zone or an instant
# keeps CURRENT_TIMESTAMP, as instants are kept elsewhere (read as they are). T-SQL's UTC
# clocks (GETUTCDATE, SYSUTCDATETIME: "UTC", parsed as CURRENT_TIMESTAMP marked
# UTC_CLOCK_META) are UTC's date and time without a zone: the zone-less clock, which the
# engines' sessions read in UTC (SESSION_CONF, connect_duckdb), whatever the legacy server's
# zone. Clocks the parsers give other nodes are refused elsewhere: T-SQL SYSDATETIMEOFFSET
# (datetimeoffset(7)) and Oracle SYSTIMESTAMP (TIMESTAMP WITH TIME ZONE) (ANSI-UNSUPPORTED). Oracle's SYSDATE / CURRENT_DATE and Redshift's GETDATE hold
# whole seconds: SESSION-TIME floors them (whole_seconds reads the zone-less clock too).
_LEARN = "https://learn.microsoft.com/sql/t-sql/functions/"
_ORACLE = "https://docs.oracle.com/database/122/SQLRF/"
_REDSHIFT = "https://docs.aws.amazon.com/redshift/latest/dg/"
_SNOWFLAKE = "https://docs.snowflake.com/sql-reference/functions/"
_BIGQUERY = "https://docs.cloud.google.com/bigquery/docs/reference/standard-sql/"
CLOCKS: dict[tuple[str, str], tuple[Clock, ...]] = {
    ("tsql", "CURRENT_TIMESTAMP"): (
        Clock(
            "GETDATE()",
            "datetime",
            False,
            f"{_LEARN}getdate-transact-sql: 'Returns the current database system timestamp as "
            "a datetime value without the database time zone offset'",
        ),
        Clock(
            "CURRENT_TIMESTAMP",
            "datetime",
            False,
            f"{_LEARN}current-timestamp-transact-sql: 'returns the current database system "
            "timestamp as a datetime value, without the database time zone offset'",
        ),
        Clock(
            "SYSDATETIME()",
            "datetime2(7)",
            False,
            f"{_LEARN}sysdatetime-transact-sql: 'Returns a datetime2(7) value that contains "
            "the date and time of the computer'; of the six clocks there, 'SYSDATETIMEOFFSET "
            "includes the system time zone offset'",
        ),
    ),
    ("tsql", "UTC"): (
        Clock(
            "GETUTCDATE()",
            "datetime",
            False,
            f"{_LEARN}getutcdate-transact-sql: 'Returns the current database system timestamp "
            "as a datetime value. The database time zone offset is not included. This value "
            "represents the current UTC time (Coordinated Universal Time)'",
        ),
        Clock(
            "SYSUTCDATETIME()",
            "datetime2(7)",
            False,
            f"{_LEARN}sysutcdatetime-transact-sql: 'returns a datetime2 value that contains the "
            "date and time of the computer on which the instance of SQL Server is running. The "
            "date and time is returned as UTC time'; 'The default precision is 7 digits'",
        ),
    ),
    ("oracle", "CURRENT_TIMESTAMP"): (
        Clock(
            "CURRENT_TIMESTAMP",
            "TIMESTAMP WITH TIME ZONE",
            True,
            f"{_ORACLE}CURRENT_TIMESTAMP.htm: 'returns the current date and time in the "
            "session time zone, in a value of data type TIMESTAMP WITH TIME ZONE'",
        ),
    ),
    ("oracle", "SYSDATE"): (
        Clock(
            "SYSDATE",
            "DATE",
            False,
            f"{_ORACLE}SYSDATE.htm: 'The data type of the returned value is DATE' (a date and "
            "a time of day to the second, no zone)",
        ),
    ),
    ("oracle", "CURRENT_DATE"): (
        Clock(
            "CURRENT_DATE",
            "DATE",
            False,
            f"{_ORACLE}CURRENT_DATE.htm: 'returns the current date in the session time zone, "
            "in a value in the Gregorian calendar of data type DATE'",
        ),
    ),
    ("oracle", "LOCALTIMESTAMP"): (
        Clock(
            "LOCALTIMESTAMP",
            "TIMESTAMP",
            False,
            f"{_ORACLE}CURRENT_TIMESTAMP.htm: 'CURRENT_TIMESTAMP returns a TIMESTAMP WITH "
            "TIME ZONE value while LOCALTIMESTAMP returns a TIMESTAMP value'",
        ),
    ),
    ("redshift", "SYSDATE"): (
        Clock(
            "SYSDATE",
            "TIMESTAMP",
            False,
            f"{_REDSHIFT}r_SYSDATE.html: 'SYSDATE returns the current date and time in the "
            "current session time zone (UTC by default)'; 'Return type: TIMESTAMP'",
        ),
    ),
    ("redshift", "CURRENT_TIMESTAMP"): (
        Clock(
            "GETDATE()",
            "TIMESTAMP",
            False,
            f"{_REDSHIFT}r_GETDATE.html: 'Return type: TIMESTAMP' (floored: CLOCK_DIGITS_META)",
        ),
        Clock(
            "CURRENT_TIMESTAMP, NOW()",
            "not documented",
            None,
            f"{_REDSHIFT}c_SQL_functions_leader_node_only.html lists both among the date "
            "functions 'deprecated and no longer supported'; no return type is given",
        ),
    ),
    ("snowflake", "CURRENT_TIMESTAMP"): (
        Clock(
            "CURRENT_TIMESTAMP, GETDATE(), LOCALTIMESTAMP, SYSTIMESTAMP()",
            "TIMESTAMP_LTZ",
            True,
            f"{_SNOWFLAKE}current_timestamp (getdate, localtimestamp, systimestamp): 'The data "
            "type of the returned value is TIMESTAMP_LTZ'",
        ),
    ),
    ("snowflake", "SYSDATE"): (
        Clock(
            "SYSDATE()",
            "TIMESTAMP_NTZ",
            False,
            f"{_SNOWFLAKE}sysdate: 'Returns the current timestamp in the UTC time zone. The "
            "data type of the returned value is TIMESTAMP_NTZ' (the engines' sessions are "
            "UTC: the zone-less clock is that value)",
        ),
    ),
    ("bigquery", "CURRENT_TIMESTAMP"): (
        Clock(
            "CURRENT_TIMESTAMP()",
            "TIMESTAMP (an instant)",
            True,
            f"{_BIGQUERY}timestamp_functions: CURRENT_TIMESTAMP 'Returns the current date and "
            "time as a TIMESTAMP object'",
        ),
    ),
    ("bigquery", "CURRENT_DATETIME"): (
        Clock(
            "CURRENT_DATETIME()",
            "DATETIME",
            False,
            f"{_BIGQUERY}datetime_functions: CURRENT_DATETIME 'Returns the current date and "
            "time as a DATETIME value' (in the default time zone, UTC, as the engines' "
            "sessions are)",
        ),
    ),
    ("teradata", "CURRENT_TIMESTAMP"): (
        Clock(
            "CURRENT_TIMESTAMP",
            "not stated",
            None,
            "https://docs.teradata.com/r/kmuOwjp1zEYg98JsB8fu_A/5vnsnjwk8vS0VDvoRF7oMQ: built "
            "'from the session time and session time zone', AT [TIME ZONE] sets its 'time "
            "zone displacement'; the pages found give no result type",
        ),
    ),
}


def clock_shape(node: exp.Expr) -> str:
    """The key of ``node`` in :data:`CLOCKS`: how the source parser read the clock."""
    if isinstance(node, exp.Localtimestamp):
        return "LOCALTIMESTAMP"
    if isinstance(node, exp.CurrentDate):
        return "CURRENT_DATE"
    if isinstance(node, exp.CurrentDatetime):
        return "CURRENT_DATETIME"
    if node._meta and node.meta.get(UTC_CLOCK_META):
        return "UTC"
    return "SYSDATE" if node.args.get("sysdate") else "CURRENT_TIMESTAMP"


def zone_less(node: exp.Expr, dialect: str) -> bool:
    """Whether every clock the parser reads as ``node`` is documented without a time zone."""
    clocks = CLOCKS.get((dialect, clock_shape(node)), ())
    return bool(clocks) and all(clock.zone is False for clock in clocks)


def local_now() -> exp.Expr:
    """The current date and time without a time zone: the standard's CURRENT_TIMESTAMP cast
    to TIMESTAMP, its date and time of day in the session's zone, which is what the
    standard's LOCALTIMESTAMP gives (DuckDB types both TIMESTAMP). LOCALTIMESTAMP itself is
    not written: Spark 4 takes only localtimestamp(), which sqlglot does not write."""
    return cast(exp.CurrentTimestamp(), "TIMESTAMP")


def whole_seconds() -> exp.Expr:
    """The current timestamp without time zone floored to the second, of the standard's
    EXTRACT, CAST and interval arithmetic (it has no DATE_TRUNC): the reading's date as
    TIMESTAMP(0) plus its hours, minutes and whole seconds, each read of the zone-less clock
    (local_now). EXTRACT(SECOND) carries the fraction in Spark and not in DuckDB: its FLOOR
    is the whole seconds on both. The four readings are one value: the standard's
    CURRENT_TIMESTAMP is fixed for the statement, as DuckDB's (the transaction's start) and
    Spark's (the query's) are. Its type is TIMESTAMP(0) (annotation gives it again from the
    inner CAST), so that later rules know it holds whole seconds."""
    seconds = exp.Add(
        this=exp.Add(
            this=exp.Mul(this=extract("HOUR", local_now()), expression=lit(3600)),
            expression=exp.Mul(this=extract("MINUTE", local_now()), expression=lit(60)),
        ),
        expression=cast(exp.Floor(this=extract("SECOND", local_now())), "INTEGER"),
    )
    midnight = cast(cast(local_now(), "DATE"), "TIMESTAMP(0)")
    return typed(exp.Add(this=midnight, expression=interval(seconds, "SECOND")), "TIMESTAMP(0)")


def whole_seconds_instant() -> exp.Expr:
    """The current timestamp floored to the second, kept an instant: CURRENT_TIMESTAMP (a
    TIMESTAMP WITH TIME ZONE on DuckDB, Spark's TIMESTAMP, an instant) less its microseconds
    into the second. The fraction is read of the zone-less clock (local_now), the same
    reading in the session's zone: a zone's offset is whole minutes, so the fraction is the
    instant's. DuckDB and Spark keep the kind of an instant plus an interval. Its type is
    TIMESTAMP(0) WITH TIME ZONE, so that later rules know it holds whole seconds."""
    micros = typed(
        exp.Cast(
            this=exp.Mul(this=extract("SECOND", local_now()), expression=lit(1_000_000)),
            to=data_type("BIGINT"),
        ),
        "BIGINT",
    )
    fraction = exp.Mod(this=micros, expression=lit(1_000_000))
    step = exp.Interval(this=exp.Literal.string("0.000001"), unit=exp.var("SECOND"))
    floored = exp.Sub(
        this=exp.CurrentTimestamp(), expression=exp.Mul(this=fraction, expression=step)
    )
    return typed(floored, "TIMESTAMP(0)")


@rule(
    "CLOCK-PRECISION",
    "rewrite",
    tuple(CLOCK_DIALECTS),
    (exp.CurrentTimestamp, exp.Localtimestamp),
    "CURRENT_TIMESTAMP(p) / LOCALTIMESTAMP(p) with a fractional-second precision. A clock's "
    "reading is never reproducible, so its translation is exact when every value it gives is "
    "a value of the legacy clock's type and the relations between the legacy's clocks in one "
    "statement hold; a floor to p digits keeps both (never later than a finer reading, on the "
    "same day as CURRENT_DATE), where a rounding may be the next second or day. (0) is the "
    "reading floored to whole seconds (SESSION-TIME writes it), of the kind the clock without "
    "a precision gives: a clock documented without a time zone (Oracle LOCALTIMESTAMP) the "
    "zone-less TIMESTAMP; any other (Oracle's and Snowflake's CURRENT_TIMESTAMP, Teradata's, "
    "Redshift's) where its value is kept (selected, compared, a CASE / COALESCE branch, an "
    "interval added) CURRENT_TIMESTAMP less its microseconds, an instant still (DuckDB's "
    "TIMESTAMP WITH TIME ZONE, Spark's TIMESTAMP), and where it is converted or a function's "
    "argument its date and time in the session's zone, as the rules read CURRENT_TIMESTAMP "
    "there; (6) up to the dialect's "
    "largest (Teradata 6, Oracle and Snowflake 9, Redshift 6) is CURRENT_TIMESTAMP, whose six "
    "digits that type holds. Refused: 1 to 5 digits (a floor needs the second's fraction, "
    "which DuckDB's EXTRACT(SECOND) lacks), a precision beyond the dialect's largest, and one "
    "that is not a number.",
    (
        (
            "teradata",
            "SELECT CURRENT_TIMESTAMP(0) AS loaded_at FROM SALES_DB.REGION",
            "SELECT CURRENT_TIMESTAMP - MOD(CAST(EXTRACT(SECOND FROM CAST(CURRENT_TIMESTAMP AS "
            "TIMESTAMP)) * 1000000 AS BIGINT), 1000000) * INTERVAL '0.000001' SECOND AS "
            '"loaded_at" FROM "raw"."region" AS "region"',
        ),
        (
            "oracle",
            "SELECT LOCALTIMESTAMP(0) AS loaded_at FROM SALES.REGION",
            "SELECT CAST(CAST(CAST(CURRENT_TIMESTAMP AS TIMESTAMP) AS DATE) AS TIMESTAMP(0)) + "
            "(EXTRACT(HOUR FROM CAST(CURRENT_TIMESTAMP AS TIMESTAMP)) * 3600 + EXTRACT(MINUTE "
            "FROM CAST(CURRENT_TIMESTAMP AS TIMESTAMP)) * 60 + CAST(FLOOR(EXTRACT(SECOND FROM "
            "CAST(CURRENT_TIMESTAMP AS TIMESTAMP))) AS INTEGER)) * INTERVAL '1' SECOND AS "
            '"loaded_at" FROM "raw"."region" AS "region"',
        ),
        (
            "snowflake",
            "SELECT LOCALTIMESTAMP(9) AS loaded_at FROM sales.region",
            'SELECT CURRENT_TIMESTAMP AS "loaded_at" FROM "raw"."region" AS "region"',
        ),
    ),
    phase="syntax",
)
def clock_precision(node: exp.Expr, ctx: Context) -> exp.Expr | None:
    precision = node.args.get("this")
    if precision is None:
        return None
    if isinstance(node, exp.Localtimestamp) and not zone_less(node, ctx.dialect):
        return None  # a LOCALTIMESTAMP of undocumented type: refused as it is
    digits = (
        int(precision.name) if isinstance(precision, exp.Literal) and precision.is_int else None
    )
    name = CLOCK_DIALECTS[ctx.dialect]
    largest = semantics(ctx.dialect).CLOCK_MAX_PRECISION or ENGINE_CLOCK_DIGITS
    if digits is None or digits > largest:
        return _refuse_clock(
            node,
            ctx,
            f"the current timestamp with a precision that is not a number from 0 to {largest}, "
            f"the precisions {name} takes",
        )
    if 0 < digits < ENGINE_CLOCK_DIGITS:
        return _refuse_clock(
            node,
            ctx,
            f"the current timestamp with {digits} fractional-second digits: the reading "
            "floored to them would be exact, but the floor needs the second's fraction, "
            "which DuckDB's EXTRACT(SECOND) does not give; write CURRENT_TIMESTAMP(0) (whole "
            "seconds) or CURRENT_TIMESTAMP where six digits may stay",
        )
    # The bare function, in place: SESSION-TIME translates it, flooring a reading of no digits.
    node.set("this", None)
    if digits == 0:
        node.meta[CLOCK_DIGITS_META] = 0
        node.meta[CLOCK_PRECISION_META] = True
    return node


def _refuse_clock(node: exp.Expr, ctx: Context, message: str) -> exp.Expr:
    ctx.report("error", "CLOCK-PRECISION", node, message)
    return node


@rule(
    "CLOCK-ZONE",
    "refuse",
    ("bigquery",),
    (exp.CurrentDate, exp.CurrentDatetime, exp.CurrentTimestamp),
    "BigQuery's CURRENT_DATE(zone) / CURRENT_DATETIME(zone) read the clock in the time zone "
    "named, not the session's: the standard's CURRENT_DATE and CURRENT_TIMESTAMP take no "
    "zone (its AT TIME ZONE takes a displacement, not a name), so a call with a zone is "
    "refused rather than read in the session's.",
    (("bigquery", "SELECT CURRENT_DATETIME('America/New_York') AS t", "1:8"),),
    phase="syntax",
)
def clock_zone(node: exp.Expr, ctx: Context) -> exp.Expr | None:
    if node.args.get("this") is None:
        return None
    ctx.report(
        "error",
        "CLOCK-ZONE",
        node,
        "the current date or time in a named time zone: ANSI SQL's clocks read the "
        "session's zone only; where that zone is the session's, write the call without it",
    )
    return node


@rule(
    "SESSION-TIME",
    "warn",
    ALL_DIALECTS,
    (exp.CurrentDate, exp.CurrentTimestamp, exp.CurrentDatetime, exp.Localtimestamp),
    "CURRENT_DATE / GETDATE() / SYSDATE read the clock in the session time zone; translated "
    "assuming the engine session uses the same time zone as the legacy server. A clock keeps "
    "its legacy type's kind: one documented without a time zone (T-SQL GETDATE(), "
    "CURRENT_TIMESTAMP and SYSDATETIME(), and GETUTCDATE() and SYSUTCDATETIME(), UTC's, "
    "without the warning: the engines' sessions are UTC; Oracle LOCALTIMESTAMP; Redshift SYSDATE; Snowflake "
    "SYSDATE(), UTC's, as the engines' sessions are; BigQuery CURRENT_DATETIME()) is "
    "CAST(CURRENT_TIMESTAMP AS TIMESTAMP), the standard's LOCALTIMESTAMP, a TIMESTAMP on both "
    "engines and in the lake; an instant or one with a zone (Oracle CURRENT_TIMESTAMP, "
    "Snowflake's TIMESTAMP_LTZ clocks, BigQuery CURRENT_TIMESTAMP()) and one whose type is "
    "not documented (Teradata, Redshift CURRENT_TIMESTAMP) stays CURRENT_TIMESTAMP. A clock "
    "whose type holds whole seconds is that reading floored to the second (see "
    "CLOCK-PRECISION): Oracle's CURRENT_DATE and SYSDATE (DATEs, with the time of day), "
    "Redshift's GETDATE() (its documentation shows whole seconds, SYSDATE's six digits) and "
    "CURRENT_TIMESTAMP(0), which stays an instant where CURRENT_TIMESTAMP does.",
    (
        (
            "tsql",
            "SELECT o_orderkey FROM dbo.Orders WHERE o_orderdate < SYSDATETIME()",
            'SELECT "orders"."o_orderkey" AS "o_orderkey" FROM "raw"."orders" AS "orders" '
            'WHERE "orders"."o_orderdate" < CAST(CURRENT_TIMESTAMP AS TIMESTAMP)',
        ),
        (
            "oracle",
            "SELECT SYSDATE - 1 AS yesterday FROM dual",
            "SELECT CAST(CAST(CAST(CURRENT_TIMESTAMP AS TIMESTAMP) AS DATE) AS TIMESTAMP(0)) + "
            "(EXTRACT(HOUR FROM CAST(CURRENT_TIMESTAMP AS TIMESTAMP)) * 3600 + EXTRACT(MINUTE "
            "FROM CAST(CURRENT_TIMESTAMP AS TIMESTAMP)) * 60 + CAST(FLOOR(EXTRACT(SECOND FROM "
            "CAST(CURRENT_TIMESTAMP AS TIMESTAMP))) AS INTEGER)) * INTERVAL '1' SECOND - "
            "INTERVAL '1' DAY AS \"yesterday\"",
        ),
    ),
)
def session_time(node: exp.Expr, ctx: Context) -> exp.Expr | None:
    local = zone_less(node, ctx.dialect)
    if isinstance(node, exp.Localtimestamp) and not local:
        return None  # a LOCALTIMESTAMP of undocumented type: refused as it is
    if clock_shape(node) != "UTC":  # UTC's clocks depend on no zone the legacy server has
        ctx.report(
            "warning", "SESSION-TIME", node, "current date/time depends on the session time zone"
        )
    oracle_date = semantics(ctx.dialect).DATE_HOLDS_TIME and (
        isinstance(node, exp.CurrentDate) or node.args.get("sysdate")
    )
    if oracle_date:
        # Oracle's CURRENT_DATE and SYSDATE are DATEs: the date and the time of day, to the
        # second.
        now = whole_seconds()
        now.meta[ORACLE_DATE_META] = "time"
        return now
    if isinstance(node, exp.CurrentDate):
        return exp.CurrentDate()
    if node.meta.get(CLOCK_DIGITS_META) == 0:
        # Floored, of the kind the clock without digits gives: Redshift's GETDATE() is a
        # TIMESTAMP whatever the other clocks its node stands for (CLOCK_PRECISION_META
        # marks the precisions written in the query).
        if local or not node.meta.get(CLOCK_PRECISION_META) or not _kept_as_instant(node):
            return whole_seconds()
        return whole_seconds_instant()
    return local_now() if local else exp.CurrentTimestamp()


# Where a clock's value is kept as the value it is: selected, compared, a branch, an interval
# added. Elsewhere (a CAST, a function's argument, a number of days added) the rules read the
# clock as its date and time in the session's zone, as they read CURRENT_TIMESTAMP itself.
_KEEPS_VALUE = (
    exp.Alias,
    exp.Select,
    exp.Ordered,
    exp.Tuple,
    exp.EQ,
    exp.NEQ,
    exp.LT,
    exp.LTE,
    exp.GT,
    exp.GTE,
    exp.Between,
    exp.In,
    exp.Coalesce,
    exp.Case,
    exp.If,
    exp.Nullif,
    exp.Max,
    exp.Min,
)


def _kept_as_instant(node: exp.Expr) -> bool:
    """Whether the clock ``node`` is read as its value (an instant stays one) rather than
    converted or taken apart (its date and time of day)."""
    parent = node.parent
    while isinstance(parent, exp.Paren):
        node, parent = parent, parent.parent
    if isinstance(parent, (exp.Add, exp.Sub)):
        other = parent.expression if parent.this is node else parent.this
        return isinstance(other, exp.Interval) or (
            isinstance(other, exp.Mul)
            and any(isinstance(side, exp.Interval) for side in (other.this, other.expression))
        )
    return parent is None or isinstance(parent, _KEEPS_VALUE)


@rule(
    "ORA-ROWNUM",
    "rewrite",
    ("oracle",),
    (exp.Column,),
    "WHERE ROWNUM <= n becomes FETCH FIRST n ROWS ONLY; over a derived table that is ordered, "
    "the fetch moves inside it (Oracle numbers rows before ORDER BY, so ROWNUM with ORDER BY "
    "in the same query block, or any other use of ROWNUM, is refused).",
    (
        (
            "oracle",
            "SELECT * FROM (SELECT o_orderkey FROM SALES.ORDERS ORDER BY o_totalprice DESC) WHERE ROWNUM <= 5",
            'SELECT "_0"."o_orderkey" AS "o_orderkey" FROM (SELECT "orders"."o_orderkey" AS "o_orderkey" FROM "raw"."orders" AS "orders" ORDER BY "orders"."o_totalprice" DESC NULLS FIRST FETCH FIRST 5 ROWS ONLY) AS "_0"',
        ),
    ),
    phase="syntax",
)
def rownum(node: exp.Expr, ctx: Context) -> exp.Expr | None:
    if node.name.upper() != "ROWNUM" or node.table:
        return None
    comparison = node.parent
    if isinstance(comparison, (exp.LTE, exp.LT)) and comparison.this is node:
        bound = comparison.expression
        where = comparison.parent
        conjunct_of_where = isinstance(where, exp.Where) or (
            isinstance(where, exp.And) and isinstance(where.parent, exp.Where)
        )
        if isinstance(bound, exp.Literal) and bound.is_int and conjunct_of_where:
            select = comparison.find_ancestor(exp.Select)
            count = int(bound.name) - (1 if isinstance(comparison, exp.LT) else 0)
            if select is not None and not select.args.get("order") and not select.args.get("group"):
                _limit_select(select, comparison, count)
                return node
    ctx.report(
        "error",
        "ORA-ROWNUM",
        node,
        "ROWNUM is translated only as `WHERE ROWNUM <= n` in a query block without ORDER BY",
    )
    return None


def _limit_select(select: exp.Select, comparison: exp.Expr, count: int) -> None:
    """Drop the ROWNUM predicate and fetch ``count`` rows from the right query block."""
    where = comparison.parent
    if isinstance(where, exp.Where):
        where.pop()
    else:
        sibling = where.expression if where.this is comparison else where.this
        where.replace(sibling)
    target = select
    source = select.args.get("from_")
    inner = source.this if source is not None else None
    if (
        isinstance(inner, exp.Subquery)
        and not select.args.get("joins")
        and not select.args.get("where")
    ):
        query = inner.this
        if (
            isinstance(query, exp.Select)
            and query.args.get("order")
            and not query.args.get("limit")
        ):
            target = query
    target.set("limit", exp.Fetch(direction="FIRST", count=lit(count)))


PASS_REFUSALS = {
    "PARSE",
    "NAME-UNKNOWN",
    "COLUMN-UNKNOWN",
    "PROC-STATEMENT",
    "SCRIPT-SHAPE",
    "ANSI-UNSUPPORTED",
}

for _rule_id, _dialects, _description, _example in (
    (
        "PARSE",
        ALL_DIALECTS,
        "Input that the dialect's parser rejects is refused at the failing token.",
        ("tsql", "SELECT FROM WHERE", "1:13"),
    ),
    (
        "NAME-UNKNOWN",
        ALL_DIALECTS,
        "A table that the catalog (sql/catalog.yaml, or the user's --catalog files) does not "
        "map is an error naming it and the catalog files searched.",
        ("tsql", "SELECT * FROM dbo.Nowhere", "1:15"),
    ),
    (
        "NAME-DEFAULT",
        ALL_DIALECTS,
        "A table name with fewer parts than the dialect's full name resolves through the "
        "session's default database/schema (an assumption: tsql_schema, snowflake_schema, "
        "...), or, where that default is unknown, to the only catalog table it can name; "
        "more than one is refused as NAME-AMBIGUOUS. A table another legacy file of the "
        "project builds is known by its name alone, however qualified, and resolves so "
        "(noted) unless the catalog holds the name as written, or names exactly one table "
        "by it once complete; a catalog table and a project table it can both name are "
        "NAME-AMBIGUOUS, naming both.",
        (
            "tsql",
            "SELECT r_name FROM Region",
            'SELECT "region"."r_name" AS "r_name" FROM "raw"."region" AS "region"',
        ),
    ),
    (
        "COLUMN-UNKNOWN",
        ALL_DIALECTS,
        "A column that none of the query's tables has is an error.",
        ("tsql", "SELECT o_nothing FROM dbo.Orders", "1:8"),
    ),
    (
        "ORA-OUTER-PLUS",
        ("oracle",),
        "Oracle (+) outer-join markers become LEFT/RIGHT JOIN ... ON.",
        (
            "oracle",
            "SELECT c_custkey, o_orderkey FROM SALES.CUSTOMER c, SALES.ORDERS o WHERE c.c_custkey = o.o_custkey(+)",
            'SELECT "c"."c_custkey" AS "c_custkey", "o"."o_orderkey" AS "o_orderkey" FROM "raw"."customer" AS "c" LEFT JOIN "raw"."orders" AS "o" ON "c"."c_custkey" = "o"."o_custkey"',
        ),
    ),
    (
        "ORA-DUAL",
        ("oracle",),
        "FROM DUAL is dropped: SELECT without FROM yields one row.",
        ("oracle", "SELECT 1 AS one FROM DUAL", 'SELECT 1 AS "one"'),
    ),
    (
        "STAR-EXCEPT",
        ("bigquery", "snowflake"),
        "SELECT * EXCEPT / EXCLUDE (cols) is expanded to the remaining columns from the catalog schema.",
        (
            "bigquery",
            "SELECT * EXCEPT (r_comment) FROM sales.region",
            'SELECT "region"."r_regionkey" AS "r_regionkey", "region"."r_name" AS "r_name" FROM "raw"."region" AS "region"',
        ),
    ),
    (
        "TEMP-TABLE",
        ALL_DIALECTS,
        "A #temp (T-SQL), VOLATILE (Teradata) or TEMP/TEMPORARY table read later in the same script becomes a CTE of what reads it, as its rows are when read: made by one SELECT (INTO, CREATE ... AS), or declared with typed columns and filled by INSERTs (each value CAST to its column's type). A permanent table the script declares with typed columns (CREATE TABLE t (a INT, ...)) and keeps is one of its outputs too: the rows its INSERT ... SELECT / VALUES put in, none without any. Refused, located: INSERT into a table made by a query (its types are not declared), UPDATE/DELETE/MERGE of it, a read after DROP (or of a temporary table before any INSERT), a ##global table, a #table the script does not create, an INSERT into a declared column with a length or a constraint other than NOT NULL (held where each value is a literal; a NULL or an omitted column without a DEFAULT fails) and a DEFAULT of a literal, CURRENT_DATE or CURRENT_TIMESTAMP (the value of a column the INSERT leaves out), or into a table with a table constraint or UNIQUE index (Teradata's SET tables: TD-SET-TABLE).",
        (
            "tsql",
            "SELECT o_custkey INTO #big FROM dbo.Orders WHERE o_totalprice > 1000; SELECT COUNT(*) AS n FROM #big",
            'WITH "big" AS (SELECT "orders"."o_custkey" AS "o_custkey" FROM "raw"."orders" AS "orders" WHERE "orders"."o_totalprice" > 1000) SELECT COUNT(*) AS "n" FROM "big" AS "big"',
        ),
    ),
    (
        "TD-SET-TABLE",
        ("teradata",),
        "A Teradata table the script declares SET (or neither SET nor MULTISET, which is SET in TERA session mode and MULTISET in ANSI mode: the teradata_session_mode assumption, a warning) keeps one row of duplicates: INSERT ... SELECT into it adds the new rows with UNION (SELECT DISTINCT into an empty one), as TERA mode drops a row already there or given twice, NULLs equal. Refused: INSERT ... SELECT into a SET table in ANSI mode (it fails on a duplicate), INSERT ... VALUES other than one row into an empty SET table (error 2802 on a row already there), and a SET table with a column of another type than integers, DECIMAL, DATE and TIMESTAMP (the duplicate row check ignores trailing blanks, and case in NOT CASESPECIFIC text, unlike DISTINCT).",
        (
            "teradata",
            "CREATE VOLATILE SET TABLE t (a INTEGER) ON COMMIT PRESERVE ROWS; INSERT INTO t SELECT o_custkey FROM SALES_DB.ORDERS; SELECT a FROM t",
            'WITH "t" AS (SELECT DISTINCT "inserted_rows"."a" AS "a" FROM (SELECT CAST("inserted"."inserted_1" AS INTEGER) AS "a" FROM (SELECT "orders"."o_custkey" AS "inserted_1" FROM "raw"."orders" AS "orders") AS "inserted") AS "inserted_rows") SELECT "t"."a" AS "a" FROM "t" AS "t"',
        ),
    ),
    (
        "TD-JOIN-INDEX",
        ("teradata",),
        "Teradata's CREATE JOIN INDEX is dropped (info): no query can name a join index, and the optimizer reads it only in place of the join it stores, whose rows it always holds; it changes no result.",
        (
            "teradata",
            "CREATE JOIN INDEX ord_idx, FALLBACK AS SELECT o_orderkey, o_custkey FROM SALES_DB.ORDERS; SELECT o_orderkey FROM SALES_DB.ORDERS",
            'SELECT "orders"."o_orderkey" AS "o_orderkey" FROM "raw"."orders" AS "orders"',
        ),
    ),
    (
        "PROC-STATEMENT",
        ALL_DIALECTS,
        "Procedural statements (control flow, table variables, DML other than INSERT ... SELECT) are refused naming the construct; T-SQL's IF OBJECT_ID(...) IS NOT NULL DROP TABLE t (or IF EXISTS (SELECT ... FROM sys.objects WHERE object_id = OBJECT_ID(t) ...)) is DROP TABLE IF EXISTS t. Session settings are SESSION-SETTING.",
        ("tsql", "DECLARE @x TABLE (a INT); SELECT 1 AS one", "1:1"),
    ),
    (
        "SCRIPT-SHAPE",
        ALL_DIALECTS,
        "A file must define exactly one table: a SELECT, CREATE TABLE/VIEW AS SELECT or INSERT INTO ... SELECT.",
        ("tsql", "SELECT 1 AS a; SELECT 2 AS b", "1:16"),
    ),
    (
        "ANSI-UNSUPPORTED",
        ALL_DIALECTS,
        "Any expression outside the ANSI generator's allow-list is refused (the safety net under every rule).",
        ("tsql", "SELECT SOUNDEX(c_name) AS s FROM dbo.Customer", "1:8"),
    ),
):
    rule(
        _rule_id,
        "refuse"
        if _rule_id in PASS_REFUSALS
        else "warn"
        if _rule_id == "NAME-DEFAULT"
        else "rewrite",
        _dialects,
        (),
        _description,
        (_example,),
    )(_noop)


@rule(
    "TSQL-PIVOT",
    "rewrite",
    ("tsql",),
    (exp.Pivot,),
    "PIVOT (AGG(x) FOR k IN ([a], [b])) over a derived table with an explicit select list becomes "
    "a grouped derived table of AGG(CASE WHEN k = 'a' THEN x END) AS a, ..., grouped by the "
    "derived table's other columns, which is what PIVOT computes.",
    (
        (
            "tsql",
            "SELECT p.yr, p.[F], p.[O] FROM (SELECT YEAR(o_orderdate) AS yr, o_orderstatus AS st, "
            "o_totalprice AS v FROM dbo.Orders) AS s PIVOT (SUM(v) FOR st IN ([F], [O])) AS p",
            'SELECT CAST("p"."yr" AS INTEGER) AS "yr", CAST("p"."f" AS DECIMAL(38, 2)) AS "f", CAST("p"."o" AS DECIMAL(38, 2)) AS "o" FROM (SELECT "s"."yr" AS "yr", SUM(CASE WHEN TRIM(TRAILING \' \' FROM "s"."st") = \'F\' THEN "s"."v" END) AS "f", SUM(CASE WHEN TRIM(TRAILING \' \' FROM "s"."st") = \'O\' THEN "s"."v" END) AS "o" FROM (SELECT EXTRACT(YEAR FROM "orders"."o_orderdate") AS "yr", "orders"."o_orderstatus" AS "st", "orders"."o_totalprice" AS "v" FROM "raw"."orders" AS "orders") AS "s" GROUP BY "s"."yr") AS "p"',
        ),
    ),
    phase="syntax",
)
def tsql_pivot(node: exp.Expr, ctx: Context) -> exp.Expr | None:
    source = node.parent
    fields = node.args.get("fields") or []
    if (
        node.args.get("unpivot")
        or not isinstance(source, exp.Subquery)
        or len(node.expressions) != 1
        or len(fields) != 1
        or not isinstance(source.this, exp.Select)
        or any(s.is_star for s in source.this.selects)
    ):
        return None
    aggregate, field = node.expressions[0], fields[0]
    value = aggregate.this
    if not isinstance(aggregate, exp.AggFunc) or not isinstance(value, exp.Column):
        return None
    if not isinstance(field.this, exp.Column) or not all(
        isinstance(v, exp.Column) for v in field.expressions
    ):
        return None
    key = field.this.name.lower()
    group = [
        s.alias_or_name
        for s in source.this.selects
        if s.alias_or_name.lower() not in (key, value.name.lower())
    ]
    inner_alias = source.args.get("alias") or exp.TableAlias(this=exp.to_identifier("pivot_source"))
    inner = exp.Subquery(this=clone(source.this), alias=clone(inner_alias))
    projections: list[exp.Expr] = [exp.column(name) for name in group]
    for pivot_value in field.expressions:
        label = pivot_value.name
        matches = exp.EQ(this=exp.column(key), expression=exp.Literal.string(label))
        picked = exp.Case(ifs=[exp.If(this=matches, true=exp.column(value.name))])
        measure = clone(aggregate)
        measure.set("this", picked)
        projections.append(exp.alias_(measure, exp.to_identifier(label, quoted=True)))
    select = exp.Select(expressions=projections).from_(inner)
    if group:
        select = select.group_by(*[exp.column(name) for name in group])
    alias = node.args.get("alias") or exp.TableAlias(this=exp.to_identifier("pivoted"))
    source.replace(exp.Subquery(this=select, alias=clone(alias)))
    return node
