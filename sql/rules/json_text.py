"""Redshift's JSON functions over JSON text as the standard's SQL/JSON (T821, T825, T831 ff.).

``JSON_EXTRACT_PATH_TEXT(j, 'a', 'b' [, null_if_invalid])`` reads the value at the keys
``a`` then ``b`` of the JSON text ``j``: a JSON string gives its (unescaped) text, a missing
key, a non-object on the way or a JSON null give NULL, as Redshift documents
(https://docs.aws.amazon.com/redshift/latest/dg/JSON_EXTRACT_PATH_TEXT.html; releases before
that page's present wording returned an empty string for a missing key). The same strict-mode
path and type filter that Snowflake's ``::string`` of a VARIANT compiles to
(sql/rules/variant.py) say exactly that. Redshift prints a number, a boolean, an object or an
array as its own JSON text, which the standard's JSON_VALUE would not reproduce character for
character: those raise an error at run time instead (ERROR ON ERROR). Text that is not JSON
raises in Redshift unless ``null_if_invalid`` is TRUE, where it is NULL; here likewise, by
reading the invalid text with JSON_VALUE (which raises) only where JSON_EXISTS finds no item at
``strict $``.

Refused: a key computed at run time, a key of digits (whether Redshift then indexes an array,
as PostgreSQL does, is not documented), ``null_if_invalid`` other than a TRUE / FALSE literal,
and ``j`` of a type other than a string.
"""

from __future__ import annotations

import re

from sqlglot import exp

from sql.ansi import JsonExists, JsonValue
from sql.jsonpath import JsonPath
from sql.rules.base import Context, rule
from sql.rules.build import clone, type_of
from sql.rules.variant import string_value

STRINGS = (exp.DType.VARCHAR, exp.DType.TEXT, exp.DType.CHAR, exp.DType.NVARCHAR)
DIGITS = re.compile(r"\s*[+-]?\d+\s*")
DIGITS_WHY = "a path element of digits, which may index an array (Redshift does not say)"


class _Refusal(Exception):
    pass


def _arguments(node: exp.JSONExtractScalar) -> tuple[list[str], bool]:
    """The path keys and null_if_invalid, as sqlglot parsed them: a JSONPath of keys when
    every argument is a string literal, else the first key and the rest as expressions."""
    path = node.expression
    if isinstance(path, exp.JSONPath):
        parts = [p for p in path.expressions if not isinstance(p, exp.JSONPathRoot)]
        if any(isinstance(p, exp.JSONPathSubscript) for p in parts):
            raise _Refusal(DIGITS_WHY)
        if not all(isinstance(p, exp.JSONPathKey) for p in parts):
            raise _Refusal("a path element that is not a literal key")
        keys: list[object] = [p.this for p in parts]
        rest: list[exp.Expr] = []
    else:
        keys, rest = [], [path, *node.expressions]
    null_if_invalid = False
    if rest and isinstance(rest[-1], exp.Boolean):
        null_if_invalid = rest.pop().this is True
    for argument in rest:
        if not (isinstance(argument, exp.Literal) and argument.is_string):
            raise _Refusal("a path element or null_if_invalid that is not a literal")
        keys.append(argument.name)
    if not keys:
        raise _Refusal("no path element")
    for key in keys:
        if not isinstance(key, str):
            raise _Refusal("a path element that is not a literal key")
        if DIGITS.fullmatch(key):
            raise _Refusal(DIGITS_WHY)
    return [str(k) for k in keys], null_if_invalid


def raise_if_invalid(json_text: exp.Expr, value: exp.Expr) -> exp.Expr:
    """``value``, except that text which is not JSON raises: JSON_EXISTS(j, 'strict $') is
    FALSE only for such text, and JSON_VALUE of it fails (ERROR ON ERROR)."""
    valid = JsonExists(this=clone(json_text), path=exp.Literal.string(JsonPath().text()))
    failing = JsonValue(
        this=clone(json_text),
        path=exp.Literal.string(JsonPath().where("==", "string").text()),
    )
    case = exp.Case(ifs=[exp.If(this=exp.Not(this=valid), true=failing)], default=value)
    case.type = exp.DataType.build("VARCHAR")
    return case


@rule(
    "RS-JSON-PATH-TEXT",
    "rewrite",
    ("redshift",),
    (exp.JSONExtractScalar,),
    "JSON_EXTRACT_PATH_TEXT(j, 'k1', ..., 'kn' [, null_if_invalid]) over JSON text is the "
    "standard's JSON_VALUE in strict mode with a type filter (T821, T825, T831, T832, T835): a "
    "JSON string gives its text; a missing key, a JSON null or a non-object on the way give "
    "NULL, as Redshift documents; a number, a boolean, an object or an array (which Redshift "
    "prints as its JSON text) raise an error rather than print differently. Text that is not "
    "JSON raises, or is NULL with null_if_invalid TRUE, as in Redshift. Keys computed at run "
    "time or made of digits, and a string of unknown type, are refused.",
    (
        (
            "redshift",
            "SELECT JSON_EXTRACT_PATH_TEXT(c_comment, 'user', 'name', TRUE) AS n "
            "FROM sales.customer",
            'SELECT CASE WHEN JSON_EXISTS("customer"."c_comment", \'strict $."user"."name" ? '
            '(@.type() <> "null")\') THEN JSON_VALUE("customer"."c_comment", \'strict $."user".'
            '"name" ? (@.type() == "string")\' RETURNING VARCHAR ERROR ON EMPTY ERROR ON ERROR) '
            'END AS "n" FROM "raw"."customer" AS "customer"',
        ),
    ),
)
def json_path_text(node: exp.Expr, ctx: Context) -> exp.Expr | None:
    assert isinstance(node, exp.JSONExtractScalar)
    try:
        if type_of(node.this) not in STRINGS:
            raise _Refusal("JSON text of a type other than a string")
        keys, null_if_invalid = _arguments(node)
    except _Refusal as refusal:
        ctx.report(
            "error",
            "RS-JSON-PATH-TEXT",
            node,
            f"JSON_EXTRACT_PATH_TEXT with {refusal} has no exact standard form",
        )
        return node
    value = string_value(node.this, tuple(keys))
    return value if null_if_invalid else raise_if_invalid(node.this, value)


# Redshift's other JSON text functions, and why they are not translated.
UNTRANSLATED = {
    "JSON_EXTRACT_ARRAY_ELEMENT_TEXT": "Redshift's documentation gives two results for an index "
    "out of range (NULL in its present English text, an empty string in earlier ones and in "
    "its translations), so no single translation is exact",
    "JSON_ARRAY_LENGTH": "the standard has no function that counts a JSON array's elements "
    "(only a subquery over JSON_TABLE, not written here)",
}


@rule(
    "RS-JSON-ARRAY",
    "refuse",
    ("redshift",),
    (exp.Anonymous,),
    "Redshift's JSON_EXTRACT_ARRAY_ELEMENT_TEXT (whose result for an index out of range its "
    "documentation gives as NULL in one version and an empty string in another) and "
    "JSON_ARRAY_LENGTH (no standard function counts a JSON array) are refused with that "
    "reason.",
    (("redshift", "SELECT JSON_ARRAY_LENGTH(c_comment) AS n FROM sales.customer", "1:8"),),
)
def json_array(node: exp.Expr, ctx: Context) -> exp.Expr | None:
    name = node.name.upper()
    if name not in UNTRANSLATED:
        return None
    ctx.report("error", "RS-JSON-ARRAY", node, f"{name}: {UNTRANSLATED[name]}")
    return node
