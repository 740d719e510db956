"""Type names whose defaults differ between dialects, and literals spelled differently."""

from __future__ import annotations

from sqlglot import exp

from sql.diagnostics import node_offset
from sql.rules.base import ALL_DIALECTS, Context, rule
from sql.rules.build import (
    INTEGER_TYPES,
    NUMERIC_TYPES,
    STRING_TYPES,
    TIMESTAMP_TYPES,
    clone,
    guarded,
    lit,
    type_of,
    type_params,
)
from sql.rules.safe_casts import (
    is_bigquery_text_to_float64,
    is_bigquery_text_to_int64,
    is_snowflake_text_to_decimal,
)
from sql.source_dialects import semantics

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


def _is_max(param: exp.Expr) -> bool:
    """A length written MAX (T-SQL VARCHAR(MAX), Redshift VARCHAR(MAX))."""
    return isinstance(param, exp.DataTypeParam) and isinstance(param.this, exp.Var)


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
    "VARCHAR / CHAR without a length means 30 characters. T-SQL and Redshift VARCHAR(MAX) "
    "is the unbounded VARCHAR (no value of the source is longer than its MAX); a MAX length "
    "on any other type is refused.",
    (
        (
            "tsql",
            "SELECT CAST(o_totalprice AS DECIMAL) AS p, CAST(o_orderkey AS VARCHAR) AS k FROM dbo.Orders",
            'SELECT CAST("orders"."o_totalprice" AS DECIMAL(18, 0)) AS "p", CAST("orders"."o_orderkey" AS VARCHAR(30)) AS "k" FROM "raw"."orders" AS "orders"',
        ),
        (
            "tsql",
            "SELECT CAST(o_comment AS VARCHAR(MAX)) AS c, CONVERT(VARCHAR(MAX), o_orderkey) AS k FROM dbo.Orders",
            'SELECT CAST("orders"."o_comment" AS VARCHAR) AS "c", CAST("orders"."o_orderkey" AS VARCHAR) AS "k" FROM "raw"."orders" AS "orders"',
        ),
    ),
)
def type_defaults(node: exp.Expr, ctx: Context) -> exp.Expr | None:
    if any(_is_max(p) for p in node.expressions):
        if semantics(ctx.dialect).VARCHAR_MAX_IS_UNBOUNDED and node.this == exp.DType.VARCHAR:
            unbounded = exp.DataType(this=exp.DType.TEXT, nested=False)
            unbounded.meta["max_length"] = True  # T-SQL REPLICATE's limit lifts (FN-REPEAT)
            return unbounded
        ctx.report(
            "error",
            "TYPE-DEFAULTS",
            node,
            f"{node.this.value}(MAX) has no standard form: give the type a numeric length",
        )
        return None
    if node.expressions:
        return None
    if node.this == exp.DType.DECIMAL:
        if semantics(ctx.dialect).UNSIZED_DECIMAL_IS_FLOATING:
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
    if (
        semantics(ctx.dialect).UNSIZED_STRINGS_ARE_SHORT
        and node.this in CHARACTER_TYPES
        and in_cast
    ):
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
    literal = exp.Literal.string(node.name)
    literal.meta["national"] = True  # T-SQL LIKE keeps trailing blanks for Unicode operands
    return literal


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
    if node.this == exp.DType.DECFLOAT and semantics(ctx.dialect).FLOAT_IS_DECIMAL:
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
        semantics(ctx.dialect).FLOAT_PRECISION_PICKS_WIDTH
        and isinstance(digits, exp.Literal)
        and digits.is_int
        and int(digits.name) <= SINGLE_PRECISION_DIGITS
    )
    return exp.DataType(this=exp.DType.FLOAT if single else exp.DType.DOUBLE, nested=False)


# Integer types by width, and the decimal digits of their largest value.
INTEGER_DIGITS = {
    exp.DType.TINYINT: 3,
    exp.DType.SMALLINT: 5,
    exp.DType.INT: 10,
    exp.DType.BIGINT: 19,
}
# Values a cast to an unbounded string type prints the same way in every dialect and engine
# (digits; ISO dates). Decimals, floats, timestamps and booleans print differently.
PRINTABLE_TYPES = {*INTEGER_TYPES, exp.DType.DATE}


