"""SAFE_CAST of a string to a number, with the source's reading of the text spelled out.

BigQuery's SAFE_CAST(s AS INT64) returns NULL exactly where CAST raises, and which strings
CAST reads is fixed by its implementation (ZetaSQL ``StringToNumeric<int64_t>``): blanks
(' ') are skipped at the start; then a string that starts with an optional sign and ``0x``
is read in base 16, anything else in base 10, each by ``safe_strto64_base``, which skips
ASCII whitespace (space, tab, newline, vertical tab, form feed, carriage return) at both
ends, takes one optional sign and then only digits of its base, and fails on overflow. So
the accepted strings are two regular languages, checked with LIKE_REGEX, plus a range test
on the digits; the value of a decimal string is the engines' CAST (both read a sign, leading
zeros and surrounding whitespace), that of a hexadecimal one is computed digit by digit.

BigQuery's SAFE_CAST(s AS FLOAT64) reads the text as absl::SimpleAtod does (C's strtod over
the whole string, ASCII whitespace around it skipped): plain decimals translate, text no
reading of a float takes is NULL, and the rest (inf, nan, hexadecimal floats, long exponents)
is guarded (FN-TRY-CAST-FLOAT, below).

Snowflake's TRY_CAST / TRY_TO_NUMBER of a string to NUMBER(p, s) reads it as TO_NUMBER does
(FN-TO-NUMBER: the CAST, rounding half away from zero) and is NULL where that fails ("returns
NULL if the conversion can't be performed"). Snowflake documents plain decimals ("decimal,
integer, fractional, or floating-point numbers") but not its reading of every other string:
blanks, a '+', '.5', exponents, even 'E', which it reads as 0. So the string falls in one of
three zones:

- a plain decimal (an optional '-', digits, optionally a point and digits) whose value
  rounded to s places fits NUMBER(p, s) is that CAST; one too large for it is NULL;
- a string with a character no reading of a number takes (a letter other than an exponent's
  e or E, a comma, a currency sign...) is not a number under any reading: NULL;
- every other string (made of digits, blanks, signs, points and e / E only, '' included:
  the reader that takes 'E' for 0 may take '' or '+' for 0 too) stops the query at run time
  (a guard): Snowflake's value for it is not stated.
"""

from __future__ import annotations

from sqlglot import exp

from sql.rules.base import Context, rule
from sql.rules.build import STRING_TYPES, cast, clone, failure, lit, paren, type_of
from sql.source_dialects import semantics

# ASCII whitespace as absl::ascii_isspace counts it, and as the members of a regex class:
# XQuery escapes for tab, newline and carriage return, the vertical tab and form feed as
# themselves (XQuery has no escape for them; RE2 and Java read them literally in a class).
_WHITESPACE = " \t\n\x0b\x0c\r"
_SPACE_CLASS = "[ \\t\\n\\r\x0b\x0c]"
HEX_DIGITS = "0123456789ABCDEF"


def _members(characters: str) -> str:
    """A regex class of consecutive ``characters`` of HEX_DIGITS, letters in both cases."""
    digits = [c for c in characters if c.isdigit()]
    letters = [c for c in characters if c.isalpha()]
    parts = []
    for run in (digits, letters, [c.lower() for c in letters]):
        if run:
            parts.append(run[0] if len(run) == 1 else f"{run[0]}-{run[-1]}")
    return "[" + "".join(parts) + "]"


def at_most(limit: str, digit_class: str) -> str:
    """A regex of the digit strings as long as ``limit`` and not above it (strings of one
    length compare as numbers): a prefix of the limit, a smaller digit, then any digits."""

    def exactly(prefix: str) -> str:
        return "".join(_members(c) if c.isalpha() else c for c in prefix)

    alternatives = [exactly(limit)]
    for position, digit in enumerate(limit):
        smaller = HEX_DIGITS[: HEX_DIGITS.index(digit)]
        if not smaller:
            continue
        rest = len(limit) - position - 1
        tail = f"{digit_class}{{{rest}}}" if rest else ""
        alternatives.append(f"{exactly(limit[:position])}{_members(smaller)}{tail}")
    return "|".join(alternatives)


def _integer_pattern(prefix: str, digit_class: str, limits: tuple[str, str]) -> str:
    """Optional whitespace, then a positive (``+`` optional) or a negative number whose
    digits (after any leading zeros) are at most the limit of its sign, then whitespace."""
    width = len(limits[0])
    shorter = f"{digit_class}{{1,{width - 1}}}"
    positive = f"\\+?{prefix}0*({shorter}|{at_most(limits[0], digit_class)})"
    negative = f"-{prefix}0*({shorter}|{at_most(limits[1], digit_class)})"
    return f"({positive}|{negative}){_SPACE_CLASS}*$"


