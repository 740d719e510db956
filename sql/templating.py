"""Jinja-templated legacy SQL (dbt's ``{{ ref('x') }}``, bigquery-etl's ``{% if %}``), rendered
with the project's variables before translation, diagnostics located in the template.

What a template may use:
- its variables, by name (``{{ start_date }}``) or with dbt's ``var('name'[, default])``;
- ``ref('table')``: the catalog table of that name, in any zone, written as its name in the
  source dialect (the longest legacy name the catalog maps to it, quoted exactly);
- ``source('schema', 'table')``: the legacy name ``schema.table``, resolved in the catalog as
  the translator resolves a name written in the SQL (the default namespace completes it);
- ``is_incremental()`` and ``is_init()`` (bigquery-etl): the variables of those names,
  false unless given; ``config(...)`` renders nothing;
- ``{% if %}``, ``{% for %}``, ``{% set %}``, ``{% macro %}`` defined in the file, filters.

Nothing else is provided: ``{% include %}``, ``{% import %}``, ``{% extends %}`` and
another project's macros (bigquery-etl's ``metrics.calculate(...)``, dbt packages) are refused,
located, rather than guessed at. The environment is Jinja's sandbox (no attribute of Python's
internals, no file read: the loader refuses every name), autoescape off, and an undefined name
is an error (``StrictUndefined``), never an empty string.

Locating: every piece of literal template text that reaches the output carries its template
line (a marker, removed after rendering), so each rendered line knows the template line it came
from. A column is the template's own where the rendered line equals the template line, and for
text before the first or after the last change on the line; text a tag produced is located at
the start of the line's first tag. Limits: each repetition of a ``{% for %}`` body maps to the
body's lines; text a macro, a ``{% call %}``, a ``{% filter %}`` block or a ``{% set %}``
block produced is located where it is output, not inside the macro.

Detection (``is_template``): a file whose name ends in ``.j2`` or ``.jinja``, or whose text
holds ``{{``, ``{%`` or ``{#`` (dbt and bigquery-etl name their templates ``.sql``). A plain
SQL file with such text in a string literal is read as a template: write it
``{{ '{{' }}``, or the template fails to render (located) rather than translating something
else.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from types import TracebackType
from typing import Any, NoReturn

import jinja2
from jinja2 import nodes
from sqlglot import exp
from sqlglot.errors import SqlglotError

from sql.assumptions import Assumptions
from sql.catalog import Catalog
from sql.diagnostics import Diagnostic, TranslationError
from sql.parameters import QueryParameter
from sql.source_dialects import SOURCE_DIALECTS
from sql.template_sandbox import TemplateBudget, TemplateError, TemplateSandbox
from sql.translate import ScriptTranslation, translate_script

__all__ = ["TemplateBudget", "TemplateError"]

RULE = "TEMPLATE"
TEMPLATE_SUFFIXES = (".j2", ".jinja")
# The variables bigquery-etl and dbt test with a function call; false unless given.
FLAG_FUNCTIONS = ("is_incremental", "is_init")
# What a template calls; is_incremental and is_init are also variables (their values).
PROVIDED = frozenset({"ref", "source", "var", "config"})
# A variable's value: what a defs.yaml or --var can state. A value renders as str() does.
TemplateValue = str | int | float | bool | list[str | int | float | bool]
# A piece of a rendered line: (rendered column, template line, template column, length).
Segment = tuple[int, int, int, int]
# Private-use characters around a piece of literal text's template position in the rendered
# text (see _mark): line:column:length, column 0 where it is not known.
_OPEN, _CLOSE = "\ue000", "\ue001"
_MARKER = re.compile(f"{_OPEN}(\\d+):(\\d+):(\\d+){_CLOSE}")


def is_template(text: str, file: str = "") -> bool:
    """Whether ``text`` (the file ``file``) is read as a Jinja template (see the docstring)."""
    return file.endswith(TEMPLATE_SUFFIXES) or any(t in text for t in ("{{", "{%", "{#"))


def file_stem(file: str) -> str:
    """The table a file names: ``daily.sql.j2`` and ``daily.sql`` both name ``daily``."""
    name = Path(file).name
    for suffix in TEMPLATE_SUFFIXES:
        name = name.removesuffix(suffix)
    return Path(name).stem


_INTEGER = re.compile(r"-?(0|[1-9][0-9]*)")


def variable_assignment(text: str) -> tuple[str, TemplateValue]:
    """``NAME=VALUE`` as a variable: ``true``/``false`` are booleans (``{% if flag %}`` needs
    one: the string 'false' is true), a decimal integer is an int, anything else a string
    (``010`` and ``1e3`` too: no YAML-style guessing). Raises ValueError."""
    name, equals, value = text.partition("=")
    if not equals or not name.isidentifier():
        raise ValueError(f"{text!r}: expected NAME=VALUE")
    if value in ("true", "false"):
        return name, value == "true"
    if _INTEGER.fullmatch(value):
        return name, int(value)
    return name, value


def sha256_text(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


@dataclass(frozen=True)
class RenderedTemplate:
    """A template rendered to SQL, and where each rendered line came from."""

    file: str
    sql: str
    template_sha256: str  # of the template's text
    # The variables the template read (by name, var(), is_incremental()...), with their values.
    variables: Mapping[str, TemplateValue]
    # Per rendered line, in order, each piece of it: (its first rendered column, the template
    # line, column and length of the literal text it starts with; column 0: not known).
    segments: tuple[tuple[Segment, ...], ...] = field(repr=False)
    template_lines: tuple[str, ...] = field(repr=False)

    @property
    def sql_sha256(self) -> str:
        return sha256_text(self.sql)

    def locate(self, line: int, col: int) -> tuple[int, int]:
        """The template line and column of rendered ``line``:``col`` (1-based): within literal
        text, its own place; in what a tag output, the tag's start."""
        if not 1 <= line <= len(self.segments):
            return (self.segments[-1][-1][1] if self.segments else 1), 1
        pieces = self.segments[line - 1]
        start, template_line, template_col, length = next(
            (p for p in reversed(pieces) if p[0] <= col), pieces[0]
        )
        source = _line(self.template_lines, template_line)
        if template_col:
            if 0 <= col - start < length:
                return template_line, template_col + col - start
            # Output of the tag after the literal text (whitespace control may sit between).
            tag = source.find("{", template_col - 1 + length)
            return template_line, (tag + 1) if tag >= 0 else template_col + length
        rendered = self.sql.split("\n")[line - 1]
        return template_line, _aligned_column(rendered, source, col)

    def relocate(self, diagnostic: Diagnostic) -> Diagnostic:
        """``diagnostic`` of the rendered SQL, located in the template."""
        line, col = self.locate(diagnostic.line, diagnostic.col)
        return replace(diagnostic, file=self.file, line=line, col=col)


