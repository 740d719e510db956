"""Regular-expression predicates as the standard's LIKE_REGEX (SQL:2008 feature F841).

Each source dialect has its own regex flavour (BigQuery RE2, Snowflake and Oracle POSIX ERE
with Perl escapes, Redshift PostgreSQL's ARE); the standard's is XQuery's, and the engines
that run the result have RE2 (DuckDB) and Java (Spark). A pattern is translated element by
element into the part of the syntax that means the same in all of them, and the meaning is
the source's (``.`` and ``\\d`` are spelled as explicit classes, since flavours disagree
on newlines and Unicode digits). An element outside that part is refused by name.
Only the match / no match question is asked, so greedy and lazy quantifiers and capturing
and non-capturing groups are the same.
"""

from __future__ import annotations

from dataclasses import dataclass

from sqlglot import exp

from sql import portable
from sql.rules.base import Context, rule
from sql.rules.build import STRING_TYPES, clone, guarded, lit, type_of
from sql.source_dialects import semantics

# Characters with a meaning in some flavour outside a class: written escaped.
METACHARACTERS = set(".^$|?*+()[]{}\\")
# Escapes that mean the same character in every flavour (XQuery's SingleCharEsc).
CHARACTER_ESCAPES = {"n": "\\n", "t": "\\t", "r": "\\r"}
# Classes by escape, ASCII as in RE2, Java and the POSIX flavours' C locale.
CLASS_ESCAPES = {
    "d": "0-9",
    "w": "0-9A-Za-z_",
}
NEGATED_CLASS_ESCAPES = {"D": "0-9", "W": "0-9A-Za-z_"}
# Whitespace per flavour: RE2 has no vertical tab in \s; POSIX and PostgreSQL have.
SPACE = {"re2": " \\t\\n\\r\x0c", "posix": " \\t\\n\\r\x0c\x0b", "postgres": " \\t\\n\\r\x0c\x0b"}
# POSIX classes (C locale), inside brackets.
POSIX_CLASSES = {
    "digit": "0-9",
    "alpha": "A-Za-z",
    "alnum": "0-9A-Za-z",
    "upper": "A-Z",
    "lower": "a-z",
    "xdigit": "0-9A-Fa-f",
}
# `.`: any character but a newline (RE2, Snowflake, Oracle by default); PostgreSQL's `.`
# matches a newline too.
DOT = {"re2": "[^\\n]", "posix": "[^\\n]", "postgres": "[\\s\\S]"}
# Which flavour each dialect's regex functions speak.
FLAVOURS = {"bigquery": "re2", "snowflake": "posix", "oracle": "posix", "redshift": "postgres"}
# Teradata's regular expressions are POSIX ERE with Perl-style escapes, as Oracle's.
SIMILAR_FLAVOUR = "posix"


class PatternError(ValueError):
    """A pattern element with no exact common form; ``element`` names it."""

    def __init__(self, element: str, why: str) -> None:
        super().__init__(f"'{element}' {why}")
        self.element = element


def _class_literal(char: str) -> str:
    """A character as a class member, escaped where any flavour reads it specially."""
    if char in "\\]-^[":
        return "\\" + char
    if char == "&":
        return char  # only '&&' is special (Java); a lone '&' is literal everywhere
    return char


def _check_foldable(char: str) -> None:
    if not char.isascii():
        raise PatternError(char, "is a letter beyond ASCII, whose case folding differs")


# Characters beyond ASCII that a Unicode simple case mapping (upper, lower or folding) takes
# to an ASCII letter, by that letter; the other ASCII-only foldings of a character beyond
# ASCII (ß, ẞ, ﬀ, ﬁ, ﬂ, ﬃ, ﬄ, ﬅ, ﬆ to ss, ff, fi, fl, ffi, ffl, st) all start with f or s.
UNICODE_CASE_VARIANTS = {"i": "\u0130\u0131", "k": "\u212a"}
UNFOLDABLE = set("fsFS")


def _case_variants(char: str, reader: _Reader) -> str:
    """The other characters a letter of the pattern matches under case-insensitive matching:
    its other case, and under ``unicode_fold`` with ``wide`` its Unicode case variants."""
    if reader.unicode_fold and char in UNFOLDABLE:
        raise PatternError(
            char,
            "under case-insensitive matching may match a ligature or ß, as the source "
            "does not document",
        )
    extra = UNICODE_CASE_VARIANTS.get(char.lower(), "") if reader.wide else ""
    return char.swapcase() + extra


def _folded(char: str, reader: _Reader) -> str:
    """A character outside a class, matching either case where it is a letter."""
    if not char.isalpha():
        return char
    _check_foldable(char)
    return f"[{char}{_case_variants(char, reader)}]"


