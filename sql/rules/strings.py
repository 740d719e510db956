"""String functions and operators whose meaning depends on the dialect."""

from __future__ import annotations

import re

from sqlglot import exp

from sql import portable
from sql.diagnostics import node_offset
from sql.rules.base import ALL_DIALECTS, Context, rule
from sql.rules.build import (
    INTEGER_TYPES,
    STRING_TYPES,
    cast,
    clone,
    guarded,
    integer_literal,
    lit,
    type_of,
)
from sql.rules.case_sensitivity import collated_search
from sql.rules.regex import PatternError, like_class_pattern
from sql.source_dialects import semantics


@rule(
    "TSQL-LEN",
    "rewrite",
    ("tsql",),
    (exp.Length,),
    "LEN(s) ignores trailing spaces: CHAR_LENGTH(TRIM(TRAILING ' ' FROM s)).",
    (
        (
            "tsql",
            "SELECT LEN(c_name) AS n FROM dbo.Customer",
            'SELECT CAST(CHAR_LENGTH(TRIM(TRAILING \' \' FROM CAST("customer"."c_name" AS VARCHAR))) AS INTEGER) AS "n" FROM "raw"."customer" AS "customer"',
        ),
    ),
)
def tsql_len(node: exp.Expr, ctx: Context) -> exp.Expr | None:
    trimmed = exp.Trim(this=clone(node.this), position="TRAILING", expression=lit(" "))
    return exp.Length(this=trimmed)


@rule(
    "FN-LENGTH",
    "rewrite",
    ("snowflake", "oracle", "teradata", "bigquery", "redshift"),
    (exp.Length,),
    "LENGTH / CHAR_LENGTH(s) becomes CHAR_LENGTH(s) (characters, not bytes).",
    (
        (
            "snowflake",
            "SELECT LENGTH(c_name) AS n FROM PROD_DW.SALES.CUSTOMER",
            'SELECT CAST(CHAR_LENGTH("customer"."c_name") AS BIGINT) AS "n" FROM "raw"."customer" AS "customer"',
        ),
    ),
)
def length(node: exp.Expr, ctx: Context) -> exp.Expr | None:
    if semantics(ctx.dialect).EMPTY_STRING_IS_NULL:
        # Oracle stores '' as NULL, so LENGTH('') is NULL: the same as CHAR_LENGTH(NULL).
        return None
    return node


@rule(
    "TSQL-PLUS-CONCAT",
    "rewrite",
    ("tsql",),
    (exp.Add,),
    "`a + b` on two strings is concatenation: a || b. Mixed string/number `+` converts the "
    "string to a number in T-SQL and is refused, as is `+` on operands of unknown type.",
    (
        (
            "tsql",
            "SELECT c_name + ' (' + c_mktsegment + ')' AS label FROM dbo.Customer",
            'SELECT "customer"."c_name" || \' (\' || "customer"."c_mktsegment" || \')\' AS "label" FROM "raw"."customer" AS "customer"',
        ),
    ),
    phase="arithmetic",
)
def plus_concat(node: exp.Expr, ctx: Context) -> exp.Expr | None:
    left, right = type_of(node.this), type_of(node.expression)
    left_string, right_string = left in STRING_TYPES, right in STRING_TYPES
    if left_string and right_string:
        return exp.DPipe(this=clone(node.this), expression=clone(node.expression))
    if left_string or right_string or (left is None and right is None):
        ctx.report(
            "error",
            "TSQL-PLUS-CONCAT",
            node,
            "`+` between these operands is either string concatenation or numeric addition "
            "depending on types that cannot be established; CAST both operands",
        )
    return None


@rule(
    "ORA-EMPTY-STRING",
    "rewrite",
    ("oracle",),
    (exp.Literal,),
    "Oracle stores '' as NULL, so the literal '' becomes NULL.",
    (
        (
            "oracle",
            "SELECT NVL(c_comment, '') AS c FROM SALES.CUSTOMER",
            'SELECT COALESCE("customer"."c_comment", NULL) AS "c" FROM (SELECT NULLIF("customer"."c_comment", \'\') AS "c_comment" FROM "raw"."customer" AS "customer") AS "customer"',
        ),
    ),
)
def empty_string(node: exp.Expr, ctx: Context) -> exp.Expr | None:
    if not (node.is_string and node.name == ""):
        return None
    return exp.Null()


@rule(
    "ORA-CONCAT-NULL",
    "rewrite",
    ("oracle",),
    (exp.DPipe,),
    "Oracle || treats NULL as '' (and an empty result as NULL): "
    "NULLIF(COALESCE(a, '') || COALESCE(b, ''), '').",
    (
        (
            "oracle",
            "SELECT c_name || '-' || c_phone AS label FROM SALES.CUSTOMER",
            'SELECT NULLIF(COALESCE("customer"."c_name", \'\') || \'-\' || COALESCE("customer"."c_phone", \'\'), \'\') AS "label" FROM (SELECT NULLIF("customer"."c_name", \'\') AS "c_name", NULLIF("customer"."c_phone", \'\') AS "c_phone" FROM "raw"."customer" AS "customer") AS "customer"',
        ),
    ),
)
def oracle_concat(node: exp.Expr, ctx: Context) -> exp.Expr | None:
    if isinstance(node.parent, exp.DPipe):
        return None  # the outermost || of a chain rewrites the whole chain
    operands: list[exp.Expr] = []
    pending: list[exp.Expr] = [node]
    while pending:
        current = pending.pop()
        if isinstance(current, exp.DPipe):
            pending.extend([current.expression, current.this])
        else:
            operands.append(current)
    parts = [
        clone(part)
        if isinstance(part, exp.Literal) and part.name
        else exp.Coalesce(this=clone(part), expressions=[lit("")])
        for part in operands
        if not isinstance(part, exp.Null)
    ]
    if not parts:
        return exp.Null()
    chain = parts[0]
    for part in parts[1:]:
        chain = exp.DPipe(this=chain, expression=part)
    return exp.Nullif(this=chain, expression=lit(""))