def _aligned_column(rendered: str, source: str, col: int) -> int:
    """``col`` of ``rendered`` as a column of ``source``, the template line it came from, where
    the literal text's place is not known (the lines of a multi-line value): the same where
    the text before it (or after it) is the template's own, else where the two lines start to
    differ."""
    if rendered == source:
        return col
    limit = min(len(rendered), len(source))
    prefix = 0
    while prefix < limit and rendered[prefix] == source[prefix]:
        prefix += 1
    suffix = 0
    while suffix < limit - prefix and rendered[-1 - suffix] == source[-1 - suffix]:
        suffix += 1
    if col - 1 < prefix:
        return col
    if len(rendered) - suffix < col <= len(rendered):
        return col - len(rendered) + len(source)
    return prefix + 1


class _NoFiles(jinja2.BaseLoader):
    """The loader of every template: it holds no file. ``{% include %}``, ``{% import %}``
    and ``{% extends %}`` are refused, located, and read nothing."""

    def get_source(self, environment: jinja2.Environment, template: str) -> NoReturn:
        raise TemplateError(
            f"{{% include %}}, {{% import %}} and {{% extends %}} are not provided "
            f"({template!r}): inline what it holds in this file",
            needle=r"\{%-?\s*(include|import|from|extends)\b",
        )