def cannot_fail(value: exp.Expr, target: exp.DataType) -> bool:
    """Whether CAST(value AS target) succeeds for every value of ``value``'s type: then the
    source's TRY_CAST / SAFE_CAST is that CAST."""
    source = type_of(value)
    to = target.this
    params = type_params(target)
    if source is None or params is None:
        return False
    if value.type is not None and value.type == target:
        return True  # the same type, parameters included
    if source in INTEGER_TYPES:
        if to in INTEGER_DIGITS:
            return INTEGER_DIGITS[to] >= INTEGER_DIGITS.get(source, 99)
        if to in (exp.DType.DOUBLE, exp.DType.FLOAT):
            return True  # rounded to the nearest value, never out of range
        if to == exp.DType.DECIMAL and len(params) == 2:
            return params[0] - params[1] >= INTEGER_DIGITS.get(source, 99)
    if source == exp.DType.DATE and to in TIMESTAMP_TYPES and not params:
        return True  # midnight of the day
    return to in STRING_TYPES and not params and source in PRINTABLE_TYPES


@rule(
    "FN-TRY-CAST",
    "rewrite",
    ALL_DIALECTS,
    (exp.TryCast,),
    "TRY_CAST / TRY_CONVERT / SAFE_CAST return NULL where CAST raises. When the conversion "
    "cannot fail (to the same type, an integer to a wider integer, a float or a wide enough "
    "decimal, a DATE to a TIMESTAMP, an integer or a date to an unbounded string) it is that CAST, which then follows the CAST rules; any conversion that can fail "
    "(a string to a number or date, a narrowing) is refused, since ANSI CAST raises there, "
    "except strings whose reading is known: BigQuery's to INT64 (FN-TRY-CAST-TEXT) and "
    "FLOAT64 (FN-TRY-CAST-FLOAT), "
    "Snowflake's to NUMBER (FN-TRY-CAST-NUMBER) and to DATE / TIMESTAMP_NTZ (SF-AUTO-DATE).",
    (
        (
            "bigquery",
            "SELECT SAFE_CAST(o_orderkey AS FLOAT64) AS k, SAFE_CAST(o_orderdate AS STRING) AS d "
            "FROM sales.orders",
            'SELECT CAST("orders"."o_orderkey" AS DOUBLE PRECISION) AS "k", '
            'CAST("orders"."o_orderdate" AS VARCHAR) AS "d" FROM "raw"."orders" AS "orders"',
        ),
    ),
)
def try_cast(node: exp.Expr, ctx: Context) -> exp.Expr | None:
    assert isinstance(node, exp.TryCast)
    if is_bigquery_text_to_int64(node, ctx.dialect):
        return None  # FN-TRY-CAST-TEXT reads the string as BigQuery does
    if is_bigquery_text_to_float64(node, ctx.dialect):
        return None  # FN-TRY-CAST-FLOAT reads the plain decimals, makes the rest raise
    if is_snowflake_text_to_decimal(node, ctx.dialect):
        return None  # FN-TRY-CAST-NUMBER reads the plain decimals, makes the rest raise
    target = node.args["to"]
    if (
        semantics(ctx.dialect).DATE_TEXT_READ_BY_INPUT_FORMAT
        and semantics(ctx.dialect).TRY_READS_TEXT_AS_ITS_CONVERSION
        and target.this in (exp.DType.DATE, exp.DType.TIMESTAMPNTZ, exp.DType.TIMESTAMP)
        and not target.expressions
        and not isinstance(node.this, exp.Literal)
        and type_of(node.this) in STRING_TYPES
    ):
        return None  # SF-AUTO-DATE reads the string as AUTO does, or makes it raise
    if not cannot_fail(node.this, target):
        source = type_of(node.this)
        what = source.value if source is not None else "a value of unknown type"
        why = "only conversions that cannot fail are translated"
        if source in STRING_TYPES:
            # Exact only where the strings the source reads are known (FN-TRY-CAST-TEXT).
            details = (
                "blanks, signs, exponents, overflow"
                if target.this in NUMERIC_TYPES
                else "formats detected per value or set by the session"
            )
            why = (
                f"{why}, and of strings only BigQuery's SAFE_CAST to INT64 or FLOAT64 and "
                "Snowflake's TRY_CAST to NUMBER or a date, whose accepted text "
                f"is known: which strings {ctx.dialect} reads as {target.sql().upper()} is not "
                f"stated exactly ({details})"
            )
        ctx.report(
            "error",
            "FN-TRY-CAST",
            node,
            f"TRY_CAST from {what} to {target.sql().upper()} returns NULL on the values where "
            f"ANSI CAST fails; {why}",
        )
        return node
    converted = exp.Cast(this=clone(node.this), to=clone(target))
    # Still the source's cast: the final phase's CAST rules apply to it.
    converted.meta.update(node.meta)
    converted.meta["source"] = True
    return converted


