"""String functions with no ISO form, written as calls of the portable function set.

Each rule writes the standard's own expression where one is exact (``LPAD(s, 5, '0')`` is a
CASE over SUBSTRING and ``||``), else a call of ``sql/portable.py``'s function of that name,
whose definition is fixed for every engine. What the source's function does where the two
differ (a negative count, an empty pad, T-SQL's 8,000-byte limit, Oracle's NULL for '') is
spelled out around the call, or the call is refused naming it.
"""

from __future__ import annotations

from sqlglot import exp
from sqlglot.dialects.dialect import Dialect

from sql import portable
from sql.diagnostics import node_offset
from sql.rules.base import ALL_DIALECTS, Context, rule
from sql.rules.build import STRING_TYPES, case_when, clone, integer_literal, is_null, lit, type_of
from sql.rules.case_sensitivity import collated_search
from sql.source_dialects import DIALECTS, semantics


def _varchar() -> exp.DataType:
    return exp.DataType.build("VARCHAR")


def _varchar_array() -> exp.DataType:
    return exp.DataType(this=exp.DType.ARRAY, expressions=[_varchar()], nested=True)


def _register_result_types() -> None:
    """Type annotation (run again after rules rewrote a tree) reads a portable call's result
    type from the dialect's metadata, as it reads sqlglot's own functions'."""
    for name in DIALECTS:
        metadata = Dialect.get_or_raise(name).EXPRESSION_METADATA
        for kind in portable.PORTABLE_NODES:
            if kind is portable.PortableSplit:
                metadata[kind] = {"annotator": lambda self, e: self._set_type(e, _varchar_array())}
            else:
                metadata[kind] = {"returns": exp.DType.VARCHAR}


_register_result_types()


def _typed(node: exp.Expr, source: exp.Expr) -> exp.Expr:
    """A portable call written for ``source``: typed, and located where the source's call
    is (a --strict refusal names it there, not at its first argument)."""
    node.type = _varchar_array() if isinstance(node, portable.PortableSplit) else _varchar()
    offset = node_offset(source)
    if offset is not None:
        node.meta["keyword_start"] = offset
    return node


def _string_literal(node: exp.Expr | None) -> str | None:
    if isinstance(node, exp.Literal) and node.is_string:
        return node.name
    return None


def _refuse(ctx: Context, rule_id: str, node: exp.Expr, message: str) -> exp.Expr:
    ctx.report("error", rule_id, node, message)
    return node


def _not_a_string(ctx: Context, rule_id: str, node: exp.Expr, name: str) -> exp.Expr | None:
    """Refuses ``node`` when its string argument is not known to be a string (BigQuery's
    BYTES forms count bytes)."""
    if type_of(node.this) in STRING_TYPES or isinstance(node.this, exp.Null):
        return None
    return _refuse(ctx, rule_id, node, f"{name} of a value not known to be a string")


def _empty_unless_null(text: exp.Expr) -> exp.Expr:
    return case_when(is_null(text), exp.Null(), lit(""))


# REPEAT(s, n) with a literal n up to this is written s || s || ...
MAX_SPELLED_REPEAT = 4
# T-SQL REPLICATE cuts its result at 8,000 bytes unless s is VARCHAR(MAX) / NVARCHAR(MAX):
# 8,000 characters of an ASCII '...' literal.
TSQL_REPLICATE_LIMIT = 8000


def _tsql_replicate_limit(text: exp.Expr) -> int | None:
    """The character limit T-SQL cuts REPLICATE(text, n) at (None: none, a MAX type); raises
    ValueError when it cannot be known: a column, an N'...' literal (4,000 UTF-16 units; it
    reads as a plain literal once NATIONAL-STRING ran, without the source's position), a
    literal whose bytes depend on the code page."""
    if isinstance(text, exp.Cast) and text.to.meta.get("max_length"):
        return None  # VARCHAR(MAX), written as the unbounded VARCHAR by TYPE-DEFAULTS
    if isinstance(text, exp.Cast) and text.to.is_type("varchar", "nvarchar"):
        size = text.to.expressions
        if size and isinstance(size[0].this, exp.Var) and size[0].this.name.upper() == "MAX":
            return None
    literal = _string_literal(text)
    if literal is not None and literal.isascii() and "start" in text.meta:
        return TSQL_REPLICATE_LIMIT
    raise ValueError("unknown limit")