def _mark(template: nodes.Template, lines: Sequence[str]) -> None:
    """Put a marker of its template position before each piece of literal text that goes
    straight to the output, and after each of its newlines. Text inside a macro, a call
    block, a filter block or a set block is left alone: a filter or a caller could measure
    or change it."""
    cursor: dict[int, int] = {}  # per template line, where the last literal text ended

    def walk(node: nodes.Node) -> None:
        if isinstance(node, nodes.Macro | nodes.CallBlock | nodes.FilterBlock | nodes.AssignBlock):
            return
        if isinstance(node, nodes.Output):
            for child in node.nodes:
                if isinstance(child, nodes.TemplateData):
                    child.data = _marked(child.data, child.lineno, lines, cursor)
        for child in node.iter_child_nodes():
            walk(child)

    walk(template)


def _marked(data: str, line: int, lines: Sequence[str], cursor: dict[int, int]) -> str:
    """``data`` (literal text starting on template ``line``) with its position marked. Jinja
    keeps no column: the text's first line is found on its template line after the previous
    literal text (the nodes come in template order); each later line starts its line."""
    marked = []
    for i, piece in enumerate(data.split("\n")):
        number = line + i
        source = _line(lines, number)
        if i:
            col = 1 if source.startswith(piece) else 0
        else:
            found = source.find(piece, cursor.get(number, 0)) if piece else -1
            col = found + 1
        if col:
            cursor[number] = col - 1 + len(piece)
        marked.append(f"{_OPEN}{number}:{col}:{len(piece)}{_CLOSE}{piece}")
    return "\n".join(marked)


def _unmarked(text: str) -> tuple[str, tuple[tuple[Segment, ...], ...]]:
    """The rendered text without markers, and each rendered line's pieces (see
    ``RenderedTemplate.segments``)."""
    lines: list[list[Segment]] = [[(1, 1, 0, 0)]]
    out: list[str] = []
    current, col = 1, 1
    position = 0
    for match in _MARKER.finditer(text):
        col = _append(text[position : match.start()], out, lines, current, col)
        current = int(match.group(1))
        segment = (col, current, int(match.group(2)), int(match.group(3)))
        if lines[-1][-1][0] == col:
            lines[-1][-1] = segment
        else:
            lines[-1].append(segment)
        position = match.end()
    _append(text[position:], out, lines, current, col)
    return "".join(out), tuple(tuple(pieces) for pieces in lines)


def _append(piece: str, out: list[str], lines: list[list[Segment]], current: int, col: int) -> int:
    """Add rendered text of template line ``current`` at column ``col``; the column after it.
    A line it starts has no known template column (a multi-line value's lines)."""
    out.append(piece)
    parts = piece.split("\n")
    for _ in parts[1:]:
        lines.append([(1, current, 0, 0)])
    return (col + len(parts[0])) if len(parts) == 1 else len(parts[-1]) + 1