# Source types whose text (CAST(x AS VARCHAR)) each dialect prints its own way, where the
# engines print another: floats everywhere (exponents, digits); BigQuery NUMERIC drops
# trailing zeros, Oracle drops the leading zero, Teradata pads to its FORMAT; dates and
# timestamps follow NLS / FORMAT / output-format settings or T-SQL's style 0; T-SQL BIT
# prints 1 / 0.
_FLOATS = {exp.DType.DOUBLE, exp.DType.FLOAT}
TEXT_DIFFERS: dict[str, set[exp.DType]] = {
    "bigquery": {*_FLOATS, exp.DType.DECIMAL, exp.DType.BIGDECIMAL, *TIMESTAMP_TYPES},
    "oracle": {*_FLOATS, exp.DType.DECIMAL, exp.DType.DATE, *TIMESTAMP_TYPES},
    "teradata": {*_FLOATS, exp.DType.DECIMAL, exp.DType.DATE, *TIMESTAMP_TYPES},
    "tsql": {*_FLOATS, *TIMESTAMP_TYPES, exp.DType.BOOLEAN},
    "snowflake": {*_FLOATS, *TIMESTAMP_TYPES},
    "redshift": {*_FLOATS},
}


@rule(
    "CAST-TO-TEXT",
    "refuse",
    ALL_DIALECTS,
    (exp.Cast,),
    "CAST of a value to a string type is translated only where the source dialect prints it "
    "as the engines do (integers, ISO dates, decimals in Snowflake, T-SQL and Redshift, ...). "
    "Floats, BigQuery NUMERIC (no trailing zeros), Oracle and Teradata numbers and dates "
    "(NLS / FORMAT settings), timestamps outside Redshift (T-SQL style 0, Snowflake's output "
    "format) and T-SQL BIT are printed differently, and refused.",
    (("bigquery", "SELECT CAST(o_totalprice AS STRING) AS p FROM sales.orders", "1:13"),),
    phase="final",
)
def cast_to_text(node: exp.Expr, ctx: Context) -> exp.Expr | None:
    if node.args["to"].this not in STRING_TYPES:
        return None
    source = type_of(node.this)
    if source not in TEXT_DIFFERS[ctx.dialect]:
        return None
    ctx.report(
        "error",
        "CAST-TO-TEXT",
        node,
        f"the text of a {source.value} value in this dialect differs from the engines'; "
        "format it explicitly (e.g. with TO_CHAR and a format) or keep the value typed",
    )
    return node


# Types whose parameter is a number of fractional-second digits (T-SQL's DATETIME2(p) is
# TIMESTAMP(p) in the ANSI output).
_SECONDS_TYPES = {*TIMESTAMP_TYPES, exp.DType.TIME}