DECIMAL_INT64 = f"^{_SPACE_CLASS}*" + _integer_pattern(
    "", "[0-9]", ("9223372036854775807", "9223372036854775808")
)
# The base-16 reading is chosen after skipping blanks only: a tab before "0x" makes the
# string a (failing) decimal one.
HEX_INT64 = "^ *" + _integer_pattern(
    "0[xX]", "[0-9A-Fa-f]", ("7FFFFFFFFFFFFFFF", "8000000000000000")
)


def _without(text: exp.Expr, characters: str) -> exp.Expr:
    """``text`` with every one of ``characters`` removed (nested REPLACE)."""
    result = clone(text)
    for character in characters:
        result = exp.Replace(this=result, expression=lit(character), replacement=lit(""))
    return result


def _hex_value(text: exp.Expr) -> exp.Expr:
    """The BIGINT a string that matches HEX_INT64 denotes: each of its last 16 digits times
    its power of 16, each term carrying the sign, so that no partial sum leaves the BIGINT
    range (-0x8000000000000000 included)."""
    # The digits, leading zeros included: whitespace, sign and "0x" removed.
    digits = exp.Upper(this=exp.Substring(this=_without(text, _WHITESPACE + "+-"), start=lit(3)))
    # Its last 16 digits (the pattern admits no more significant ones), left-padded.
    padded = exp.Substring(
        this=exp.DPipe(this=lit("0" * 16), expression=digits),
        start=exp.Add(this=exp.Length(this=clone(digits)), expression=lit(1)),
    )
    negative = exp.Like(this=clone(text), expression=lit("%-%"))
    sign = exp.Case(ifs=[exp.If(this=negative, true=lit(-1))], default=lit(1))
    total: exp.Expr | None = None
    for position in range(1, 17):
        digit = exp.Sub(
            this=exp.StrPosition(
                this=lit(HEX_DIGITS),
                substr=exp.Substring(this=clone(padded), start=lit(position), length=lit(1)),
            ),
            expression=lit(1),
        )
        term = exp.Mul(
            this=paren(exp.Mul(this=paren(digit), expression=clone(sign))),
            expression=cast(lit(16 ** (16 - position)), "BIGINT"),
        )
        total = term if total is None else exp.Add(this=total, expression=term)
    assert total is not None
    return cast(total, "BIGINT")


def bigquery_text_to_int64(text: exp.Expr) -> exp.Expr:
    """SAFE_CAST(text AS INT64) as BigQuery reads ``text`` (see the module docstring)."""
    decimal = exp.RegexpLike(this=clone(text), expression=lit(DECIMAL_INT64))
    hexadecimal = exp.RegexpLike(this=clone(text), expression=lit(HEX_INT64))
    # A CASE: the CAST and the digit sums run only on strings their pattern admitted. The
    # engines' CAST reads a sign and leading zeros as BigQuery does.
    return exp.Case(
        ifs=[
            exp.If(this=decimal, true=cast(_without(text, _WHITESPACE + "+"), "BIGINT")),
            exp.If(this=hexadecimal, true=_hex_value(text)),
        ]
    )


def read_int64(text: str) -> int | None:
    """What BigQuery's CAST(text AS INT64) gives, None where it raises: the reading of the
    module docstring, for a string known at translation."""
    text = text.lstrip(" ")
    unsigned = text[1:] if text[:1] in ("+", "-") else text
    base = 16 if unsigned[:2] in ("0x", "0X") else 10
    text = text.strip(_WHITESPACE)
    negative = text.startswith("-")
    digits = text[1:] if text[:1] in ("+", "-") else text
    if base == 16:
        digits = digits[2:]
    allowed = HEX_DIGITS + HEX_DIGITS.lower() if base == 16 else "0123456789"
    if not digits or any(c not in allowed for c in digits):
        return None
    value = -int(digits, base) if negative else int(digits, base)
    return value if -(2**63) <= value < 2**63 else None


def _bigquery_text_to(node: exp.Expr, dialect: str, target: exp.DType) -> bool:
    """SAFE_CAST of a string to ``target`` in BigQuery, whose reader of numbers is
    documented (ZetaSQL's StringToNumeric)."""
    return (
        semantics(dialect).TEXT_TO_NUMBER_IS_DOCUMENTED
        and isinstance(node, exp.TryCast)
        and node.args["to"].this == target
        and type_of(node.this) in STRING_TYPES
    )