class _Functions:
    """The functions a template calls, over one catalog, dialect and set of variables; it
    records which variables the template read."""

    def __init__(
        self,
        catalog: Catalog,
        dialect: str,
        variables: Mapping[str, TemplateValue],
        file: str,
        assumptions: Assumptions | None,
    ):
        self.catalog, self.dialect, self.file = catalog, dialect, file
        self.variables, self.assumptions = variables, assumptions
        self.read: dict[str, TemplateValue] = {}

    def globals(self) -> dict[str, Callable[..., Any]]:
        flags = {name: self._flag(name) for name in FLAG_FUNCTIONS}
        return {"ref": self.ref, "source": self.source, "var": self.var, "config": _config, **flags}

    def _flag(self, name: str) -> Callable[[], bool]:
        def flag() -> bool:
            value = self.variables.get(name, False)
            if not isinstance(value, bool):
                raise TemplateError(
                    f"the variable {name} is {value!r}; {name}() needs true or false",
                    needle=rf"\b{name}\s*\(",
                )
            self.read[name] = value
            return value

        return flag

    def var(self, name: str, *default: TemplateValue) -> TemplateValue:
        if len(default) > 1:
            raise TemplateError("var() takes a name and at most one default", needle=r"\bvar\s*\(")
        if name in self.variables:
            self.read[name] = self.variables[name]
            return self.variables[name]
        if default:
            return default[0]
        raise TemplateError(
            f"var({name!r}) is not given and has no default; give it (--var {name}=VALUE, or "
            "template_vars in defs.yaml) or write var('name', default)",
            needle=rf"\bvar\s*\(\s*['\"]{re.escape(str(name))}['\"]",
        )

    def ref(self, *args: object, **kwargs: object) -> str:
        if len(args) != 1 or kwargs or not isinstance(args[0], str):
            raise TemplateError(
                "ref() takes one table name (dbt's package and version arguments have no "
                "meaning here)",
                needle=r"\bref\s*\(",
            )
        name = args[0]
        needle = rf"\bref\s*\(\s*['\"]{re.escape(name)}['\"]"
        tables = sorted(
            t for t in self.catalog.tables if t.split(".", 1)[1].lower() == name.lower()
        )
        searched = ", ".join(self.catalog.sources) or "the catalog"
        if not tables:
            raise TemplateError(
                f"ref({name!r}): no table {name!r} in the catalog (searched: {searched})", needle
            )
        if len(tables) > 1:
            raise TemplateError(
                f"ref({name!r}) can name {', '.join(tables)}; write source('schema', "
                f"'{name}') with its {self.dialect} name",
                needle,
            )
        lake = tables[0]
        names = [k for k, v in self.catalog.legacy.get(self.dialect, {}).items() if v == lake]
        if not names:
            raise TemplateError(
                f"ref({name!r}) is the lake table {lake}, which has no {self.dialect} name in "
                f"the catalog ({searched}); add one under legacy.{self.dialect}",
                needle,
            )
        # The fullest name, written quoted as the catalog folded it: it resolves as written,
        # to this table, with no default namespace assumed.
        parts = max(names, key=lambda k: (len(k), k))
        return self._written(
            parts, quoted=True, expected=lake, needle=needle, shown=f"ref({name!r})"
        )

    def source(self, *args: object, **kwargs: object) -> str:
        if len(args) != 2 or kwargs or not all(isinstance(a, str) for a in args):
            raise TemplateError(
                "source() takes a schema (dbt's source name) and a table name",
                needle=r"\bsource\s*\(",
            )
        schema, table = str(args[0]), str(args[1])
        needle = rf"\bsource\s*\(\s*['\"]{re.escape(schema)}['\"]"
        return self._written(
            (schema, table),
            quoted=False,
            expected=None,
            needle=needle,
            shown=f"source({schema!r}, {table!r})",
        )

    def _written(
        self,
        parts: Sequence[str],
        *,
        quoted: bool,
        expected: str | None,
        needle: str,
        shown: str,
    ) -> str:
        """``parts`` as a table name of the dialect, after checking that the translator will
        resolve what is written to ``expected`` (or to a table at all): it is parsed back and
        resolved as the SQL around it will be."""
        dialect = SOURCE_DIALECTS.get(self.dialect, self.dialect)
        identifiers = [exp.to_identifier(p, quoted=True if quoted else None) for p in parts]
        table = exp.Table(
            this=identifiers[-1],
            db=identifiers[-2] if len(identifiers) > 1 else None,
            catalog=identifiers[-3] if len(identifiers) > 2 else None,
        )
        text = table.sql(dialect=dialect)
        try:
            parsed = exp.to_table(text, dialect=dialect)
        except SqlglotError:
            raise TemplateError(
                f"{shown}: {text} does not read back as a table name", needle
            ) from None
        read = [p for p in parsed.parts if isinstance(p, exp.Identifier)]
        try:
            resolution = self.catalog.resolve_name(
                read, self.dialect, self.file, 1, 1, self.assumptions
            )
        except TranslationError as error:
            message = error.diagnostics[0].message
            raise TemplateError(f"{shown}: {message}", needle) from None
        if expected is not None and resolution.lake_table != expected:
            raise TemplateError(
                f"{shown}: {text} resolves to {resolution.lake_table}, not {expected}", needle
            )
        return text


def _config(*_args: object, **_kwargs: object) -> str:
    """dbt's model configuration: materialization, partitioning; not part of the query."""
    return ""


def _variables_checked(variables: Mapping[str, TemplateValue], file: str) -> None:
    for name, value in variables.items():
        values = value if isinstance(value, list) else [value]
        if not name.isidentifier():
            _fail(file, 1, 1, f"template variable {name!r} is not a name a template can use")
        if name in PROVIDED:
            _fail(file, 1, 1, f"template variable {name!r} would hide the function {name}()")
        for item in values:
            if not isinstance(item, str | int | float | bool):
                _fail(
                    file,
                    1,
                    1,
                    f"template variable {name}: {type(item).__name__} is not a "
                    "string, number, boolean or list of them",
                )
            if isinstance(item, str) and (_OPEN in item or _CLOSE in item):
                _fail(file, 1, 1, f"template variable {name} holds U+E000/U+E001")