def _folded_range(low: str, high: str, reader: _Reader) -> str:
    """The range low-high and, where it holds letters, the same letters in the other case:
    a range of letters of one case, or one without letters."""
    if low.isalpha() and high.isalpha() and low.islower() == high.islower():
        extra = ""
        if reader.unicode_fold:
            held = {chr(c).lower() for c in range(ord(low), ord(high) + 1)}
            if held & {"f", "s"}:
                raise PatternError(
                    f"{low}-{high}",
                    "holds f or s, which under case-insensitive matching "
                    "may match a ligature or ß, as the source does not document",
                )
            if reader.wide:
                extra = "".join(v for k, v in UNICODE_CASE_VARIANTS.items() if k in held)
        return f"{low}-{high}{low.swapcase()}-{high.swapcase()}{extra}"
    letters = [c for c in map(chr, range(ord(low), ord(high) + 1)) if c.isalpha()]
    if letters:
        raise PatternError(f"{low}-{high}", "mixes letters and other characters, in either case")
    return f"{_class_literal(low)}-{_class_literal(high)}"


def _literal(char: str) -> str:
    return "\\" + char if char in METACHARACTERS else char


@dataclass
class _Reader:
    pattern: str
    flavour: str
    at: int = 0
    lazy: bool = True  # whether a lazy quantifier may be read as a greedy one
    fold: bool = False  # case-insensitive: each ASCII letter matches both of its cases
    # Case-insensitive where the source does not say how far its folding goes (Snowflake's
    # 'i'): letters some Unicode case mapping relates to characters beyond ASCII are refused
    # (f and s: ligatures and ß fold to ff, fi, fl, ss, st) or, with ``wide``, matched with
    # those characters too (i: dotless i and dotted capital I; k: the Kelvin sign), the
    # reading a guard compares.
    unicode_fold: bool = False
    wide: bool = False

    def peek(self, ahead: int = 0) -> str:
        index = self.at + ahead
        return self.pattern[index] if index < len(self.pattern) else ""

    def take(self) -> str:
        char = self.peek()
        self.at += 1
        return char


def _escape(reader: _Reader, in_class: bool) -> str:
    """The escape after a backslash, as class members (in a class) or as a pattern."""
    char = reader.take()
    if not char:
        raise PatternError("\\", "ends the pattern")
    if char in CHARACTER_ESCAPES:
        return CHARACTER_ESCAPES[char]
    if reader.unicode_fold and char in "wW":
        raise PatternError(
            "\\" + char,
            "under case-insensitive matching may hold more "
            "letters than ASCII's, as the source does not document",
        )
    if char in CLASS_ESCAPES:
        return CLASS_ESCAPES[char] if in_class else f"[{CLASS_ESCAPES[char]}]"
    if char in NEGATED_CLASS_ESCAPES and not in_class:
        return f"[^{NEGATED_CLASS_ESCAPES[char]}]"
    if char == "s" and reader.flavour in SPACE:
        return SPACE[reader.flavour] if in_class else f"[{SPACE[reader.flavour]}]"
    if char.isalnum():
        # \b, \A, \z, \1, \p{..}, \x41, \S inside a class ...: flavour-specific
        raise PatternError("\\" + char, "has no exact common form")
    return _class_literal(char) if in_class else _literal(char)