@rule(
    "CAST-SECONDS-PRECISION",
    "refuse",
    ALL_DIALECTS,
    (exp.Cast,),
    "CAST to TIMESTAMP(p) / TIME(p) / DATETIME2(p) with fewer than six fractional-second digits "
    "of a value that may have more is refused: DuckDB rounds it to p digits (TIMESTAMP(0) of "
    "23:59:59.9 is the next day) and Spark has no such type and keeps all six, so the same "
    "ANSI gives two values. Translated where the value has at most p digits: a DATE, a "
    "TIMESTAMP(q) with q <= p, a string literal with at most p digits.",
    (
        (
            "teradata",
            "SELECT CAST(CAST(o_orderdate AS TIMESTAMP) AS TIMESTAMP(0)) AS t FROM SALES_DB.ORDERS",
            "1:18",
        ),
    ),
    phase="final",
)
def cast_seconds_precision(node: exp.Expr, ctx: Context) -> exp.Expr | None:
    target = node.args["to"]
    if target.this not in _SECONDS_TYPES:
        return None
    params = type_params(target)
    if not params or params[0] >= 6:
        return None
    digits = params[0]
    value = node.this
    if type_of(value) == exp.DType.DATE:
        return None
    if isinstance(value, exp.Literal) and value.is_string:
        _, _, fraction = value.name.partition(".")
        if len(fraction.rstrip()) <= digits:
            return None
    elif value.type is not None and value.type.this in TIMESTAMP_TYPES:
        given = type_params(value.type)
        if given and given[0] <= digits:
            return None
    ctx.report(
        "error",
        "CAST-SECONDS-PRECISION",
        value if node_offset(value) is not None else node,
        f"CAST to {digits} fractional-second digits of a value that may have more: DuckDB "
        "rounds it and Spark keeps six digits, so the engines disagree; cast to the type "
        "without a precision, or to DATE",
    )
    return node


# On the CAST of a value INSERT puts into a declared VARCHAR(n) column of a script's table
# (sql/script.py): INSERT checks the length, where a CAST cuts (TSQL-INSERT-LENGTH).
INSERT_LENGTH_META = "insert_length"


@rule(
    "TSQL-INSERT-LENGTH",
    "rewrite",
    ("tsql",),
    (exp.Cast,),
    "T-SQL's INSERT of text into a VARCHAR(n) column of a table the script declares fails on "
    "text longer than n (error 2628, with ANSI_WARNINGS ON, the default of every client "
    "library), where a CAST to VARCHAR(n) cuts it (TSQL-STRING-LENGTH). Each value becomes "
    "CAST(v AS VARCHAR(n)) under a run-time guard: text of more than n characters stops the "
    "query, naming the rule. n counts characters here and bytes in SQL Server, the same for "
    "text of one byte per character, which a TSQL-COLLATION warning states; a text literal "
    "is checked at translation. Refused: a value that is not text (T-SQL converts it first).",
    (
        (
            "tsql",
            "CREATE TABLE #c (name VARCHAR(25)); INSERT INTO #c SELECT c_name FROM dbo.Customer; "
            "SELECT name FROM #c",
            'WITH "c" AS (SELECT CASE WHEN CHAR_LENGTH("inserted"."inserted_1") > 25 THEN '
            "RAISE_ERROR('TSQL-INSERT-LENGTH: T-SQL''s INSERT of text longer than its "
            "VARCHAR(25) column fails (string or binary data would be truncated)') ELSE "
            'CAST("inserted"."inserted_1" AS VARCHAR(25)) END AS "name" FROM (SELECT '
            '"customer"."c_name" AS "inserted_1" FROM "raw"."customer" AS "customer") AS '
            '"inserted") SELECT "c"."name" AS "name" FROM "c" AS "c"',
        ),
    ),
)
def tsql_insert_length(node: exp.Expr, ctx: Context) -> exp.Expr | None:
    if not node.meta.get(INSERT_LENGTH_META):
        return None
    to = node.args["to"]
    size = to.expressions[0].this if to.expressions else None
    if not (isinstance(size, exp.Literal) and size.is_int):
        return None
    length = int(size.name)
    value = node.this
    if isinstance(value, exp.Null):
        return None
    if isinstance(value, exp.Literal) and value.is_string:
        if len(value.name) <= length:
            return None
        ctx.report(
            "error",
            "TSQL-INSERT-LENGTH",
            value,
            f"INSERT of {len(value.name)} characters into a VARCHAR({length}) column fails in "
            "T-SQL (string or binary data would be truncated)",
        )
        return node
    if type_of(value) not in STRING_TYPES:
        ctx.report(
            "error",
            "TSQL-INSERT-LENGTH",
            value,
            f"INSERT of a value that is not text into a VARCHAR({length}) column: T-SQL converts "
            "it to text first, which is not translated here; CAST it to VARCHAR",
        )
        return node
    ctx.report(
        "warning",
        "TSQL-COLLATION",
        node,
        f"VARCHAR({length}) holds {length} characters, assuming one byte per character",
    )
    too_long = exp.GT(this=exp.Length(this=clone(value)), expression=lit(length))
    return guarded(
        exp.Cast(this=clone(value), to=to.copy()),
        too_long,
        "TSQL-INSERT-LENGTH",
        f"T-SQL's INSERT of text longer than its VARCHAR({length}) column fails (string or "
        "binary data would be truncated)",
        node,
    )


