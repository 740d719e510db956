"""Conditional and NULL-handling functions -> CASE / COALESCE / NULLIF."""

from __future__ import annotations

from sqlglot import exp

from sql.rules.base import ALL_DIALECTS, Context, rule
from sql.rules.build import case_when, clone, is_null, lit, paren
from sql.source_dialects import CaseN

# Marks the COALESCE that was T-SQL's ISNULL.
ISNULL = "isnull"


@rule(
    "FN-IF",
    "rewrite",
    ("snowflake", "tsql", "bigquery", "teradata", "redshift"),
    (exp.If,),
    "IFF / IIF / IF(cond, a, b) becomes CASE WHEN cond THEN a ELSE b END.",
    (
        (
            "tsql",
            "SELECT IIF(l_quantity > 10, 1, 0) AS big FROM dbo.LineItem",
            'SELECT CASE WHEN "lineitem"."l_quantity" > 10 THEN 1 ELSE 0 END AS "big" FROM "raw"."lineitem" AS "lineitem"',
        ),
    ),
)
def if_to_case(node: exp.Expr, ctx: Context) -> exp.Expr | None:
    if isinstance(node.parent, exp.Case):
        return None
    written = case_when(node.this, node.args["true"], node.args.get("false"))
    written.meta["source"] = True  # still the source's IIF: later phases translate its CASE
    return written


@rule(
    "FN-NVL",
    "rewrite",
    ALL_DIALECTS,
    (exp.Coalesce,),
    "NVL / ISNULL / IFNULL(a, b) becomes COALESCE(a, b).",
    (
        (
            "oracle",
            "SELECT NVL(c_comment, 'none') AS c FROM SALES.CUSTOMER",
            'SELECT COALESCE("customer"."c_comment", \'none\') AS "c" FROM (SELECT NULLIF("customer"."c_comment", \'\') AS "c_comment" FROM "raw"."customer" AS "customer") AS "customer"',
        ),
    ),
)
def nvl_to_coalesce(node: exp.Expr, ctx: Context) -> exp.Expr | None:
    if not (node.args.get("is_nvl") or node.args.get("is_null")):
        return None
    written = exp.Coalesce(this=node.this, expressions=node.expressions)
    written.meta["source"] = True  # still the source's function: later phases translate it
    # T-SQL's ISNULL has its first argument's type, not COALESCE's (sql/rules/tsql_datetime.py)
    written.meta[ISNULL] = bool(node.args.get("is_null"))
    return written


@rule(
    "FN-NVL2",
    "rewrite",
    ("snowflake", "oracle", "redshift", "teradata"),
    (exp.Nvl2,),
    "NVL2(a, b, c) becomes CASE WHEN a IS NOT NULL THEN b ELSE c END.",
    (
        (
            "oracle",
            "SELECT NVL2(c_comment, 1, 0) AS has_comment FROM SALES.CUSTOMER",
            'SELECT CASE WHEN NOT "customer"."c_comment" IS NULL THEN 1 ELSE 0 END AS "has_comment" FROM (SELECT NULLIF("customer"."c_comment", \'\') AS "c_comment" FROM "raw"."customer" AS "customer") AS "customer"',
        ),
    ),
)
def nvl2_to_case(node: exp.Expr, ctx: Context) -> exp.Expr | None:
    condition = exp.Not(this=is_null(node.this))
    return case_when(condition, node.args["true"], node.args.get("false"))


def _anonymous_named(node: exp.Expr, name: str) -> bool:
    return isinstance(node, exp.Anonymous) and node.name.upper() == name


@rule(
    "FN-ZEROIFNULL",
    "rewrite",
    ("teradata",),
    (exp.Anonymous,),
    "ZEROIFNULL(x) becomes COALESCE(x, 0) (Snowflake's is parsed straight to CASE).",
    (
        (
            "teradata",
            "SELECT ZEROIFNULL(o_totalprice) AS t FROM SALES_DB.ORDERS",
            'SELECT COALESCE("orders"."o_totalprice", 0) AS "t" FROM "raw"."orders" AS "orders"',
        ),
    ),
)
def zeroifnull(node: exp.Expr, ctx: Context) -> exp.Expr | None:
    if not _anonymous_named(node, "ZEROIFNULL") or len(node.expressions) != 1:
        return None
    return exp.Coalesce(this=node.expressions[0], expressions=[lit(0)])