@rule(
    "FN-CONCAT",
    "rewrite",
    ALL_DIALECTS,
    (exp.Concat,),
    "CONCAT(a, b, ...) becomes a || b || ...; where the dialect's CONCAT skips NULLs "
    "(T-SQL, Oracle) each argument is wrapped in COALESCE(x, ''), and Oracle's empty result "
    "is NULL: NULLIF(..., ''). Redshift's CONCAT, like its ||, is NULL when either argument "
    "is (https://docs.aws.amazon.com/redshift/latest/dg/r_CONCAT.html).",
    (
        (
            "tsql",
            "SELECT CONCAT(c_name, '/', c_phone) AS label FROM dbo.Customer",
            'SELECT COALESCE("customer"."c_name", \'\') || \'/\' || COALESCE("customer"."c_phone", \'\') AS "label" FROM "raw"."customer" AS "customer"',
        ),
        (
            "oracle",
            "SELECT CONCAT(c_name, c_phone) AS label FROM SALES.CUSTOMER",
            'SELECT NULLIF(COALESCE("customer"."c_name", \'\') || COALESCE("customer"."c_phone", \'\'), \'\') AS "label" FROM (SELECT NULLIF("customer"."c_name", \'\') AS "c_name", NULLIF("customer"."c_phone", \'\') AS "c_phone" FROM "raw"."customer" AS "customer") AS "customer"',
        ),
        (
            "redshift",
            "SELECT CONCAT(c_name, c_phone) AS label FROM sales.customer",
            'SELECT "customer"."c_name" || "customer"."c_phone" AS "label" FROM "raw"."customer" AS "customer"',
        ),
    ),
)
def concat(node: exp.Expr, ctx: Context) -> exp.Expr | None:
    # sqlglot's parser marks CONCAT as skipping NULLs by its dialect flag CONCAT_COALESCE,
    # which it sets for Redshift too, whose CONCAT is NULL when either argument is: the
    # dialect's own flag decides.
    skips_nulls = semantics(ctx.dialect).CONCAT_SKIPS_NULLS
    parts = [
        exp.Coalesce(this=clone(arg), expressions=[lit("")])
        if skips_nulls and not isinstance(arg, exp.Literal)
        else clone(arg)
        for arg in node.expressions
    ]
    if not parts:
        return None
    chain = parts[0]
    for part in parts[1:]:
        chain = exp.DPipe(this=chain, expression=part)
    if semantics(ctx.dialect).EMPTY_STRING_IS_NULL:
        return exp.Nullif(this=chain, expression=lit(""))  # CONCAT(NULL, NULL) is NULL
    return chain


# Unicode's White_Space property (https://www.unicode.org/Public/UCD/latest/ucd/PropList.txt):
# what BigQuery's TRIM removes without characters, "whitespace characters (as defined by the
# Unicode standard)" (https://cloud.google.com/bigquery/docs/reference/standard-sql/
# string_functions#trim).
UNICODE_WHITESPACE = "".join(
    chr(code)
    for code in (
        *range(0x09, 0x0E), 0x20, 0x85, 0xA0, 0x1680, *range(0x2000, 0x200B),
        0x2028, 0x2029, 0x202F, 0x205F, 0x3000,
    )
)  # fmt: skip


@rule(
    "FN-TRIM",
    "rewrite",
    ("bigquery", "oracle"),
    (exp.Trim,),
    "TRIM / LTRIM / RTRIM without characters remove spaces, as the standard's TRIM does, "
    "except BigQuery's, which remove Unicode's whitespace (the 25 characters of its "
    "White_Space property: tab, line feed, no-break space, ...), written out as the characters "
    "to trim. Oracle's empty result is NULL: NULLIF(TRIM(...), '').",
    (
        (
            "oracle",
            "SELECT TRIM(c_comment) AS c, RTRIM(c_phone, '-') AS p FROM SALES.CUSTOMER",
            'SELECT NULLIF(TRIM("customer"."c_comment"), \'\') AS "c", NULLIF(TRIM(TRAILING \'-\' '
            'FROM "customer"."c_phone"), \'\') AS "p" FROM (SELECT NULLIF("customer"."c_phone", \'\') AS "c_phone", NULLIF("customer"."c_comment", \'\') AS "c_comment" FROM "raw"."customer" AS "customer") AS "customer"',
        ),
    ),
)
def trim(node: exp.Expr, ctx: Context) -> exp.Expr | None:
    result: exp.Expr = node
    if node.args.get("expression") is None and semantics(ctx.dialect).TRIM_REMOVES_WHITESPACE:
        result = clone(node)
        result.set("expression", lit(UNICODE_WHITESPACE))
        if not result.args.get("position"):
            result.set("position", "BOTH")
    if semantics(ctx.dialect).EMPTY_STRING_IS_NULL:
        result = exp.Nullif(this=clone(result), expression=lit(""))
    return None if result is node else result


@rule(
    "FN-POSITION",
    "rewrite",
    ALL_DIALECTS,
    (exp.StrPosition,),
    "CHARINDEX(sub, s) / INSTR(s, sub) / STRPOS becomes POSITION(sub IN s); "
    "a start position or occurrence argument is refused. T-SQL's CHARINDEX matches by the "
    "collation: translated as tsql_collation_case says (SENSITIVE with a warning, "
    "INSENSITIVE refused).",
    (
        (
            "tsql",
            "SELECT CHARINDEX(' ', c_name) AS p FROM dbo.Customer",
            'SELECT CAST(POSITION(\' \' IN "customer"."c_name") AS INTEGER) AS "p" FROM "raw"."customer" AS "customer"',
        ),
    ),
)
def position(node: exp.Expr, ctx: Context) -> exp.Expr | None:
    if node.args.get("position") or node.args.get("occurrence"):
        ctx.report(
            "error", "FN-POSITION", node, "a start position or occurrence argument has no ANSI form"
        )
        return None
    if not collated_search("CHARINDEX", [node.args["substr"]], node, ctx):
        return None
    return exp.StrPosition(this=clone(node.this), substr=node.args["substr"].copy())


@rule(
    "FN-LEFT-RIGHT",
    "rewrite",
    ("tsql", "redshift", "snowflake", "bigquery", "teradata"),
    (exp.Left, exp.Right),
    "LEFT(s, n) becomes SUBSTRING(s FROM 1 FOR n); RIGHT(s, n) becomes "
    "SUBSTRING(s FROM CHAR_LENGTH(s) - n + 1) (a start below 1 yields the whole string, as RIGHT does).",
    (
        (
            "tsql",
            "SELECT LEFT(c_phone, 2) AS cc, RIGHT(c_phone, 4) AS tail FROM dbo.Customer",
            'SELECT SUBSTRING("customer"."c_phone" FROM 1 FOR 2) AS "cc", SUBSTRING("customer"."c_phone" FROM CHAR_LENGTH("customer"."c_phone") - 4 + 1) AS "tail" FROM "raw"."customer" AS "customer"',
        ),
    ),
)
def left_right(node: exp.Expr, ctx: Context) -> exp.Expr | None:
    text = node.this
    if isinstance(text, exp.Cast) and type_of(text.this) in STRING_TYPES:
        text = text.this
    if isinstance(node, exp.Left):
        return exp.Substring(this=clone(text), start=lit(1), length=clone(node.expression))
    start = exp.Add(
        this=exp.Sub(this=exp.Length(this=clone(text)), expression=clone(node.expression)),
        expression=lit(1),
    )
    return exp.Substring(this=clone(text), start=start)


@rule(
    "TD-INDEX",
    "rewrite",
    ("teradata",),
    (exp.Anonymous,),
    "Teradata INDEX(s, sub) becomes POSITION(sub IN s).",
    (
        (
            "teradata",
            "SELECT INDEX(c_phone, '-') AS p FROM SALES_DB.CUSTOMER",
            'SELECT CAST(POSITION(\'-\' IN "customer"."c_phone") AS INTEGER) AS "p" FROM "raw"."customer" AS "customer"',
        ),
    ),
)
def teradata_index(node: exp.Expr, ctx: Context) -> exp.Expr | None:
    if node.name.upper() != "INDEX" or len(node.expressions) != 2:
        return None
    text, sub = node.expressions
    return exp.StrPosition(this=clone(text), substr=clone(sub))


