"""Translate one legacy SQL file to one ANSI SELECT, exactly or not at all.

Pipeline: parse in the source dialect -> fold the script into one query -> syntax rules
(ROWNUM, hints, Oracle (+)) -> resolve legacy table names through the catalog -> qualify
columns and annotate types against the lake schema -> typed rules -> QUALIFY
elimination -> strict ANSI generation. Every refusal is a located ``TranslationError``.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import sqlglot
from sqlglot import exp, transforms
from sqlglot.errors import OptimizeError, ParseError, SqlglotError, UnsupportedError
from sqlglot.optimizer.annotate_types import annotate_types
from sqlglot.optimizer.qualify import qualify
from sqlglot.schema import MappingSchema
from sqlglot.tokens import Token, TokenType

from sql import ansi
from sql.assumptions import Assumptions, load_assumptions
from sql.catalog import QUOTED_IS_CASE_SENSITIVE, Catalog, load_catalog
from sql.diagnostics import Diagnostic, TranslationError
from sql.rules import Context, apply_rules, load_all, rules_for
from sql.script import fold_script
from sql.source_dialects import SOURCE_DIALECTS


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
DIALECTS = ("snowflake", "tsql", "teradata", "oracle", "bigquery", "redshift")

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


@lru_cache(maxsize=1)
def _default_catalog() -> Catalog:
    return load_catalog()


@lru_cache(maxsize=1)
def _default_assumptions() -> Assumptions:
    return load_assumptions()


def _parse(sql: str, dialect: str, ctx: Context) -> list[exp.Expr]:
    source = sqlglot.Dialect.get_or_raise(SOURCE_DIALECTS[dialect])
    try:
        tokens = source.tokenize(sql)
        statements = source.parser().parse(tokens, sql)
    except ParseError as error:
        first = error.errors[0] if error.errors else {}
        line, col = first.get("line") or 1, first.get("col") or 1
        # sqlglot reports the column where the offending token ends; point at its start.
        token = first.get("highlight") or ""
        col = max(1, col - len(token) + 1)
        description = first.get("description") or str(error)
        raise TranslationError(
            [Diagnostic("error", "PARSE", f"cannot parse: {description}", ctx.file, line, col)]
        ) from None
    except Exception as error:
        # On some malformed input sqlglot's tokenizer and parser fail with internal errors
        # (TokenError, AttributeError, IndexError, ...): the input is still unparseable.
        raise TranslationError(
            [Diagnostic("error", "PARSE", f"cannot parse: {error}", ctx.file, 1, 1)]
        ) from None
    ctx.statement_starts = _statement_starts(tokens)
    return [s for s in statements if s is not None]


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


def _fold_identifiers(tree: exp.Expr, dialect: str) -> None:
    """Fold names the way the source dialect compares them, then quote every name.

    After this, names are lower-case unless quoted in a case-sensitive dialect, and the
    rest of the pipeline can compare them exactly.
    """
    for identifier in tree.find_all(exp.Identifier):
        if not (identifier.quoted and dialect in QUOTED_IS_CASE_SENSITIVE):
            identifier.set("this", identifier.name.lower())
        identifier.set("quoted", True)


def _cte_names(tree: exp.Expr) -> set[str]:
    return {cte.alias_or_name.lower() for cte in tree.find_all(exp.CTE)}


def _resolve_tables(tree: exp.Expr, catalog: Catalog, ctx: Context) -> tuple[str, ...]:
    ctes = _cte_names(tree)
    found: set[str] = set()
    for table in list(tree.find_all(exp.Table)):
        if not isinstance(table.this, exp.Identifier):
            continue
        parts = [p for p in (table.args.get("catalog"), table.args.get("db"), table.this) if p]
        if len(parts) == 1 and table.name.lower().lstrip("#") in ctes:
            table.set("this", exp.to_identifier(table.name.lstrip("#")))
            continue
        if ctx.dialect == "oracle" and len(parts) == 1 and table.name.upper() == "DUAL":
            select = table.parent.parent if isinstance(table.parent, exp.From) else None
            if isinstance(select, exp.Select) and not select.args.get("joins"):
                select.set("from_", None)
                ctx.applied.add("ORA-DUAL")
                continue
        line, col = ctx.locate(table)
        try:
            lake = catalog.resolve(parts, ctx.dialect, ctx.file, line, col)
        except TranslationError as error:
            ctx.diagnostics.extend(error.diagnostics)
            continue
        zone, name = lake.split(".")
        alias = table.args.get("alias") or exp.TableAlias(this=exp.to_identifier(table.name))
        table.set("catalog", None)
        table.set("db", exp.to_identifier(zone))
        table.set("this", exp.to_identifier(name))
        table.set("alias", alias)
        found.add(lake)
    return tuple(sorted(found))


def _locate_column(tree: exp.Expr, message: str) -> exp.Expr | None:
    for column in tree.find_all(exp.Column):
        if column.name and f"'{column.name}'" in message:
            return column
    return tree


def _qualify(tree: exp.Expr, schema: MappingSchema, ctx: Context) -> exp.Expr:
    try:
        tree = qualify(
            tree,
            dialect=ctx.dialect,
            schema=schema,
            validate_qualify_columns=True,
            quote_identifiers=True,
            identify=True,
        )
        return annotate_types(tree, schema=schema, dialect=ctx.dialect)
    except OptimizeError as error:
        node = _locate_column(tree, str(error))
        ctx.report("error", "COLUMN-UNKNOWN", node, str(error).splitlines()[0])
        ctx.raise_errors()
        raise  # unreachable: raise_errors raised


def _rewrite(tree: exp.Expr, catalog: Catalog, ctx: Context) -> tuple[exp.Expr, tuple[str, ...]]:
    """The folded query rewritten into ANSI-only nodes, and the lake tables it reads."""
    dialect = ctx.dialect
    for select in tree.find_all(exp.Select):
        if not select.expressions:
            ctx.report("error", "PARSE", select, "SELECT without a select list")
    ctx.raise_errors()
    if dialect == "oracle" and any(c.args.get("join_mark") for c in tree.find_all(exp.Column)):
        try:
            tree = transforms.eliminate_join_marks(tree)
        except AssertionError as error:  # sqlglot asserts on (+) it cannot place
            ctx.report("error", "ORA-OUTER-PLUS", tree, f"cannot rewrite (+) join: {error}")
            ctx.raise_errors()
        ctx.applied.add("ORA-OUTER-PLUS")
    if any(star.args.get("except_") for star in tree.find_all(exp.Star)):
        ctx.applied.add("STAR-EXCEPT")
    tree = apply_rules(tree, ctx, "syntax")
    source_tables = _resolve_tables(tree, catalog, ctx)
    ctx.raise_errors()
    _fold_identifiers(tree, dialect)
    schema = MappingSchema(catalog.schema(), dialect=dialect, normalize=False)
    tree = _qualify(tree, schema, ctx)
    tree = apply_rules(tree, ctx, "typed")
    for phase in ("arithmetic", "final"):
        ctx.raise_errors()
        # Annotation is the costliest step; skip it when no rule of the phase can match.
        candidates = tree.find_all(*rules_for(dialect, phase))
        if any(not node.meta.get("generated") for node in candidates):
            tree = annotate_types(tree, schema=schema, dialect=dialect)
            tree = apply_rules(tree, ctx, phase)
    ctx.raise_errors()
    if any(True for _ in tree.find_all(exp.Qualify)):
        tree = transforms.eliminate_qualify(tree)
    return tree, source_tables


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
    if isinstance(node, exp.Count) and len(node.expressions) > 1:
        return "COUNT over several expressions"
    return None


def _generate(tree: exp.Expr, ctx: Context) -> str:
    # Locate what the generator would reject, so the refusal points at the construct.
    for node in tree.walk():
        construct = _non_standard(node)
        if construct is not None:
            ctx.report("error", "ANSI-UNSUPPORTED", node, f"{construct} has no exact ANSI SQL form")
        if type(node) not in ansi.ALLOWED_EXPRESSIONS:
            ctx.report(
                "error", "ANSI-UNSUPPORTED", node, f"{node.key.upper()} has no exact ANSI SQL form"
            )
        elif isinstance(node, exp.DataType) and node.this not in ansi.ALLOWED_TYPES:
            ctx.report(
                "error",
                "ANSI-UNSUPPORTED",
                node,
                f"type {node.this.value} has no exact ANSI SQL form",
            )
    ctx.raise_errors()
    try:
        return ansi.generate(tree, copy=False)
    except UnsupportedError as error:
        ctx.report("error", "ANSI-UNSUPPORTED", tree, str(error).replace("\n", "; "))
        ctx.raise_errors()
        raise


def translate(
    sql: str,
    dialect: str,
    *,
    file: str = "<stdin>",
    name: str | None = None,
    catalog: Catalog | None = None,
    assumptions: Assumptions | None = None,
) -> Translation:
    """Translate the script ``sql`` written in ``dialect``; raises ``TranslationError``.

    ``assumptions`` are the server settings the text cannot show (default: the values in
    ``sql/assumptions.yaml``); every rule that relies on one warns.
    """
    if dialect not in DIALECTS:
        message = f"unknown dialect {dialect!r}; expected one of {', '.join(DIALECTS)}"
        raise TranslationError([Diagnostic("error", "DIALECT", message, file, 1, 1)])
    catalog = catalog or _default_catalog()
    ctx = Context(
        dialect=dialect,
        file=file,
        text=sql,
        assumptions=assumptions or _default_assumptions(),
    )
    statements = _parse(sql, dialect, ctx)
    for statement in statements:
        for node in statement.walk():
            node.meta["source"] = True
    if not statements:
        raise TranslationError(
            [Diagnostic("error", "SCRIPT-SHAPE", "no SQL statement", file, 1, 1)]
        )
    try:
        definition = fold_script(statements, ctx)
        ctx.raise_errors()
        if definition is None:  # fold_script reports why; raise_errors raised it
            raise TranslationError([Diagnostic("error", "SCRIPT-SHAPE", "no table", file, 1, 1)])
        tree, source_tables = _rewrite(definition.query, catalog, ctx)
        ansi_sql = _generate(tree, ctx)
    except TranslationError:
        raise
    except (SqlglotError, RecursionError, ValueError, TypeError, AttributeError, KeyError) as error:
        # A construct the pipeline does not anticipate is refused, never guessed at.
        raise TranslationError(
            [Diagnostic("error", "ANSI-UNSUPPORTED", f"cannot translate: {error}", file, 1, 1)]
        ) from error
    selects = tree.selects if isinstance(tree, exp.Query) else []
    return Translation(
        name=(definition.target or name or Path(file).stem).lower(),
        dialect=dialect,
        ansi_sql=ansi_sql,
        rules_applied=tuple(sorted(ctx.applied)),
        diagnostics=tuple(d for d in ctx.diagnostics if d.severity != "error"),
        source_tables=source_tables,
        columns=tuple(s.alias_or_name for s in selects),
    )


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