def _bracket(reader: _Reader) -> str:
    """A bracket expression ``[...]`` (the ``[`` already read) as an explicit class."""
    members: list[str] = []
    negated = reader.peek() == "^"
    if negated:
        reader.take()
    first = True
    while True:
        char = reader.take()
        if not char:
            raise PatternError("[", "is not closed")
        if char == "]" and not first:
            break
        first = False
        if char == "[" and reader.peek() == ":":
            end = reader.pattern.find(":]", reader.at)
            name = reader.pattern[reader.at + 1 : end] if end >= 0 else ""
            if name not in POSIX_CLASSES:
                raise PatternError(f"[:{name}:]", "has no exact common form")
            if reader.fold and name in ("upper", "lower"):
                raise PatternError(f"[:{name}:]", "under case-insensitive matching")
            if reader.unicode_fold and name in ("alpha", "alnum", "xdigit"):
                raise PatternError(f"[:{name}:]", "holds f or s under case-insensitive matching")
            members.append(POSIX_CLASSES[name])
            reader.at = end + 2
            continue
        if char == "[" and reader.peek() in ".=":
            raise PatternError(
                "[" + reader.peek(), "(a collating element) has no exact common form"
            )
        if char == "\\":
            if reader.flavour == "posix":
                # A backslash in a POSIX bracket expression is a plain character, but
                # the Perl-style flavours built on POSIX read it as an escape.
                raise PatternError("\\", "inside [...] reads differently between flavours")
            members.append(_escape(reader, in_class=True))
            continue
        if char == "&" and reader.peek() == "&":
            raise PatternError("&&", "inside [...] is an intersection in Java")
        if char == "-" and members and reader.peek() not in ("]", ""):
            high = reader.take()
            if high == "\\" or high == "[":
                raise PatternError("-" + high, "ends a range with an escape")
            low = members[-1]
            if reader.fold and len(low) == 2 and low[0].isalpha():
                low = low[0]  # a folded letter (as written, then its other case)
            if len(low) != 1 and not (len(low) == 2 and low[0] == "\\"):
                raise PatternError("-", "after a class has no exact common form")
            if not (low[-1].isascii() and high.isascii()):
                raise PatternError(f"{low[-1]}-{high}", "is a range beyond ASCII")
            members[-1] = f"{low}-{_class_literal(high)}"
            if reader.fold:
                members[-1] = _folded_range(low[-1], high, reader)
            continue
        if reader.fold and char.isalpha():
            _check_foldable(char)
            members.append(char + _case_variants(char, reader))
            continue
        members.append(_class_literal(char))
    if not members:
        raise PatternError("[]", "is empty")
    if negated and reader.unicode_fold and any(c.isalpha() for c in "".join(members)):
        # a negated class shrinks as the folding widens: no reading bounds the others
        raise PatternError("[^", "of letters under case-insensitive matching")
    return "[" + ("^" if negated else "") + "".join(members) + "]"


def _quantifier(reader: _Reader) -> str | None:
    """A quantifier at the reader (``*``, ``{2,3}`` ...), laziness dropped; None if none."""
    char = reader.peek()
    if char in "*+?":
        reader.take()
        text = char
    elif char == "{":
        end = reader.pattern.find("}", reader.at)
        body = reader.pattern[reader.at + 1 : end] if end >= 0 else ""
        low, comma, high = body.partition(",")
        if not (low.isdigit() and (not high or high.isdigit())):
            raise PatternError("{", "is not a repetition count")
        reader.at = end + 1
        text = "{" + low + comma + high + "}"
    else:
        return None
    if reader.peek() == "?":
        if not reader.lazy:
            raise PatternError(text + "?", "(a lazy quantifier) extracts a shorter match")
        reader.take()  # lazy: the same answer to "does it match"
    elif reader.peek() == "+":
        raise PatternError(text + "+", "(a possessive quantifier) has no exact common form")
    return text


def _word_literal(char: str, reader: _Reader) -> bool:
    """Whether ``char``, written plainly in the pattern, matches only word characters (ASCII
    letters, digits, _) in every reading of the match flags."""
    if not (char.isascii() and (char.isalnum() or char == "_")):
        return False
    return not (reader.fold and char.lower() in UNICODE_CASE_VARIANTS)


def _needless_boundary(reader: _Reader, whole: bool) -> bool:
    """Whether the \\b the reader is at (its backslash read) is the first or last element
    of a pattern that must match the whole string, beside a plain word character: at the
    start (end) of the string, a boundary holds exactly when the first (last) character is a
    word character, which that literal is."""
    pattern, at = reader.pattern, reader.at
    if not whole or reader.peek() != "b":
        return False
    if at == 1:
        following = pattern[2:3]
        quantified = pattern[3:4] in ("*", "+", "?", "{")
        return bool(following) and not quantified and _word_literal(following, reader)
    if at == len(pattern) - 1 and at >= 2:
        before, escaped = pattern[at - 2], pattern[at - 3 : at - 2] == "\\"
        return not escaped and _word_literal(before, reader)
    return False