def _oracle_substr(node: exp.Expr) -> exp.Expr:
    """Oracle SUBSTR for any start and length, NULL where Oracle returns NULL.

    A start of 0 means 1, a negative start counts from the end (NULL when it falls before the
    first character), a length below 1 gives NULL, and an empty result is NULL.
    """
    text, start, length = node.this, node.args.get("start"), node.args.get("length")
    conditions: list[exp.Expr] = []
    if isinstance(start, exp.Literal) and start.is_int and int(start.name) >= 1:
        position: exp.Expr = clone(start)
    else:
        from_end = exp.Add(
            this=exp.Add(
                this=exp.Length(this=clone(text)), expression=exp.Paren(this=clone(start))
            ),
            expression=lit(1),
        )
        position = exp.Case(
            ifs=[
                exp.If(this=exp.GT(this=clone(start), expression=lit(0)), true=clone(start)),
                exp.If(this=exp.EQ(this=clone(start), expression=lit(0)), true=lit(1)),
            ],
            default=from_end,
        )
        conditions.append(exp.LT(this=clone(position), expression=lit(1)))
    if length is not None and not (
        isinstance(length, exp.Literal) and length.is_int and int(length.name) >= 1
    ):
        conditions.append(exp.LT(this=clone(length), expression=lit(1)))
    substring = exp.Substring(
        this=clone(text), start=position, length=clone(length) if length else None
    )
    result: exp.Expr = exp.Nullif(this=substring, expression=lit(""))
    if conditions:
        condition = (
            conditions[0]
            if len(conditions) == 1
            else exp.Or(this=conditions[0], expression=conditions[1])
        )
        result = exp.Case(ifs=[exp.If(this=condition, true=exp.Null())], default=result)
    return result


@rule(
    "FN-SUBSTR",
    "rewrite",
    ALL_DIALECTS,
    (exp.Substring,),
    "SUBSTR / SUBSTRING(s, start, len) becomes SUBSTRING(s FROM start FOR len). A start of 0 "
    "or below counts from the end in Oracle and BigQuery, spelled out as a CASE over "
    "CHAR_LENGTH (BigQuery: 0, or a start left of the first character, means 1; its length "
    "must be a literal, as a negative one is an error). Snowflake's start of 0 means 1, a start "
    "that may be negative is refused (unless it is POSITION / LENGTH / ABS plus a positive "
    "literal), and a negative length gives '' (CASE WHEN n < 0 THEN 0 ELSE n END).",
    (
        (
            "oracle",
            "SELECT SUBSTR(c_phone, 1, 2) AS cc FROM SALES.CUSTOMER",
            'SELECT NULLIF(SUBSTRING("customer"."c_phone" FROM 1 FOR 2), \'\') AS "cc" FROM (SELECT NULLIF("customer"."c_phone", \'\') AS "c_phone" FROM "raw"."customer" AS "customer") AS "customer"',
        ),
        (
            "bigquery",
            "SELECT SUBSTR(c_phone, -4) AS last4 FROM sales.customer",
            'SELECT SUBSTRING("customer"."c_phone" FROM CASE WHEN CHAR_LENGTH("customer"."c_phone") < 4 THEN 1 ELSE CHAR_LENGTH("customer"."c_phone") - 3 END) AS "last4" FROM "raw"."customer" AS "customer"',
        ),
        (
            "snowflake",
            "SELECT SUBSTR(c_phone, 0, c_nationkey - 5) AS p FROM SALES.CUSTOMER",
            'SELECT SUBSTRING("customer"."c_phone" FROM 1 FOR CASE WHEN "customer"."c_nationkey" - 5 < 0 THEN 0 ELSE "customer"."c_nationkey" - 5 END) AS "p" FROM "raw"."customer" AS "customer"',
        ),
    ),
)
def substring(node: exp.Expr, ctx: Context) -> exp.Expr | None:
    if ctx.dialect == "oracle":
        return _oracle_substr(node)
    if ctx.dialect == "bigquery":
        return _bigquery_substr(node, ctx)
    if ctx.dialect == "snowflake":
        return _snowflake_substr(node, ctx)
    return node


# Functions whose value is never negative: one of them plus a positive literal is a start
# of at least 1 (SUBSTR(s, POSITION(',' IN s) + 1)).
NON_NEGATIVE = (exp.StrPosition, exp.Length, exp.Abs)


def _at_least_one(start: exp.Expr | None) -> bool:
    known = integer_literal(start) if start is not None else None
    if known is not None:
        return known >= 1
    if isinstance(start, exp.Paren):
        return _at_least_one(start.this)
    if isinstance(start, exp.Add):
        for value, step in ((start.this, start.expression), (start.expression, start.this)):
            amount = integer_literal(step)
            if amount is not None and amount >= 1 and isinstance(value, NON_NEGATIVE):
                return True
    return False


def _snowflake_substr(node: exp.Expr, ctx: Context) -> exp.Expr | None:
    """Snowflake's SUBSTR(s, p[, n]): a start of 0 is 1, a negative one counts from the end
    (what it does beyond the first character is not documented, so refused); a negative
    length gives '' where DuckDB's SUBSTRING would read to the left of the start."""
    start, length = node.args.get("start"), node.args.get("length")
    if integer_literal(start) == 0:
        node.set("start", lit(1))
    elif not _at_least_one(start):
        ctx.report(
            "error",
            "FN-SUBSTR",
            node,
            "SUBSTR with a start that may be negative counts from the end of the string in "
            "this dialect; use a start of 0 or more, or a literal",
        )
        return None
    if length is not None:
        known = integer_literal(length)
        if known is not None and known < 0:
            node.set("length", lit(0))
        elif known is None:
            negative = exp.LT(this=clone(length), expression=lit(0))
            node.set(
                "length", exp.Case(ifs=[exp.If(this=negative, true=lit(0))], default=clone(length))
            )
    return node


def _bigquery_substr(node: exp.Expr, ctx: Context) -> exp.Expr | None:
    """BigQuery's SUBSTR(s, p[, n]) with any start: p > 0 counts from the left, 0 (or a
    position left of the first character) means 1, -k counts from the end. A negative length
    is an error in BigQuery and in the standard alike only for literals here, so a length must
    be a literal 0 or more (n = 0 is '' in both); an empty result stays '' (not NULL)."""
    text, start, length = node.this, node.args.get("start"), node.args.get("length")
    if type_of(text) not in STRING_TYPES:
        ctx.report("error", "FN-SUBSTR", node, "SUBSTR of a value not known to be a string")
        return None
    if length is not None and not (isinstance(length, exp.Literal) and length.is_int):
        ctx.report(
            "error",
            "FN-SUBSTR",
            length,
            "SUBSTR's length must be a literal: a negative length is an error in BigQuery",
        )
        return None
    known = integer_literal(start)
    if known is not None and known >= 1:
        return node
    if known is not None:
        length_of = exp.Length(this=clone(text))
        if known == 0:
            position: exp.Expr = lit(1)
        else:  # -k: the k-th character from the end, or the first when there are fewer
            back = exp.Sub(this=length_of, expression=lit(-known - 1)) if known < -1 else length_of
            position = exp.Case(
                ifs=[
                    exp.If(
                        this=exp.LT(this=exp.Length(this=clone(text)), expression=lit(-known)),
                        true=lit(1),
                    )
                ],
                default=back,
            )
        return exp.Substring(
            this=clone(text), start=position, length=clone(length) if length is not None else None
        )
    if type_of(start) not in INTEGER_TYPES:
        ctx.report("error", "FN-SUBSTR", start, "SUBSTR's start must be an integer")
        return None
    from_end = exp.Add(this=exp.Length(this=clone(text)), expression=exp.Paren(this=clone(start)))
    position = exp.Case(
        ifs=[
            exp.If(this=exp.GT(this=clone(start), expression=lit(0)), true=clone(start)),
            exp.If(
                this=exp.Or(
                    this=exp.EQ(this=clone(start), expression=lit(0)),
                    expression=exp.LT(this=clone(from_end), expression=lit(0)),
                ),
                true=lit(1),
            ),
        ],
        default=exp.Add(this=from_end, expression=lit(1)),
    )
    return exp.Substring(
        this=clone(text), start=position, length=clone(length) if length is not None else None
    )