def is_bigquery_text_to_int64(node: exp.Expr, dialect: str) -> bool:
    """SAFE_CAST of a string to INT64 in BigQuery: FN-TRY-CAST-TEXT translates it."""
    return _bigquery_text_to(node, dialect, exp.DType.BIGINT)


@rule(
    "FN-TRY-CAST-TEXT",
    "rewrite",
    ("bigquery",),
    (exp.TryCast,),
    "BigQuery SAFE_CAST(s AS INT64) of a string is NULL exactly where BigQuery's CAST raises, "
    "and which strings that CAST reads is fixed (ZetaSQL's StringToNumeric): optional ASCII "
    "whitespace, one optional sign, decimal digits, optional whitespace, in the INT64 range; "
    "or, after optional blanks, a sign and 0x / 0X, hexadecimal digits. Of a string column it "
    "becomes a CASE over two LIKE_REGEX tests whose digit alternatives also state the range: "
    "a decimal string is then CAST (the engines read its sign and leading zeros alike), a "
    "hexadecimal one summed digit by digit times powers of 16, every other string is NULL. A "
    "string literal is read at translation. Snowflake's TRY_CAST / TRY_TO_NUMBER of a string "
    "is FN-TRY-CAST-NUMBER; SAFE_CAST of a string to other types stays refused (FN-TRY-CAST).",
    (
        (
            "bigquery",
            "SELECT SAFE_CAST(' 0x1F' AS INT64) AS h, SAFE_CAST('+007 ' AS INT64) AS d, "
            "SAFE_CAST('1e3' AS INT64) AS e FROM sales.orders",
            'SELECT CAST(31 AS BIGINT) AS "h", CAST(7 AS BIGINT) AS "d", '
            'CAST(NULL AS BIGINT) AS "e" FROM "raw"."orders" AS "orders"',
        ),
    ),
)
def safe_cast_text(node: exp.Expr, ctx: Context) -> exp.Expr | None:
    if not is_bigquery_text_to_int64(node, ctx.dialect):
        return None
    if isinstance(node.this, exp.Literal) and node.this.is_string:
        value = read_int64(node.this.name)
        return cast(exp.Null() if value is None else lit(value), "BIGINT")
    return bigquery_text_to_int64(node.this)


# BigQuery's CAST(s AS FLOAT64) is ZetaSQL's StringToNumeric<double>, absl::SimpleAtod: the
# whole string, ASCII whitespace around it skipped, read as a C strtod number. Every string
# it may read matches ANY_FLOAT64 (a decimal or hexadecimal float, inf / infinity / nan in
# any case, nan(chars), an optional sign); abseil's later reader (from_chars) takes a subset
# of these. A plain decimal of at most 100 digits each side and a 1- or 2-digit exponent,
# blanks around it, is read alike by both readers and by the engines' CAST, each rounding to
# the nearest double, never out of range: PLAIN_FLOAT64.
_DECIMAL_FLOAT = "([0-9]+\\.?[0-9]*|\\.[0-9]+)([eE][+-]?[0-9]+)?"
_HEX_FLOAT = "0[xX]([0-9a-fA-F]+\\.?[0-9a-fA-F]*|\\.[0-9a-fA-F]+)([pP][+-]?[0-9]+)?"
_SPECIAL_FLOAT = "[iI][nN][fF]([iI][nN][iI][tT][yY])?|[nN][aA][nN](\\([0-9A-Za-z_]*\\))?"
ANY_FLOAT64 = (
    f"^{_SPACE_CLASS}*[+-]?({_DECIMAL_FLOAT}|{_HEX_FLOAT}|{_SPECIAL_FLOAT}){_SPACE_CLASS}*$"
)
# ANY_FLOAT64 as the ANSI text writes it: a Unicode literal, the vertical tab and form feed
# escaped (the rule's example).
_ANY_FLOAT64_SQL = (
    "U&'"
    + ANY_FLOAT64.replace("\\", "\\\\").replace("\x0b", "\\000B").replace("\x0c", "\\000C")
    + "'"
)
PLAIN_FLOAT64 = "^ *[+-]?([0-9]{1,100}(\\.[0-9]{0,100})?|\\.[0-9]{1,100})([eE][+-]?[0-9]{1,2})? *$"


def is_bigquery_text_to_float64(node: exp.Expr, dialect: str) -> bool:
    """SAFE_CAST of a string to FLOAT64 in BigQuery: FN-TRY-CAST-FLOAT translates it."""
    return _bigquery_text_to(node, dialect, exp.DType.DOUBLE)