@rule(
    "FN-REPEAT",
    "rewrite",
    ("snowflake", "tsql", "bigquery", "redshift"),
    (exp.Repeat, exp.Anonymous),
    f"REPEAT(s, n) / T-SQL REPLICATE: s || s || ... for a literal n up to {MAX_SPELLED_REPEAT} "
    "(NULL-preserving '' for 0), else the portable REPEAT. A negative n is NULL in T-SQL (a "
    "CASE says so), an error in BigQuery and undocumented in Snowflake and Redshift, whose "
    "count must be a literal 0 or more. T-SQL cuts the "
    "result at 8,000 bytes unless s is VARCHAR(MAX): translated for an ASCII '...' literal "
    "(cut at 8,000 characters) or a CAST to (N)VARCHAR(MAX); any other s is refused.",
    (
        (
            "snowflake",
            "SELECT REPEAT(c_name, 2) AS r FROM SALES.CUSTOMER",
            'SELECT "customer"."c_name" || "customer"."c_name" AS "r" FROM "raw"."customer" AS '
            '"customer"',
        ),
        (
            "tsql",
            "SELECT REPLICATE('0', 10 - LEN(c_phone)) + c_phone AS p FROM dbo.Customer",
            "SELECT SUBSTRING(CASE WHEN 10 - CHAR_LENGTH(TRIM(TRAILING ' ' FROM "
            'CAST("customer"."c_phone" AS VARCHAR))) < 0 THEN NULL ELSE REPEAT(\'0\', 10 - '
            'CHAR_LENGTH(TRIM(TRAILING \' \' FROM CAST("customer"."c_phone" AS VARCHAR)))) '
            'END FROM 1 FOR 8000) || "customer"."c_phone" AS "p" FROM "raw"."customer" AS '
            '"customer"',
        ),
    ),
)
def repeat(node: exp.Expr, ctx: Context) -> exp.Expr | None:
    if isinstance(node, exp.Anonymous):
        if node.name.upper() != "REPLICATE" or ctx.dialect != "redshift":
            return None
        if len(node.expressions) != 2:
            return _refuse(ctx, "FN-REPEAT", node, "REPLICATE takes a string and a count")
        text, times = node.expressions
    else:
        text, times = node.this, node.args["times"]
    if type_of(text) not in STRING_TYPES:
        return _refuse(ctx, "FN-REPEAT", node, "REPEAT of a value not known to be a string")
    count = integer_literal(times)
    limit: int | None = None
    if semantics(ctx.dialect).REPEAT_CUTS_AT_8000_BYTES:
        try:
            limit = _tsql_replicate_limit(text)
        except ValueError:
            return _refuse(
                ctx,
                "FN-REPEAT",
                node,
                "T-SQL cuts REPLICATE's result at 8,000 bytes (4,000 characters of an N'...' "
                "string) unless the string is VARCHAR(MAX), which its type here does not tell: "
                "CAST it to VARCHAR(MAX)",
            )
        if limit is None and type_of(text.this) in STRING_TYPES:
            text = text.this  # the cast to (N)VARCHAR(MAX) of a string only lifts the limit
    if not semantics(ctx.dialect).REPEAT_OF_NEGATIVE_IS_NULL and (count is None or count < 0):
        return _refuse(
            ctx,
            "FN-REPEAT",
            times,
            "REPEAT's count must be a literal 0 or more here: a negative count is an error in "
            "BigQuery and undocumented in Snowflake and Redshift",
        )
    if count is not None and count < 0:
        return exp.Null()  # T-SQL: NULL for a negative count
    result: exp.Expr
    if count is not None and count <= 0:
        result = _empty_unless_null(text)
    elif count is not None and count <= MAX_SPELLED_REPEAT:
        result = clone(text)
        for _ in range(count - 1):
            result = exp.DPipe(this=result, expression=clone(text))
    else:
        result = _typed(portable.PortableRepeat(this=clone(text), times=clone(times)), node)
        if semantics(ctx.dialect).REPEAT_OF_NEGATIVE_IS_NULL and count is None:
            below = exp.LT(this=clone(times), expression=lit(0))
            result = case_when(below, exp.Null(), result)
    if limit is not None and (count is None or count * len(text.name) > limit):
        result = exp.Substring(this=result, start=lit(1), length=lit(limit))
    return result