MAX_SPLIT_PART = 4


@rule(
    "FN-SPLIT-PART",
    "rewrite",
    ("snowflake", "redshift"),
    (exp.SplitPart,),
    f"SPLIT_PART(s, delimiter, n) with a literal delimiter and a literal n from 1 to {MAX_SPLIT_PART} "
    "becomes POSITION/SUBSTRING arithmetic; a missing part is '' as in the source. Any other "
    "n is the portable SPLIT_PART: Snowflake counts a negative n from the end and reads 0 as "
    "1; Redshift's n must be a literal 1 or more (an error otherwise). An empty or "
    "non-literal delimiter is refused.",
    (
        (
            "snowflake",
            "SELECT SPLIT_PART(c_phone, '-', 2) AS area FROM SALES.CUSTOMER",
            'SELECT CASE WHEN "customer"."c_phone" IS NULL THEN NULL WHEN CASE WHEN POSITION(\'-\' IN "customer"."c_phone") = 0 THEN NULL ELSE SUBSTRING("customer"."c_phone" FROM POSITION(\'-\' IN "customer"."c_phone") + 1) END IS NULL THEN \'\' ELSE CASE WHEN POSITION(\'-\' IN CASE WHEN POSITION(\'-\' IN "customer"."c_phone") = 0 THEN NULL ELSE SUBSTRING("customer"."c_phone" FROM POSITION(\'-\' IN "customer"."c_phone") + 1) END) = 0 THEN CASE WHEN POSITION(\'-\' IN "customer"."c_phone") = 0 THEN NULL ELSE SUBSTRING("customer"."c_phone" FROM POSITION(\'-\' IN "customer"."c_phone") + 1) END ELSE SUBSTRING(CASE WHEN POSITION(\'-\' IN "customer"."c_phone") = 0 THEN NULL ELSE SUBSTRING("customer"."c_phone" FROM POSITION(\'-\' IN "customer"."c_phone") + 1) END FROM 1 FOR POSITION(\'-\' IN CASE WHEN POSITION(\'-\' IN "customer"."c_phone") = 0 THEN NULL ELSE SUBSTRING("customer"."c_phone" FROM POSITION(\'-\' IN "customer"."c_phone") + 1) END) - 1) END END AS "area" FROM "raw"."customer" AS "customer"',
        ),
    ),
)
def split_part(node: exp.Expr, ctx: Context) -> exp.Expr | None:
    delimiter, index = node.args.get("delimiter"), node.args.get("part_index")
    literal_delimiter = (
        isinstance(delimiter, exp.Literal) and delimiter.is_string and delimiter.name
    )
    if not literal_delimiter:
        ctx.report(
            "error",
            "FN-SPLIT-PART",
            node,
            "SPLIT_PART is translated for a literal, non-empty delimiter (an empty one reads "
            "differently in each source)",
        )
        return None
    part = integer_literal(index)
    if part is None or not 1 <= part <= MAX_SPLIT_PART:
        return _portable_split_part(node, part, ctx)
    text = node.this

    def found(value: exp.Expr) -> exp.Expr:
        return exp.StrPosition(this=clone(value), substr=clone(delimiter))

    def after_delimiter(value: exp.Expr) -> exp.Expr:
        # NULL marks "no further part" (a NULL input is handled separately below).
        start = exp.Add(this=found(value), expression=lit(len(delimiter.name)))
        missing = exp.EQ(this=found(value), expression=lit(0))
        return exp.Case(
            ifs=[exp.If(this=missing, true=exp.Null())],
            default=exp.Substring(this=clone(value), start=start),
        )

    rest = text
    for _ in range(int(index.name) - 1):
        rest = after_delimiter(rest)
    first = exp.Case(
        ifs=[exp.If(this=exp.EQ(this=found(rest), expression=lit(0)), true=clone(rest))],
        default=exp.Substring(
            this=clone(rest),
            start=lit(1),
            length=exp.Sub(this=found(rest), expression=lit(1)),
        ),
    )
    return exp.Case(
        ifs=[
            exp.If(this=exp.Is(this=clone(text), expression=exp.Null()), true=exp.Null()),
            exp.If(this=exp.Is(this=clone(rest), expression=exp.Null()), true=lit("")),
        ],
        default=first,
    )


def _portable_split_part(node: exp.Expr, part: int | None, ctx: Context) -> exp.Expr | None:
    """The portable SPLIT_PART (sql/portable.py) for a part the spelled-out form does not
    cover: Snowflake counts a negative part from the end and reads 0 as 1; Redshift's part
    must be 1 or more (an error otherwise), so it must be a literal there."""
    index = node.args["part_index"]
    if semantics(ctx.dialect).SPLIT_PART_NEEDS_POSITIVE_PART and (part is None or part < 1):
        ctx.report(
            "error",
            "FN-SPLIT-PART",
            index,
            "Redshift's SPLIT_PART part must be 1 or more (an error otherwise): write a literal",
        )
        return None
    if part == 0:
        index = lit(1)
    elif part is None:  # Snowflake: 0 is the first part
        index = exp.Case(
            ifs=[exp.If(this=exp.EQ(this=clone(index), expression=lit(0)), true=lit(1))],
            default=clone(index),
        )
    else:
        index = clone(index)
    call = portable.PortableSplitPart(
        this=clone(node.this), delimiter=clone(node.args["delimiter"]), part=index
    )
    call.type = exp.DataType.build("VARCHAR")
    offset = node_offset(node)
    if offset is not None:
        call.meta["keyword_start"] = offset  # where a --strict refusal points
    return call


@rule(
    "TD-CHARACTERS",
    "rewrite",
    ("teradata",),
    (exp.Anonymous,),
    "Teradata CHARACTERS(s) / CHARS(s) becomes CHAR_LENGTH(s).",
    (
        (
            "teradata",
            "SELECT CHARACTERS(c_name) AS n FROM SALES_DB.CUSTOMER",
            'SELECT CAST(CHAR_LENGTH("customer"."c_name") AS INTEGER) AS "n" FROM "raw"."customer" AS "customer"',
        ),
    ),
)
def teradata_characters(node: exp.Expr, ctx: Context) -> exp.Expr | None:
    if node.name.upper() not in ("CHARACTERS", "CHARS") or len(node.expressions) != 1:
        return None
    return exp.Length(this=node.expressions[0].copy())


