"""The sandbox a Jinja-templated legacy file renders in (``sql.templating``), and the budget
each render gets: what one file may take in wall time, in what it builds and in what it
renders to.

Jinja's ``SandboxedEnvironment`` keeps a template away from files and Python's internals,
but not from the machine's memory and time: ``'x'|center(9000000000)``, a ``namespace``
string doubled in a loop or two nested ``range(100000)`` loops run for minutes or exhaust
memory, and loading a project renders every template (to find the tables each reads). A
Python thread cannot be stopped from outside, so the render checks itself: every place the
sandbox runs code of the template's choosing is a checkpoint (a call, an operator, an
attribute, a filter or test, a loop's next item, an output value, a ``~``) where the wall
clock is compared with the render's deadline, and every operation that builds a string or a
list is measured *before* it builds it, against:

- ``value``: the characters (or items) of any one string or list built on the way, which also
  bounds what one operation costs in time (a wrapped or indented string of a million
  characters takes about a second);
- ``memory``: the characters and items of everything built, in all (freed or not: a bound of
  the memory the render can hold);
- ``iterations``: loop iterations, in all;
- ``output``: the characters the template renders to;
- ``seconds``: the wall time of one render.

Over budget is a ``TemplateError`` (a located ``error[TEMPLATE]`` of that file). Sizes of
values about to be turned into text (``{{ x }}``, ``~``, ``format``, ``join``...) are their
text's length, found without building it: a list holding one long string a million times is
small in memory and enormous as text.
"""

from __future__ import annotations

import functools
import math
import re
import time
from collections.abc import Callable, Iterable, Iterator, Mapping, Sized
from dataclasses import dataclass, fields
from typing import Any

import jinja2
from jinja2 import nodes
from jinja2.filters import make_attrgetter
from jinja2.runtime import LoopContext
from jinja2.sandbox import SandboxedEnvironment, SandboxedEscapeFormatter, SandboxedFormatter
from jinja2.utils import Namespace, generate_lorem_ipsum, pass_context
from jinja2.visitor import NodeTransformer
from markupsafe import Markup

# An integer a template may compute, in bits (10**1024 has 3,402): a product or a power of
# huge integers takes time and memory that no checkpoint interrupts.
MAX_INTEGER_BITS = 65_536
# Deeper nesting than this is refused where a value's text is measured.
MAX_DEPTH = 100
# The private filters the render adds (``_prepare``): the loops' iterables and ``~``.
LOOP_FILTER, CONCAT_FILTER = "_plumbline_loop", "_plumbline_concat"


class TemplateError(Exception):
    """A template function's refusal (an unknown ref, a missing variable) or a render over
    its budget; located in the template by ``sql.templating.render_template`` from the
    traceback."""

    def __init__(self, message: str, needle: str | None = None):
        super().__init__(message)
        self.needle = needle  # a regex of the text to point at on the failing line


@dataclass(frozen=True)
class TemplateBudget:
    """What rendering one template may take (``template_budget:`` in a project's
    ``defs.yaml``); over it, the render stops with a located TEMPLATE error."""

    seconds: float = 5.0  # wall time of one file's render
    output: int = 10_000_000  # characters the file renders to
    value: int = 1_000_000  # characters (or items) of any one string or list built
    memory: int = 50_000_000  # characters and items built in all
    iterations: int = 1_000_000  # loop iterations in all

    def __post_init__(self) -> None:
        for name in ("seconds", *(f.name for f in fields(self) if f.name != "seconds")):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int | float) or not value > 0:
                raise ValueError(f"template_budget.{name}: a number > 0; got {value!r}")
        if not math.isfinite(self.seconds):
            raise ValueError(f"template_budget.seconds: a finite number; got {self.seconds!r}")

    def key(self) -> str:
        """The budget as text, for a cache key: a file refused under one budget may render
        under another."""
        return ",".join(f"{f.name}={getattr(self, f.name)}" for f in fields(self))


