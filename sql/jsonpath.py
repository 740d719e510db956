"""The SQL/JSON paths the translator writes (SQL:2016 9.39 ff.), as text and back.

Rules build paths from steps; sql/render.py reads them back to write each engine's own JSON
access. Only this subset is ever written, and read: strict mode (T831), member accessors
(always quoted), integer subscripts, an optional ``[*]`` (the rows of a JSON_TABLE), an
optional filter on the item's type (T832 ``type()``, T835 filter expressions), or the item
method ``size()`` (T832) at the end::

    strict $."a"."b c"[0]                      -- the item at that place
    strict $."a" ? (@.type() == "string")      -- the item, kept only when it is a string
    strict $."items"[*]                        -- each element of an array
    strict $."items".size()                    -- the number of elements of an array

Strict mode, not the standard's default lax mode, because lax unwraps arrays and wraps
scalars (``lax $.a`` of ``[{"a": 1}]`` is 1) where Snowflake's paths, DuckDB's and Spark's
are structural: a member of an array, or an element of an object, is missing.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

# A step: a member name or a 0-based array index.
Step = str | int

# The SQL/JSON item types type() returns.
ITEM_TYPES = frozenset({"null", "boolean", "number", "string", "date", "array", "object"})
# The item methods a path may end with (strict mode: size() of an item that is not an array
# is an error).
METHODS = frozenset({"size"})


class JsonPathError(ValueError):
    """A path outside the subset above (the message says where)."""


@dataclass(frozen=True)
class JsonPath:
    steps: tuple[Step, ...] = ()
    # The rows of a JSON_TABLE: each element of the array at ``steps``.
    each: bool = False
    # ("==" or "<>", item type): keep the item only when its type() compares so.
    filter: tuple[str, str] | None = None
    # An item method applied to the item found: size().
    method: str | None = None

    def __post_init__(self) -> None:
        if self.filter is not None and (
            self.filter[0] not in ("==", "<>") or self.filter[1] not in ITEM_TYPES
        ):
            raise JsonPathError(f"unsupported filter {self.filter!r}")
        if self.method is not None and (
            self.method not in METHODS or self.filter is not None or self.each
        ):
            raise JsonPathError(f"unsupported item method {self.method!r}")

    def text(self) -> str:
        parts = ["strict $"]
        for step in self.steps:
            parts.append(f"[{step}]" if isinstance(step, int) else f".{json.dumps(step)}")
        if self.each:
            parts.append("[*]")
        if self.filter is not None:
            parts.append(f' ? (@.type() {self.filter[0]} "{self.filter[1]}")')
        if self.method is not None:
            parts.append(f".{self.method}()")
        return "".join(parts)

    def then(self, *steps: Step) -> JsonPath:
        return JsonPath(self.steps + steps, self.each, self.filter)

    def where(self, op: str, item_type: str) -> JsonPath:
        return JsonPath(self.steps, self.each, (op, item_type))

    def size(self) -> JsonPath:
        return JsonPath(self.steps, method="size")


_MEMBER = re.compile(r'\."((?:[^"\\]|\\.)*)"')
_INDEX = re.compile(r"\[(\d+)\]")
_FILTER = re.compile(r' \? \(@\.type\(\) (==|<>) "([a-z]+)"\)$')
_METHOD = re.compile(r"\.([a-z]+)\(\)$")


def parse(text: str) -> JsonPath:
    """The :class:`JsonPath` a path text of the subset spells; raises JsonPathError."""
    if not text.startswith("strict $"):
        raise JsonPathError(f"{text!r}: only strict paths from $ are read")
    rest, filter_, method = text[len("strict $") :], None, None
    called = _METHOD.search(rest)
    if called:
        method, rest = called.group(1), rest[: called.start()]
    found = _FILTER.search(rest)
    if found:
        filter_, rest = (found.group(1), found.group(2)), rest[: found.start()]
    each = rest.endswith("[*]")
    if each:
        rest = rest[: -len("[*]")]
    steps: list[Step] = []
    while rest:
        member, index = _MEMBER.match(rest), _INDEX.match(rest)
        if member:
            steps.append(json.loads(f'"{member.group(1)}"'))
            rest = rest[member.end() :]
        elif index:
            steps.append(int(index.group(1)))
            rest = rest[index.end() :]
        else:
            raise JsonPathError(f"{text!r}: cannot read the path at {rest!r}")
    return JsonPath(tuple(steps), each, filter_, method)


def _spark_name(name: str) -> str:
    # Spark's variant paths read ["name"] and ['name'] with no escapes inside.
    if '"' not in name and "\\" not in name:
        return f'["{name}"]'
    if "'" not in name and "\\" not in name:
        return f"['{name}']"
    raise JsonPathError(f"Spark's variant paths cannot name the key {name!r}")


def engine_path(steps: tuple[Step, ...], engine: str) -> str:
    """The steps as the JSONPath text an engine's functions read: DuckDB ``$."a"[0]``
    (names with JSON's escapes), Spark ``$["a"][0]``. Raises JsonPathError for a key
    the engine's paths cannot spell."""
    if engine == "duckdb":
        names = [f"[{s}]" if isinstance(s, int) else f".{json.dumps(s)}" for s in steps]
    else:
        names = [f"[{s}]" if isinstance(s, int) else _spark_name(s) for s in steps]
    return "$" + "".join(names)