def translate_pattern(
    pattern: str,
    flavour: str,
    *,
    whole: bool,
    lazy: bool = True,
    fold: bool = False,
    unicode_fold: bool = False,
    wide: bool = False,
) -> str:
    """``pattern`` of ``flavour`` as a LIKE_REGEX pattern with the same matches; with
    ``whole``, it must match the whole string (Snowflake's REGEXP_LIKE); without ``lazy``,
    a lazy quantifier is refused (it matches the same strings, but not the same text); with
    ``fold``, letters match in either case (a match flag 'i'), spelled as classes of both
    cases, since the standard's flag is not rendered and RE2 folds Unicode where Java does
    not: a letter beyond ASCII is refused; ``unicode_fold`` and ``wide``: see ``_Reader``. A
    \\b first or last in a ``whole`` pattern, beside a plain word character, always holds
    and is dropped; any other is refused."""
    reader = _Reader(pattern, flavour, lazy=lazy, fold=fold, unicode_fold=unicode_fold, wide=wide)
    out: list[str] = []
    depth = 0
    atom = False  # whether the last piece can take a quantifier
    while reader.at < len(pattern):
        char = reader.take()
        if char == "\\" and _needless_boundary(reader, whole):
            reader.take()
            continue
        if char == "\\":
            out.append(_escape(reader, in_class=False))
            atom = True
        elif char == "[":
            out.append(_bracket(reader))
            atom = True
        elif char == ".":
            out.append(DOT[flavour])
            atom = True
        elif char == "(":
            if reader.peek() == "?":
                if reader.peek(1) != ":":
                    raise PatternError("(?" + reader.peek(1), "has no exact common form")
                reader.at += 2
            out.append("(")
            depth += 1
            atom = False
        elif char == ")":
            if depth == 0:
                raise PatternError(")", "is not opened")
            depth -= 1
            out.append(")")
            atom = True
        elif char == "|":
            out.append("|")
            atom = False
        elif char in "^$":
            out.append(char)
            atom = False
        elif char in "*+?{":
            raise PatternError(char, "repeats nothing")
        elif char in "]}":
            out.append("\\" + char)
            atom = True
        else:
            out.append(_folded(char, reader) if reader.fold else char)
            atom = True
        if atom and reader.peek() in ("*", "+", "?", "{"):
            out.append(_quantifier(reader) or "")
            atom = False
    if depth:
        raise PatternError("(", "is not closed")
    text = "".join(out)
    return f"^({text})$" if whole else text


# LIKE's `_` is any one character, a newline too: the class of everything in each flavour.
ANY_CHARACTER = "[\\s\\S]"


def _like_class(pattern: str, at: int) -> tuple[str, bool, int]:
    """The T-SQL LIKE class ``[...]`` whose members start at ``at`` (after the ``[``): the
    regex class, whether it holds a range, and where the pattern goes on. Inside the
    brackets %, _ and [ are plain characters; ^ first negates; - between two characters
    is a range."""
    end = pattern.find("]", at)
    if end < 0:
        raise PatternError("[", "is not closed")
    text = pattern[at:end]
    negated = text.startswith("^")
    text = text[1:] if negated else text
    if not text:
        raise PatternError(pattern[at - 1 : end + 1], "is an empty class")
    members: list[str] = []
    ranged = False
    index = 0
    while index < len(text):
        char = text[index]
        if index + 2 < len(text) and text[index + 1] == "-":
            low, high = char, text[index + 2]
            if not (low.isascii() and high.isascii()) or low > high:
                raise PatternError(f"{low}-{high}", "is not a range of ASCII characters")
            members.append(f"{_class_literal(low)}-{_class_literal(high)}")
            ranged = True
            index += 3
            continue
        members.append(_class_literal(char))
        index += 1
    return "[" + ("^" if negated else "") + "".join(members) + "]", ranged, end + 1


def like_class_pattern(pattern: str) -> tuple[str, bool]:
    """A T-SQL LIKE pattern with [...] classes (and no escape character) as an anchored
    LIKE_REGEX pattern with the same matches, and whether it holds a character range:
    % is any run of characters, _ any one character, [...] a class, the rest literal."""
    out: list[str] = []
    ranged = False
    at = 0
    while at < len(pattern):
        char = pattern[at]
        at += 1
        if char == "%":
            out.append(ANY_CHARACTER + "*")
        elif char == "_":
            out.append(ANY_CHARACTER)
        elif char == "[":
            members, has_range, at = _like_class(pattern, at)
            out.append(members)
            ranged = ranged or has_range
        else:
            out.append(_literal(char))
    return "^(" + "".join(out) + ")$", ranged