@rule(
    "FN-REVERSE",
    "rewrite",
    ("snowflake", "tsql", "bigquery", "redshift", "oracle"),
    (exp.Reverse,),
    "REVERSE(s) is the portable REVERSE: the characters (code points) in reverse order. T-SQL "
    "reverses UTF-16 units outside supplementary-character (_SC) collations, so it is "
    "translated assuming one (TSQL-COLLATION warning). Oracle's REVERSE is undocumented and "
    "reverses bytes: refused. REVERSE of BYTES (BigQuery) is refused.",
    (
        (
            "bigquery",
            "SELECT REVERSE(c_name) AS r FROM sales.customer",
            'SELECT REVERSE("customer"."c_name") AS "r" FROM "raw"."customer" AS "customer"',
        ),
    ),
)
def reverse(node: exp.Expr, ctx: Context) -> exp.Expr | None:
    if semantics(ctx.dialect).REVERSE_REVERSES_BYTES:
        return _refuse(
            ctx, "FN-REVERSE", node, "Oracle's REVERSE is undocumented and reverses bytes"
        )
    refused = _not_a_string(ctx, "FN-REVERSE", node, "REVERSE")
    if refused is not None:
        return refused
    if semantics(ctx.dialect).TEXT_COMPARES_BY_COLLATION:
        ctx.report(
            "warning",
            "TSQL-COLLATION",
            node,
            "REVERSE translated assuming a supplementary-character (_SC) collation",
        )
    return _typed(portable.PortableReverse(this=clone(node.this)), node)


# LPAD / RPAD with a literal length up to this are written with SUBSTRING and ||.
MAX_SPELLED_PAD = 256