@rule(
    "FN-STARTS-WITH",
    "rewrite",
    ("bigquery", "snowflake"),
    (exp.StartsWith, exp.EndsWith),
    "STARTS_WITH(s, p) / STARTSWITH becomes SUBSTRING(s FROM 1 FOR CHAR_LENGTH(p)) = p; "
    "ENDS_WITH(s, p) / ENDSWITH compares the last CHAR_LENGTH(p) characters (FALSE when p is "
    "longer than s, so no start position is below 1). NULL in, NULL out; '' starts and ends "
    "every string.",
    (
        (
            "bigquery",
            "SELECT STARTS_WITH(c_name, 'Cu') AS s, ENDS_WITH(c_name, '01') AS e FROM sales.customer",
            'SELECT SUBSTRING("customer"."c_name" FROM 1 FOR CHAR_LENGTH(\'Cu\')) = \'Cu\' AS "s", '
            'CASE WHEN CHAR_LENGTH(\'01\') > CHAR_LENGTH("customer"."c_name") THEN FALSE ELSE '
            'SUBSTRING("customer"."c_name" FROM CHAR_LENGTH("customer"."c_name") - '
            'CHAR_LENGTH(\'01\') + 1) = \'01\' END AS "e" FROM "raw"."customer" AS "customer"',
        ),
    ),
)
def starts_with(node: exp.Expr, ctx: Context) -> exp.Expr | None:
    text, affix = node.this, node.expression
    if isinstance(node, exp.StartsWith):
        head = exp.Substring(this=clone(text), start=lit(1), length=exp.Length(this=clone(affix)))
        return exp.EQ(this=head, expression=clone(affix))
    start = exp.Add(
        this=exp.Sub(this=exp.Length(this=clone(text)), expression=exp.Length(this=clone(affix))),
        expression=lit(1),
    )
    tail = exp.EQ(this=exp.Substring(this=clone(text), start=start), expression=clone(affix))
    longer = exp.GT(this=exp.Length(this=clone(affix)), expression=exp.Length(this=clone(text)))
    return exp.Case(ifs=[exp.If(this=longer, true=exp.false())], default=tail)


@rule(
    "FN-CONTAINS",
    "rewrite",
    ("snowflake",),
    (exp.Contains,),
    "Snowflake's CONTAINS(s, p) of strings is TRUE when p occurs in s, NULL when either is "
    "NULL, else FALSE (compared as written: no collation): POSITION(p IN s) > 0, TRUE for an "
    "empty p. Of other types (BINARY) it is refused.",
    (
        (
            "snowflake",
            "SELECT CONTAINS(c_name, 'er#') AS c FROM SALES.CUSTOMER",
            'SELECT POSITION(\'er#\' IN "customer"."c_name") > 0 AS "c" FROM "raw"."customer" '
            'AS "customer"',
        ),
    ),
)
def contains(node: exp.Expr, ctx: Context) -> exp.Expr | None:
    text, part = node.this, node.expression
    if not all(type_of(v) in STRING_TYPES or isinstance(v, exp.Null) for v in (text, part)):
        return None  # left to the ANSI generator, which refuses CONTAINS
    found = exp.StrPosition(this=clone(text), substr=clone(part))
    return exp.GT(this=found, expression=lit(0))


@rule(
    "FN-CONTAINS-SUBSTR",
    "refuse",
    ("bigquery",),
    (exp.Contains,),
    "BigQuery's CONTAINS_SUBSTR(x, s) normalizes both sides with NFKC and case-folds them "
    "before it searches (documented), so '\uff0b' (a full-width plus) contains '+' and "
    "'STRASSE' contains 'straße'; the standard's LOWER and POSITION do neither, and which "
    "characters the normalization changes is Unicode's table, not a rule SQL can state: "
    "refused. (sqlglot reads it as CONTAINS(LOWER(x), LOWER(s)), which is not the same.)",
    (("bigquery", "SELECT CONTAINS_SUBSTR(c_name, '+') AS c FROM sales.customer", "1:8"),),
)
def contains_substr(node: exp.Expr, ctx: Context) -> exp.Expr | None:
    ctx.report(
        "error",
        "FN-CONTAINS-SUBSTR",
        node,
        "CONTAINS_SUBSTR searches after NFKC normalization and case folding (a full-width "
        "'\uff0b' contains '+'), which the standard's LOWER and POSITION do not do; write "
        "STRPOS(x, s) > 0 for a search of the text as it is",
    )
    return node


# BigQuery FORMAT's specifiers translated: the conversion letter -> the argument types it
# takes here. %d and %i print an INT64 in decimal, %s a STRING as it is: what CAST to
# VARCHAR and the string give. Flags, widths and precisions are not read here.
_FORMAT_CONVERSIONS = {"d": INTEGER_TYPES, "i": INTEGER_TYPES, "s": STRING_TYPES}
_FORMAT_SPECIFIER = re.compile(r"%([-+ #0']*)([0-9]*|\*)(\.(?:[0-9]*|\*))?([a-zA-Z%])")


