"""Translate one legacy SQL file to one ANSI SELECT, exactly or not at all.

Pipeline: parse in the source dialect -> fold the script into one query -> syntax rules
(ROWNUM, hints, Oracle (+)) -> resolve legacy table names through the catalog -> qualify
columns and annotate types against the lake schema -> typed rules -> QUALIFY
elimination -> strict ANSI generation. Every refusal is a located ``TranslationError``.
"""

from __future__ import annotations

import gc
import hashlib
import re
from bisect import bisect_right
from collections import deque
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from functools import lru_cache
from pathlib import Path

import sqlglot
from sqlglot import exp, transforms
from sqlglot.dialects.dialect import NormalizationStrategy
from sqlglot.errors import OptimizeError, ParseError, SqlglotError, UnsupportedError
from sqlglot.optimizer.annotate_types import TypeAnnotator, annotate_types
from sqlglot.optimizer.normalize_identifiers import normalize_identifiers
from sqlglot.optimizer.qualify_columns import qualify_columns
from sqlglot.optimizer.qualify_tables import qualify_tables
from sqlglot.schema import MappingSchema, ensure_schema
from sqlglot.tokens import Token, TokenType

from sql import ansi, portable, scopes, wildcards
from sql.assumptions import Assumptions, load_assumptions
from sql.catalog import (
    DECLARED_META,
    OPAQUE_PREFIX,
    Catalog,
    declared_type,
    is_opaque,
    legacy_key,
    load_catalog,
)
from sql.client_commands import DotCommand, read_bteq
from sql.diagnostics import (
    Diagnostic,
    LineIndex,
    TranslationError,
    check_source_text,
    node_offset,
    offset_to_line_col,
)
from sql.parameters import ParameterError, QueryParameter, parameter_values
from sql.retype import retype, type_by_children
from sql.rules import Context, apply_rules, load_all, rules_for
from sql.rules.arrays import array_outputs
from sql.rules.base import candidates
from sql.rules.build import STRING_TYPES
from sql.rules.portable_types import portable_output_types
from sql.rules.variant import ACCESSES as VARIANT_ACCESSES
from sql.rules.variant import VALUE_PICKERS, derived_projections, is_json_text, picked
from sql.script import Definition, split_script
from sql.source_dialects import DIALECTS, SOURCE_DIALECTS, semantics
from sql.source_limits import MAX_STATEMENTS, check_statement_count, check_statement_estimate
from sql.tree import parenthesize, preorder