def _fail(file: str, line: int, col: int, message: str) -> NoReturn:
    raise TranslationError([Diagnostic("error", RULE, message, file, line, col)])


def _template_line(traceback: TracebackType | None, filename: str) -> int | None:
    """The template line of the innermost frame of the template in ``traceback`` (Jinja
    rewrites a template's frames to its lines)."""
    found = None
    while traceback is not None:
        if traceback.tb_frame.f_code.co_filename == filename:
            found = traceback.tb_lineno
        traceback = traceback.tb_next
    return found


def _column(line_text: str, needle: str | None) -> int:
    if needle:
        match = re.search(needle, line_text)
        if match:
            return match.start() + 1
    tag = re.search(r"\{[{%]", line_text)
    return tag.start() + 1 if tag else 1


def render_template(
    text: str,
    *,
    file: str,
    dialect: str,
    catalog: Catalog,
    variables: Mapping[str, TemplateValue] | None = None,
    assumptions: Assumptions | None = None,
    budget: TemplateBudget | None = None,
) -> RenderedTemplate:
    """``text`` rendered with ``variables``; raises ``TranslationError`` (rule TEMPLATE)
    located in the template when it does not render, or not within ``budget``
    (``sql.template_sandbox``: the wall time, what it builds, its output)."""
    variables = dict(variables or {})
    _variables_checked(variables, file)
    source = text.replace("\r\n", "\n")
    lines = tuple(source.split("\n"))
    if _OPEN in source or _CLOSE in source:
        offset = min(i for i in (source.find(_OPEN), source.find(_CLOSE)) if i >= 0)
        line = source.count("\n", 0, offset) + 1
        _fail(file, line, offset - source.rfind("\n", 0, offset), "U+E000/U+E001 in a template")
    # Made first: the budget's clock runs from here, through parsing and compiling.
    environment = TemplateSandbox(budget or TemplateBudget(), _NoFiles())
    functions = _Functions(catalog, dialect, variables, file, assumptions)
    # A name no Python file has: how the template's frames are found in a traceback.
    filename = f"<template {sha256_text(file)[:16]}>"
    try:
        tree = environment.parse(source, name=file, filename=filename)
        _check_calls(tree, lines, file)
        names = _names_read(tree)
        _mark(tree, lines)
        code = environment.compile(environment.prepare(tree), name=file, filename=filename)
        template = environment.template_class.from_code(
            environment, code, environment.make_globals(functions.globals()), None
        )
        context = {n: v for n, v in variables.items() if n not in FLAG_FUNCTIONS}
        output = "".join(environment.bounded_output(template.generate(**context)))
    except jinja2.TemplateSyntaxError as error:
        line = error.lineno or 1
        _fail(file, line, _column(_line(lines, line), None), f"template syntax: {error.message}")
    except (
        TemplateError,
        jinja2.TemplateError,
        ArithmeticError,
        AttributeError,
        LookupError,
        RecursionError,
        TypeError,
        ValueError,
    ) as error:
        # A template is code: whatever stops it is a located refusal, never a traceback.
        line = _template_line(error.__traceback__, filename) or 1
        needle = error.needle if isinstance(error, TemplateError) else _needle(error)
        message = _message(error)
        _fail(file, line, _column(_line(lines, line), needle), message)
    used = {n: variables[n] for n in sorted(names) if n in variables}
    used.update(functions.read)
    sql, segments = _unmarked(output)
    if _OPEN in sql or _CLOSE in sql:
        _fail(file, 1, 1, "the template's output holds U+E000/U+E001")
    return RenderedTemplate(
        file=file,
        sql=sql,
        template_sha256=sha256_text(text),
        variables=dict(sorted(used.items())),
        segments=segments,
        template_lines=lines,
    )