@rule(
    "FN-FORMAT",
    "rewrite",
    ("bigquery",),
    (exp.Format,),
    "BigQuery's FORMAT('...', v, ...) with a literal format of text, %% and the bare "
    "specifiers %d or %i of an INT64 (its decimal digits, CAST(v AS VARCHAR)) and %s of a "
    "STRING (the string) is the concatenation of those pieces: NULL when an argument is "
    "NULL, as BigQuery documents for these specifiers. Other specifiers are refused by name: "
    "%f, %e and %g round a FLOAT64 to a precision by a rule the documentation does not state "
    "(and Spark's Java formatter rounds otherwise than C's printf), %t / %T print BigQuery's "
    "literal forms, and flags, widths and precisions pad by rules of their own; a '%' that "
    "starts no specifier (BigQuery rejects the format) is refused too.",
    (
        (
            "bigquery",
            "SELECT FORMAT('%s-%d (100%%)', c_name, c_custkey) AS f FROM sales.customer",
            'SELECT "customer"."c_name" || \'-\' || CAST("customer"."c_custkey" AS VARCHAR) '
            '|| \' (100%)\' AS "f" FROM "raw"."customer" AS "customer"',
        ),
    ),
)
def bigquery_format(node: exp.Expr, ctx: Context) -> exp.Expr | None:
    template, values = node.this, list(node.expressions)
    if not (isinstance(template, exp.Literal) and template.is_string):
        ctx.report(
            "error", "FN-FORMAT", node, "FORMAT with a format that is not a literal is not read"
        )
        return node
    pieces: list[exp.Expr] = []
    text, at = template.name, 0
    matches = list(_FORMAT_SPECIFIER.finditer(text))
    starts = [0, *(m.end() for m in matches)]
    ends = [*(m.start() for m in matches), len(text)]
    between = [text[start:end] for start, end in zip(starts, ends, strict=True)]
    if any("%" in part for part in between):
        ctx.report(
            "error",
            "FN-FORMAT",
            node,
            "FORMAT's format has a '%' that starts no specifier, which BigQuery rejects",
        )
        return node
    for match in matches:
        if match.start() > at:
            pieces.append(lit(text[at : match.start()]))
        at = match.end()
        flags, width, precision, letter = match.groups()
        if letter == "%" and not (flags or width or precision):
            pieces.append(lit("%"))
            continue
        if flags or width or precision or letter not in _FORMAT_CONVERSIONS:
            ctx.report(
                "error",
                "FN-FORMAT",
                node,
                f"FORMAT's specifier {match.group(0)} has no exact ANSI form here: only %d, %i "
                "and %s without flags, width or precision translate ("
                + (
                    "BigQuery does not document how %f, %e and %g round a FLOAT64"
                    if letter in "eEfFgG"
                    else "the others print by rules of their own"
                )
                + ")",
            )
            return node
        if not values:
            ctx.report("error", "FN-FORMAT", node, "FORMAT has fewer arguments than specifiers")
            return node
        value = values.pop(0)
        if type_of(value) not in _FORMAT_CONVERSIONS[letter]:
            kind = type_of(value)
            ctx.report(
                "error",
                "FN-FORMAT",
                value,
                f"FORMAT's %{letter} of a {kind.value if kind else 'value of unknown type'} is "
                "not translated (%d and %i of an INT64, %s of a STRING)",
            )
            return node
        pieces.append(clone(value) if letter == "s" else cast(clone(value), "VARCHAR"))
    if at < len(text) or not pieces:
        pieces.append(lit(text[at:]))
    if values:
        ctx.report("error", "FN-FORMAT", node, "FORMAT has more arguments than specifiers")
        return node
    merged: list[exp.Expr] = []
    for piece in pieces:  # adjacent text is one literal: ' (100' || '%' is ' (100%'
        if merged and all(isinstance(p, exp.Literal) for p in (merged[-1], piece)):
            merged[-1] = lit(merged[-1].name + piece.name)
        else:
            merged.append(piece)
    result = merged[0]
    for piece in merged[1:]:
        result = exp.DPipe(this=result, expression=piece)
    return result


@rule(
    "BQ-RAW-STRING",
    "rewrite",
    ("bigquery",),
    (exp.RawString,),
    "A raw string literal r'...' (backslashes are characters, not escapes) becomes the ANSI "
    "string literal with the same characters.",
    (
        (
            "bigquery",
            "SELECT c_custkey FROM sales.customer WHERE c_name = r'a\\b'",
            'SELECT "customer"."c_custkey" AS "c_custkey" FROM "raw"."customer" AS "customer" '
            'WHERE "customer"."c_name" = \'a\\b\'',
        ),
    ),
    phase="syntax",
)
def raw_string(node: exp.Expr, ctx: Context) -> exp.Expr | None:
    return exp.Literal.string(node.name)


# Dialects where one character in a LIKE pattern has a reading the standard's LIKE has not.
UNREADABLE_LIKE = {
    "tsql": ("[", "T-SQL LIKE reads [...] as a character class, which standard LIKE has not"),
    "snowflake": (
        "\\",
        "a backslash in a Snowflake LIKE pattern without ESCAPE has no exact standard "
        "reading here; give the pattern an ESCAPE clause",
    ),
}


def _constant_pieces(node: exp.Expr) -> list[exp.Literal] | None:
    """The string literals ``node`` is made of, when it is built from string literals by
    case mapping and concatenation only; None otherwise."""
    if isinstance(node, exp.Literal):
        return [node] if node.is_string else None
    if isinstance(node, (exp.Lower, exp.Upper, exp.Paren)):
        return _constant_pieces(node.this)
    if isinstance(node, exp.DPipe):
        left, right = _constant_pieces(node.this), _constant_pieces(node.expression)
        return left + right if left is not None and right is not None else None
    return None


def _like_characters(pattern: str) -> list[tuple[str, bool]] | None:
    """``pattern`` under backslash escapes as (character, is a wildcard) pairs; None when it
    ends in a lone backslash (an error in the source)."""
    characters: list[tuple[str, bool]] = []
    escaped = False
    for char in pattern:
        if escaped:
            characters.append((char, False))
            escaped = False
        elif char == "\\":
            escaped = True
        else:
            characters.append((char, char in "%_"))
    return None if escaped else characters


def _ansi_like_pattern(characters: list[tuple[str, bool]]) -> tuple[str, bool]:
    """The ANSI pattern for (character, is a wildcard) pairs, and whether it needs
    ESCAPE '\\' (only when a literal % or _ must be matched)."""
    needs_escape = any(char in "%_" and not wildcard for char, wildcard in characters)
    if not needs_escape:
        return "".join(char for char, _ in characters), False
    text = "".join(
        "\\" + char if not wildcard and char in "%_\\" else char for char, wildcard in characters
    )
    return text, True


def standard_pattern(pattern: exp.Expr, ctx: Context) -> tuple[exp.Expr, bool] | None:
    """A LIKE pattern of ``ctx.dialect`` as the standard reads it, and whether it needs
    ``ESCAPE '\\'``; None when it has no exact reading (reported as LIKE-PATTERN). The
    pattern comes back unchanged where the dialect reads it as the standard does."""
    pieces = _constant_pieces(pattern)
    if pieces is not None and not isinstance(pattern, exp.Literal):
        # LOWER('abc') || 'd': known characters; only a special one needs a closer look.
        if not any(("\\" in p.name or "[" in p.name) for p in pieces):
            return pattern, False
        pieces = None
    if pieces is None and semantics(ctx.dialect).LIKE_BACKSLASH_ESCAPES_AT_RUN_TIME:
        # BigQuery reads a backslash in any pattern as making the next character literal and
        # fails on a final one (ZetaSQL's like.cc), as ESCAPE '\' does for \%, \_ and \\;
        # before another character the standard raises instead of matching it.
        return pattern, True
    if pieces is None:
        ctx.report(
            "error",
            "LIKE-PATTERN",
            pattern,
            "a LIKE pattern that is not a literal may hold characters this dialect reads "
            "differently from the standard (escapes, character classes); write it as a literal",
        )
        return None
    text = pattern.name
    special = UNREADABLE_LIKE.get(ctx.dialect)
    if special is not None:
        character, why = special
        if character not in text:
            return pattern, False
        ctx.report("error", "LIKE-PATTERN", pattern, why)
        return None
    if not semantics(ctx.dialect).LIKE_BACKSLASH_ESCAPES or "\\" not in text:
        return pattern, False
    characters = _like_characters(text)
    if characters is None:
        ctx.report("error", "LIKE-PATTERN", pattern, "the LIKE pattern ends in a lone backslash")
        return None
    ansi_text, needs_escape = _ansi_like_pattern(characters)
    return lit(ansi_text), needs_escape