@rule(
    "FN-TRY-CAST-FLOAT",
    "rewrite",
    ("bigquery",),
    (exp.TryCast,),
    "BigQuery SAFE_CAST(s AS FLOAT64) of a string reads it as a floating point literal "
    "(ZetaSQL's StringToNumeric, absl::SimpleAtod: the whole string, ASCII whitespace around "
    "it skipped, as C's strtod reads it) and is NULL where that fails. A plain decimal ('+' or "
    "'-', up to 100 digits each side of the point, an exponent of 1 or 2 digits, blanks "
    "around it) is the engines' CAST of the text without its blanks (each rounds to the "
    "nearest double; no such value is out of range); a string no reading of a float takes "
    "(no digit, a letter outside inf / infinity / nan / an exponent / hex digits, a comma) "
    "is NULL; the rest (inf, nan, hexadecimal floats, exponents of 3 digits, tabs around "
    "the number), whose value the engines do not produce alike or BigQuery's reader "
    "versions read differently, stops the query at run time, a guard naming the rule.",
    (
        (
            "bigquery",
            "SELECT SAFE_CAST(o_comment AS FLOAT64) AS f FROM sales.orders",
            'SELECT CAST(CASE WHEN "orders"."o_comment" LIKE_REGEX '
            f"'{PLAIN_FLOAT64}' THEN TRIM(BOTH ' ' FROM \"orders\".\"o_comment\") WHEN "
            '"orders"."o_comment" IS NULL OR NOT "orders"."o_comment" LIKE_REGEX '
            f"{_ANY_FLOAT64_SQL} THEN NULL ELSE RAISE_ERROR('FN-TRY-CAST-FLOAT: text BigQuery "
            "reads as a float the engines do not read alike (inf, nan, a hexadecimal float, "
            "an exponent of 3 digits or more, whitespace other than blanks around it)') END AS "
            'DOUBLE PRECISION) AS "f" FROM "raw"."orders" AS "orders"',
        ),
    ),
)
def safe_cast_float(node: exp.Expr, ctx: Context) -> exp.Expr | None:
    if not is_bigquery_text_to_float64(node, ctx.dialect):
        return None
    text = node.this

    def matches(pattern: str) -> exp.Expr:
        return exp.RegexpLike(this=clone(text), expression=lit(pattern))

    plain = exp.Trim(this=clone(text), position="BOTH", expression=lit(" "))
    not_a_float = exp.or_(
        exp.Is(this=clone(text), expression=exp.Null()), exp.not_(matches(ANY_FLOAT64))
    )
    undocumented = failure(
        "FN-TRY-CAST-FLOAT",
        "text BigQuery reads as a float the engines do not read alike (inf, nan, a "
        "hexadecimal float, an exponent of 3 digits or more, whitespace other than blanks "
        "around it)",
        node,
    )
    zones = [
        exp.If(this=matches(PLAIN_FLOAT64), true=plain),
        exp.If(this=not_a_float, true=exp.Null()),
    ]
    return exp.Cast(this=exp.Case(ifs=zones, default=undocumented), to=node.args["to"].copy())


def _decimal_params(target: exp.DataType) -> tuple[int, int] | None:
    params = [p.this for p in target.expressions]
    if len(params) != 2 or not all(isinstance(p, exp.Literal) and p.is_int for p in params):
        return None
    return int(params[0].name), int(params[1].name)


def is_snowflake_text_to_decimal(node: exp.Expr, dialect: str) -> bool:
    """TRY_CAST of a string column to NUMBER(p, s) in Snowflake: FN-TRY-CAST-NUMBER reads it."""
    return (
        semantics(dialect).TRY_READS_TEXT_AS_ITS_CONVERSION
        and isinstance(node, exp.TryCast)
        and node.args["to"].this == exp.DType.DECIMAL
        and _decimal_params(node.args["to"]) is not None
        and not isinstance(node.this, exp.Literal)
        and type_of(node.this) in STRING_TYPES
    )


def plain_decimal(precision: int, scale: int) -> str:
    """A regex of the strings '-'? digits ('.' digits)? with fewer than ``precision - scale``
    integer digits after leading zeros."""
    whole = precision - scale - 1
    integer = "0*[0-9]" if whole < 2 else f"0*([0-9]|[1-9][0-9]{{0,{whole - 1}}})"
    if whole < 1:
        integer = "0*0"
    return f"^-?{integer}(\\.[0-9]+)?$"


def _plain_with_digits(count: int, more: bool = False) -> str:
    """A regex of the plain decimals with exactly ``count`` integer digits after leading
    zeros (``more``: at least ``count + 1``)."""
    rest = f"{{{count},}}" if more else f"{{{count - 1}}}"
    return f"^-?0*[1-9][0-9]{rest}(\\.[0-9]+)?$"