def _code_digest() -> str:
    """sha256 over the translator's own code and the sqlglot release it runs on: any change
    to a rule, the ANSI dialect or the generator is a new translator version, so stored
    translations made by older code are redone rather than reused (and the audit trail
    names the exact translator)."""
    root = Path(__file__).parent
    digest = hashlib.sha256(f"sqlglot {sqlglot.__version__}\0".encode())
    for path in sorted([*root.glob("*.py"), *(root / "rules").glob("*.py")]):
        digest.update(path.relative_to(root).as_posix().encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()[:12]


TRANSLATOR_VERSION = f"0.1.0+{_code_digest()}"

load_all()


@dataclass(frozen=True)
class Translation:
    name: str
    dialect: str
    ansi_sql: str
    rules_applied: tuple[str, ...]
    diagnostics: tuple[Diagnostic, ...]
    source_tables: tuple[str, ...]
    columns: tuple[str, ...]
    # The output columns' types as annotation found them (what a later statement of the
    # same script sees when it reads this table).
    column_types: tuple[exp.DataType, ...] = field(default=(), compare=False, repr=False)
    zone: str = "warehouse"  # where the table is built: the lake table is zone.name
    line: int = 1  # where the statement that defines it starts
    col: int = 1
    # The server settings (sql/assumptions.py) its translation relied on, by name: only
    # settings of its dialect, and only those a rule or a name resolution read.
    assumed: tuple[tuple[str, str], ...] = ()
    # The functions of the portable set (sql/portable.py) its ANSI calls: what it asks of
    # the target beyond SQL:2016 (empty for a strict translation).
    portable_functions: tuple[str, ...] = ()
    # The rules whose run-time guards its ANSI holds (RAISE_ERROR, docs/architecture.md):
    # where the exact result is not determined for some rows of the data, the query stops
    # on such a row, naming the rule (empty for a strict translation).
    guards: tuple[str, ...] = ()
    # What the source statement made of it: "table" (CREATE TABLE ... AS, INSERT INTO),
    # "view" (CREATE VIEW) or "query" (a bare query, whose rows nothing else reads).
    defines: str = "table"


@lru_cache(maxsize=1)
def _default_catalog() -> Catalog:
    return load_catalog()


@lru_cache(maxsize=1)
def _default_assumptions() -> Assumptions:
    return load_assumptions()


def _parse(
    sql: str, dialect: str, ctx: Context, max_statements: int = MAX_STATEMENTS
) -> list[exp.Expr]:
    source = sqlglot.Dialect.get_or_raise(SOURCE_DIALECTS[dialect])
    tokenizer = source.tokenizer_class(dialect=source)
    check_statement_estimate(sql, ctx.file, max_statements)
    try:
        tokens = tokenizer.tokenize(sql)
    except Exception as error:
        # sqlglot's message quotes 100 characters of context over several lines; one
        # diagnostic per line is the contract, so name the token the tokenizer stopped in.
        raise TranslationError([_token_error(sql, tokenizer, error, ctx.file)]) from None
    starts = _statement_starts(tokens)
    # Refused before the parser builds a tree of any statement: a script's trees are most
    # of what its translation holds in memory.
    check_statement_count(starts, sql, ctx.file, max_statements)
    try:
        statements = source.parser().parse(tokens, sql)
    except ParseError as error:
        first = error.errors[0] if error.errors else {}
        line, col = first.get("line") or 1, first.get("col") or 1
        # sqlglot reports the column where the offending token ends; point at its start.
        token = first.get("highlight") or ""
        col = max(1, col - len(token) + 1)
        description = _one_line(first.get("description") or str(error))
        raise TranslationError(
            [Diagnostic("error", "PARSE", f"cannot parse: {description}", ctx.file, line, col)]
        ) from None
    except Exception as error:
        # On some malformed input sqlglot's parser fails with internal errors (AttributeError,
        # IndexError, ...): the input is still unparseable; point at the first token.
        line, col = (tokens[0].line, tokens[0].col - len(tokens[0].text) + 1) if tokens else (1, 1)
        raise TranslationError(
            [
                Diagnostic(
                    "error", "PARSE", f"cannot parse: {_one_line(str(error))}", ctx.file, line, col
                )
            ]
        ) from None
    ctx.statement_starts = starts
    keywords = _keyword_starts(tokens)
    parameters = _parameter_starts(tokens)
    parsed = [s for s in statements if s is not None]
    aligned = len(parsed) == len(ctx.statement_starts)
    for index, statement in enumerate(parsed):
        first: int | None = None
        bounds = (
            (ctx.statement_starts[index], (ctx.statement_starts[index + 1 :] or [len(sql)])[0])
            if aligned
            else (0, len(sql))
        )
        for node in preorder(statement):
            if type(node) in CLAUSE_KEYWORDS:
                _locate_keyword(node, keywords)
            elif parameters and type(node) is exp.Parameter:
                _locate_parameter(node, parameters, bounds)
            elif type(node) is exp.WithTableHint:
                _locate_table_hint(node, keywords)
            meta = node._meta  # most nodes have none yet: one dict each, made here
            if meta is None:
                node._meta = {"source": True}  # parsed, not written by a rule
                continue
            meta["source"] = True
            start = meta.get("start")
            if start is not None and (first is None or start < first):
                first = start
        if first is None and aligned:
            # An opaque Command (DECLARE, SET, ...) keeps no token positions of its own.
            first = statement.meta["start"] = ctx.statement_starts[index]
        ctx.statement_offsets[id(statement)] = (statement, first)
    return parsed


def _one_line(text: str) -> str:
    text = _MISSING_ARG.sub(
        lambda m: f"incomplete {m.group(1).upper()}: a required part is missing", text
    )
    return " ".join(_TOKEN_REPR.sub(lambda m: repr(m.group(1)), text).split())


def _token_error(sql: str, tokenizer: object, error: Exception, file: str) -> Diagnostic:
    """A tokenizer failure as one located diagnostic: the token it could not finish (an
    unterminated string, quoted name or comment) and where that token starts."""
    # The tokenizer keeps the start of the token it was scanning; sqlglot does not expose it
    # on the error (it quotes a window of text instead), so read it where it lives.
    start = getattr(getattr(tokenizer, "_core", tokenizer), "_start", None)
    if not isinstance(start, int) or not 0 <= start < len(sql):
        start = getattr(error, "start", None) or 0
    line, col = offset_to_line_col(sql, start)
    opening = sql[start : start + 2]
    kinds = {"'": "string literal", '"': "quoted name", "[": "quoted name", "`": "quoted name"}
    if opening[:1] in kinds:
        what = (
            f"unterminated {kinds[opening[0]]}: no closing {_CLOSING.get(opening[0], opening[0])}"
        )
    elif opening.startswith("$"):
        what = "unterminated dollar-quoted string: no closing $$"
    elif opening == "/*":
        what = "unterminated comment: no closing */"
    else:
        what = f"cannot read the text starting {_one_line(sql[start : start + 12])!r}"
    return Diagnostic("error", "PARSE", f"cannot tokenize: {what}", file, line, col)


_CLOSING = {"[": "]"}
# sqlglot's parse errors quote the token object; a person needs its text.
# sqlglot names the first required argument it finds missing, but it looks them up in a
# set, so with two missing the name changes from run to run (PYTHONHASHSEED): the message
# names the construct only.
_MISSING_ARG = re.compile(r"Required keyword: '\w+' missing for <class '(?:[\w]+\.)*(\w+)'>")
_TOKEN_REPR = re.compile(r"<Token token_type: [\w.]+, text: (.*?), line: \d+, col: \d+.*?>")


# Clauses a diagnostic is located at by their keyword, which sqlglot keeps no position
# of: by default a node is located at its earliest token, for a CONNECT BY its START WITH
# condition (which may come first) and for GROUP BY, SAMPLE or PIVOT the first token after
# the keyword.
# node type -> (the keywords' token types, the argument the keyword comes right before, or
# None for the whole clause).
CLAUSE_KEYWORDS: dict[type[exp.Expr], tuple[frozenset[TokenType], str | None]] = {
    exp.Connect: (frozenset({TokenType.CONNECT_BY}), "connect"),
    exp.Group: (frozenset({TokenType.GROUP_BY}), None),
    exp.Pivot: (frozenset({TokenType.PIVOT, TokenType.UNPIVOT}), None),
    exp.TableSample: (frozenset({TokenType.TABLE_SAMPLE}), None),
}
# A T-SQL table hint, ``t WITH (NOLOCK)`` or ``t (NOLOCK)``, keeps no position either (its
# NOLOCK is a bare word): it is located at the first of these after the table's name.
_TABLE_HINT_TOKENS = frozenset({TokenType.WITH, TokenType.L_PAREN})
_KEYWORD_TOKENS = frozenset().union(
    *(kinds for kinds, _ in CLAUSE_KEYWORDS.values()), _TABLE_HINT_TOKENS
)


def _keyword_starts(tokens: list[Token]) -> dict[TokenType, list[int]]:
    """Offsets of the clause keywords of ``CLAUSE_KEYWORDS`` in the text, in text order."""
    starts: dict[TokenType, list[int]] = {}
    for token in tokens:
        if token.token_type in _KEYWORD_TOKENS:
            starts.setdefault(token.token_type, []).append(token.start)
    return starts


def _locate_keyword(node: exp.Expr, keywords: dict[TokenType, list[int]]) -> None:
    """Record on ``node`` where its clause keyword starts: the last such keyword before the
    part it introduces (``sql.diagnostics.node_offset`` then locates the node there)."""
    kinds, argument = CLAUSE_KEYWORDS[type(node)]
    part = node.args.get(argument) if argument else node
    offset = node_offset(part) if isinstance(part, exp.Expr) else None
    if offset is None:
        return
    before = [
        starts[bisect_right(starts, offset) - 1]
        for kind in kinds
        if (starts := keywords.get(kind)) and bisect_right(starts, offset)
    ]
    if before:
        node.meta["keyword_start"] = max(before)


def _parameter_starts(tokens: list[Token]) -> dict[str, list[int]]:
    """Where each ``@name`` (``@@name``: each of its ``@``) starts, by lower-case name, in
    text order: sqlglot keeps no position for a parameter, and a variable's use is located
    there (sql/variables.py)."""
    starts: dict[str, list[int]] = {}
    for index, token in enumerate(tokens):
        if token.token_type != TokenType.PARAMETER:
            continue
        following = index + 1
        while following < len(tokens) and tokens[following].token_type == TokenType.PARAMETER:
            following += 1
        if following < len(tokens):
            starts.setdefault(tokens[following].text.lower(), []).append(token.start)
    return starts


def _locate_parameter(
    node: exp.Parameter, parameters: dict[str, list[int]], bounds: tuple[int, int]
) -> None:
    """Record on ``node`` the first unclaimed ``@`` of its name within its statement."""
    inner = node.this
    while isinstance(inner, exp.Parameter):
        inner = inner.this
    starts = parameters.get(inner.name.lower()) if isinstance(inner, exp.Expr) else None
    for position, start in enumerate(starts or ()):
        if bounds[0] <= start < bounds[1]:
            node.meta["start"] = start
            del starts[position]  # claimed: the next use of the name is the next one
            return


def _locate_table_hint(node: exp.Expr, keywords: dict[TokenType, list[int]]) -> None:
    """Record on a table hint where its ``WITH`` (or, without one, its parenthesis) starts:
    the first after the end of the table's name and alias."""
    table = node.parent
    if not isinstance(table, exp.Table):
        return
    named = [table.args.get(k) for k in ("catalog", "db", "this", "alias")]
    ends = [
        n.meta["end"]
        for part in named
        if part is not None
        for n in part.walk()
        if n._meta and "end" in n._meta
    ]
    if not ends:
        return
    after = max(ends)
    found = [
        starts[index]
        for kind in _TABLE_HINT_TOKENS
        if (starts := keywords.get(kind)) and (index := bisect_right(starts, after)) < len(starts)
    ]
    if found:
        node.meta["keyword_start"] = min(found)


def _statement_starts(tokens: list[Token]) -> list[int]:
    """Offset of the first token of every statement (tokens after each semicolon)."""
    starts: list[int] = []
    at_start = True
    for token in tokens:
        if token.token_type == TokenType.SEMICOLON:
            at_start = True
        elif at_start:
            starts.append(token.start)
            at_start = False
    return starts


def _fold_identifiers(identifiers: Iterable[exp.Identifier], dialect: str) -> None:
    """Fold names the way the source dialect compares them, then quote every name.

    After this, names are lower-case unless quoted in a case-sensitive dialect, and the
    rest of the pipeline can compare them exactly.
    """
    upper_folding = semantics(dialect).NORMALIZATION_STRATEGY is NormalizationStrategy.UPPERCASE
    for identifier in identifiers:
        name = identifier.name
        # In Snowflake and Oracle an unquoted name folds to upper case, so "ORDERS" quoted
        # is the same name as ORDERS: only a quoted name with lower-case letters is distinct.
        folded = (
            name if identifier.quoted and upper_folding and name != name.upper() else name.lower()
        )
        if identifier._hash is None:  # what set() does then: no cached hash to clear
            identifier.args["this"] = folded
            identifier.args["quoted"] = True
        else:
            identifier.set("this", folded)
            identifier.set("quoted", True)


def _resolve_tables(
    tables: Sequence[exp.Table], ctes: set[str], catalog: Catalog, ctx: Context
) -> tuple[tuple[str, ...], list[exp.Identifier]]:
    """Each of ``tables`` renamed to the lake table its legacy name resolves to (``ctes``:
    the query's CTE names, lower-case); the lake tables read, and the identifiers written."""
    found: set[str] = set()
    written: list[exp.Identifier] = []

    def identifier(name: str) -> exp.Identifier:
        written.append(exp.to_identifier(name))
        return written[-1]

    for table in tables:
        if not isinstance(table.this, exp.Identifier):
            # IDENTIFIER('t'), table functions, UNNEST, ...: no catalog name to resolve. A
            # table function is judged by the rules and the generator; a name computed at
            # run time cannot be resolved at all.
            if isinstance(table.this, exp.DynamicIdentifier):
                ctx.report(
                    "error",
                    "NAME-UNKNOWN",
                    table,
                    "a table named at run time (IDENTIFIER(...)) cannot be resolved in the "
                    "catalog; write the table's name",
                )
            wildcards.refuse_legacy_function(table, ctx)
            continue
        parts = [p for p in (table.args.get("catalog"), table.args.get("db"), table.this) if p]
        if len(parts) == 1 and table.name.lower().lstrip("#") in ctes:
            # Quoted as written: a quoted mixed-case CTE name keeps its case in Snowflake.
            reference = exp.to_identifier(table.name.lstrip("#"), quoted=table.this.quoted)
            written.append(reference)
            table.set("this", reference)
            continue
        if (
            semantics(ctx.dialect).DUAL_IS_NO_TABLE
            and len(parts) == 1
            and table.name.upper() == "DUAL"
        ):
            select = table.parent.parent if isinstance(table.parent, exp.From) else None
            if isinstance(select, exp.Select) and not select.args.get("joins"):
                select.set("from_", None)
                ctx.applied.add("ORA-DUAL")
                continue
        if wildcards.is_wildcard(table, ctx.dialect):
            found.update(wildcards.expand(table, parts, catalog, ctx, identifier))
            continue
        line, col = ctx.locate(table)
        try:
            resolution = catalog.resolve_name(
                parts, ctx.dialect, ctx.file, line, col, ctx.assumptions
            )
        except TranslationError as error:
            ctx.diagnostics.extend(d for d in error.diagnostics if d not in ctx.diagnostics)
            continue
        lake = resolution.lake_table
        if resolution.assumed:
            # A default the script itself states (USE db) is no assumption: an info line.
            known = "unknown" not in resolution.assumed  # else a level left unknown
            settings = tuple(n for n, _ in resolution.settings) if known else ()
            ctx.report("warning", "NAME-DEFAULT", table, resolution.assumed, settings=settings)
            ctx.applied.add("NAME-DEFAULT")
        for setting, _ in resolution.settings:
            ctx.assume(setting)
        zone, name = lake.split(".")
        alias = table.args.get("alias") or exp.TableAlias(this=identifier(table.name))
        table.set("catalog", None)
        table.set("db", identifier(zone))
        table.set("this", identifier(name))
        table.set("alias", alias)
        found.add(lake)
    return tuple(sorted(found)), written


def _typed_schema(catalog: Catalog, dialect: str, tables: Iterable[str]) -> MappingSchema:
    """The catalog's ``tables`` as sqlglot's schema, their type texts read as the ANSI types
    they are (read in the source dialect, T-SQL's TIMESTAMP would be ROWVERSION).

    Only the tables a statement reads: a user's catalog can hold tens of thousands of
    columns, and parsing every type for every statement dominated translation time."""
    nested = {
        zone: {
            table: {
                column: kind if isinstance(kind, exp.DataType) else _ansi_type(kind)
                for column, kind in columns.items()
            }
            for table, columns in zone_tables.items()
        }
        for zone, zone_tables in catalog.schema(tables).items()
    }
    return MappingSchema(nested, dialect=dialect, normalize=False)


def _ansi_type(kind: str) -> exp.DataType:
    # Shared, not copied: sqlglot's MappingSchema hands out one DataType per type text too.
    return ansi.parse_type(kind)


# A position sqlglot writes into an OptimizeError's message: "... resolved. Line: 3, Col: 9"
# or "Ambiguous column 'x' (Line: 3, Col: 9)".
_QUOTED_POSITION = re.compile(r" ?\(?Line: \d+, Col: \d+\)?")


# sqlglot's words for a column of a correlated subquery beside a source whose columns it
# does not know: every catalog table has its columns, so that source is a table function or
# an UNNEST whose element type it did not find.
_MISSING_SCHEMAS = re.compile(r"^Cannot resolve '([^']*)' due to missing source schemas$")


def _missing_schemas(match: re.Match[str]) -> str:
    return (
        f"Column '{match.group(1)}' could not be resolved: the subquery that reads it has a "
        "source whose columns are not known here (an UNNEST whose element type was not found, "
        "as for a column of a wildcard table read in a correlated subquery, or a table function)"
    )


def _locate_column(tree: exp.Expr, message: str) -> exp.Expr | None:
    for column in tree.find_all(exp.Column):
        if column.name and f"'{column.name}'" in message:
            return column
    return tree


def _qualify(
    tree: exp.Expr,
    schema: MappingSchema,
    ctx: Context,
    opaque: bool,
    paths: Sequence[exp.Expr] | None = None,
    walked: list[exp.Expr] | None = None,
) -> exp.Expr:
    """``tree`` qualified and typed against ``schema``; ``opaque``: whether a table it reads
    has a column of an opaque type; ``paths``: its columns and outermost dots, when its names
    are folded already and nothing is marked case-sensitive (else None); ``walked``, if
    given, receives ``preorder`` of the result where the walk quoting names serves as it."""
    try:
        tree = _qualified(tree, schema, ctx.dialect, paths, walked)
        if "WILDCARD-TABLES" in ctx.applied:
            if walked is not None:
                walked.clear()  # the suffixes resolved are new nodes
            wildcards.resolve_suffixes(tree, ctx)
            wildcards.keep_read_columns(tree, ctx)
            ctx.raise_errors()
        ctx.scopes = scopes.build(tree)
        scopes.validate_columns(ctx.scopes)
        annotator = TypeAnnotator(schema=ensure_schema(schema, dialect=ctx.dialect))
        if walked:  # what a node's children decide typed without the annotator's walk
            type_by_children(walked, annotator)
        tree = scopes.annotate(annotator, tree, ctx.scopes)
    except OptimizeError as error:
        if isinstance(error, scopes.UnresolvedColumn):
            node: exp.Expr | None = error.column
        else:
            node = _locate_column(tree, str(error))
        # One location per diagnostic, ours: none quoted in the message as well.
        message = _QUOTED_POSITION.sub("", str(error).splitlines()[0]).rstrip()
        message = _MISSING_SCHEMAS.sub(_missing_schemas, message)
        ctx.report("error", "COLUMN-UNKNOWN", node, message)
        ctx.raise_errors()
        raise  # unreachable: raise_errors raised
    if opaque:
        _refuse_opaque_uses(tree, ctx)
    return tree


def _qualified(
    tree: exp.Expr,
    schema: MappingSchema,
    dialect: str,
    paths: Sequence[exp.Expr] | None,
    walked: list[exp.Expr] | None = None,
) -> exp.Expr:
    """sqlglot's ``qualify(tree, dialect, schema, validate_qualify_columns=False,
    quote_identifiers=True, identify=True)`` (validated over the scopes built once), less
    the work ``_fold_identifiers`` did already: every name is folded and quoted, so
    ``normalize_identifiers`` would change no name; only the original names of column paths
    it records (``dot_parts``, read by ``qualify_columns`` and ``annotate_types``) are
    recorded here, from ``paths``. Quoting walks the tree in pre-order rather than sqlglot's
    breadth-first generator: only the names qualification wrote are unquoted.

    ``walked``, if given, receives that walk (the tree's nodes in pre-order) unless the tree
    has a dot path: annotation, which changes no other part of the tree, may replace a
    dot's field name (``_restore_dot_parts``). The translator walks the annotated tree
    once less."""
    if paths is None:
        tree = normalize_identifiers(tree, dialect=dialect, store_original_column_identifiers=True)
    else:
        for node in paths:
            if isinstance(node, exp.Column):
                node.meta["dot_parts"] = [p.name for p in node.parts]
            elif not node.is_star:
                root, parts = node, []
                while isinstance(root, exp.Dot):
                    parts.append(root.expression.name)
                    root = root.this
                parts.reverse()
                # The chain may start at a column (j.k) or at any expression (f().k).
                if isinstance(root, exp.Column):
                    parts = [p.name for p in root.parts] + parts
                root.meta["dot_parts"] = parts
    tree = qualify_tables(tree, dialect=dialect)
    tree = qualify_columns(tree, schema)
    order = preorder(tree)
    dots = False
    for node in order:
        # Dialect.quote_identifier(node, identify=True): a name under a function stays as is.
        if isinstance(node, exp.Identifier):
            if not node.quoted:
                node.set("quoted", not isinstance(node.parent, exp.Func))
        elif isinstance(node, exp.Dot):
            dots = True
    if walked is not None and not dots:
        walked.extend(order)
    return tree


# Where a value of an opaque type (VARIANT, GEOGRAPHY, SQL_VARIANT, ...) may go unchanged:
# selected as a column, tested for NULL, counted. Anything else depends on what the type
# means (comparison, grouping, a cast, a path into it) and has no exact ANSI form.
def _passes_through(node: exp.Expr, dialect: str = "", kind: exp.DataType | None = None) -> bool:
    parent = node.parent
    if semantics(dialect).HAS_VARIANT and is_json_text(kind or node.type) and _variant_use(node):
        return True  # sql/rules/variant.py translates it or refuses it
    if isinstance(parent, exp.Alias | exp.Paren):
        return _passes_through(parent)
    if isinstance(parent, (exp.Window, *VALUE_PICKERS)) and parent.this is node:
        return _passes_through(parent)  # one of its values, unchanged
    if isinstance(parent, exp.Select):
        return node in parent.expressions and not _compares_rows(parent)
    if isinstance(parent, exp.Is):
        return isinstance(parent.expression, exp.Null)
    return isinstance(parent, exp.Count) and node is parent.this


def _variant_use(node: exp.Expr) -> bool:
    """Whether a VARIANT column is read by a path, a cast, ARRAY_SIZE, PARSE_JSON or
    FLATTEN (the VARIANT-* rules decide whether each translates)."""
    parent = node.parent
    if isinstance(parent, (*VARIANT_ACCESSES, exp.Cast, exp.ArraySize, exp.ParseJSON)):
        return parent.this is node
    if isinstance(parent, exp.Explode):
        return parent.this is node  # FLATTEN(v): its input by position
    return isinstance(parent, exp.Kwarg) and isinstance(parent.parent, exp.Explode)


def _compares_rows(select: exp.Select) -> bool:
    """True when the rows ``select`` returns are compared: DISTINCT, a UNION/INTERSECT/
    EXCEPT that removes duplicates, or a subquery under IN/ANY/ALL."""
    if select.args.get("distinct"):
        return True
    node: exp.Expr = select
    while isinstance(node.parent, exp.Subquery | exp.SetOperation | exp.Paren):
        node = node.parent
        if isinstance(node, exp.SetOperation) and node.args.get("distinct", True):
            return True
    return isinstance(node.parent, exp.In | exp.Any | exp.All)


def _opaque_type(column: exp.Column, depth: int = 0) -> exp.DataType | None:
    """The opaque type ``column`` holds: its own, or, for a column of a CTE or subquery,
    that of any branch of it (annotation loses it through UNION ALL)."""
    if is_opaque(column.type):
        return column.type
    # a UNION of opaque columns is annotated USER-DEFINED, without the type's name
    if isinstance(column.type, exp.DataType) and not column.type.is_type(
        exp.DType.UNKNOWN, exp.DType.USERDEFINED
    ):
        return None
    for projection in (derived_projections(column) if depth <= 16 else None) or ():
        projection = picked(projection)
        if isinstance(projection, exp.Column):
            found = _opaque_type(projection, depth + 1)
            if found is not None:
                return found
    return None


def _refuse_opaque_uses(tree: exp.Expr, ctx: Context) -> None:
    for column in tree.find_all(exp.Column):
        kind = _opaque_type(column)
        if kind is not None and not _passes_through(column, ctx.dialect, kind):
            declared = kind.sql().removeprefix(OPAQUE_PREFIX).upper()
            ctx.report(
                "error",
                "OPAQUE-TYPE",
                column,
                f"column {column.name} has type {declared}, which has no exact ANSI form; "
                "it can be selected, counted, tested for NULL or picked by FIRST_VALUE / LAST_VALUE / "
                "ANY_VALUE, but not used in an expression",
            )
    ctx.raise_errors()


# The node types the checks before the syntax rules look at, and which of them each node
# type is (None: none), filled on first sight: one lookup per node rather than four tests.
_PRECHECKS = (exp.Select, exp.Column, exp.Star, exp.Qualify)
_PRECHECKED: dict[type, type | None] = {}


def _rewrite(
    tree: exp.Expr, catalog: Catalog, ctx: Context
) -> tuple[exp.Expr, tuple[str, ...], list[exp.Expr] | None]:
    """The folded query rewritten into ANSI-only nodes, the lake tables it reads, and
    ``preorder`` of the rewritten query where the last walk of it still holds (else None)."""
    dialect = ctx.dialect
    # Each walk over the tree costs about as much as a rule phase: the checks before the
    # syntax rules share one, and name resolution and folding another.
    order = preorder(tree)
    join_marks = has_qualify = False
    checked = _PRECHECKED
    for node in order:
        kind = type(node)
        base = checked.get(kind, False)
        if base is False:
            base = checked[kind] = next((b for b in _PRECHECKS if issubclass(kind, b)), None)
        if base is None:
            continue
        if base is exp.Select:
            if not node.expressions:
                ctx.report("error", "PARSE", node, "SELECT without a select list")
        elif base is exp.Column:
            join_marks = join_marks or bool(node.args.get("join_mark"))
        elif base is exp.Star:
            if node.args.get("except_"):
                ctx.applied.add("STAR-EXCEPT")
        else:
            has_qualify = True
    ctx.raise_errors()
    if semantics(dialect).OUTER_JOIN_MARKS and join_marks:
        try:
            tree = transforms.eliminate_join_marks(tree)
        except AssertionError as error:  # sqlglot asserts on (+) it cannot place
            ctx.report("error", "ORA-OUTER-PLUS", tree, f"cannot rewrite (+) join: {error}")
            ctx.raise_errors()
        ctx.applied.add("ORA-OUTER-PLUS")
        order = preorder(tree)
    tree = apply_rules(tree, ctx, "syntax", order)
    tables: list[exp.Table] = []
    identifiers: list[exp.Identifier] = []
    ctes: set[str] = set()
    paths: list[exp.Expr] | None = []  # columns and outermost dots, None: normalize again
    # The walk before the syntax rules serves again when they changed nothing (most queries).
    for node in preorder(tree) if ctx.rewritten else order:
        if isinstance(node, exp.Identifier):
            identifiers.append(node)
        elif isinstance(node, exp.Column | exp.Dot):
            if paths is not None and not isinstance(node.parent, exp.Dot):
                paths.append(node)
        elif isinstance(node, exp.Table):
            tables.append(node)
        elif isinstance(node, exp.CTE):
            ctes.add(node.alias_or_name.lower())
        if paths is not None and node._meta and node._meta.get("case_sensitive"):
            paths = None
    source_tables, written = _resolve_tables(tables, ctes, catalog, ctx)
    ctx.raise_errors()
    _fold_identifiers(identifiers + written, dialect)
    if "WILDCARD-TABLES" in ctx.applied:
        paths = None  # the expanded tables are new nodes
    # Only a query with a CTE has a WITH to mark (the walk above found every CTE).
    if semantics(dialect).CTES_RECURSE_WITHOUT_KEYWORD and (
        ctes or "WILDCARD-TABLES" in ctx.applied
    ):
        _mark_recursive(tree)
    schema = _typed_schema(catalog, dialect, source_tables)
    opaque = any(catalog.opaque.get(t) for t in source_tables)
    order = []
    tree = _qualify(tree, schema, ctx, opaque, paths, order)
    ctx.rewritten.clear()
    # ``order`` is a walk of the tree as it was when ``ctx.rewritten`` held ``walked`` rewrites:
    # still the tree's while no rule has rewritten anything since. Qualification's own walk
    # serves where annotation changed no node (all but a dot path's field names).
    order, walked, applications = order or preorder(tree), 0, ctx.applications
    tree = apply_rules(tree, ctx, "typed", order)
    for phase in ("arithmetic", "final"):
        ctx.raise_errors()
        # Annotation is the costliest step: skip it when no rule of the phase can match, and
        # annotate again only where the rules changed the tree since the last annotation.
        by_type = rules_for(dialect, phase)
        if not by_type:
            continue
        if len(ctx.rewritten) != walked:
            order, walked, applications = preorder(tree), len(ctx.rewritten), ctx.applications
        matched = candidates(order, dialect, phase)
        if matched:
            if ctx.rewritten:
                ctx.scopes = scopes.current(ctx.scopes, tree)
                # Same nodes, new types.
                tree = retype(tree, ctx.rewritten, schema, dialect, scopes=ctx.scopes, order=order)
                ctx.rewritten.clear()
                walked = 0
            tree = apply_rules(tree, ctx, phase, order, matched)
    ctx.raise_errors()
    # The last walk still holds where no rule applied since it, annotating again changed no
    # dot path's field name (sqlglot's _restore_dot_parts may replace one), PORTABLE-TYPE
    # casts nothing (its casts are the only change it makes) and neither QUALIFY nor the
    # lake's types are rewritten.
    unchanged = (
        ctx.applications == applications
        and "PORTABLE-TYPE" not in ctx.applied
        and not has_qualify
        and exp.Dot not in set(map(type, order))
    )
    tree = portable_output_types(tree, ctx)
    unchanged = unchanged and "PORTABLE-TYPE" not in ctx.applied
    if semantics(dialect).ARRAYS_ARE_TYPED:
        tree = array_outputs(tree, ctx)
        ctx.raise_errors()
    if has_qualify:  # parsed QUALIFY (no rule writes one)
        tree = _without_qualify(tree)
    # Oracle holds '' as NULL: a '' the lake holds (data from another system) is read as
    # Oracle would have stored it.
    texts = (
        {t: _text_columns(catalog, t) for t in source_tables if t in catalog.tables}
        if semantics(dialect).EMPTY_STRING_IS_NULL
        else {}
    )
    if any(catalog.physical.get(t) for t in source_tables) or any(texts.values()):
        tree = _read_lake_types(tree, catalog, texts)
        unchanged = False
    return tree, source_tables, order if unchanged else None


def _text_columns(catalog: Catalog, table: str) -> frozenset[str]:
    opaque = catalog.opaque.get(table, {})
    return frozenset(
        column
        for column, kind in catalog.tables[table].items()
        if column not in opaque and ansi.parse_type(kind).this in STRING_TYPES
    )


def _oracle_dates(
    typed: exp.Expr, types: tuple[exp.DataType, ...], dialect: str
) -> tuple[exp.DataType, ...]:
    """``types`` of ``typed``'s output columns, each TIMESTAMP one whose value is an Oracle
    DATE (TRUNC(d, 'MM'), d + 1, a DATE column) marked as one: a reader of this table (a
    chain's next file, a script's later statement) gives it Oracle's DATE semantics."""
    from sql.rules.day_arithmetic import oracle_moment
    from sql.rules.portable_types import Projections

    projections = Projections.of(typed)
    marked = []
    for select, kind in zip(typed.selects, types, strict=True):
        if kind.this in (exp.DType.TIMESTAMP, exp.DType.DATETIME) and not declared_type(kind):
            moment = oracle_moment(select.unalias(), projections)
            if moment is not None and moment.date:
                kind = ansi.parse_type("TIMESTAMP(0)").copy()
                kind.meta[DECLARED_META] = (dialect, "DATE")
        marked.append(kind)
    return tuple(marked)


def _read_lake_types(
    tree: exp.Expr, catalog: Catalog, empty_is_null: Mapping[str, frozenset[str]]
) -> exp.Expr:
    """Each lake table some of whose columns the query reads the lake stores as another type
    than the catalog's (``lake:``, e.g. a NUMBER(10) exported as INTEGER), read through a
    derived table of the same name that CASTs those columns to their catalog type: the
    translation reasoned with that type, and ``catalog import --from-sources`` checked on
    the data that the CAST loses no value. ``empty_is_null``: per table, the text columns
    read as NULLIF(x, '') (Oracle holds '' as NULL). The derived table projects the columns
    the query reads of it, qualified like the rest of the output, so that annotation types
    them (a script's later table, a chain's reader)."""
    read: dict[str, set[str]] = {}
    tables: list[exp.Table] = []
    for node in preorder(tree):  # one walk; each table is rewritten on its own, in any order
        if isinstance(node, exp.Column):
            if node.table:
                read.setdefault(node.table, set()).add(node.name)
        elif isinstance(node, exp.Table):
            tables.append(node)
    for table in tables:
        key = f"{table.db}.{table.name}"
        if key not in catalog.tables or not isinstance(table.parent, (exp.From, exp.Join)):
            continue
        physical = catalog.physical.get(key, {})
        texts = empty_is_null.get(key, frozenset())
        wanted = read.get(table.alias_or_name, set())
        kept = [name for name in catalog.tables[key] if name in wanted]
        if not any(name in physical or name in texts for name in kept):
            continue
        inner = table.name
        columns = []
        for name in kept:
            column: exp.Expr = exp.column(name, table=inner, quoted=True)
            if name in physical:
                # Values were checked to fit the declared type, fractional digits included:
                # a TIMESTAMP(p) reads as the engines' one TIMESTAMP type.
                to = ansi.parse_type(catalog.tables[key][name]).copy()
                if to.this in (exp.DType.TIMESTAMP, exp.DType.TIME):
                    to.set("expressions", [])
                column = exp.Cast(this=column, to=to)
            if name in texts:
                column = exp.Nullif(this=column, expression=exp.Literal.string(""))
            columns.append(exp.alias_(column, name, quoted=True))
        stored = exp.Table(
            this=exp.to_identifier(table.name, quoted=True),
            db=exp.to_identifier(table.db, quoted=True),
            alias=exp.TableAlias(this=exp.to_identifier(inner, quoted=True)),
        )
        alias = exp.TableAlias(this=exp.to_identifier(table.alias_or_name, quoted=True))
        query = exp.select(*columns).from_(stored, copy=False)  # all of it built here
        table.replace(exp.Subquery(this=query, alias=alias))
    return tree


def _mark_recursive(tree: exp.Expr) -> None:
    """Mark WITH as RECURSIVE where a CTE reads itself: Snowflake's RECURSIVE keyword is
    optional, the standard's is not. Names are folded already, so they compare exactly."""
    for with_ in tree.find_all(exp.With):
        if with_.args.get("recursive"):
            continue
        for cte in with_.expressions:
            name = cte.alias_or_name
            if any(not t.db and t.name == name for t in cte.this.find_all(exp.Table)):
                with_.set("recursive", True)
                break


def _without_qualify(tree: exp.Expr) -> exp.Expr:
    """Every SELECT ... QUALIFY, in CTEs and subqueries too, as a filtered subquery; the
    innermost first, so that an outer one wraps the rewritten inner one."""
    qualified = [n for n in preorder(tree) if isinstance(n, exp.Select) and n.args.get("qualify")]
    # Each rewritten in place, out of the tree as a copy of it would be (a deep copy cost
    # more than the rewrite): eliminate_qualify reads the SELECT's parent.
    for select in reversed(qualified):
        if select is tree:
            select.parent = None  # the CREATE ... AS that held the query, if any
            tree = transforms.eliminate_qualify(select)
        else:
            hole = exp.Null()
            select.replace(hole)
            hole.replace(transforms.eliminate_qualify(select))
    return tree


# Arguments that turn an allowed expression into a non-standard one; the generator would print
# them (e.g. `* EXCEPT (...)`, `DISTINCT ON`, `CAST(... FORMAT ...)`), so they are refused.
NON_STANDARD_ARGS: dict[type[exp.Expr], tuple[str, ...]] = {
    exp.Star: ("except_", "replace", "rename", "ilike"),
    exp.Distinct: ("on",),
    exp.Cast: ("format", "action", "default"),
    exp.GroupConcat: ("on_overflow",),
    exp.Union: ("by_name", "side", "kind", "on"),
    exp.Except: ("by_name", "side", "kind", "on"),
    exp.Intersect: ("by_name", "side", "kind", "on"),
    exp.Floor: ("decimals", "to"),
    exp.Ceil: ("decimals", "to"),
    exp.Select: ("kind", "options", "operation_modifiers", "exclude"),
    exp.Table: ("version", "changes", "when", "only", "partition", "ordinality"),
}
STANDARD_JOIN_KINDS = {"", "INNER", "OUTER", "CROSS", "LEFT", "RIGHT", "FULL"}


def _non_standard(node: exp.Expr) -> str | None:
    for arg in NON_STANDARD_ARGS.get(type(node), ()):
        if node.args.get(arg):
            return f"{node.key.upper()} with {arg.strip('_').upper()}"
    if isinstance(node, exp.Join):
        if (node.kind or "").upper() not in STANDARD_JOIN_KINDS:
            return f"{node.kind.upper()} JOIN"
        if (node.method or "").upper() not in ("", "NATURAL"):
            return f"{node.method.upper()} JOIN"
    if isinstance(node, exp.Count) and (
        len(node.expressions) > 1
        or (isinstance(node.this, exp.Distinct) and len(node.this.expressions) > 1)
    ):
        return "COUNT over several expressions"
    return None


# Node types the walk before generation looks at more closely (most nodes are of types that
# are allowed as they stand): filled on first sight of each type.
_CHECKED_TYPES: dict[type, bool] = {}


def _needs_checking(kind: type) -> bool:
    return (
        kind not in ansi.ALLOWED_EXPRESSIONS
        or kind in NON_STANDARD_ARGS
        or issubclass(
            kind, exp.Limit | exp.Join | exp.Count | exp.DataType | exp.Group | exp.Window
        )
    )


def _generate(tree: exp.Expr, ctx: Context, nodes: list[exp.Expr] | None = None) -> str:
    """``nodes``: ``preorder(tree)``, when the caller walked it already."""
    # Locate what the generator would reject, so the refusal points at the construct.
    limits: list[exp.Limit] = []
    checked = _CHECKED_TYPES
    nodes = preorder(tree) if nodes is None else nodes
    for node in nodes:
        kind = type(node)
        needs = checked.get(kind)
        if needs is None:
            needs = checked[kind] = _needs_checking(kind)
        if not needs:
            continue
        if isinstance(node, exp.Limit):
            limits.append(node)
        construct = _non_standard(node)
        if construct is not None:
            ctx.report("error", "ANSI-UNSUPPORTED", node, f"{construct} has no exact ANSI SQL form")
        problem = (
            ansi.group_problem(node)
            if isinstance(node, exp.Group)
            else ansi.window_problem(node)
            if isinstance(node, exp.Window)
            else None
        )
        if problem is not None:
            ctx.report("error", "ANSI-UNSUPPORTED", node, problem)
        if type(node) not in ansi.ALLOWED_EXPRESSIONS and not ansi.row_field(node):
            # A function by its SQL name (RANGE_N, ARRAY_AGG), not sqlglot's class key (RANGEN).
            name = node.sql_name() if isinstance(node, exp.Func) else node.key.upper()
            ctx.report("error", "ANSI-UNSUPPORTED", node, f"{name} has no exact ANSI SQL form")
        elif isinstance(node, exp.DataType) and node.this not in ansi.ALLOWED_TYPES:
            ctx.report(
                "error",
                "ANSI-UNSUPPORTED",
                node,
                f"type {node.this.value} has no exact ANSI SQL form",
            )
    ctx.raise_errors()
    parenthesize(nodes, functions=(exp.Mod,))  # operators rules wrote, as the tree means them
    ansi.limit_to_fetch(tree, limits)
    tree.meta[ansi.LIMITS_AS_FETCH] = True  # the generator need not look for them again
    try:
        return ansi.generate(tree, copy=False)
    except UnsupportedError as error:
        ctx.report("error", "ANSI-UNSUPPORTED", tree, str(error).replace("\n", "; "))
        ctx.raise_errors()
        raise


@dataclass(frozen=True)
class ScriptTranslation:
    """Every table one legacy script defines, translated, in the script's order."""

    file: str
    dialect: str
    tables: tuple[Translation, ...]

    def script_sql(self, rendered: Sequence[str] | None = None) -> str:
        """The translated script (or ``rendered``, each table's SQL for an engine): one
        table's query alone, or each one under a ``-- zone.table`` line, ended by ``;``."""
        texts = list(rendered) if rendered is not None else [t.ansi_sql for t in self.tables]
        if len(self.tables) == 1:
            return texts[0].rstrip()
        return "\n\n".join(
            f"-- {t.zone}.{t.name}\n{text.rstrip()};"
            for t, text in zip(self.tables, texts, strict=True)
        )


def _parameter_values(
    parameters: Mapping[str, QueryParameter], dialect: str, file: str
) -> dict[str, exp.Expr]:
    """The query parameters' values as BigQuery expressions; a bad one, or parameters for
    another dialect, a SCRIPT-PARAMETER error."""
    if not parameters:
        return {}
    if not semantics(dialect).QUERY_PARAMETERS:
        message = (
            f"query parameters ({', '.join(parameters)}) are BigQuery's; a {dialect} script "
            "declares its variables itself"
        )
        raise TranslationError([Diagnostic("error", "SCRIPT-PARAMETER", message, file, 1, 1)])
    try:
        return parameter_values(parameters)
    except ParameterError as error:
        raise TranslationError(
            [Diagnostic("error", "SCRIPT-PARAMETER", str(error), file, 1, 1)]
        ) from None


@dataclass(frozen=True)
class ParsedScript:
    """A legacy script parsed and split into the tables it defines, not yet translated."""

    ctx: Context  # positions of its statements; script-level problems in ``diagnostics``
    definitions: tuple[Definition, ...]
    names: tuple[str, ...]  # the table each definition defines


def parse_script(
    sql: str,
    dialect: str,
    *,
    file: str = "<stdin>",
    name: str | None = None,
    assumptions: Assumptions | None = None,
    parameters: Mapping[str, QueryParameter] | None = None,
    max_statements: int = MAX_STATEMENTS,
) -> ParsedScript:
    """Parse ``sql`` (in ``dialect``) and split it into the tables it defines: a definition's
    own target, else the file's stem for its one bare query (``<stem>_<n>`` for several).

    Raises ``TranslationError`` when the dialect is unknown or the text does not parse;
    statements the script may not hold (procedural ones, ...) are errors in ``ctx``.

    ``parameters``: values of BigQuery query parameters (``@name``), each use replaced by
    ``CAST(<literal> AS <type>)`` (sql/parameters.py); a bad value is a SCRIPT-PARAMETER error.

    More than ``max_statements`` statements is ``sql.source_limits.SourceTooLarge``, before
    any is parsed.
    """
    if dialect not in DIALECTS:
        message = f"unknown dialect {dialect!r}; expected one of {', '.join(DIALECTS)}"
        raise TranslationError([Diagnostic("error", "DIALECT", message, file, 1, 1)])
    values = _parameter_values(parameters or {}, dialect, file)
    check_source_text(sql, file)
    assumptions = assumptions or _default_assumptions()
    commands: tuple[DotCommand, ...] = ()
    if semantics(dialect).DOT_COMMANDS:
        # BTEQ's commands are blanked out before anything reads the text: a .LOGON line
        # holds a password, which no later step, message or stored text may carry.
        bteq = read_bteq(sql)
        sql, commands = bteq.text, bteq.commands
    ctx = Context(dialect=dialect, file=file, text=sql, assumptions=assumptions)
    statements = _parse(sql, dialect, ctx, max_statements) if sql.strip() or not commands else []
    if not statements and not commands:
        raise TranslationError(
            [Diagnostic("error", "SCRIPT-SHAPE", "no SQL statement", file, 1, 1)]
        )
    definitions = split_script(statements, ctx, values, commands)
    stem = (name or Path(file).stem).lower()
    bare = sum(d.target is None for d in definitions)
    names = []
    seen_bare = 0
    for definition in definitions:
        if definition.target is not None:
            names.append(definition.target)
        elif bare == 1:
            names.append(stem)
        else:
            seen_bare += 1
            names.append(f"{stem}_{seen_bare}")
    return ParsedScript(ctx, tuple(definitions), tuple(names))


def translate_script(
    sql: str,
    dialect: str,
    *,
    file: str = "<stdin>",
    name: str | None = None,
    catalog: Catalog | None = None,
    assumptions: Assumptions | None = None,
    zone: str = "warehouse",
    strict: bool = False,
    parameters: Mapping[str, QueryParameter] | None = None,
    typed: bool = False,
    max_statements: int = MAX_STATEMENTS,
) -> ScriptTranslation:
    """Translate every table the script ``sql`` (in ``dialect``) defines; raises
    ``TranslationError`` listing every refusal in the script (``SourceTooLarge`` for more
    than ``max_statements`` statements: ``sql.source_limits``, which the scaling benchmark
    alone goes beyond).

    ``typed``: every table's ``column_types`` (``output_schema``), the last one's too, which
    only another file can read (a chain of migrated queries).

    ``parameters``: typed values of BigQuery query parameters (``@submission_date``), as
    ``bq query --parameter`` gives them (sql/parameters.py).

    ``strict``: SQL:2016 alone, every call of the portable function set (sql/portable.py)
    refused (PORTABLE-STRICT).

    A table defined earlier in the script is read by later statements as the lake table
    ``<zone>.<name>``, with the columns and types its translation produces. ``assumptions``
    are the server settings the text cannot show (default: ``sql/assumptions.yaml``).
    """
    script = parse_script(
        sql,
        dialect,
        file=file,
        name=name,
        assumptions=assumptions,
        parameters=parameters,
        max_statements=max_statements,
    )
    sql = script.ctx.text  # without the client's commands (BTEQ's .LOGON)
    # The parsed script is most of the heap for a long script, and each of CPython's full
    # collections would walk all of it again, making the cost per statement grow with the
    # script (1.32x per statement at 70,000 statements against 1,000; 1.10x frozen).
    # Frozen, the collector skips what exists now: the parsed trees (cyclic through their
    # parent pointers) are then freed at the end rather than as each table is done; what
    # translation makes is collected as usual. https://docs.python.org/3/library/gc.html#gc.freeze
    gc.freeze()
    try:
        return _translate_definitions(script, sql, dialect, file, catalog, zone, strict, typed)
    finally:
        gc.unfreeze()


def _translate_definitions(
    script: ParsedScript,
    sql: str,
    dialect: str,
    file: str,
    catalog: Catalog | None,
    zone: str,
    strict: bool = False,
    typed: bool = False,
) -> ScriptTranslation:
    ctx = script.ctx
    # Each definition's rewritten, typed tree (the bulk of what a statement takes) is let go
    # once translated, so that memory does not grow with the whole script.
    pending = deque(zip(script.definitions, script.names, strict=True))
    # From here on only the definitions' statements are located: the rest (helpers folded
    # into CTEs, DROPs) can go too.
    defining = {id(definition.statement) for definition, _ in pending}
    for statement_id in [i for i in ctx.statement_offsets if i not in defining]:
        del ctx.statement_offsets[statement_id]
    # A table several dialects' DDL declared is read with this dialect's types.
    catalog = (catalog or _default_catalog()).for_dialect(dialect)
    assumptions = ctx.assumptions
    # One set of line starts for every table's context: locating a statement is then a
    # binary search, not a count of the lines before it.
    lines = ctx.lines or LineIndex(sql)
    # Diagnostics of the whole script, gathered once: a long script can hold many.
    errors = dict.fromkeys(d for d in ctx.diagnostics if d.severity == "error")
    notes = [d for d in ctx.diagnostics if d.severity != "error"]
    script_catalog: _ScriptCatalog | None = None
    translations: list[Translation] = []
    while pending:
        definition, table_name = pending.popleft()
        last = not pending
        table_ctx = Context(
            dialect=dialect,
            file=file,
            text=sql,
            assumptions=definition.assumptions or assumptions,
            stated=dict(definition.stated),
            diagnostics=list(notes),
            applied=set(ctx.applied),
            assumed=dict(ctx.assumed),
            statement_starts=ctx.statement_starts,
            statement_offsets=ctx.statement_offsets,
            lines=lines,
        )
        try:
            translation = _translate_definition(
                definition,
                table_name,
                catalog,
                table_ctx,
                zone,
                with_types=typed or not last,
                strict=strict,
            )
        except TranslationError as error:
            errors.update(dict.fromkeys(error.diagnostics))
            continue
        finally:
            ctx.statement_offsets.pop(id(definition.statement), None)
        translations.append(translation)
        if not last and definition.name_parts:
            if script_catalog is None:
                script_catalog = _ScriptCatalog.of(catalog)
                catalog = script_catalog.catalog
            script_catalog.add(dialect, definition, translation)
    if errors:
        raise TranslationError(sorted(errors, key=lambda d: (d.line, d.col, d.rule)))
    return ScriptTranslation(file=file, dialect=dialect, tables=tuple(translations))


def _translate_definition(
    definition: Definition,
    name: str,
    catalog: Catalog,
    ctx: Context,
    zone: str,
    with_types: bool = False,
    strict: bool = False,
) -> Translation:
    try:
        tree, source_tables, walked = _rewrite(definition.query, catalog, ctx)
        if definition.variable_uses:
            _refuse_shadowed_variables(definition, catalog, source_tables, ctx)
        # One walk finds the portable calls and serves the checks before generation (the
        # last walk of the rules' phases, where nothing has changed the tree since); the
        # strict refusals are reported in portable.uses' (breadth-first) order.
        nodes = preorder(tree) if walked is None else walked
        calls = (
            portable.uses(tree)
            if strict
            else [(portable.BY_NODE[type(n)].name, n) for n in nodes if type(n) in portable.BY_NODE]
        )
        if strict:
            for name, node in calls:
                ctx.report("error", "PORTABLE-STRICT", node, _strict_refusal(name, node))
            ctx.raise_errors()
        selects = tree.selects if isinstance(tree, exp.Query) else []
        columns = tuple(s.alias_or_name for s in selects)
        types: tuple[exp.DataType, ...] = ()
        if with_types:
            # The rules' rewrites leave stale types behind; a later statement of the script
            # reads this table with the types its final SQL has.
            schema = _typed_schema(catalog, ctx.dialect, source_tables)
            typed = annotate_types(tree.copy(), schema=schema, dialect=ctx.dialect)
            # Copied: a type annotation took from the tree (a CAST's target) keeps its parent,
            # and through it the whole typed tree, alive for as long as the translation.
            types = tuple(
                s.type.copy() if s.type else exp.DataType.build("UNKNOWN") for s in typed.selects
            )
            if semantics(ctx.dialect).DATE_HOLDS_TIME:
                types = _oracle_dates(typed, types, ctx.dialect)
        ansi_sql = _generate(tree, ctx, nodes)
    except TranslationError:
        raise
    except (
        SqlglotError,
        RecursionError,
        ValueError,
        TypeError,
        AttributeError,
        KeyError,
        AssertionError,  # sqlglot's optimizer asserts on shapes it does not handle
    ) as error:
        # A construct the pipeline does not anticipate is refused, never guessed at.
        line, col = ctx.locate_statement(definition.statement)
        message = f"cannot translate: {_one_line(str(error))}"
        raise TranslationError(
            [Diagnostic("error", "ANSI-UNSUPPORTED", message, ctx.file, line, col)]
        ) from error
    line, col = ctx.locate_statement(definition.statement)
    return Translation(
        name=name,
        dialect=ctx.dialect,
        ansi_sql=ansi_sql,
        rules_applied=tuple(sorted(ctx.applied)),
        diagnostics=tuple(d for d in ctx.diagnostics if d.severity != "error"),
        source_tables=source_tables,
        columns=columns,
        column_types=types,
        zone=zone,
        line=line,
        col=col,
        assumed=tuple(sorted(ctx.assumed.items())),
        portable_functions=tuple(sorted({name for name, _ in calls})),
        guards=tuple(
            sorted(
                {portable.guard_rule(n) for _, n in calls if type(n) is portable.PortableRaiseError}
            )
        ),
        defines=_defines(definition),
    )


def _strict_refusal(name: str, node: exp.Expr) -> str:
    if type(node) is portable.PortableRaiseError:
        return (
            f"a run-time guard of {portable.guard_rule(node)} (RAISE_ERROR, which stops the "
            "query on a row whose exact result is not determined) is not SQL:2016; --strict "
            "translates to the standard alone"
        )
    return (
        f"{name} is not SQL:2016 (a function of the portable set); --strict translates to "
        "the standard alone"
    )


def _refuse_shadowed_variables(
    definition: Definition, catalog: Catalog, source_tables: Sequence[str], ctx: Context
) -> None:
    """A BigQuery variable read by its bare name where a table the query reads has a column
    of that name: the script replaced the name by the variable's value, but the query may
    read the column; refused rather than either guessed (sql/variables.py)."""
    owners: dict[str, str] = {}
    for zone, tables in catalog.schema(source_tables).items():
        for table, columns in tables.items():
            for column in columns:
                owners.setdefault(column.lower(), f"{zone}.{table}")
    for name, line, col in definition.variable_uses:
        if name in owners:
            message = (
                f"{name} is both a script variable and a column of {owners[name]}; which one "
                "the query reads is not certain: rename the variable"
            )
            diagnostic = Diagnostic("error", "SCRIPT-VARIABLE", message, ctx.file, line, col)
            if diagnostic not in ctx.diagnostics:
                ctx.diagnostics.append(diagnostic)
    ctx.raise_errors()


def _defines(definition: Definition) -> str:
    statement = definition.statement
    if definition.target is None:
        return "query"
    return "view" if isinstance(statement, exp.Create) and statement.kind == "VIEW" else "table"


@dataclass(frozen=True)
class OutputSchema:
    """A translated table's columns as a catalog holds them (``Catalog``'s ``tables``,
    ``opaque`` and ``casespecific`` of one table): what a reader of the table is typed by."""

    columns: dict[str, str]  # column -> ANSI type, in order (an opaque column's: below)
    opaque: dict[str, str] = field(default_factory=dict)  # column -> type with no ANSI form
    casespecific: dict[str, bool] = field(default_factory=dict)  # Teradata's case attribute
    # column -> (dialect, declared type) of a column that carries a legacy declared type
    # through (an Oracle DATE column selected as it is stays an Oracle DATE to a reader).
    declared: dict[str, tuple[str, str]] = field(default_factory=dict)


def output_schema(translation: Translation) -> OutputSchema:
    """The columns of ``translation`` (translated with their types: ``typed``) with the
    types its final SQL gives them."""
    if len(translation.column_types) != len(translation.columns):
        raise ValueError(f"{translation.name}: translated without its column types")
    columns: dict[str, str] = {}
    opaque: dict[str, str] = {}
    case: dict[str, bool] = {}
    legacy: dict[str, tuple[str, str]] = {}
    for column, kind in zip(translation.columns, translation.column_types, strict=True):
        if "casespecific" in kind.meta:  # a Teradata column's declared case attribute
            case[column] = kind.meta["casespecific"]
        if (found := declared_type(kind)) is not None:
            legacy[column] = found
        if is_opaque(kind):
            columns[column] = opaque[column] = kind.sql().removeprefix(OPAQUE_PREFIX).upper()
            continue
        try:
            if kind.this == exp.DType.UNKNOWN:
                raise UnsupportedError("unknown type")
            columns[column] = ansi.generate(kind)
        except UnsupportedError:
            # A type annotation could not name exactly: later readers may pass the column
            # on, but an expression that depends on its type is refused (OPAQUE-TYPE).
            columns[column] = opaque[column] = (
                kind.sql() if kind.this != exp.DType.UNKNOWN else "UNKNOWN"
            )
    return OutputSchema(columns, opaque, case, legacy)


@dataclass(frozen=True)
class _ScriptCatalog:
    """A catalog that learns each table a script defines, under the name the script wrote,
    so that later statements of the same script can read it.

    Copied from the user's catalog once per script and then added to: a copy per table
    made translating a script quadratic in its length."""

    catalog: Catalog
    tables: dict[str, Mapping[str, str]]
    legacy: dict[str, dict[tuple[str, ...], str]]
    opaque: dict[str, Mapping[str, str]]
    casespecific: dict[str, Mapping[str, bool]]
    declared: dict[str, Mapping[str, tuple[str, str]]]

    @classmethod
    def of(cls, catalog: Catalog) -> _ScriptCatalog:
        tables = dict(catalog.tables)
        legacy = {d: dict(names) for d, names in catalog.legacy.items()}
        opaque = dict(catalog.opaque)
        casespecific = dict(catalog.casespecific)
        declared = dict(catalog.declared)
        own = replace(
            catalog,
            tables=tables,
            legacy=legacy,
            opaque=opaque,
            casespecific=casespecific,
            declared=declared,
        )
        return cls(own, tables, legacy, opaque, casespecific, declared)

    def add(self, dialect: str, definition: Definition, translation: Translation) -> None:
        lake = f"{translation.zone}.{translation.name}"
        schema = output_schema(translation)
        self.tables[lake] = schema.columns
        if schema.opaque:
            self.opaque[lake] = schema.opaque
        if schema.casespecific:
            self.casespecific[lake] = schema.casespecific
        if schema.declared:
            self.declared[lake] = schema.declared
        key = legacy_key(definition.name_parts, dialect)
        self.legacy.setdefault(dialect, {})[key] = lake


def translate(
    sql: str,
    dialect: str,
    *,
    file: str = "<stdin>",
    name: str | None = None,
    catalog: Catalog | None = None,
    assumptions: Assumptions | None = None,
    strict: bool = False,
    parameters: Mapping[str, QueryParameter] | None = None,
) -> Translation:
    """Translate a script that defines one table; raises ``TranslationError``.

    A script that defines several tables is refused here (SCRIPT-SHAPE, at the second
    one); ``translate_script`` translates each of them.
    """
    script = translate_script(
        sql,
        dialect,
        file=file,
        name=name,
        catalog=catalog,
        assumptions=assumptions,
        strict=strict,
        parameters=parameters,
    )
    if len(script.tables) != 1:
        second = script.tables[1]
        message = (
            f"the script defines {len(script.tables)} tables "
            f"({', '.join(t.name for t in script.tables)}); translate it as a script"
        )
        line, col = second.line, second.col
        raise TranslationError([Diagnostic("error", "SCRIPT-SHAPE", message, file, line, col)])
    return script.tables[0]


def translate_file(
    path: Path,
    dialect: str | None = None,
    *,
    catalog: Catalog | None = None,
    assumptions: Assumptions | None = None,
) -> Translation:
    """Translate ``sql/legacy/<dialect>/<name>.sql``; the dialect defaults to the folder name."""
    path = Path(path)
    return translate(
        path.read_text(),
        dialect or path.parent.name,
        file=str(path),
        name=path.stem,
        catalog=catalog,
        assumptions=assumptions,
    )