class _Meter:
    """One render's spending against its budget."""

    def __init__(self, budget: TemplateBudget) -> None:
        self.budget = budget
        self.deadline = time.monotonic() + budget.seconds
        self.built = 0
        self.iterations = 0

    def tick(self) -> None:
        if time.monotonic() > self.deadline:
            raise TemplateError(
                f"the template took more than {self.budget.seconds:g} s to render "
                "(template_budget.seconds)"
            )

    def bound(self, size: int, what: str) -> None:
        """Refuse ``what`` when it would hold more than one value may."""
        self.tick()
        if size > self.budget.value:
            raise TemplateError(
                f"{what} would hold {size:,} characters or items; a template builds values "
                f"of {self.budget.value:,} at most (template_budget.value)"
            )

    def charge(self, size: int) -> None:
        self.built += max(size, 0)  # 'x' * -5 builds nothing, and frees nothing
        if self.built > self.budget.memory:
            raise TemplateError(
                f"the template built more than {self.budget.memory:,} characters and items "
                "in all (template_budget.memory)"
            )

    def build(self, size: int, what: str) -> None:
        """Before building ``what`` of ``size`` characters or items."""
        self.bound(size, what)
        self.charge(size)

    def iterate(self, iterable: Iterable[Any], cost: int) -> Iterator[Any]:
        """``iterable``, each item counted as a loop iteration whose body adds ``cost``
        characters of template text."""
        limit = self.budget.iterations
        for item in iterable:
            self.iterations += 1
            if self.iterations > limit:
                raise TemplateError(
                    f"the template's loops ran more than {limit:,} iterations "
                    "(template_budget.iterations)"
                )
            self.tick()
            if cost:
                self.charge(cost)
            yield item

    def text_size(self, value: object, per_item: int = 0) -> int:
        """The length of ``value``'s text (``str()``), estimated without building it, and
        given up once over one value's bound; ``per_item``: characters each item of a
        container adds per level of nesting (an indented JSON's)."""
        return _text_size(value, self, self.budget.value, per_item, set(), 0)


_CONTAINERS = (list, tuple, set, frozenset, type({}.items()), type({}.keys()), type({}.values()))


def _text_size(
    value: object, meter: _Meter, limit: int, per_item: int, path: set[int], depth: int
) -> int:
    if isinstance(value, str):
        return len(value)
    if value is None or isinstance(value, bool):
        return 5
    if isinstance(value, int):
        return value.bit_length() * 30103 // 100000 + 2  # decimal digits and a sign
    if isinstance(value, float):
        return 24
    if isinstance(value, bytes | bytearray):
        return 4 * len(value) + 3  # b'\x00'
    items: Iterable[object]
    if isinstance(value, Namespace):
        items = _pairs(value._Namespace__attrs)  # type: ignore[attr-defined]
    elif isinstance(value, Mapping):
        items = _pairs(value)
    elif isinstance(value, _CONTAINERS):
        items = value  # type: ignore[assignment]
    else:
        return 64  # a function, a macro, a range, a loop: a short repr
    if id(value) in path:
        return 5  # [...]
    if depth >= MAX_DEPTH:
        raise TemplateError(f"a value nested more than {MAX_DEPTH} deep")
    path.add(id(value))
    total = 2
    try:
        for count, item in enumerate(items, 1):
            size = _text_size(item, meter, limit, per_item, path, depth + 1)
            # A string in a container is shown quoted; each item is followed by ", ".
            total += size + 4 + per_item * (depth + 1)
            if total > limit:
                break
            if not count & 1023:
                meter.tick()
    finally:
        path.discard(id(value))
    return total


def _pairs(mapping: Mapping[Any, Any]) -> Iterator[tuple[Any, Any]]:
    return iter(mapping.items())


def _built_size(value: object) -> int:
    """What a value just built holds: a string's characters, a container's items (its
    items' own sizes were counted as they were built); 0 for anything else."""
    if isinstance(value, str | bytes | bytearray | list | tuple | dict | set | frozenset):
        return len(value)
    return 0