@rule(
    "FN-REGEXP-LIKE",
    "rewrite",
    tuple(FLAVOURS),
    (exp.RegexpLike,),
    "Regular-expression predicates become s LIKE_REGEX 'p' (SQL:2008 F841): Snowflake "
    "REGEXP_LIKE / RLIKE (the whole string must match: the pattern is anchored), BigQuery "
    "REGEXP_CONTAINS, Oracle REGEXP_LIKE and Redshift ~ (a match anywhere). The pattern is "
    "rewritten element by element into syntax with one meaning in XQuery, RE2 and Java: `.` and "
    "\\d, \\w, \\s and POSIX [:digit:]-style classes become explicit ASCII classes as the "
    "source reads them, non-capturing groups and lazy quantifiers become plain ones. A word "
    "boundary \\b first or last in Snowflake's whole-string match, beside a plain word "
    "character, always holds and is dropped. Snowflake's match flag 'i' writes each ASCII "
    "letter as a class of both its cases; since Snowflake does not document whether its "
    "folding also takes the dotless i and dotted capital I to i, or the Kelvin sign to k, a "
    "pattern holding i or k carries a guard that stops where the narrowest and the widest "
    "readings differ, and the letters f and s (ß and ligatures fold to ss, st, ff, fi, fl), "
    "\\w, letter POSIX classes and negated classes of letters are refused under 'i'. "
    "Patterns that are not literals, other match flags, back-references, look-arounds, other "
    "word boundaries, Unicode properties and Oracle's empty pattern (NULL) are refused, "
    "naming the element.",
    (
        (
            "snowflake",
            "SELECT REGEXP_LIKE(c_phone, '\\\\d{2}-.*') AS p FROM SALES.CUSTOMER",
            'SELECT "customer"."c_phone" LIKE_REGEX \'^([0-9]{2}-[^\\n]*)$\' AS "p" '
            'FROM "raw"."customer" AS "customer"',
        ),
        (
            "bigquery",
            "SELECT c_custkey FROM sales.customer WHERE REGEXP_CONTAINS(c_name, r'^Cust(?:omer)?#')",
            'SELECT "customer"."c_custkey" AS "c_custkey" FROM "raw"."customer" AS "customer" '
            'WHERE "customer"."c_name" LIKE_REGEX \'^Cust(omer)?#\'',
        ),
    ),
)
def regexp_like(node: exp.Expr, ctx: Context) -> exp.Expr | None:
    pattern = node.expression
    flag = node.args.get("flag")
    flags = ("", "c", "i") if semantics(ctx.dialect).REGEX_FLAG_I_FOLDS_CASE else ("", "c")
    if flag is not None and not (isinstance(flag, exp.Literal) and flag.name in flags):
        ctx.report(
            "error",
            "FN-REGEXP-LIKE",
            flag,
            f"match flags {flag.sql()} (case, newline modes) have no exact common form"
            + ("; only 'c' and 'i' translate" if "i" in flags else ""),
        )
        return node
    fold = flag is not None and flag.name == "i"
    if not (isinstance(pattern, exp.Literal) and pattern.is_string):
        ctx.report(
            "error",
            "FN-REGEXP-LIKE",
            pattern,
            "a regular expression that is not a literal cannot be checked for flavour-specific "
            "syntax; write it as a literal",
        )
        return node
    if semantics(ctx.dialect).EMPTY_STRING_IS_NULL and pattern.name == "":
        ctx.report("error", "FN-REGEXP-LIKE", pattern, "Oracle reads the empty pattern as NULL")
        return node
    whole = bool(node.args.get("full_match"))
    try:
        text, wide = (
            translate_pattern(
                pattern.name,
                FLAVOURS[ctx.dialect],
                whole=whole,
                fold=fold,
                unicode_fold=fold,
                wide=wide,
            )
            for wide in (False, True)
        )
    except PatternError as error:
        ctx.report("error", "FN-REGEXP-LIKE", pattern, f"regular expression element {error}")
        return node
    matches = exp.RegexpLike(this=clone(node.this), expression=lit(text))
    if wide == text:
        return matches
    # The pattern holds i or k: whether Snowflake's 'i' also matches the dotless i and the
    # dotted capital I (i), or the Kelvin sign (k), it does not document. Every reading
    # gives one answer exactly when the narrowest and the widest do (the pattern has no
    # negated class of letters, so a wider class only adds matches): where they differ the
    # statement stops.
    differs = exp.NEQ(
        this=exp.RegexpLike(this=clone(node.this), expression=lit(text)),
        expression=exp.RegexpLike(this=clone(node.this), expression=lit(wide)),
    )
    return guarded(
        matches,
        differs,
        "FN-REGEXP-LIKE",
        "case-insensitive matching of a text holding a dotless i, a dotted capital I or a "
        "Kelvin sign, which Snowflake does not document folding to i or k",
        at=node,
    )


# Characters that stand for themselves in every flavour's pattern outside a class.
_PLAIN = set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 _-,;:!@#%&=<>'\"/~`")


def _anchored_prefix(pattern: str) -> str | None:
    """The characters of '^abc', a pattern of plain characters anchored at the start."""
    if pattern.startswith("^") and len(pattern) > 1 and set(pattern[1:]) <= _PLAIN:
        return pattern[1:]
    return None