@rule(
    "TSQL-STRING-LENGTH",
    "rewrite",
    ("tsql",),
    (exp.Cast,),
    "T-SQL's CAST / CONVERT of a string to VARCHAR(n) silently keeps the first n characters, "
    "where the standard raises an error and DuckDB and Spark ignore the length: "
    "`CAST(SUBSTRING(s FROM 1 FOR n) AS VARCHAR(n))`. n counts characters here and bytes in SQL "
    "Server, the same for text of one byte per character, which a TSQL-COLLATION warning "
    "states. A string cast to CHAR(n) / NCHAR(n), which T-SQL also pads with blanks, is "
    "refused (NVARCHAR has no ANSI form here: ANSI-UNSUPPORTED).",
    (
        (
            "tsql",
            "SELECT CAST(o_comment AS VARCHAR(5)) AS c FROM dbo.Orders",
            'SELECT CAST(SUBSTRING("orders"."o_comment" FROM 1 FOR 5) AS VARCHAR(5)) AS "c" '
            'FROM "raw"."orders" AS "orders"',
        ),
    ),
    phase="final",
)
def tsql_string_length(node: exp.Expr, ctx: Context) -> exp.Expr | None:
    to = node.args["to"]
    sizes = to.expressions
    if type_of(node.this) not in STRING_TYPES or len(sizes) != 1:
        return None
    size = sizes[0].this if isinstance(sizes[0], exp.DataTypeParam) else sizes[0]
    if not (isinstance(size, exp.Literal) and size.is_int):
        return None  # VARCHAR(MAX): no limit
    if isinstance(node.this, exp.Substring) and node.this.meta.get("tsql_cut"):
        return None  # already cut
    value = node.this
    if isinstance(value, exp.Literal) and value.is_string:
        fits = len(value.name) == int(size.name) or (
            to.this == exp.DType.VARCHAR and len(value.name) < int(size.name)
        )
        if fits:
            return None  # a literal T-SQL neither cuts nor pads (e.g. a script variable's)
    if to.this in (exp.DType.CHAR, exp.DType.NCHAR):
        ctx.report(
            "error",
            "TSQL-STRING-LENGTH",
            node,
            f"T-SQL pads a string cast to {to.this.value}({size.name}) with blanks and cuts a "
            "longer one, which the engines' CHAR does not do: cast to VARCHAR instead",
        )
        return node
    if to.this != exp.DType.VARCHAR:
        return None
    ctx.report(
        "warning",
        "TSQL-COLLATION",
        node,
        f"VARCHAR({size.name}) keeps the first {size.name} characters, assuming one byte per "
        "character",
    )
    cut = exp.Substring(this=clone(node.this), start=exp.Literal.number(1), length=size.copy())
    cut.meta["tsql_cut"] = True
    return exp.Cast(this=cut, to=to.copy())