def _spec_size(spec: str) -> int:
    """The widest a format spec (``>1000``, ``.3f``, ``*<20``) can make its field."""
    numbers = re.findall(r"\d+", spec)
    if any(len(n) > 12 for n in numbers):
        return 10**12
    return sum(int(n) for n in numbers)


_CONVERSION = re.compile(r"%(?:\(([^)]*)\))?[-#0 +]*(\*|\d+)?(?:\.(\*|\d+))?[hlL]?(.?)")


def _percent_size(text: str, args: object, meter: _Meter) -> int:
    """The most characters ``text % args`` can make (printf-style: ``%-1999999999s``,
    ``%.99999f``, ``%*s``)."""
    positional = iter(args if isinstance(args, tuple) else (args,))
    total = len(text)
    for match in _CONVERSION.finditer(text):
        key, width, precision, conversion = match.groups()
        if conversion == "%":
            continue
        for part in (width, precision):
            if part == "*":
                count = next(positional, 0)
                total += abs(count) if isinstance(count, int) else 0
            elif part:
                total += int(part) if len(part) <= 12 else 10**12
        if key is not None:
            value = args.get(key) if isinstance(args, Mapping) else None
        else:
            value = next(positional, None)
        total += meter.text_size(value)
    return total


# --- the filters: each one's bound before it runs ---------------------------------------------


def _check_center(
    meter: _Meter, size: int, value: Any, width: Any = 80, *_: Any, **__: Any
) -> None:
    meter.bound(max(size, width if isinstance(width, int) else 0), "|center")


def _check_indent(meter: _Meter, size: int, value: Any, width: Any = 4, *_: Any, **__: Any) -> None:
    indent = len(str(width)) if isinstance(width, str) else width if isinstance(width, int) else 0
    lines = str(value).count("\n") + 1
    meter.bound(size + lines * max(indent, 0), "|indent")


def _check_wordwrap(
    meter: _Meter,
    size: int,
    value: Any,
    width: Any = 79,
    break_long_words: Any = True,
    wrapstring: Any = None,
    *_: Any,
    **__: Any,
) -> None:
    # At most a line per character, each ended by the wrap string.
    meter.bound(size + (size + 1) * len(str(wrapstring or "\n")), "|wordwrap")


def _check_replace(
    meter: _Meter,
    size: int,
    value: Any,
    old: Any = "",
    new: Any = "",
    count: Any = None,
    *_: Any,
    **__: Any,
) -> None:
    text, old, new = str(value), str(old), str(new)
    found = text.count(old)
    if isinstance(count, int) and count >= 0:
        found = min(found, count)
    meter.bound(len(text) + found * max(len(new) - len(old), 0), "a replace()")


def _check_format(meter: _Meter, size: int, value: Any, *args: Any, **kwargs: Any) -> None:
    meter.bound(_percent_size(str(value), kwargs or args, meter), "|format")


def _check_truncate(
    meter: _Meter,
    size: int,
    value: Any,
    length: Any = 255,
    killwords: Any = False,
    end: Any = "...",
    *_: Any,
    **__: Any,
) -> None:
    meter.bound(size + len(str(end)), "|truncate")


def _check_batch(
    meter: _Meter, size: int, value: Any, linecount: Any = 1, fill_with: Any = None, **__: Any
) -> None:
    if fill_with is not None and isinstance(linecount, int):
        meter.bound(linecount, "|batch")


def _check_slice(meter: _Meter, size: int, value: Any, slices: Any = 1, *_: Any, **__: Any) -> None:
    if isinstance(slices, int):
        meter.bound(slices, "|slice")


def _check_tojson(meter: _Meter, size: int, value: Any, indent: Any = None, **__: Any) -> None:
    step = len(indent) if isinstance(indent, str) else indent if isinstance(indent, int) else 0
    # Every <, >, & and ' becomes a six-character escape.
    meter.bound(6 * meter.text_size(value, per_item=max(step, 0) + 1), "|tojson")