@rule(
    "FN-REGEXP-REPLACE",
    "rewrite",
    ("snowflake",),
    (exp.RegexpReplace,),
    "Snowflake's REGEXP_REPLACE(s, '^abc' [, r]), a pattern of plain characters anchored "
    "at the start of the string (without the 'm' parameter ^ marks the beginning of the "
    "entire subject, so there is one match at most), with a replacement without backslashes "
    "(no back references), from position 1: CASE WHEN the string starts with abc THEN r || "
    "the rest ELSE the string END. NULL in, NULL out. Other patterns (a '$' anchor too: "
    "flavours differ on a final newline), replacements, positions, occurrences and "
    "parameters have no exact ANSI form here (REGEXP_REPLACE is not in SQL:2016).",
    (
        (
            "snowflake",
            "SELECT REGEXP_REPLACE(c_name, '^Customer#') AS n FROM SALES.CUSTOMER",
            'SELECT CASE WHEN SUBSTRING("customer"."c_name" FROM 1 FOR 9) = \'Customer#\' THEN '
            '\'\' || SUBSTRING("customer"."c_name" FROM 10) ELSE "customer"."c_name" END AS '
            '"n" FROM "raw"."customer" AS "customer"',
        ),
    ),
)
def regexp_replace(node: exp.Expr, ctx: Context) -> exp.Expr | None:
    pattern, replacement = node.expression, node.args.get("replacement") or lit("")
    position, occurrence = node.args.get("position"), node.args.get("occurrence")
    modifiers = node.args.get("modifiers")
    plain_args = (
        type_of(node.this) in STRING_TYPES
        and isinstance(pattern, exp.Literal)
        and pattern.is_string
        and isinstance(replacement, exp.Literal)
        and replacement.is_string
        and "\\" not in replacement.name
        and (position is None or (isinstance(position, exp.Literal) and position.name == "1"))
        and (
            occurrence is None
            or (isinstance(occurrence, exp.Literal) and occurrence.name in ("0", "1"))
        )
        and (modifiers is None or (isinstance(modifiers, exp.Literal) and modifiers.name == "c"))
    )
    affix = _anchored_prefix(pattern.name) if plain_args else None
    if affix is None:
        return None  # left to the ANSI generator, which refuses REGEXP_REPLACE
    text, width = node.this, len(affix)
    matched = exp.EQ(
        this=exp.Substring(this=clone(text), start=lit(1), length=lit(width)),
        expression=lit(affix),
    )
    rest = exp.Substring(this=clone(text), start=lit(width + 1))
    replaced = exp.DPipe(this=clone(replacement), expression=rest)
    return exp.Case(ifs=[exp.If(this=matched, true=replaced)], default=clone(text))


# BigQuery's REGEXP_REPLACE(s, 'P1(.*)P2', r): plain text, one greedy group, plain text.
_SPAN = "(.*)"
# Text written in the ANSI output of the rule's guard: the character `.` does not match.
_NEWLINE = "\n"


def _span_parts(pattern: str) -> tuple[str, str] | None:
    """(P1, P2) of 'P1(.*)P2', each non-empty and of plain characters; None otherwise."""
    before, found, after = pattern.partition(_SPAN)
    if not found or not before or not after:
        return None
    if not (set(before) <= _PLAIN and set(after) <= _PLAIN):
        return None
    return before, after


def _replacement_parts(replacement: str) -> list[str | int] | None:
    """The replacement as text and group numbers (only \\1 here); None where it has any
    other backslash (\\0, \\\\, a group the pattern lacks)."""
    parts: list[str | int] = []
    for index, piece in enumerate(replacement.split("\\1")):
        if "\\" in piece:
            return None
        if index:
            parts.append(1)
        if piece:
            parts.append(piece)
    return parts


def _add(node: exp.Expr, amount: int) -> exp.Expr:
    return exp.Add(this=node, expression=lit(amount)) if amount else node