# A character that no reading of a number takes: not a digit, blank, sign, point or the e / E
# of an exponent. Text holding one is not a number whatever Snowflake's reader does.
# (Its blanks as the range tab..carriage return, which holds the vertical tab and form feed:
# no control character in the SQL text.)
NOT_A_NUMBER = "[^0-9 \\t-\\r+.eE-]"
# The widest DECIMAL both engines hold: a NUMBER(38, s) cannot be read one digit wider.
_WIDEST = 38


@rule(
    "FN-TRY-CAST-NUMBER",
    "rewrite",
    ("snowflake",),
    (exp.TryCast,),
    "Snowflake's TRY_CAST(s AS NUMBER(p, s)) and TRY_TO_NUMBER / TRY_TO_DECIMAL / "
    "TRY_TO_NUMERIC(s) of a string column is TO_NUMBER's CAST where that succeeds, NULL "
    "elsewhere; Snowflake documents plain decimals but not its reading of every other string "
    "(blanks, '+', '.5', exponents, 'E' read as 0). A plain decimal ('-'?, digits, "
    "optionally '.' and digits) is CAST (extra fraction digits rounded half away from zero, "
    "as in Snowflake), NULL where the rounded value does not fit NUMBER(p, s); a string "
    "with a character no reading of a number takes (a letter other than e / E, a comma, a "
    "currency sign) is NULL; any other string (digits, blanks, signs, points and e / E "
    "only, '' too) stops the query at run time, a guard naming the rule.",
    (
        (
            "snowflake",
            "SELECT TRY_TO_NUMBER(o_clerk, 10, 2) AS n FROM SALES.ORDERS",
            'SELECT CAST(CASE WHEN "orders"."o_clerk" LIKE_REGEX '
            '\'^-?0*([0-9]|[1-9][0-9]{0,6})(\\.[0-9]+)?$\' THEN "orders"."o_clerk" WHEN '
            '"orders"."o_clerk" LIKE_REGEX \'^-?0*[1-9][0-9]{7}(\\.[0-9]+)?$\' THEN CASE WHEN '
            'ABS(CAST("orders"."o_clerk" AS DECIMAL(11, 2))) < 100000000 THEN "orders"."o_clerk" '
            'END WHEN "orders"."o_clerk" IS NULL OR "orders"."o_clerk" LIKE_REGEX '
            '\'^-?0*[1-9][0-9]{8,}(\\.[0-9]+)?$\' OR "orders"."o_clerk" LIKE_REGEX \'[^0-9 '
            "\\t-\\r+.eE-]' THEN NULL ELSE RAISE_ERROR('FN-TRY-CAST-NUMBER: text of digits, "
            "blanks, signs, points or an exponent that Snowflake''s TRY_ number conversion may "
            "read in more than one way; its value is not documented') END AS DECIMAL(10, 2)) AS "
            '"n" FROM "raw"."orders" AS "orders"',
        ),
    ),
)
def snowflake_try_number(node: exp.Expr, ctx: Context) -> exp.Expr | None:
    if not is_snowflake_text_to_decimal(node, ctx.dialect):
        return None
    target = node.args["to"]
    params = _decimal_params(target)
    assert params is not None
    precision, scale = params
    whole = precision - scale
    text = node.this

    def matches(pattern: str) -> exp.Expr:
        return exp.RegexpLike(this=clone(text), expression=lit(pattern))

    zones = [exp.If(this=matches(plain_decimal(precision, scale)), true=clone(text))]
    if precision < _WIDEST:
        # As many integer digits as fit: in range unless rounding carries into one more
        # (99.995 to NUMBER(4, 2)), which the value read one digit wider shows.
        wider = cast(text, f"DECIMAL({precision + 1}, {scale})")
        fits = exp.LT(this=exp.Abs(this=wider), expression=lit(10**whole))
        zones.append(
            exp.If(
                this=matches(_plain_with_digits(whole)),
                true=exp.Case(ifs=[exp.If(this=fits, true=clone(text))]),
            )
        )
    not_a_number = exp.or_(
        exp.Is(this=clone(text), expression=exp.Null()),
        matches(_plain_with_digits(whole, more=True)),
        matches(NOT_A_NUMBER),
    )
    zones.append(exp.If(this=not_a_number, true=exp.Null()))
    undocumented = failure(
        "FN-TRY-CAST-NUMBER",
        "text of digits, blanks, signs, points or an exponent that Snowflake's TRY_ number "
        "conversion may read in more than one way; its value is not documented",
        node,
    )
    return exp.Cast(this=exp.Case(ifs=zones, default=undocumented), to=target.copy())