def _check_urlize(
    meter: _Meter,
    size: int,
    value: Any,
    trim_url_limit: Any = None,
    nofollow: Any = False,
    target: Any = None,
    rel: Any = None,
    *_: Any,
    **__: Any,
) -> None:
    per_link = len(str(target or "")) + len(str(rel or "")) + 64
    meter.bound(4 * size + (size // 2 + 1) * per_link, "|urlize")


def _scaled(factor: int, name: str) -> Callable[..., None]:
    """A filter whose text is at most ``factor`` times its value's (escapes, case mapping)."""

    def check(meter: _Meter, size: int, *_: Any, **__: Any) -> None:
        meter.bound(factor * size, f"|{name}")

    return check


def _check_nothing(meter: _Meter, size: int, *_: Any, **__: Any) -> None:
    pass


# The filters that turn their value into text, each with its bound; the others (length,
# first, sort, map...) make nothing larger than what they are given, checked after they run.
_TEXT_FILTERS: dict[str, Callable[..., None]] = {
    "capitalize": _scaled(3, "capitalize"),
    "center": _check_center,
    "e": _scaled(6, "e"),
    "escape": _scaled(6, "escape"),
    "forceescape": _scaled(6, "forceescape"),
    "format": _check_format,
    "indent": _check_indent,
    "lower": _scaled(3, "lower"),
    "pprint": lambda meter, size, value, *_, **__: meter.bound(
        meter.text_size(value, per_item=2), "|pprint"
    ),
    "replace": _check_replace,
    "safe": _check_nothing,
    "string": _check_nothing,
    "striptags": _check_nothing,
    "title": _scaled(3, "title"),
    "tojson": _check_tojson,
    "trim": _check_nothing,
    "truncate": _check_truncate,
    "upper": _scaled(3, "upper"),
    "urlencode": _scaled(12, "urlencode"),
    "urlize": _check_urlize,
    "wordcount": _check_nothing,
    "wordwrap": _check_wordwrap,
    "xmlattr": _scaled(6, "xmlattr"),
}
_COUNT_FILTERS: dict[str, Callable[..., None]] = {"batch": _check_batch, "slice": _check_slice}


# --- str and list methods called from a template ----------------------------------------------


def _check_widened(meter: _Meter, text: str | bytes, width: Any = 0, *_: Any, **__: Any) -> None:
    meter.bound(max(len(text), width if isinstance(width, int) else 0), "a padded string")


def _check_expandtabs(meter: _Meter, text: str | bytes, tabsize: Any = 8, **__: Any) -> None:
    tabs = text.count("\t" if isinstance(text, str) else b"\t")  # type: ignore[arg-type]
    meter.bound(len(text) + tabs * (tabsize if isinstance(tabsize, int) else 0), "expandtabs()")


def _check_translate(meter: _Meter, text: str | bytes, table: Any = None, *_: Any) -> None:
    values = table.values() if isinstance(table, Mapping) else table
    widest = 1
    if isinstance(values, Iterable) and not isinstance(values, str | bytes):
        widest = max((len(v) for v in values if isinstance(v, str | bytes)), default=1)
    meter.bound(len(text) * max(widest, 1), "translate()")


_STRING_METHODS: dict[str, Callable[..., None]] = {
    "center": _check_widened,
    "expandtabs": _check_expandtabs,
    "ljust": _check_widened,
    "rjust": _check_widened,
    "translate": _check_translate,
    "zfill": _check_widened,
}


class _CheckedFormatter(SandboxedFormatter):
    """``str.format``'s formatter, each field bounded before it is formatted (its width and
    precision, its value's text) and the whole result too."""

    def __init__(self, env: jinja2.Environment, meter: _Meter, **kwargs: Any) -> None:
        super().__init__(env, **kwargs)
        self.meter = meter
        self.size = 0

    def vformat(self, format_string: str, args: Any, kwargs: Any) -> str:
        self.size = len(format_string)
        self.meter.bound(self.size, "a format string")
        result = super().vformat(format_string, args, kwargs)
        self.meter.charge(len(result))
        return result

    def convert_field(self, value: Any, conversion: str | None) -> Any:
        if conversion is not None:
            self.meter.bound(self.meter.text_size(value), "a formatted field")
        return super().convert_field(value, conversion)

    def format_field(self, value: Any, format_spec: str) -> Any:
        self.size += self.meter.text_size(value) + _spec_size(format_spec)
        self.meter.bound(self.size, "a formatted string")
        return super().format_field(value, format_spec)


class _CheckedEscapeFormatter(_CheckedFormatter, SandboxedEscapeFormatter):
    """The same for a ``Markup`` string's ``format`` (``lipsum()`` returns one)."""


class _Counted:
    """A loop's iterable, each item counted by the meter; sized when the iterable is, so
    that ``loop.length`` reads no item ahead."""

    def __init__(self, iterable: Iterable[Any], meter: _Meter, cost: int) -> None:
        self.iterable, self.meter, self.cost = iterable, meter, cost

    def __iter__(self) -> Iterator[Any]:
        return self.meter.iterate(self.iterable, self.cost)


class _SizedCounted(_Counted):
    def __len__(self) -> int:
        return len(self.iterable)  # type: ignore[arg-type]


def _counted(iterable: Any, meter: _Meter, cost: int) -> _Counted:
    if isinstance(iterable, Sized):
        return _SizedCounted(iterable, meter, cost)
    return _Counted(iterable, meter, cost)


class _Checkpoints(NodeTransformer):
    """The template's tree with its two unchecked constructs routed through the sandbox:
    every loop's iterable (counted, each iteration charged the text of its body) and every
    ``~`` (bounded before the strings are joined)."""

    def __init__(self) -> None:
        self.recursive_cost = 0

    def visit_Concat(self, node: nodes.Concat) -> nodes.Node:
        self.generic_visit(node)
        items = nodes.List(node.nodes, lineno=node.lineno)
        return nodes.Filter(items, CONCAT_FILTER, [], [], None, None, lineno=node.lineno)

    def visit_For(self, node: nodes.For) -> nodes.Node:
        self.generic_visit(node)
        cost = sum(
            len(data.data) for child in node.body for data in child.find_all(nodes.TemplateData)
        )
        if node.recursive:
            self.recursive_cost = max(self.recursive_cost, cost)
        node.iter = nodes.Filter(
            node.iter, LOOP_FILTER, [nodes.Const(cost)], [], None, None, lineno=node.iter.lineno
        )
        return node


class TemplateSandbox(SandboxedEnvironment):
    """Jinja's sandbox, every checkpoint of which keeps one render within its budget (see
    the module's docstring). One environment per render: the budget is spent as it runs."""

    intercepted_binops = frozenset({"*", "**", "+", "%"})

    def __init__(self, budget: TemplateBudget, loader: jinja2.BaseLoader) -> None:
        self.meter = _Meter(budget)
        self.recursive_cost = 0
        super().__init__(
            undefined=jinja2.StrictUndefined,
            autoescape=False,
            loader=loader,
            keep_trailing_newline=True,
            # The template's own line ends are the text's: a rendered line is a template line.
            newline_sequence="\n",
            extensions=(),
            finalize=self._output,
        )
        self.filters = {name: self._checked_filter(name, f) for name, f in self.filters.items()}
        self.filters["join"] = self._join
        self.filters["sum"] = self._sum
        self.filters[LOOP_FILTER] = self._loop
        self.filters[CONCAT_FILTER] = self._concat
        self.tests = {name: self._checked_test(name, t) for name, t in self.tests.items()}
        self.globals["lipsum"] = self._lipsum

    def prepare(self, tree: nodes.Template) -> nodes.Template:
        """``tree`` with its loops and ``~`` checked (before it is compiled)."""
        checkpoints = _Checkpoints()
        checkpoints.visit(tree)
        self.recursive_cost = checkpoints.recursive_cost
        return tree

    def bounded_output(self, chunks: Iterable[str]) -> Iterator[str]:
        """The rendered ``chunks``, refused once they exceed the output budget."""
        limit, total = self.meter.budget.output, 0
        for chunk in chunks:
            total += len(chunk)
            if total > limit:
                raise TemplateError(
                    f"the template renders more than {limit:,} characters (template_budget.output)"
                )
            yield chunk

    # --- the sandbox's own hooks ---

    def call(__self, __context: Any, __obj: Any, *args: Any, **kwargs: Any) -> Any:
        meter = __self.meter
        meter.tick()
        receiver = getattr(__obj, "__self__", None)
        name = getattr(__obj, "__name__", None) or getattr(__obj, "name", None) or "a call"
        if isinstance(receiver, str | bytes) and name in _STRING_METHODS:
            _STRING_METHODS[name](meter, receiver, *args, **kwargs)
        elif isinstance(receiver, str | bytes) and name == "join" and len(args) == 1:
            items = list(args[0])
            size = sum(meter.text_size(i) for i in items) + len(receiver) * len(items)
            meter.bound(size, "join()")
            args = (items,)
        elif isinstance(receiver, str | bytes) and name == "replace" and len(args) >= 2:
            count = args[2] if len(args) > 2 else kwargs.get("count", -1)
            _check_replace(meter, len(receiver), receiver, args[0], args[1], count)
        elif isinstance(receiver, list) and name == "extend" and len(args) == 1:
            items = list(args[0])
            meter.build(len(receiver) + len(items), "a list extended")
            args = (items,)
        if isinstance(__obj, LoopContext) and args:
            args = (_counted(args[0], meter, __self.recursive_cost), *args[1:])
        result = super().call(__context, __obj, *args, **kwargs)
        size = _built_size(result)
        if size:
            meter.build(size, f"the value of {name}()")
        if isinstance(receiver, list | dict | set):
            meter.bound(len(receiver), f"a {type(receiver).__name__} grown")
        return result

    def call_binop(self, context: Any, operator: str, left: Any, right: Any) -> Any:
        meter = self.meter
        meter.tick()
        if operator == "**":
            if isinstance(right, int) and abs(right) > 1024:
                raise TemplateError(f"an exponent of {right} is beyond what a template may compute")
            if isinstance(left, int) and isinstance(right, int) and right > 0:
                _integer_bits(left.bit_length() * right)
        elif operator == "*":
            if isinstance(left, int) and isinstance(right, int):
                _integer_bits(left.bit_length() + right.bit_length())
            for sequence, count in ((left, right), (right, left)):
                if isinstance(sequence, str | bytes | list | tuple) and isinstance(count, int):
                    meter.build(len(sequence) * count, "a repeated string or list")
        elif operator == "+":
            if isinstance(left, str | bytes | list | tuple) and isinstance(
                right, str | bytes | list | tuple
            ):
                meter.build(len(left) + len(right), "a value made with +")
        elif operator == "%" and isinstance(left, str):
            meter.build(_percent_size(left, right, meter), "a string formatted with %")
        return super().call_binop(context, operator, left, right)

    def getattr(self, obj: Any, attribute: str) -> Any:
        self.meter.tick()
        return super().getattr(obj, attribute)

    def getitem(self, obj: Any, argument: Any) -> Any:
        self.meter.tick()
        return super().getitem(obj, argument)

    def wrap_str_format(self, value: Any) -> Callable[..., str] | None:
        """Jinja's own ``str.format`` wrapper, with a formatter that bounds each field."""
        if not callable(value) or getattr(value, "__name__", None) not in ("format", "format_map"):
            return None
        text = getattr(value, "__self__", None)
        if not isinstance(text, str):
            return None
        is_format_map = value.__name__ == "format_map"
        meter = self.meter

        def wrapper(*args: Any, **kwargs: Any) -> str:
            if is_format_map:
                if kwargs or len(args) != 1:
                    raise TypeError("format_map() takes exactly one argument")
                kwargs, args = args[0], ()
            formatter: _CheckedFormatter
            if isinstance(text, Markup):
                formatter = _CheckedEscapeFormatter(self, meter, escape=text.escape)
            else:
                formatter = _CheckedFormatter(self, meter)
            return type(text)(formatter.vformat(text, args, kwargs))

        return functools.update_wrapper(wrapper, value)

    # --- what the sandbox provides, checked ---

    def _output(self, value: Any) -> Any:
        """Each ``{{ value }}``, measured as text before it is made text."""
        self.meter.build(self.meter.text_size(value), "an output value")
        return value

    @pass_context
    def _loop(self, context: Any, iterable: Any, cost: int) -> _Counted:
        return _counted(iterable, self.meter, cost)

    @pass_context
    def _concat(self, context: Any, items: list[Any]) -> str:
        meter = self.meter
        meter.build(sum(meter.text_size(i) for i in items), "a string joined with ~")
        return "".join(map(str, items))

    def _join(self, value: Any, d: Any = "", attribute: Any = None) -> str:
        items = list(value)
        if attribute is not None:
            items = list(map(make_attrgetter(self, attribute), items))
        meter = self.meter
        size = sum(meter.text_size(i) for i in items) + len(str(d)) * len(items)
        meter.build(size, "|join")
        return str(d).join(map(str, items))

    def _sum(self, iterable: Any, attribute: Any = None, start: Any = 0) -> Any:
        items = list(iterable)
        if attribute is not None:
            items = list(map(make_attrgetter(self, attribute), items))
        for item in (start, *items):
            if not isinstance(item, int | float):
                raise TemplateError(f"|sum adds numbers; got {type(item).__name__}")
            self.meter.tick()
        return sum(items, start)

    def _lipsum(self, n: Any = 5, html: bool = True, min: Any = 20, max: Any = 100) -> str:
        if isinstance(n, int) and isinstance(max, int):
            # A word is at most 12 characters and a space; each paragraph adds its markup.
            self.meter.build(n * (13 * max + 16), "lipsum()")
        return generate_lorem_ipsum(n=n, html=html, min=min, max=max)

    def _checked_filter(self, name: str, function: Callable[..., Any]) -> Callable[..., Any]:
        text_check = _TEXT_FILTERS.get(name)
        count_check = _COUNT_FILTERS.get(name)
        # A filter marked @pass_context (or eval context, environment) takes that first.
        passed = 1 if getattr(function, "jinja_pass_arg", None) is not None else 0
        meter = self.meter

        def checked(*args: Any, **kwargs: Any) -> Any:
            meter.tick()
            rest = args[passed:]
            if rest and text_check is not None:
                size = meter.text_size(rest[0])
                meter.bound(size, f"the value of |{name}")
                text_check(meter, size, *rest, **kwargs)
            elif rest and count_check is not None:
                count_check(meter, 0, *rest, **kwargs)
            result = function(*args, **kwargs)
            size = _built_size(result)
            if size:
                meter.build(size, f"|{name}")
            return result

        return functools.update_wrapper(checked, function)

    def _checked_test(self, name: str, function: Callable[..., Any]) -> Callable[..., Any]:
        meter = self.meter
        text = name in ("lower", "upper")  # str(value) first

        def checked(*args: Any, **kwargs: Any) -> Any:
            meter.tick()
            if text and args:
                meter.bound(meter.text_size(args[0]), f"is {name}")
            return function(*args, **kwargs)

        return functools.update_wrapper(checked, function)


def _integer_bits(bits: int) -> None:
    if bits > MAX_INTEGER_BITS:
        raise TemplateError(
            f"an integer of about {bits:,} bits is beyond what a template may compute "
            f"({MAX_INTEGER_BITS:,})"
        )