@rule(
    "FN-REGEXP-REPLACE-SPAN",
    "rewrite",
    ("bigquery",),
    (exp.RegexpReplace,),
    "BigQuery's REGEXP_REPLACE(s, 'P1(.*)P2', r) (RE2, every match replaced), with P1 and P2 "
    "non-empty plain text (letters, digits, blanks and punctuation without a regex meaning) "
    "and r text with \\1 for the group: the first match starts at the first P1 and, `.*` "
    "being greedy, ends with the last P2 after it, and nothing after that can match again. "
    "So with i = POSITION(P1 IN s) and j the start of the last P2 (found in REVERSE(s), the "
    "portable REVERSE), s becomes SUBSTRING(s FROM 1 FOR i - 1) || r with \\1 the text "
    "between || SUBSTRING(s FROM j + LENGTH(P2)) when P1 and a later P2 occur, else s "
    "unchanged; NULL in, NULL out. RE2's `.` does not match a newline: where that span holds "
    "one, the query stops (a guard: each line is matched apart there). Other patterns "
    "(classes, anchors, alternatives, repetitions), a lazy (.*?), other back references, "
    "and patterns or replacements that are not literals keep no exact form.",
    (
        (
            "bigquery",
            "SELECT REGEXP_REPLACE(o_comment, 'Any (.*) Activity', 'New \\\\1 Profile') AS r "
            "FROM sales.orders",
            'SELECT CASE WHEN NOT POSITION(\'Any \' IN "orders"."o_comment") = 0 AND NOT '
            'POSITION(\'ytivitcA \' IN REVERSE("orders"."o_comment")) = 0 AND CHAR_LENGTH('
            '"orders"."o_comment") - POSITION(\'ytivitcA \' IN REVERSE("orders".'
            '"o_comment")) - 7 >= POSITION(\'Any \' IN "orders"."o_comment") + 4 THEN CASE '
            "WHEN POSITION(U&'\\000A' IN SUBSTRING(\"orders\".\"o_comment\" FROM POSITION('Any ' IN "
            '"orders"."o_comment") FOR CHAR_LENGTH("orders"."o_comment") - POSITION('
            "'ytivitcA ' IN REVERSE(\"orders\".\"o_comment\")) - 7 + 9 - POSITION('Any ' IN "
            '"orders"."o_comment"))) > 0 THEN RAISE_ERROR(\'FN-REGEXP-REPLACE-SPAN: '
            "BigQuery matches each line of this text apart (`.` does not match a newline)') "
            'ELSE SUBSTRING("orders"."o_comment" FROM 1 FOR POSITION(\'Any \' IN "orders".'
            '"o_comment") - 1) || \'New \' || SUBSTRING("orders"."o_comment" FROM POSITION('
            '\'Any \' IN "orders"."o_comment") + 4 FOR CHAR_LENGTH("orders"."o_comment") '
            "- POSITION('ytivitcA ' IN REVERSE(\"orders\".\"o_comment\")) - 7 - POSITION('Any ' "
            'IN "orders"."o_comment") - 4) || \' Profile\' || SUBSTRING("orders".'
            '"o_comment" FROM CHAR_LENGTH("orders"."o_comment") - POSITION(\'ytivitcA \' IN '
            'REVERSE("orders"."o_comment")) - 7 + 9) END ELSE "orders"."o_comment" END '
            'AS "r" FROM "raw"."orders" AS "orders"',
        ),
    ),
)
def regexp_replace_span(node: exp.Expr, ctx: Context) -> exp.Expr | None:
    pattern, replacement = node.expression, node.args.get("replacement")
    if any(node.args.get(k) is not None for k in ("position", "occurrence", "modifiers")):
        return None
    if not (
        type_of(node.this) in STRING_TYPES
        and isinstance(pattern, exp.Literal)
        and pattern.is_string
        and isinstance(replacement, exp.Literal)
        and replacement.is_string
    ):
        return None  # left to the ANSI generator, which refuses REGEXP_REPLACE
    span = _span_parts(pattern.name)
    parts = _replacement_parts(replacement.name)
    if span is None or parts is None:
        return None
    before, after = span
    text = node.this

    def first() -> exp.Expr:  # where P1 first occurs (0: nowhere)
        return exp.StrPosition(this=clone(text), substr=lit(before))

    def from_end() -> exp.Expr:  # where the last P2 ends, counted from the end (0: nowhere)
        return exp.StrPosition(
            this=portable.PortableReverse(this=clone(text)), substr=lit(after[::-1])
        )

    def last() -> exp.Expr:  # where the last P2 starts
        return exp.Sub(
            this=exp.Sub(this=exp.Length(this=clone(text)), expression=from_end()),
            expression=lit(len(after) - 2),
        )

    def piece(start: exp.Expr, length: exp.Expr | None = None) -> exp.Expr:
        return exp.Substring(this=clone(text), start=start, length=length)

    group = piece(
        _add(first(), len(before)),
        exp.Sub(this=exp.Sub(this=last(), expression=first()), expression=lit(len(before))),
    )
    match_length = exp.Sub(this=_add(last(), len(after)), expression=first())
    replaced: exp.Expr = piece(lit(1), exp.Sub(this=first(), expression=lit(1)))
    for part in parts:
        replaced = exp.DPipe(this=replaced, expression=group.copy() if part == 1 else lit(part))
    replaced = exp.DPipe(this=replaced, expression=piece(_add(last(), len(after))))
    matched = exp.and_(
        exp.Not(this=exp.EQ(this=first(), expression=lit(0))),
        exp.Not(this=exp.EQ(this=from_end(), expression=lit(0))),
        exp.GTE(this=last(), expression=_add(first(), len(before))),
    )
    spans_lines = exp.GT(
        this=exp.StrPosition(this=piece(first(), match_length), substr=lit(_NEWLINE)),
        expression=lit(0),
    )
    value = guarded(
        replaced,
        spans_lines,
        "FN-REGEXP-REPLACE-SPAN",
        "BigQuery matches each line of this text apart (`.` does not match a newline)",
        node,
    )
    return exp.Case(ifs=[exp.If(this=matched, true=value)], default=clone(text))