def _spelled_pad(text: exp.Expr, length: int, pad: str, left: bool) -> exp.Expr:
    """CASE WHEN CHAR_LENGTH(s) >= n THEN SUBSTRING(s FROM 1 FOR n) ELSE the padding (pad
    repeated, cut to n - CHAR_LENGTH(s)) before or after s END: NULL for a NULL s."""
    repeated = (pad * (length // len(pad) + 1))[:length]
    missing = exp.Sub(this=lit(length), expression=exp.Length(this=clone(text)))
    padding = exp.Substring(this=lit(repeated), start=lit(1), length=missing)
    padded = (
        exp.DPipe(this=padding, expression=clone(text))
        if left
        else exp.DPipe(this=clone(text), expression=padding)
    )
    long_enough = exp.GTE(this=exp.Length(this=clone(text)), expression=lit(length))
    cut = exp.Substring(this=clone(text), start=lit(1), length=lit(length))
    return case_when(long_enough, cut, padded)


@rule(
    "FN-PAD",
    "rewrite",
    ("snowflake", "bigquery", "redshift", "teradata", "oracle"),
    (exp.Pad,),
    f"LPAD / RPAD(s, n[, pad]) with a literal n and a literal pad (default ' '): for n up to "
    f"{MAX_SPELLED_PAD} the exact standard form `CASE WHEN CHAR_LENGTH(s) >= n THEN "
    "SUBSTRING(s FROM 1 FOR n) ELSE SUBSTRING('<pad repeated>' FROM 1 FOR n - CHAR_LENGTH(s)) "
    "|| s END` (a longer s is cut to its first n characters in every source), beyond it the "
    "portable LPAD / RPAD; n = 0 gives ''. A length or pad that is not a literal, a negative "
    "length (an error in BigQuery, undocumented elsewhere) and an empty pad (an error in "
    "BigQuery) are refused. Oracle counts n in display columns (an East Asian wide character "
    "counts 2): refused.",
    (
        (
            "snowflake",
            "SELECT LPAD(c_phone, 4, '0') AS p FROM SALES.CUSTOMER",
            'SELECT CASE WHEN CHAR_LENGTH("customer"."c_phone") >= 4 THEN '
            'SUBSTRING("customer"."c_phone" FROM 1 FOR 4) ELSE SUBSTRING(\'0000\' FROM 1 FOR 4 '
            '- CHAR_LENGTH("customer"."c_phone")) || "customer"."c_phone" END AS "p" FROM '
            '"raw"."customer" AS "customer"',
        ),
    ),
)
def pad(node: exp.Expr, ctx: Context) -> exp.Expr | None:
    name = "LPAD" if node.args.get("is_left") else "RPAD"
    if semantics(ctx.dialect).PAD_COUNTS_DISPLAY_COLUMNS:
        return _refuse(
            ctx,
            "FN-PAD",
            node,
            f"Oracle's {name} counts display columns (an East Asian wide character counts 2), "
            "not characters",
        )
    refused = _not_a_string(ctx, "FN-PAD", node, name)
    if refused is not None:
        return refused
    length = integer_literal(node.expression)
    fill = node.args.get("fill_pattern")
    pad_text = " " if fill is None else _string_literal(fill)
    if length is None or pad_text is None:
        return _refuse(
            ctx,
            "FN-PAD",
            node,
            f"{name} is translated with a literal length and pad: a negative length or an "
            "empty pad reads differently in each source",
        )
    if length < 0 or pad_text == "":
        return _refuse(ctx, "FN-PAD", node, f"{name} with a negative length or an empty pad")
    if length == 0:
        return _empty_unless_null(node.this)
    left = bool(node.args.get("is_left"))
    if length <= MAX_SPELLED_PAD:
        return _spelled_pad(node.this, length, pad_text, left)
    kind = portable.PortableLpad if left else portable.PortableRpad
    return _typed(kind(this=clone(node.this), length=lit(length), pad=lit(pad_text)), node)


@rule(
    "FN-INITCAP",
    "rewrite",
    ("snowflake", "bigquery", "oracle", "redshift", "teradata"),
    (exp.Initcap,),
    "INITCAP(s, delimiters) with literal delimiters (Snowflake, BigQuery) is the portable "
    "INITCAP: a word starts at the first character and after each delimiter character. "
    "Without delimiters the default set includes 'whitespace', which neither source "
    "enumerates: refused (write the delimiters out). Oracle, Redshift and Teradata start a "
    "word after any non-alphanumeric character, which the engines do not classify alike: "
    "refused.",
    (
        (
            "snowflake",
            "SELECT INITCAP(c_name, ' #') AS n FROM SALES.CUSTOMER",
            'SELECT INITCAP("customer"."c_name", \' #\') AS "n" FROM "raw"."customer" AS '
            '"customer"',
        ),
    ),
)
def initcap(node: exp.Expr, ctx: Context) -> exp.Expr | None:
    if not semantics(ctx.dialect).INITCAP_WORDS_DOCUMENTED:
        return _refuse(
            ctx,
            "FN-INITCAP",
            node,
            "INITCAP starts a word after any non-alphanumeric character here, which the "
            "engines do not classify alike",
        )
    refused = _not_a_string(ctx, "FN-INITCAP", node, "INITCAP")
    if refused is not None:
        return refused
    delimiters = node.expression
    # sqlglot fills in its reading of the default set: only a written one has a position
    written = delimiters is not None and "start" in delimiters.meta
    if not written or _string_literal(delimiters) is None:
        return _refuse(
            ctx,
            "FN-INITCAP",
            node,
            "INITCAP without literal delimiters: the default set includes 'whitespace', which "
            "the documentation does not enumerate; write the delimiters out",
        )
    return _typed(
        portable.PortableInitcap(this=clone(node.this), delimiters=clone(delimiters)), node
    )


@rule(
    "FN-TRANSLATE",
    "rewrite",
    ALL_DIALECTS,
    (exp.Translate, exp.Anonymous),
    "TRANSLATE(s, from, to) / Teradata OTRANSLATE with literal `from` and `to` is the portable "
    "TRANSLATE (a character of `from` without a counterpart in `to` is removed). `from` with "
    "a repeated character (an error in BigQuery, first-wins elsewhere) is refused; T-SQL "
    "requires `from` and `to` of one length (an error otherwise) and matches by collation "
    "(translated assuming a case-sensitive one: TSQL-COLLATION); Oracle's result '' is NULL.",
    (
        (
            "redshift",
            "SELECT TRANSLATE(c_phone, '-', '') AS p FROM sales.customer",
            'SELECT TRANSLATE("customer"."c_phone", \'-\', \'\') AS "p" FROM "raw"."customer" '
            'AS "customer"',
        ),
    ),
)
def translate(node: exp.Expr, ctx: Context) -> exp.Expr | None:
    if isinstance(node, exp.Anonymous):
        if node.name.upper() != "OTRANSLATE" or ctx.dialect != "teradata":
            return None
        if len(node.expressions) != 3:
            return _refuse(ctx, "FN-TRANSLATE", node, "OTRANSLATE takes three arguments")
        text, source, target = node.expressions
    else:
        text, source, target = node.this, node.args.get("from_"), node.args.get("to")
    if type_of(text) not in STRING_TYPES and not isinstance(text, exp.Null):
        return _refuse(ctx, "FN-TRANSLATE", node, "TRANSLATE of a value not known to be a string")
    if semantics(ctx.dialect).EMPTY_STRING_IS_NULL and (
        isinstance(source, exp.Null) or isinstance(target, exp.Null)
    ):
        return exp.Null()  # '' is NULL in Oracle, and so is TRANSLATE over it
    characters, replacements = _string_literal(source), _string_literal(target)
    if characters is None or replacements is None:
        return _refuse(
            ctx,
            "FN-TRANSLATE",
            node,
            "TRANSLATE is translated with literal `from` and `to` (repeated or missing "
            "characters read differently in each source)",
        )
    if len(set(characters)) != len(characters):
        return _refuse(ctx, "FN-TRANSLATE", source, "TRANSLATE's `from` repeats a character")
    if semantics(ctx.dialect).TRANSLATE_LENGTHS_MUST_MATCH and len(characters) != len(replacements):
        return _refuse(
            ctx,
            "FN-TRANSLATE",
            node,
            "T-SQL's TRANSLATE raises an error when `from` and `to` differ in length",
        )
    if not collated_search("TRANSLATE", [source], node, ctx):
        return node
    result: exp.Expr = _typed(
        portable.PortableTranslate(this=clone(text), source=clone(source), target=clone(target)),
        node,
    )
    if semantics(ctx.dialect).EMPTY_STRING_IS_NULL:
        result = exp.Nullif(this=result, expression=lit(""))
    return result


@rule(
    "BQ-SPLIT",
    "rewrite",
    ("bigquery",),
    (exp.Split,),
    "SPLIT(s[, delimiter]) of a STRING with a literal, non-empty delimiter (',' by default) "
    "is the portable SPLIT, a VARCHAR ARRAY: empty fields are kept and '' gives [''], as in "
    "BigQuery. Read it through a subscript (`SPLIT(s, '.')[OFFSET(0)]`: ARRAY-ELEMENT), "
    "CARDINALITY or UNNEST; as an output column it is ARRAY-OUTPUT. An empty delimiter "
    "(BigQuery splits UTF-8 characters) or one that is not a literal is refused, as is SPLIT "
    "of BYTES.",
    (
        (
            "bigquery",
            "SELECT SPLIT(c_phone, '-')[SAFE_OFFSET(1)] AS area FROM sales.customer",
            'SELECT CASE WHEN 2 BETWEEN 1 AND CARDINALITY(SPLIT("customer"."c_phone", '
            '\'-\')) THEN SPLIT("customer"."c_phone", \'-\')[2] END AS "area" FROM '
            '"raw"."customer" AS "customer"',
        ),
    ),
)
def split(node: exp.Expr, ctx: Context) -> exp.Expr | None:
    refused = _not_a_string(ctx, "BQ-SPLIT", node, "SPLIT")
    if refused is not None:
        return refused
    delimiter = node.expression if node.expression is not None else lit(",")
    if not _string_literal(delimiter):
        return _refuse(
            ctx,
            "BQ-SPLIT",
            node,
            "SPLIT is translated with a literal, non-empty delimiter (an empty one splits "
            "UTF-8 characters in BigQuery)",
        )
    return _typed(portable.PortableSplit(this=clone(node.this), delimiter=clone(delimiter)), node)


@rule(
    "TD-TITLE",
    "info",
    ("teradata",),
    (exp.TeradataTitle,),
    "A column's `(TITLE 'heading')` is a display heading for Teradata's report tools; the "
    "column keeps its name. It is dropped, with a note.",
    (
        (
            "teradata",
            "SELECT c_name (TITLE 'Customer') FROM SALES_DB.CUSTOMER",
            'SELECT "customer"."c_name" AS "c_name" FROM "raw"."customer" AS "customer"',
        ),
    ),
    phase="syntax",
)
def title(node: exp.Expr, ctx: Context) -> exp.Expr | None:
    ctx.report("info", "TD-TITLE", node, "the column's TITLE (a display heading) is dropped")
    return clone(node.this)