@rule(
    "FN-EQUALNULL",
    "rewrite",
    ("snowflake",),
    (exp.Anonymous, exp.EqualNull),
    "EQUAL_NULL(a, b) (also written EQUALNULL) becomes a IS NOT DISTINCT FROM b (SQL:1999, "
    "T151): TRUE when both are NULL, FALSE when one is.",
    (
        (
            "snowflake",
            "SELECT o_orderkey FROM SALES.ORDERS WHERE EQUALNULL(o_clerk, o_comment)",
            'SELECT "orders"."o_orderkey" AS "o_orderkey" FROM "raw"."orders" AS "orders" WHERE "orders"."o_clerk" IS NOT DISTINCT FROM "orders"."o_comment"',
        ),
        (
            "snowflake",
            "SELECT EQUAL_NULL(o_clerk, o_comment) AS same FROM SALES.ORDERS",
            'SELECT "orders"."o_clerk" IS NOT DISTINCT FROM "orders"."o_comment" AS "same" FROM "raw"."orders" AS "orders"',
        ),
    ),
)
def equalnull(node: exp.Expr, ctx: Context) -> exp.Expr | None:
    if isinstance(node, exp.EqualNull):  # EQUAL_NULL, as Snowflake documents it
        left, right = node.this, node.expression
    elif _anonymous_named(node, "EQUALNULL") and len(node.expressions) == 2:
        left, right = node.expressions
    else:
        return None
    return exp.NullSafeEQ(this=clone(left), expression=clone(right))


@rule(
    "FN-CASE-N",
    "rewrite",
    ("teradata",),
    (CaseN,),
    "Teradata's CASE_N(c1, ..., cn [, NO CASE [OR UNKNOWN]] [, UNKNOWN]) is the number of "
    "the first condition that is TRUE, provided none before it is UNKNOWN: a CASE that tests "
    "each condition in turn, and whether it is UNKNOWN (`(c) IS NULL`, T031). Every condition "
    "FALSE gives NO CASE's number (n + 1), an UNKNOWN one after FALSE ones gives UNKNOWN's "
    "(n + 2 after NO CASE, else n + 1), or n + 1 for NO CASE OR UNKNOWN; NULL without them.",
    (
        (
            "teradata",
            "SELECT CASE_N(o_totalprice < 1000, o_totalprice < 5000, NO CASE, UNKNOWN) AS band "
            "FROM SALES_DB.ORDERS",
            'SELECT CASE WHEN "orders"."o_totalprice" < 1000 THEN 1 WHEN ("orders".'
            '"o_totalprice" < 1000) IS NULL THEN 4 WHEN "orders"."o_totalprice" < 5000 THEN 2 '
            'WHEN ("orders"."o_totalprice" < 5000) IS NULL THEN 4 ELSE 3 END AS "band" FROM '
            '"raw"."orders" AS "orders"',
        ),
    ),
    phase="syntax",
)
def case_n(node: exp.Expr, ctx: Context) -> exp.Expr | None:
    conditions = node.expressions
    count = len(conditions)
    no_case = lit(count + 1) if node.args.get("no_case") else None
    if node.args.get("or_unknown"):
        unknown: exp.Expr | None = lit(count + 1)
    elif node.args.get("unknown"):
        unknown = lit(count + 2 if no_case is not None else count + 1)
    else:
        unknown = None
    ifs = []
    for number, condition in enumerate(conditions, start=1):
        ifs.append(exp.If(this=clone(condition), true=lit(number)))
        # An UNKNOWN condition ends the search, even when a later one is TRUE.
        unknown_here = is_null(paren(clone(condition)))
        ifs.append(exp.If(this=unknown_here, true=clone(unknown) if unknown else exp.Null()))
    return exp.Case(ifs=ifs, default=no_case)


@rule(
    "FN-NULLIFZERO",
    "rewrite",
    ("teradata",),
    (exp.Anonymous,),
    "NULLIFZERO(x) becomes NULLIF(x, 0) (Snowflake's is parsed straight to CASE).",
    (
        (
            "teradata",
            "SELECT NULLIFZERO(o_totalprice) AS t FROM SALES_DB.ORDERS",
            'SELECT NULLIF("orders"."o_totalprice", 0) AS "t" FROM "raw"."orders" AS "orders"',
        ),
    ),
)
def nullifzero(node: exp.Expr, ctx: Context) -> exp.Expr | None:
    if not _anonymous_named(node, "NULLIFZERO") or len(node.expressions) != 1:
        return None
    return exp.Nullif(this=node.expressions[0], expression=lit(0))