@rule(
    "LIKE-PATTERN",
    "rewrite",
    ("bigquery", "redshift", "snowflake", "tsql"),
    (exp.Like,),
    "LIKE patterns mean what the source means: BigQuery and Redshift read a backslash as an "
    "escape (a literal pattern becomes the ANSI pattern, with ESCAPE '\\' where a literal % or "
    "_ remains). T-SQL reads [...] as a character class: a literal pattern with classes "
    "([abc], [a-c], [^a-c], [[], [%], [_]) becomes an anchored LIKE_REGEX (% any run of "
    "characters, _ any one, newlines included) under the case-sensitive collation assumption "
    "(a TSQL-COLLATION warning; ranges as code points, as a binary collation orders them); "
    "unclosed or empty classes, ranges beyond ASCII and classes with an ESCAPE clause are "
    "refused. Snowflake's backslash handling is not the standard's, so those patterns are "
    "refused, as is a pattern that is not a literal in these dialects (its characters are only "
    "known when the query runs), except in BigQuery, where every pattern reads a backslash as "
    "making the next character literal: one that is not a literal gets ESCAPE '\\', the same "
    "matches, the same error on a final backslash, and an error (on Spark, and in the "
    "standard) instead of a match for a backslash before a character other than %, _ or a "
    "backslash. An explicit ESCAPE clause already has the standard meaning. T-SQL LIKE ignores "
    "a varchar value's trailing blanks without saying how many: with a pattern ending in _ or a "
    "blank (no class, no ESCAPE) the value's readings (all but k of its trailing blanks "
    "dropped) are compared, and a value they disagree on stops the query at run time (a guard "
    "naming this rule); a pattern ending in a class that holds a blank is refused.",
    (
        (
            "bigquery",
            "SELECT c_custkey FROM sales.customer WHERE c_name LIKE 'a\\\\_b%' AND c_phone LIKE '1\\\\-%'",
            'SELECT "customer"."c_custkey" AS "c_custkey" FROM "raw"."customer" AS "customer" '
            'WHERE "customer"."c_name" LIKE \'a\\_b%\' ESCAPE \'\\\' AND "customer"."c_phone" '
            "LIKE '1-%'",
        ),
        (
            "tsql",
            "SELECT c_custkey FROM dbo.Customer WHERE c_name LIKE '[a-c]%' AND c_phone NOT LIKE '%[_]%'",
            'SELECT "customer"."c_custkey" AS "c_custkey" FROM "raw"."customer" AS "customer" '
            'WHERE "customer"."c_name" LIKE_REGEX \'^([a-c][\\s\\S]*)$\' AND NOT '
            '("customer"."c_phone" LIKE_REGEX \'^([\\s\\S]*[_][\\s\\S]*)$\')',
        ),
        (
            "tsql",
            "SELECT c_custkey FROM dbo.Customer WHERE c_phone LIKE '1_'",
            'SELECT "customer"."c_custkey" AS "c_custkey" FROM "raw"."customer" AS "customer" '
            "WHERE CASE WHEN (\"customer\".\"c_phone\" LIKE '1_' OR TRIM(TRAILING ' ' FROM "
            '"customer"."c_phone") LIKE \'1_\' OR ("customer"."c_phone" LIKE \'% \' AND '
            "TRIM(TRAILING ' ' FROM \"customer\".\"c_phone\") || ' ' LIKE '1_') OR "
            '("customer"."c_phone" LIKE \'%  \' AND TRIM(TRAILING \' \' FROM "customer"."c_phone") '
            "|| '  ' LIKE '1_')) AND NOT (\"customer\".\"c_phone\" LIKE '1_' AND TRIM(TRAILING ' ' "
            'FROM "customer"."c_phone") LIKE \'1_\' AND (NOT "customer"."c_phone" LIKE \'% \' OR '
            "TRIM(TRAILING ' ' FROM \"customer\".\"c_phone\") || ' ' LIKE '1_') AND (NOT "
            '"customer"."c_phone" LIKE \'%  \' OR TRIM(TRAILING \' \' FROM "customer"."c_phone") || '
            "'  ' LIKE '1_')) THEN RAISE_ERROR('LIKE-PATTERN: T-SQL LIKE with a pattern ending "
            "in _ or a blank ignores some of a varchar value''s trailing blanks, how many is not "
            "documented, and this value matches with some of them ignored and not with others') "
            'ELSE "customer"."c_phone" LIKE \'1_\' END',
        ),
    ),
    phase="syntax",
)
def like_pattern(node: exp.Expr, ctx: Context) -> exp.Expr | None:
    pattern = node.expression
    if (
        semantics(ctx.dialect).LIKE_BRACKET_CLASSES
        and isinstance(pattern, exp.Literal)
        and "[" in pattern.name
    ):
        return _tsql_class_like(node, ctx)
    if isinstance(node.parent, exp.Escape):
        return None
    checked = standard_pattern(node.expression, ctx)
    if checked is None:
        return node
    pattern, needs_escape = checked
    if pattern is node.expression and not needs_escape:
        return None
    like = clone(node)
    like.set("expression", pattern)
    return exp.Escape(this=like, expression=lit("\\")) if needs_escape else like


# What T-SQL's non-Unicode LIKE does with a value's trailing blanks, by how the pattern
# ends: SQL Server ignores them for char / varchar values, not for nchar / nvarchar ones
# (https://learn.microsoft.com/sql/t-sql/language-elements/like-transact-sql, "Pattern
# matching by using LIKE"): LIKE 'abc' matches the values that are 'abc' followed by zero or
# more blanks. A pattern ending in a non-blank literal character so matches the value without
# them; one ending in % matches the value with or without them alike; a pattern ending in _,
# [...] or a blank may match with some of them and not others.
BLANKS_KEPT, BLANKS_TRIMMED, BLANKS_UNDECIDED = "kept", "trimmed", "undecided"


def _class_matches_blank(body: str) -> bool:
    """Whether the T-SQL LIKE class [body] ([abc], [a-c], [^a-c]) matches a blank."""
    negated = body.startswith("^") and len(body) > 1
    members = body[1:] if negated else body
    found, i = False, 0
    while i < len(members):
        if i + 2 < len(members) and members[i + 1] == "-":
            found = found or members[i] <= " " <= members[i + 2]
            i += 3
        else:
            found = found or members[i] == " "
            i += 1
    return found != negated


def _last_element(text: str, escape: str | None) -> tuple[str, str]:
    """The last element of a T-SQL LIKE pattern: ("literal", c), ("wildcard", "%" or "_")
    or ("class", body)."""
    last, i = ("literal", ""), 0
    while i < len(text):
        char = text[i]
        if escape is not None and char == escape and i + 1 < len(text):
            last, i = ("literal", text[i + 1]), i + 2
        elif char == "[" and escape is None and text.find("]", i + 1) > i + 1:
            end = text.find("]", i + 1)
            last, i = ("class", text[i + 1 : end]), end + 1
        else:
            last, i = ("wildcard" if char in "%_" else "literal", char), i + 1
    return last


def tsql_like_blanks(text: str, escape: str | None = None) -> str:
    """How T-SQL LIKE ``text`` treats a varchar value's trailing blanks, as above."""
    kind, value = _last_element(text, escape)
    if kind == "wildcard":
        return BLANKS_KEPT if value == "%" else BLANKS_UNDECIDED
    if kind == "class":
        return BLANKS_UNDECIDED if _class_matches_blank(value) else BLANKS_TRIMMED
    return BLANKS_TRIMMED if value != " " else BLANKS_UNDECIDED


