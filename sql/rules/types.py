"""Type names whose defaults differ between dialects, and literals spelled differently."""

from __future__ import annotations

from sqlglot import exp

from sql.rules import ALL_DIALECTS, Context, rule

# Precision and scale of DECIMAL / NUMERIC / NUMBER written without them.
DECIMAL_DEFAULTS = {
    "snowflake": (38, 0),
    "tsql": (18, 0),
    "teradata": (5, 0),
    "redshift": (18, 0),
    "bigquery": (38, 9),
}
CHARACTER_TYPES = {exp.DType.VARCHAR, exp.DType.NVARCHAR, exp.DType.CHAR, exp.DType.NCHAR}
TSQL_CAST_LENGTH = 30


def _with_params(dtype: exp.DataType, *params: int) -> exp.DataType:
    return exp.DataType(
        this=dtype.this,
        expressions=[exp.DataTypeParam(this=exp.Literal.number(p)) for p in params],
        nested=False,
    )


@rule(
    "TYPE-DEFAULTS",
    "rewrite",
    ALL_DIALECTS,
    (exp.DataType,),
    "DECIMAL / NUMERIC without precision gets the source's default (Snowflake 38,0; T-SQL and "
    "Redshift 18,0; Teradata 5,0; BigQuery NUMERIC 38,9), since engines default differently; "
    "Oracle NUMBER without precision is a floating decimal and is refused. T-SQL CAST to "
    "VARCHAR / CHAR without a length means 30 characters.",
    (
        (
            "tsql",
            "SELECT CAST(o_totalprice AS DECIMAL) AS p, CAST(o_orderkey AS VARCHAR) AS k FROM dbo.Orders",
            'SELECT CAST("orders"."o_totalprice" AS DECIMAL(18, 0)) AS "p", CAST("orders"."o_orderkey" AS VARCHAR(30)) AS "k" FROM "raw"."orders" AS "orders"',
        ),
    ),
)
def type_defaults(node: exp.Expr, ctx: Context) -> exp.Expr | None:
    if node.expressions:
        return None
    if node.this == exp.DType.DECIMAL:
        if ctx.dialect == "oracle":
            ctx.report(
                "error",
                "TYPE-DEFAULTS",
                node,
                "Oracle NUMBER without precision is a floating decimal with no exact ANSI type; "
                "give it a precision and scale",
            )
            return None
        return _with_params(node, *DECIMAL_DEFAULTS[ctx.dialect])
    in_cast = isinstance(node.parent, (exp.Cast, exp.Convert))
    if ctx.dialect == "tsql" and node.this in CHARACTER_TYPES and in_cast:
        return _with_params(node, TSQL_CAST_LENGTH)
    return None


@rule(
    "NATIONAL-STRING",
    "rewrite",
    ("tsql", "oracle", "teradata"),
    (exp.National,),
    "N'...' national character literals become plain string literals (the lake stores Unicode).",
    (
        (
            "tsql",
            "SELECT c_custkey FROM dbo.Customer WHERE c_mktsegment = N'BUILDING'",
            'SELECT "customer"."c_custkey" AS "c_custkey" FROM "raw"."customer" AS "customer" WHERE TRIM(TRAILING \' \' FROM "customer"."c_mktsegment") = \'BUILDING\'',
        ),
    ),
    phase="syntax",
)
def national_string(node: exp.Expr, ctx: Context) -> exp.Expr | None:
    return exp.Literal.string(node.name)


# Below this binary precision FLOAT(n) is single precision (T-SQL; Redshift as PostgreSQL).
SINGLE_PRECISION_DIGITS = 24


@rule(
    "FLOAT-WIDTH",
    "rewrite",
    ALL_DIALECTS,
    (exp.DataType,),
    "Floating-point types keep the width the source dialect gives their name (see "
    "sql/source_dialects.py): FLOAT(n) is REAL for n <= 24 and DOUBLE PRECISION above in T-SQL "
    "and Redshift, and DOUBLE PRECISION in the dialects whose floats are all 64-bit; Oracle "
    "FLOAT and REAL are decimal NUMBER subtypes with no exact ANSI type and are refused.",
    (
        (
            "tsql",
            "SELECT CAST(o_totalprice AS FLOAT(24)) AS a, CAST(o_totalprice AS FLOAT) AS b, "
            "CAST(o_totalprice AS REAL) AS c FROM dbo.Orders",
            'SELECT CAST("orders"."o_totalprice" AS REAL) AS "a", CAST("orders"."o_totalprice" '
            'AS DOUBLE PRECISION) AS "b", CAST("orders"."o_totalprice" AS REAL) AS "c" '
            'FROM "raw"."orders" AS "orders"',
        ),
    ),
    phase="syntax",
)
def float_width(node: exp.Expr, ctx: Context) -> exp.Expr | None:
    if node.this == exp.DType.DECFLOAT and ctx.dialect == "oracle":
        ctx.report(
            "error",
            "FLOAT-WIDTH",
            node,
            "Oracle FLOAT and REAL are decimal NUMBER subtypes with a binary precision; no ANSI "
            "type holds them exactly: use NUMBER(p,s), BINARY_FLOAT or BINARY_DOUBLE",
        )
        return node
    if node.this not in (exp.DType.DOUBLE, exp.DType.FLOAT) or not node.expressions:
        return None
    digits = node.expressions[0].this
    single = (
        ctx.dialect in ("tsql", "redshift")
        and isinstance(digits, exp.Literal)
        and digits.is_int
        and int(digits.name) <= SINGLE_PRECISION_DIGITS
    )
    return exp.DataType(this=exp.DType.FLOAT if single else exp.DType.DOUBLE, nested=False)