@rule(
    "FN-DECODE",
    "rewrite",
    ("oracle", "snowflake", "redshift", "teradata"),
    (exp.DecodeCase,),
    "DECODE(x, s1, r1, ..., default) becomes CASE; a NULL search value matches a NULL x, "
    "as DECODE compares with IS NOT DISTINCT FROM semantics.",
    (
        (
            "oracle",
            "SELECT DECODE(o_orderstatus, 'F', 1, 'O', 2, 0) AS s FROM SALES.ORDERS",
            'SELECT CASE WHEN "orders"."o_orderstatus" = \'F\' THEN 1 WHEN "orders"."o_orderstatus" = \'O\' THEN 2 ELSE 0 END AS "s" FROM (SELECT NULLIF("orders"."o_orderstatus", \'\') AS "o_orderstatus" FROM "raw"."orders" AS "orders") AS "orders"',
        ),
    ),
)
def decode_to_case(node: exp.Expr, ctx: Context) -> exp.Expr | None:
    subject, *pairs = node.expressions
    default = pairs.pop() if len(pairs) % 2 else None
    ifs = []
    for search, result in zip(pairs[::2], pairs[1::2], strict=True):
        if isinstance(search, exp.Null):
            condition: exp.Expr = is_null(subject)
        elif isinstance(search, exp.Literal):
            condition = exp.EQ(this=clone(subject), expression=clone(search))
        else:
            condition = exp.Or(
                this=exp.EQ(this=clone(subject), expression=clone(search)),
                expression=exp.And(this=is_null(subject), expression=is_null(search)),
            )
        ifs.append(exp.If(this=condition, true=clone(result)))
    return exp.Case(ifs=ifs, default=clone(default) if default else None)


@rule(
    "FN-COUNTIF",
    "rewrite",
    ("snowflake", "bigquery"),
    (exp.CountIf,),
    "COUNT_IF / COUNTIF(cond) becomes COUNT(CASE WHEN cond THEN 1 END), which is 0 "
    "(not NULL) on an empty group like the original.",
    (
        (
            "bigquery",
            "SELECT COUNTIF(o_totalprice > 1000) AS n FROM sales.orders",
            'SELECT COUNT(CASE WHEN "orders"."o_totalprice" > 1000 THEN 1 END) AS "n" FROM "raw"."orders" AS "orders"',
        ),
    ),
)
def countif(node: exp.Expr, ctx: Context) -> exp.Expr | None:
    return exp.Count(this=case_when(node.this, lit(1)))


@rule(
    "FN-SIGN",
    "rewrite",
    ALL_DIALECTS,
    (exp.Sign,),
    "SIGN(x) becomes CASE WHEN x > 0 THEN 1 WHEN x < 0 THEN -1 WHEN x = 0 THEN 0 END.",
    (
        (
            "oracle",
            "SELECT SIGN(s_acctbal) AS side FROM SALES.SUPPLIER",
            'SELECT CASE WHEN "supplier"."s_acctbal" > 0 THEN 1 WHEN "supplier"."s_acctbal" < 0 THEN -1 WHEN "supplier"."s_acctbal" = 0 THEN 0 END AS "side" FROM "raw"."supplier" AS "supplier"',
        ),
    ),
)
def sign(node: exp.Expr, ctx: Context) -> exp.Expr | None:
    value = node.this
    return exp.Case(
        ifs=[
            exp.If(this=exp.GT(this=clone(value), expression=lit(0)), true=lit(1)),
            exp.If(this=exp.LT(this=clone(value), expression=lit(0)), true=exp.Neg(this=lit(1))),
            exp.If(this=exp.EQ(this=clone(value), expression=lit(0)), true=lit(0)),
        ]
    )


def in_array_literal(node: exp.Expr) -> exp.In | None:
    """The ``x IN UNNEST([a, b, ...])`` that ``node`` (its UNNEST or its array) is part of,
    when the array is written out: that is the list ``x IN (a, b, ...)``."""
    unnest = node.parent if isinstance(node, exp.Array) else node
    if not isinstance(unnest, exp.Unnest) or len(unnest.expressions) != 1:
        return None
    array = unnest.expressions[0]
    predicate = unnest.parent
    if (
        isinstance(array, exp.Array)
        and isinstance(predicate, exp.In)
        and predicate.args.get("unnest") is unnest
        and not unnest.args.get("offset")
    ):
        return predicate
    return None


@rule(
    "FN-IN-UNNEST",
    "rewrite",
    ("bigquery",),
    (exp.In,),
    "x IN UNNEST([a, b, ...]) over an array written out is the list x IN (a, b, ...), with the "
    "same NULL semantics; over an empty array it is FALSE (and NOT IN is TRUE), as the "
    "standard's quantified comparison over no rows.",
    (
        (
            "bigquery",
            "SELECT o_orderkey FROM sales.orders WHERE o_orderstatus IN UNNEST(['F', 'O'])",
            'SELECT "orders"."o_orderkey" AS "o_orderkey" FROM "raw"."orders" AS "orders" '
            "WHERE \"orders\".\"o_orderstatus\" IN ('F', 'O')",
        ),
    ),
    phase="syntax",
)
def in_unnest(node: exp.Expr, ctx: Context) -> exp.Expr | None:
    unnest = node.args.get("unnest")
    if unnest is None or in_array_literal(unnest) is not node:
        return None
    values = unnest.expressions[0].expressions
    if not values:
        return exp.false()
    return exp.In(this=clone(node.this), expressions=[clone(v) for v in values])