def _check_calls(tree: nodes.Template, lines: Sequence[str], file: str) -> None:
    """Refuse a provided function named without being called: ``{% if is_incremental %}``
    would test the function itself, which is always true."""
    called = {id(call.node) for call in tree.find_all(nodes.Call)}
    functions = PROVIDED | set(FLAG_FUNCTIONS)
    for name in tree.find_all(nodes.Name):
        if name.name in functions and name.ctx == "load" and id(name) not in called:
            text = _line(lines, name.lineno)
            col = _column(text, rf"\b{name.name}\b")
            _fail(file, name.lineno, col, f"{name.name} is a function: write {name.name}(...)")


def _line(lines: Sequence[str], line: int) -> str:
    return lines[line - 1] if 1 <= line <= len(lines) else ""


def _names_read(tree: nodes.Template) -> set[str]:
    """The variables the template names (``{{ start_date }}``), whichever branch renders."""
    from jinja2 import meta

    return set(meta.find_undeclared_variables(tree))


_UNDEFINED = re.compile(r"^'([^']+)' is undefined$")


def _needle(error: Exception) -> str | None:
    match = _UNDEFINED.match(str(error))
    return rf"\b{re.escape(match.group(1))}\b" if match else None


def _message(error: Exception) -> str:
    text = str(error).replace("\n", " ")
    if isinstance(error, jinja2.UndefinedError):
        match = _UNDEFINED.match(text)
        if match:
            return (
                f"{match.group(1)!r} is undefined: give it as a template variable (--var "
                f"{match.group(1)}=VALUE, or template_vars in defs.yaml); macros of another "
                "project (bigquery-etl's metrics, dbt packages) are not provided"
            )
        return f"undefined: {text}"
    if isinstance(error, jinja2.exceptions.SecurityError):
        return f"refused by the template sandbox: {text}"
    if isinstance(error, TemplateError):
        return text
    return f"the template failed to render: {type(error).__name__}: {text}"


def translate_rendered(
    rendered: RenderedTemplate,
    dialect: str,
    *,
    name: str | None,
    catalog: Catalog,
    assumptions: Assumptions | None = None,
    strict: bool = False,
    parameters: Mapping[str, QueryParameter] | None = None,
    typed: bool = False,
) -> ScriptTranslation:
    """Translate the rendered SQL of a template; every diagnostic and statement position is
    the template's. Raises ``TranslationError`` located in the template."""
    try:
        script = translate_script(
            rendered.sql,
            dialect,
            file=rendered.file,
            name=name,
            catalog=catalog,
            assumptions=assumptions,
            strict=strict,
            parameters=parameters,
            typed=typed,
        )
    except TranslationError as error:
        located = dict.fromkeys(rendered.relocate(d) for d in error.diagnostics)
        # Of the same kind (a file over the size limits is bad input, sql/source_limits.py).
        raise type(error)(sorted(located, key=lambda d: (d.line, d.col, d.rule))) from None
    tables = []
    for table in script.tables:
        line, col = rendered.locate(table.line, table.col)
        diagnostics = tuple(rendered.relocate(d) for d in table.diagnostics)
        tables.append(replace(table, line=line, col=col, diagnostics=diagnostics))
    return replace(script, tables=tuple(tables))


def translate_source_text(
    text: str,
    dialect: str,
    *,
    file: str,
    name: str | None,
    catalog: Catalog,
    assumptions: Assumptions | None = None,
    variables: Mapping[str, TemplateValue] | None = None,
    strict: bool = False,
    parameters: Mapping[str, QueryParameter] | None = None,
    typed: bool = False,
    budget: TemplateBudget | None = None,
) -> tuple[ScriptTranslation, RenderedTemplate | None]:
    """A legacy file's text translated: rendered first when it is a template (``is_template``,
    within ``budget``), with what it rendered to (None for plain SQL). ``parameters``:
    BigQuery query parameters' values (sql/parameters.py)."""
    if not is_template(text, file):
        script = translate_script(
            text,
            dialect,
            file=file,
            name=name,
            catalog=catalog,
            assumptions=assumptions,
            strict=strict,
            parameters=parameters,
            typed=typed,
        )
        return script, None
    rendered = render_template(
        text,
        file=file,
        dialect=dialect,
        catalog=catalog,
        variables=variables,
        assumptions=assumptions,
        budget=budget,
    )
    return translate_rendered(
        rendered,
        dialect,
        name=name,
        catalog=catalog,
        assumptions=assumptions,
        strict=strict,
        parameters=parameters,
        typed=typed,
    ), rendered