@rule(
    "FN-REGEXP-SIMILAR",
    "rewrite",
    ("teradata",),
    (exp.Anonymous,),
    "Teradata's REGEXP_SIMILAR(s, 'p' [, 'c' | 'i']) is 1 when the whole of s matches p, 0 "
    "when it does not, NULL when s is NULL (Teradata's documentation): CASE WHEN s "
    "LIKE_REGEX '^(p)$' THEN 1 WHEN s IS NOT NULL THEN 0 END, an INTEGER, with p rewritten "
    "element by element as FN-REGEXP-LIKE does. Matching is case sensitive by default and "
    "under 'c' (also when the match argument is NULL or empty); under 'i' each ASCII letter "
    "of the pattern becomes a class of both its cases ([a-c] becomes [a-cA-C]), and a letter "
    "beyond ASCII, a range mixing letters and other characters, [:upper:] and [:lower:] are "
    "refused. The 'n', 'm', 'l' and 'x' arguments, a pattern or argument that is not a "
    "literal, and CHAR arguments (whose trailing pad blanks the function sees) are refused.",
    (
        (
            "teradata",
            "SELECT REGEXP_SIMILAR(c_name, 'cust[a-z]*#[0-9]+', 'i') AS p FROM SALES_DB.CUSTOMER",
            'SELECT CASE WHEN "customer"."c_name" LIKE_REGEX '
            "'^([cC][uU][sS][tT][a-zA-Z]*#[0-9]+)$' THEN 1 "
            'WHEN NOT "customer"."c_name" IS NULL THEN 0 END AS "p" '
            'FROM "raw"."customer" AS "customer"',
        ),
    ),
)
def regexp_similar(node: exp.Expr, ctx: Context) -> exp.Expr | None:
    if not (isinstance(node, exp.Anonymous) and node.name.upper() == "REGEXP_SIMILAR"):
        return None
    arguments = node.expressions
    if len(arguments) not in (2, 3):
        ctx.report("error", "FN-REGEXP-SIMILAR", node, "REGEXP_SIMILAR takes 2 or 3 arguments")
        return node
    text, pattern = arguments[0], arguments[1]
    match = arguments[2] if len(arguments) == 3 else exp.Null()
    if isinstance(match, exp.Null) or (isinstance(match, exp.Literal) and match.name == ""):
        match = lit("c")  # documented: a NULL or empty match argument is the default, 'c'
    if not (isinstance(match, exp.Literal) and match.is_string and match.name in ("c", "i")):
        ctx.report(
            "error",
            "FN-REGEXP-SIMILAR",
            match,
            f"match argument {match.sql('teradata')} (newline, multi-line, long-string and "
            "blank-ignoring modes) has no exact common form; only 'c' and 'i' translate",
        )
        return node
    if not (isinstance(pattern, exp.Literal) and pattern.is_string):
        ctx.report(
            "error",
            "FN-REGEXP-SIMILAR",
            pattern,
            "a regular expression that is not a literal cannot be checked for flavour-specific "
            "syntax; write it as a literal",
        )
        return node
    if type_of(text) not in (exp.DType.VARCHAR, exp.DType.TEXT, exp.DType.NVARCHAR):
        ctx.report(
            "error",
            "FN-REGEXP-SIMILAR",
            text,
            "REGEXP_SIMILAR of a value not known to be VARCHAR (a CHAR holds pad blanks the "
            "function matches; a number is converted to text by Teradata's rules): CAST it to "
            "VARCHAR first",
        )
        return node
    try:
        regex = translate_pattern(pattern.name, SIMILAR_FLAVOUR, whole=True, fold=match.name == "i")
    except PatternError as error:
        ctx.report("error", "FN-REGEXP-SIMILAR", pattern, f"regular expression element {error}")
        return node
    matches = exp.RegexpLike(this=clone(text), expression=lit(regex))
    known = exp.Not(this=exp.Is(this=clone(text), expression=exp.Null()))
    return exp.Case(ifs=[exp.If(this=matches, true=lit(1)), exp.If(this=known, true=lit(0))])