def _refuse_undecided_blanks(ctx: Context, pattern: exp.Expr) -> None:
    ctx.report(
        "error",
        "LIKE-PATTERN",
        pattern,
        "T-SQL LIKE ignores a varchar value's trailing blanks; with a pattern ending in _, "
        "a blank or a [...] class that holds one, whether it matches depends on how many are "
        "ignored, which no standard LIKE says: end the pattern in a non-blank character or %, "
        "or TRIM the value",
    )


def tsql_like_value(node: exp.Expr, ctx: Context) -> str | None:
    """Apply T-SQL's trailing-blank rule to the value of LIKE ``node`` (a typed string with
    a literal pattern): TRIM(TRAILING ' ' FROM value) where the pattern drops them, in
    place. Returns how the value's blanks are treated (BLANKS_UNDECIDED: the caller guards
    the match, :func:`tsql_blank_guard`); None when refused (reported)."""
    pattern = node.expression
    if not isinstance(pattern, exp.Literal) or pattern.meta.get("national"):
        return BLANKS_KEPT  # N'...' makes the match Unicode: trailing blanks count, as in ANSI
    escape = node.parent.expression if isinstance(node.parent, exp.Escape) else None
    escape_char = escape.name if isinstance(escape, exp.Literal) else None
    treatment = tsql_like_blanks(pattern.name, escape_char)
    if treatment == BLANKS_UNDECIDED:
        if escape is not None:
            _refuse_undecided_blanks(ctx, pattern)
            return None
        ctx.report(
            "warning",
            "TSQL-COLLATION",
            node,
            "LIKE with a pattern ending in _ or a blank: a value with trailing blanks whose "
            "match depends on how many SQL Server ignores stops the query (a guard), assuming "
            "the column is not nvarchar (where they count)",
        )
        return treatment
    if treatment == BLANKS_TRIMMED:
        trimmed = exp.Trim(this=clone(node.this), position="TRAILING", expression=lit(" "))
        node.set("this", trimmed)
        # A change in place under a warning rule: retyped as the engine retypes a rewrite's.
        ctx.rewritten.append(trimmed)
        trimmed.meta["changed"] = True
        ctx.report(
            "warning",
            "TSQL-COLLATION",
            node,
            "LIKE drops the value's trailing blanks as SQL Server does for a varchar value, "
            "assuming the column is not nvarchar (where they count)",
        )
    return treatment


def tsql_blank_guard(like: exp.Like, at: exp.Expr) -> exp.Expr:
    """T-SQL ``v LIKE p`` where p ends in _ or a blank: SQL Server ignores some of v's
    trailing blanks, how many is not documented. Reading k is the value with all but k of
    them dropped (RTRIM(v) followed by k blanks), 0 <= k <= n, the number v has. Where every
    reading matches alike the result is ``v LIKE p``; where they differ the query stops.

    The readings are finitely many: past the m pattern elements after its last % (all of
    them, without one), reading k + 1 holds reading k with a character appended, so a
    pattern ending in % matches it whenever it matched k, and a pattern of fixed length
    matches no longer one: readings 0..m and n (v itself) decide them all.
    """
    value, pattern = like.this, like.expression
    text = pattern.name
    elements = len(text) - text.rfind("%") - 1
    trimmed = exp.Trim(this=clone(value), position="TRAILING", expression=lit(" "))

    def matches(candidate: exp.Expr) -> exp.Expr:
        return exp.Like(this=candidate, expression=clone(pattern))

    def present(blanks: int) -> exp.Expr:
        return exp.Like(this=clone(value), expression=lit("%" + " " * blanks))

    readings = []
    for blanks in range(elements + 1):
        reading = (
            clone(trimmed)
            if not blanks
            else exp.DPipe(this=clone(trimmed), expression=lit(" " * blanks))
        )
        readings.append((blanks, matches(reading)))
    exists = exp.or_(
        matches(clone(value)),
        *(
            reading if not blanks else exp.and_(present(blanks), reading)
            for blanks, reading in readings
        ),
    )
    every = exp.and_(
        matches(clone(value)),
        *(
            reading if not blanks else exp.or_(exp.not_(present(blanks)), reading)
            for blanks, reading in readings
        ),
    )
    differs = exp.and_(exp.Paren(this=exists), exp.not_(exp.Paren(this=every)))
    return guarded(
        like,
        differs,
        "LIKE-PATTERN",
        "T-SQL LIKE with a pattern ending in _ or a blank ignores some of a varchar value's "
        "trailing blanks, how many is not documented, and this value matches with some of "
        "them ignored and not with others",
        at,
    )


def _tsql_class_like(node: exp.Expr, ctx: Context) -> exp.Expr | None:
    """T-SQL LIKE with [...] character classes: the same match as LIKE_REGEX."""
    pattern = node.expression
    if isinstance(node.parent, exp.Escape):
        ctx.report(
            "error",
            "LIKE-PATTERN",
            pattern,
            "a T-SQL LIKE pattern with [...] classes and an ESCAPE character has no exact "
            "standard reading here; write the escaped character as a class ([%], [_], [[])",
        )
        return node
    try:
        regex, ranged = like_class_pattern(pattern.name)
    except PatternError as error:
        ctx.report("error", "LIKE-PATTERN", pattern, f"T-SQL LIKE class {error}")
        return node
    treatment = tsql_like_blanks(pattern.name)
    if treatment == BLANKS_UNDECIDED and not pattern.meta.get("national"):
        _refuse_undecided_blanks(ctx, pattern)
        return node
    if treatment == BLANKS_TRIMMED and not pattern.meta.get("national"):
        regex = regex[: -len(")$")] + ") *$"  # the varchar value's trailing blanks dropped
    order = "; a range as code points, as a binary (_BIN2) collation orders them" if ranged else ""
    ctx.report(
        "warning",
        "TSQL-COLLATION",
        node,
        f"LIKE [...] classes translated assuming a case-sensitive collation{order}",
    )
    match = exp.RegexpLike(this=clone(node.this), expression=lit(regex))
    return exp.Not(this=exp.Paren(this=match)) if node.args.get("negate") else match


@rule(
    "FN-ILIKE",
    "rewrite",
    ("snowflake", "redshift"),
    (exp.ILike,),
    "a ILIKE b becomes LOWER(a) LIKE LOWER(b).",
    (
        (
            "snowflake",
            "SELECT c_name FROM SALES.CUSTOMER WHERE c_name ILIKE '%#00%'",
            'SELECT "customer"."c_name" AS "c_name" FROM "raw"."customer" AS "customer" WHERE LOWER("customer"."c_name") LIKE LOWER(\'%#00%\')',
        ),
    ),
)
def ilike(node: exp.Expr, ctx: Context) -> exp.Expr | None:
    checked = (node.expression, False) if isinstance(node.parent, exp.Escape) else None
    checked = checked or standard_pattern(node.expression, ctx)
    if checked is None:
        return node  # refused: the pattern's escapes have no standard reading
    pattern, needs_escape = checked
    like = exp.Like(
        this=exp.Lower(this=clone(node.this)), expression=exp.Lower(this=clone(pattern))
    )
    return exp.Escape(this=like, expression=lit("\\")) if needs_escape else like
