"""BigQuery wildcard tables: ``FROM `project.dataset.events_*` `` read as the standard's
UNION ALL of the catalog tables the name matches, with the ``_TABLE_SUFFIX`` pseudo-column.

A wildcard table is the union of every table of the dataset whose name starts with the
prefix, each row carrying the rest of its table's name as ``_TABLE_SUFFIX`` (a STRING):
https://cloud.google.com/bigquery/docs/querying-wildcard-tables. Its schema is that of the
most recently created matching table, which a catalog cannot say. A column every matching
table has with one type is that column of the wildcard, whichever table is the most recent
(BigQuery reads each table's own values of it; a column of the schema that a table lacks reads
as NULL). So the union projects only the columns the query reads, and a query that reads a
column some matching table lacks or types otherwise is refused at that column; a ``*`` over
the wildcard, whose columns and their order are the most recent table's, translates only when
every matching table has the same columns and types, in the same order.

A nested column whose records gained fields in later tables (Google Analytics'
``hits.product`` gained ``productCouponCode``) has several types, but each field of it that
every table has with one type is that field of the wildcard's column, as a column is: the
query may read such fields (through UNNEST too), never a drifted record whole, and never a
field some table lacks (BigQuery documents NULL for a column a table lacks, not for a
nested field). Where the pruned union reads tables of several shapes of the column, the
UNNESTs of it move into the union's branches, which project the values read.

The set of tables is the catalog's: the translation assumes the warehouse holds exactly the
tables the catalog lists (and that none of them is a view, which BigQuery refuses), and says
so in a WILDCARD-TABLES warning naming how many tables it reads.

``_TABLE_SUFFIX`` comparisons with string literals in the WHERE clause of the query block
that reads the wildcard (conjuncts only) prune the union to the tables that can satisfy them:
the comparison stays in the query, so pruning only drops branches whose rows it would reject.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace

from sqlglot import exp
from sqlglot.optimizer.scope import Scope, traverse_scope

from sql.ansi import parse_type
from sql.catalog import Catalog, NamePart, PrefixMatch
from sql.diagnostics import Diagnostic
from sql.rules.base import Context
from sql.source_dialects import semantics

SUFFIX = "_TABLE_SUFFIX"
# The pseudo-column as the folded query names it (sqlglot's qualification turns every
# reference to it into an unqualified Pseudocolumn: resolve_suffixes puts them back).
SUFFIX_NAME = SUFFIX.lower()
# Beyond this many columns read by the unions' branches of one statement (tables after
# pruning times their columns, plus the suffix, over every wildcard the statement reads), a
# wildcard is refused: translation time and the text grow with it (about a second per
# thousand here; four unions of 366 tables and 5 columns took 100 s on a busy machine).
MAX_BRANCH_COLUMNS = 5_000
# Legacy SQL's table wildcard functions: legacy SQL is not translated.
LEGACY_FUNCTIONS = frozenset({"TABLE_DATE_RANGE", "TABLE_DATE_RANGE_STRICT", "TABLE_QUERY"})
# Marks the union a wildcard table became, for resolving ``_TABLE_SUFFIX`` after qualification.
WILDCARD_META = "wildcard_table"
# On that union: {column: why it differs between the matching tables} (refused where read).
DIFFERING_META = "wildcard_differing"
# On that union: {column: _Drift} for each nested column every matching table has, with
# nested types that differ (fields added to a record): read field by field, not refused.
DRIFT_META = "wildcard_drift"
# A step into an array's elements in a path of fields (``_Drift.reads``).
ELEMENTS = "[]"


def is_wildcard(table: exp.Table, dialect: str) -> bool:
    return (
        semantics(dialect).WILDCARD_TABLES
        and isinstance(table.this, exp.Identifier)
        and table.this.name.endswith("*")
    )


def refuse_legacy_function(table: exp.Table, ctx: Context) -> None:
    """Legacy SQL's TABLE_DATE_RANGE / TABLE_QUERY: refused (GoogleSQL wildcards are not
    the same construct, and legacy SQL is not a source this project reads)."""
    function = table.this
    if (
        semantics(ctx.dialect).WILDCARD_TABLES
        and isinstance(function, exp.Anonymous)
        and function.name.upper() in LEGACY_FUNCTIONS
    ):
        ctx.report(
            "error",
            "WILDCARD-UNSUPPORTED",
            table,
            f"{function.name.upper()} is a legacy SQL table wildcard function; legacy SQL is "
            f"not translated: write the GoogleSQL wildcard table `dataset.prefix*` with "
            f"{SUFFIX} in WHERE",
        )


def expand(
    table: exp.Table,
    parts: Sequence[NamePart],
    catalog: Catalog,
    ctx: Context,
    identifier: Callable[[str], exp.Identifier],
) -> tuple[str, ...]:
    """Replace the wildcard ``table`` with the UNION ALL of the catalog tables it matches
    (under the wildcard's alias); the lake tables read. Reports a located error instead when
    the wildcard has no exact translation (nothing replaced, nothing read)."""
    name = table.this.name
    prefix = name[:-1]
    shown = _shown(parts)
    if "*" in prefix:
        return _refuse(ctx, table, f"{shown}: a wildcard table's name has one `*`, at its end")
    extra = sorted(
        k for k, v in table.args.items() if v and k not in {"this", "db", "catalog", "alias"}
    )
    if extra:
        return _refuse(
            ctx, table, f"{shown}: a wildcard table with {', '.join(extra)} is not translated"
        )
    match = catalog.resolve_prefix([*parts[:-1], prefix], ctx.dialect, ctx.assumptions)
    tables = _matched_tables(match, table, shown, prefix, catalog, ctx)
    if not tables:
        return ()
    schema = _schema(tables, prefix, catalog)
    if schema.fails:
        return _refuse(ctx, table, f"{shown}: {schema.fails}: BigQuery fails such a query")
    columns, differing, layout = schema.columns, schema.differing, schema.layout
    star = _star_over(table) if layout else None
    if star is not None:
        return _refuse(
            ctx,
            star,
            f"`*` over {shown}, whose tables differ ({layout}): the wildcard's columns and "
            "their order are those of the most recently created table, which the catalog "
            "does not say; name the columns",
        )
    named = _suffix_named_for_star(table.root())
    if named is not None:
        return _refuse(
            ctx,
            named,
            f"a query block read by another one outputs a column named {SUFFIX}, and the "
            "query has a `*`: whether BigQuery's `*` leaves such a column out, as it leaves "
            "out the pseudo-column, is not established; name the column otherwise",
        )
    if _star_over(table) is None:
        # Only a column the statement names can be read (``keep_read_columns`` keeps the
        # ones it reads); qualifying a union of every column took minutes on wide wildcards.
        named_anywhere = {i.name.lower() for i in table.root().find_all(exp.Identifier)}
        columns = [column for column in columns if column.lower() in named_anywhere]
    alias = table.args.get("alias")
    kept = _pruned(tables, table, alias.name if alias is not None else name)
    before = sum(
        len(branch.expressions)
        for branch in table.root().find_all(exp.Select)
        if branch.meta.get(WILDCARD_META)
    )
    if before + len(kept) * (len(columns) + 1) > MAX_BRANCH_COLUMNS:
        earlier = f" (and {before} columns of the statement's other wildcards)" if before else ""
        return _refuse(
            ctx,
            table,
            f"{shown} reads {len(kept)} tables of {len(columns)} columns it may read{earlier}, "
            f"more than {MAX_BRANCH_COLUMNS} columns in one statement's unions; filter "
            f"{SUFFIX} with literal bounds (BETWEEN, =, IN, <, >) to read fewer tables",
        )
    for setting, _ in match.settings:
        ctx.assume(setting)
    suffixes = list(tables)
    span = f"{prefix}{suffixes[0]}" + (f" .. {prefix}{suffixes[-1]}" if len(suffixes) > 1 else "")
    pruned = (
        f", of which {len(kept)} can satisfy its {SUFFIX} bounds" if len(kept) < len(tables) else ""
    )
    ctx.report(
        "warning",
        "WILDCARD-TABLES",
        table,
        f"{shown} reads {len(tables)} tables of the catalog ({span}){pruned}; the translation "
        "assumes the warehouse holds exactly these tables, none of them a view",
    )
    ctx.applied.add("WILDCARD-TABLES")
    union = _union([(suffix, tables[suffix]) for suffix in kept], columns, catalog, identifier)
    union.meta[DIFFERING_META] = {
        name: f"{shown}: {reason}; the wildcard's schema is that of the most recently created "
        "table, which the catalog does not say: read only columns that every matching table "
        "has with the same type"
        for name, reason in differing.items()
    }
    union.meta[DRIFT_META] = {
        name: _Drift(
            shown,
            prefix,
            {suffix: catalog.tables[lake][name] for suffix, lake in tables.items()},
            frozenset(kept),
        )
        for name in differing
        if all(_nested(catalog, lake, name) for lake in tables.values())
    }
    table.replace(
        exp.Subquery(
            this=union,
            alias=alias if alias is not None else exp.TableAlias(this=identifier(name)),
        )
    )
    return tuple(tables[suffix] for suffix in kept)


def wildcard_reads(
    table: exp.Table, parts: Sequence[NamePart], catalog: Catalog, ctx: Context
) -> tuple[tuple[str, ...], tuple[Diagnostic, ...]]:
    """Every lake table the wildcard ``table`` matches, before its ``_TABLE_SUFFIX`` bounds
    prune any (what a graph of dependencies draws), and the errors :func:`expand` reports
    for it when it matches none; ``table`` and ``ctx`` are left as they are."""
    prefix = table.this.name[:-1]
    if "*" in prefix:
        return (), ()  # refused by the translation for its shape, not for its tables
    scratch = replace(ctx, diagnostics=[], applied=set(), assumed={})
    match = catalog.resolve_prefix([*parts[:-1], prefix], ctx.dialect, ctx.assumptions)
    tables = _matched_tables(match, table, _shown(parts), prefix, catalog, scratch)
    return tuple(sorted(set(tables.values()))), tuple(scratch.diagnostics)


def _shown(parts: Sequence[NamePart]) -> str:
    return ".".join(p.name if isinstance(p, exp.Identifier) else p for p in parts)


def _matched_tables(
    match: PrefixMatch, table: exp.Table, shown: str, prefix: str, catalog: Catalog, ctx: Context
) -> dict[str, str]:
    """suffix -> lake table of each catalog table the wildcard reads, all of one schema;
    empty (and reported) when the wildcard names none, tables of several datasets, or
    tables of different schemas."""
    searched = ", ".join(catalog.sources) or "the catalog"
    if match.ambiguous:
        where = ", ".join(".".join(p for p in n if p) for n in match.ambiguous)
        _report(
            ctx,
            "NAME-AMBIGUOUS",
            table,
            f"wildcard table {shown!r} can read tables of {where} (catalog: {searched}); "
            "qualify it with its dataset and project",
        )
        return {}
    if not match.tables:
        _report(
            ctx,
            "NAME-UNKNOWN",
            table,
            f"no table of the catalog matches the wildcard table {shown!r} (no table name "
            f"starts with {prefix!r}; searched: {searched}); add the tables, or import them "
            "with `plumbline catalog import`",
        )
        return {}
    for suffix, lakes in match.tables.items():
        if len(lakes) > 1:
            _report(
                ctx,
                "NAME-AMBIGUOUS",
                table,
                f"wildcard table {shown!r}: {prefix}{suffix} names {', '.join(lakes)}",
            )
            return {}
    if "" in match.tables:
        _refuse(
            ctx,
            table,
            f"{shown}: the catalog holds a table named {prefix!r}, the prefix itself; whether "
            "the wildcard reads it (with an empty suffix) is not established, so the "
            "translation is refused",
        )
        return {}
    tables = {suffix: lakes[0] for suffix, lakes in match.tables.items()}
    for suffix, lake in tables.items():
        if any(column.lower() == SUFFIX_NAME for column in catalog.tables[lake]):
            _refuse(ctx, table, f"{shown}: table {prefix}{suffix} has a column named {SUFFIX}")
            return {}
    return tables


@dataclass(frozen=True)
class _Schema:
    """What the matching tables' columns say about the wildcard's."""

    # The columns of any matching table: the first table's order, then each column a later
    # table adds.
    columns: list[str]
    # Each column that is not in every table with one type (an opaque column: one declared
    # type) -> why, in words.
    differing: dict[str, str]
    # The first difference between the tables' column lists (names, order, types), in
    # words; empty when there is none, the one case a ``*`` over the wildcard translates.
    layout: str
    # Why BigQuery fails every query of the wildcard, in words; empty when it does not.
    fails: str


def _schema(tables: Mapping[str, str], prefix: str, catalog: Catalog) -> _Schema:
    columns: dict[str, None] = {}
    for lake in tables.values():
        columns.update(dict.fromkeys(catalog.tables[lake]))
    first_suffix, first = next(iter(tables.items()))
    first_columns = list(catalog.tables[first].items())
    layout = ""
    for suffix, lake in tables.items():
        if list(catalog.tables[lake].items()) != first_columns or catalog.opaque.get(
            lake, {}
        ) != catalog.opaque.get(first, {}):
            layout = (
                f"{prefix}{suffix} has other columns or types than {prefix}{first_suffix}: "
                + _difference(first_columns, catalog.tables[lake])
            )
            break
    differing: dict[str, str] = {}
    fails = ""
    for name in columns:
        kinds = {
            suffix: (catalog.tables[lake].get(name), catalog.opaque.get(lake, {}).get(name))
            for suffix, lake in tables.items()
        }
        seen = next(iter(kinds.items()))
        for suffix, kind in kinds.items():
            if kind == seen[1]:
                continue
            if kind[0] is None or seen[1][0] is None:
                has, lacks = (seen[0], suffix) if kind[0] is None else (suffix, seen[0])
                differing[name] = f"column {name} is in {prefix}{has} but not in {prefix}{lacks}"
                if any(name in catalog.required.get(lake, ()) for lake in tables.values()):
                    # BigQuery reads a column a table lacks as NULL, and fails the query
                    # when the column may not be NULL, whether the query reads it or not.
                    fails = fails or f"{differing[name]}, where it is NOT NULL"
            else:
                differing[name] = _types(name, (prefix + seen[0], seen[1]), (prefix + suffix, kind))
            break
    return _Schema(list(columns), differing, layout, fails)


def _nested(catalog: Catalog, lake: str, name: str) -> bool:
    """Whether ``lake`` has column ``name`` with a declared (not opaque) nested type."""
    kind = catalog.tables[lake].get(name)
    return (
        kind is not None
        and name not in catalog.opaque.get(lake, {})
        and parse_type(kind).this in {exp.DType.ARRAY, exp.DType.STRUCT}
    )


@dataclass(frozen=True)
class _Drift:
    """A nested column that every matching table has, typed otherwise in some (a field
    added to a record, as schemas grow). A field of it that every table has with one type
    is that field of the wildcard's column whichever table is the most recent: BigQuery reads
    each table's own value of it. So the query may read such fields, and the union stays
    exact as long as the tables it reads after pruning share one type of the column."""

    shown: str  # the wildcard as written
    prefix: str
    types: Mapping[str, str]  # suffix -> the column's type text, every matching table
    kept: frozenset[str]  # the suffixes the pruned union reads

    def refusal(self, path: Sequence[str], unnested: bool) -> str | None:
        """Why reading ``path`` (the column, then field names and ELEMENTS steps) has no
        exact translation; None when it has one. ``unnested``: the value at ``path`` is
        UNNEST's array, whose elements' reads are judged each on its own."""
        found = {suffix: _field(parse_type(kind), path[1:]) for suffix, kind in self.types.items()}
        shown = ".".join(step for step in path if step != ELEMENTS)
        whole = f"an element of {shown}" if path[-1] == ELEMENTS else shown
        lacking = [suffix for suffix, kind in found.items() if kind is None]
        having = [suffix for suffix, kind in found.items() if kind is not None]
        if lacking:
            return (
                f"{self.shown}: field {shown} is in {self.prefix}{having[0]} but not in "
                f"{self.prefix}{lacking[0]}; BigQuery reads a column that a matching table "
                "lacks as NULL, but its documentation says nothing of a nested field a "
                "table lacks: read only fields that every matching table has"
            )
        first_suffix, first = next(iter(found.items()))
        other = next((s for s, kind in found.items() if kind != first), None)
        if other is None or unnested:
            return None
        where = f"{self.prefix}{first_suffix} and {self.prefix}{other}"
        if first is not None and first.this in {exp.DType.ARRAY, exp.DType.STRUCT}:
            return (
                f"{self.shown}: {whole} is read as a whole, and its fields differ between "
                f"{where}; the wildcard's are those of the most recently created table, which "
                "the catalog does not say: read the fields that every matching table has"
            )
        return f"{self.shown}: field {shown} has one type in {self.prefix}{first_suffix} and another in {self.prefix}{other}"

    def mixed(self, name: str) -> str | None:
        """Why the pruned union cannot hold the column: the tables it reads have several
        types of it (a UNION ALL of rows of different shapes has no standard form)."""
        kinds = {suffix: self.types[suffix] for suffix in sorted(self.kept)}
        first_suffix, first = next(iter(kinds.items()))
        other = next((s for s, kind in kinds.items() if kind != first), None)
        if other is None:
            return None
        return (
            f"{self.shown}: the tables it reads hold column {name} with other fields in "
            f"{self.prefix}{first_suffix} than in {self.prefix}{other}, and a union of rows "
            f"of different shapes has no standard form here: bound {SUFFIX} with literals "
            "to tables of one schema"
        )


def _field(kind: exp.DataType | None, path: Sequence[str]) -> exp.DataType | None:
    """The type at ``path`` (field names, case-insensitive as BigQuery's, and ELEMENTS
    steps) inside ``kind``; None where a step names no field of it."""
    for step in path:
        if kind is None:
            return None
        if step == ELEMENTS:
            kind = kind.expressions[0] if kind.this == exp.DType.ARRAY else None
        elif kind.this == exp.DType.STRUCT:
            kind = next(
                (f.args["kind"] for f in kind.expressions if f.name.lower() == step.lower()),
                None,
            )
        else:
            return None
    return kind


def _types(
    name: str,
    one: tuple[str, tuple[str | None, str | None]],
    other: tuple[str, tuple[str | None, str | None]],
) -> str:
    """Column ``name`` typed otherwise in two tables ((table, (type, opaque type))), in words
    (types too long to read, as nested ones are, left out)."""
    (table, (kind, opaque)), (other_table, (other_kind, other_opaque)) = one, other
    shown, other_shown = opaque or kind or "", other_opaque or other_kind or ""
    if len(shown) + len(other_shown) > 80:
        return f"column {name} has one type in {table} and another in {other_table}"
    return f"column {name} is {shown} in {table} and {other_shown} in {other_table}"


def _union(
    tables: list[tuple[str, str]],
    columns: list[str],
    catalog: Catalog,
    identifier: Callable[[str], exp.Identifier],
) -> exp.Query:
    """UNION ALL of ``tables`` ((suffix, lake table), at least one): each one's ``columns``
    (NULL where a table lacks one: such a column is refused where it is read, and left out
    where it is not, by ``keep_read_columns``) and its suffix as a VARCHAR (a literal is a
    CHAR of its length in the standard, which a union would pad to the longest)."""
    branches: list[exp.Query] = []
    for suffix, lake in tables:
        zone, lake_name = lake.split(".")
        has = catalog.tables[lake]
        branch = exp.Select(
            expressions=[
                *(
                    exp.column(exp.to_identifier(column, quoted=True))
                    if column in has
                    else exp.alias_(exp.Null(), exp.to_identifier(column, quoted=True))
                    for column in columns
                ),
                exp.alias_(
                    exp.cast(exp.Literal.string(suffix), exp.DType.VARCHAR), identifier(SUFFIX)
                ),
            ]
        ).from_(exp.Table(this=identifier(lake_name), db=identifier(zone)), copy=False)
        branch.meta[WILDCARD_META] = True
        branches.append(branch)
    union = branches[0]
    for branch in branches[1:]:
        union = exp.union(union, branch, distinct=False, copy=False)
    union.meta[WILDCARD_META] = True
    return union


def _difference(columns: list[tuple[str, str]], other: Mapping[str, str]) -> str:
    """The first column where a table's columns differ from ``columns``, in words."""
    others = list(other.items())
    for (name, kind), (other_name, other_kind) in zip(columns, others, strict=False):
        if name != other_name:
            return f"its column {other_name} where the other has {name}"
        if kind != other_kind:
            if len(str(kind)) + len(str(other_kind)) > 80:
                return f"its column {name} has another type"
            return f"its column {name} is {other_kind}, not {kind}"
    if len(others) != len(columns):
        return f"it has {len(others)} columns, the other {len(columns)}"
    return "an opaque column's declared type differs"


def _suffix_named_for_star(root: exp.Expr) -> exp.Expr | None:
    """A projection named ``_TABLE_SUFFIX`` of a nested query block, when the statement has
    a ``*`` that may read it (sqlglot's BigQuery star expansion leaves every column of that
    name out; for the pseudo-column that is BigQuery's rule, for a named column unknown)."""
    if not any(_projects(star) for star in root.find_all(exp.Star)):
        return None
    for select in root.find_all(exp.Select):
        if select.meta.get(WILDCARD_META) or not select.find_ancestor(exp.Subquery, exp.CTE):
            continue
        for projection in select.expressions:
            if projection.alias_or_name.lower() == SUFFIX_NAME:
                return projection
    return None


def _star_over(table: exp.Table) -> exp.Expr | None:
    """A ``*`` or ``alias.*`` of the select list of the query block that reads ``table``
    (which expands the wildcard's columns), if there is one."""
    source = table.parent
    select = source.parent if isinstance(source, exp.From | exp.Join) else None
    if not isinstance(select, exp.Select):
        return None
    alias = table.args.get("alias")
    names = {(alias.name if alias is not None else table.name).lower()}
    for projection in select.expressions:
        if isinstance(projection, exp.Star):
            return projection
        if (
            isinstance(projection, exp.Column)
            and isinstance(projection.this, exp.Star)
            and projection.table.lower() in names
        ):
            return projection
    return None


def _projects(star: exp.Star) -> bool:
    """Whether ``star`` is a select list's ``*`` or ``t.*`` (not COUNT(*))."""
    parent = star.parent
    if isinstance(parent, exp.Column):
        parent = parent.parent
    return isinstance(parent, exp.Select)


def _refuse(ctx: Context, node: exp.Expr, message: str) -> tuple[str, ...]:
    return _report(ctx, "WILDCARD-UNSUPPORTED", node, message)


def _report(ctx: Context, rule_id: str, node: exp.Expr, message: str) -> tuple[str, ...]:
    ctx.report("error", rule_id, node, message)
    return ()


def _pruned(tables: dict[str, str], table: exp.Table, alias_name: str) -> list[str]:
    """The suffixes whose rows can satisfy the ``_TABLE_SUFFIX`` conjuncts of the WHERE
    clause of the query block that reads ``table``; at least one (an empty union has no
    standard form, and the kept predicate rejects that table's rows anyway)."""
    tests = _suffix_tests(table, alias_name)
    kept = [s for s in tables if all(test(s) for test in tests)]
    return kept or list(tables)[:1]


# Each comparison of _TABLE_SUFFIX with a string literal, as a test of one suffix. Strings
# compare by code point in BigQuery as in Python (UTF-8 byte order is code point order).
_COMPARISONS: dict[type[exp.Expr], Callable[[str, str], bool]] = {
    exp.EQ: lambda s, v: s == v,
    exp.NEQ: lambda s, v: s != v,
    exp.LT: lambda s, v: s < v,
    exp.LTE: lambda s, v: s <= v,
    exp.GT: lambda s, v: s > v,
    exp.GTE: lambda s, v: s >= v,
}
_STRING_TYPES = frozenset({exp.DType.TEXT, exp.DType.VARCHAR, exp.DType.NVARCHAR})
_MIRRORED: dict[type[exp.Expr], type[exp.Expr]] = {
    exp.EQ: exp.EQ,
    exp.NEQ: exp.NEQ,
    exp.LT: exp.GT,
    exp.LTE: exp.GTE,
    exp.GT: exp.LT,
    exp.GTE: exp.LTE,
}


def _suffix_tests(table: exp.Table, alias_name: str) -> list[Callable[[str], bool]]:
    source = table.parent
    select = source.parent if isinstance(source, exp.From | exp.Join) else None
    if not isinstance(select, exp.Select) or not isinstance(select.args.get("where"), exp.Where):
        return []
    sources = [select.args["from_"].this] if select.args.get("from_") else []
    sources += [join.this for join in select.args.get("joins") or ()]
    wildcards = sum(
        (isinstance(s, exp.Table) and s.this is not None and s.name.endswith("*"))
        or (isinstance(s, exp.Subquery) and s.this.meta.get(WILDCARD_META, False))
        for s in sources
    )

    def is_suffix(node: exp.Expr) -> bool:
        if not isinstance(node, exp.Column) or node.name.lower() != SUFFIX_NAME:
            return False
        # Aliases compare case-insensitively in BigQuery.
        return node.table.lower() == alias_name.lower() if node.table else wildcards == 1

    def literal(node: exp.Expr) -> str | None:
        while isinstance(node, exp.Paren):
            node = node.this
        if isinstance(node, exp.Cast) and node.to.this in _STRING_TYPES and not node.to.expressions:
            node = node.this  # a script variable's value: CAST('...' AS STRING) is the text
        return node.this if isinstance(node, exp.Literal) and node.is_string else None

    tests: list[Callable[[str], bool]] = []
    for conjunct in (
        select.args["where"].this.flatten()
        if isinstance(select.args["where"].this, exp.And)
        else [select.args["where"].this]
    ):
        while isinstance(conjunct, exp.Paren):
            conjunct = conjunct.this
        kind = type(conjunct)
        if kind in _COMPARISONS:
            left, right = conjunct.this, conjunct.expression
            if is_suffix(right) and not is_suffix(left):
                left, right, kind = right, left, _MIRRORED[kind]
            value = literal(right)
            if is_suffix(left) and value is not None:
                compare = _COMPARISONS[kind]
                tests.append(lambda s, c=compare, v=value: c(s, v))
        elif isinstance(conjunct, exp.Between) and is_suffix(conjunct.this):
            low, high = literal(conjunct.args["low"]), literal(conjunct.args["high"])
            if low is not None and high is not None and not conjunct.args.get("symmetric"):
                tests.append(lambda s, lo=low, hi=high: lo <= s <= hi)
        elif (
            isinstance(conjunct, exp.In)
            and is_suffix(conjunct.this)
            and not conjunct.args.get("query")
            and not conjunct.args.get("unnest")
            and not conjunct.args.get("field")
            and conjunct.expressions
        ):
            values = [literal(v) for v in conjunct.expressions]
            if all(v is not None for v in values):
                tests.append(lambda s, vs=frozenset(values): s in vs)
    return tests


def resolve_suffixes(tree: exp.Expr, ctx: Context) -> None:
    """After qualification: each ``_TABLE_SUFFIX`` (which sqlglot's BigQuery qualification
    leaves as an unqualified Pseudocolumn) as the column of the wildcard table it belongs to,
    in its own query block or, from a subquery, an enclosing one. One that names no wildcard
    table, or several, is refused."""
    for scope in traverse_scope(tree):
        for node in list(scope.walk()):
            if isinstance(node, exp.Pseudocolumn) and node.name.lower() == SUFFIX_NAME:
                owner = _wildcard_source(node, scope, ctx)
                if owner is not None:
                    node.replace(
                        exp.column(
                            exp.to_identifier(SUFFIX_NAME, quoted=True),
                            table=exp.to_identifier(owner, quoted=True),
                        )
                    )


def _wildcard_source(node: exp.Pseudocolumn, scope: Scope, ctx: Context) -> str | None:
    """The alias of the wildcard table ``node`` reads the suffix of; None (reported) when
    there is none, or more than one."""
    wanted = node.table
    current: Scope | None = scope
    while current is not None:
        names = [
            name
            for name, (_, source) in current.selected_sources.items()
            if isinstance(source, Scope)
            and source.expression.meta.get(WILDCARD_META)
            and (not wanted or name == wanted)
        ]
        if len(names) == 1:
            return names[0]
        if names:
            _refuse(
                ctx,
                node,
                f"{SUFFIX} may be the suffix of any of the wildcard tables "
                f"{', '.join(sorted(names))}: qualify it with the table's alias",
            )
            return None
        current = current.parent if current.is_subquery else None
    _refuse(
        ctx,
        node,
        f"{SUFFIX} is a column of a wildcard table (`dataset.prefix*`) only, and "
        + (f"no wildcard table is named {wanted!r}" if wanted else "this query block reads none"),
    )
    return None


def keep_read_columns(tree: exp.Expr, ctx: Context) -> None:
    """After qualification (``*`` expanded): each union a wildcard table became keeps the
    columns the query reads from it, and the suffix; a read column that the matching tables
    do not all have with one type is refused where it is read."""
    read: dict[int, set[str]] = {}
    unions: dict[int, exp.Expr] = {}
    # (union, drifted column) -> the first node that reads it, for mixed unions.
    drifted: dict[tuple[int, str], tuple[_Drift, exp.Expr]] = {}
    for scope in traverse_scope(tree):
        for node in scope.walk():
            if not isinstance(node, exp.Column) or not node.table:
                continue
            origin = _origin(node, scope)
            if origin is None:
                continue
            union, path = origin
            drift = union.meta.get(DRIFT_META, {}).get(path[0])
            if len(path) == 1:
                unions[id(union)] = union
                read.setdefault(id(union), set()).add(node.name)
            if drift is not None:
                end = node
                while isinstance(end.parent, exp.Dot) and end.parent.this is end:
                    end = end.parent
                    path = [*path, end.expression.name]
                unnested = isinstance(end.parent, exp.Unnest) and end in end.parent.expressions
                reason = drift.refusal(path, unnested)
                if reason is not None:
                    _refuse(ctx, node, reason)
                drifted.setdefault((id(union), path[0]), (drift, node))
                continue
            reason = union.meta.get(DIFFERING_META, {}).get(node.name)
            if reason is not None and len(path) == 1:
                _refuse(ctx, node, reason)
        for _, source in scope.selected_sources.values():
            if isinstance(source, Scope) and source.expression.meta.get(WILDCARD_META):
                unions.setdefault(id(source.expression), source.expression)
    mixed: dict[int, dict[str, str]] = {}
    for (key, name), (drift, _) in drifted.items():
        reason = drift.mixed(name)
        if reason is not None:
            mixed.setdefault(key, {})[name] = reason
    for key, names in mixed.items():
        union = unions[key]
        projected = _move_unnests(union, set(names), tree)
        if projected is None:
            for name, reason in names.items():
                _refuse(ctx, drifted[key, name][1], reason)
        else:
            read[key] = (read.get(key, set()) - set(names)) | projected
    for key, union in unions.items():
        kept = read.get(key, set()) | {SUFFIX_NAME}
        for branch in union.find_all(exp.Select):
            if branch.meta.get(WILDCARD_META):
                branch.set(
                    "expressions", [p for p in branch.expressions if p.alias_or_name in kept]
                )


def _move_unnests(union: exp.Expr, names: set[str], tree: exp.Expr) -> set[str] | None:
    """Each ``CROSS JOIN UNNEST`` of the drifted columns ``names`` of ``union`` (and of the
    elements they yield) moved into every branch of the union, and each value the query reads
    of those elements projected by the branches as a column of its own: a union of tables
    whose records differ in shape then holds only values of one type. The names of the
    columns projected; None (nothing changed) where the query has no such form: an UNNEST
    to move is joined to the union by a query block with an outer join, or a drifted value
    is read other than through a moved UNNEST or as a value of one type in every table (a
    field of a drifted record, which a branch projects as well).

    Exact: a cross join with an UNNEST of a row's own array distributes over UNION ALL and
    commutes with inner joins, and a value projected by a branch is the value the query read
    of that branch's rows."""
    subquery = union.parent
    joined = subquery.parent if isinstance(subquery, exp.Subquery) else None
    select = joined.parent if isinstance(joined, exp.From | exp.Join) else None
    joins = (select.args.get("joins") or ()) if isinstance(select, exp.Select) else ()
    alias = subquery.alias
    moved: list[exp.Join] = []
    for join in joins:
        unnest = join.this
        if not isinstance(unnest, exp.Unnest) or len(unnest.expressions) != 1:
            continue
        root = unnest.expressions[0]
        while isinstance(root, exp.Dot):
            root = root.this
        if not isinstance(root, exp.Column):
            continue
        into = next((m for m in moved if m.this.alias == root.table), None)
        if (root.table == alias and root.name in names) or into is not None:
            if join.args.get("on") or join.args.get("using"):
                return None
            moved.append(join)
    if moved and any(
        join.side or join.method or join.kind not in {"", "CROSS", "INNER"} for join in joins
    ):
        return None  # an outer join keeps rows the UNNEST drops; NATURAL reads new columns
    moved_aliases = {join.this.alias for join in moved}
    ends: dict[str, tuple[str, exp.Expr, list[exp.Expr]]] = {}
    for scope in traverse_scope(tree):
        for node in scope.walk():
            if not isinstance(node, exp.Column) or not node.table:
                continue
            found = _selected(node.table, scope)
            source = found[0] if found is not None else None
            if not isinstance(source, Scope):
                continue
            if source.expression is union:
                if node.name not in names:
                    continue
            elif not (
                isinstance(source.expression, exp.Unnest)
                and source.expression.alias in moved_aliases
            ):
                continue
            end = node
            while isinstance(end.parent, exp.Dot) and end.parent.this is end:
                end = end.parent
            if isinstance(end.parent, exp.Unnest) and any(
                end.parent is join.this for join in moved
            ):
                continue
            origin = _origin(node, scope)
            if origin is not None and origin[0] is union and origin[1][0] in names:
                path = list(origin[1])
                step = node
                while step is not end:
                    step = step.parent
                    path.append(step.expression.name)
                drift = union.meta[DRIFT_META][path[0]]
                if drift.refusal(path, False) is not None:
                    return None
            elif source.expression is union:
                return None  # a drifted column read otherwise than by a moved UNNEST
            key = end.sql()
            if key not in ends:
                ends[key] = (f"_wildcard_value_{len(ends) + 1}", end, [])
            ends[key][2].append(end)
    if not moved and not ends:
        return None
    branches = [b for b in union.find_all(exp.Select, bfs=False) if b.meta.get(WILDCARD_META)]
    for number, branch in enumerate(branches, start=1):
        # Each branch's UNNESTs named apart: rules that follow find an UNNEST by its name.
        renamed = {name: f"{name}_{number}" for name in moved_aliases}
        renamed[alias] = branch.args["from_"].this.alias_or_name
        joins = [_bare_copy(join) for join in moved]
        values = [
            exp.alias_(_bare_copy(end), exp.to_identifier(name, quoted=True))
            for name, end, _ in ends.values()
        ]
        for copied in [*joins, *values]:
            for column in copied.find_all(exp.Column):
                if column.table in renamed:
                    column.set("table", exp.to_identifier(renamed[column.table], quoted=True))
        for join in joins:
            join.this.args["alias"].set(
                "this", exp.to_identifier(renamed[join.this.alias], quoted=True)
            )
        for join in joins:
            branch.append("joins", join)
        branch.set("expressions", [*branch.expressions[:-1], *values, branch.expressions[-1]])
    for join in moved:
        join.pop()
    for name, _, uses in ends.values():
        for use in uses:
            use.replace(
                exp.column(
                    exp.to_identifier(name, quoted=True),
                    table=exp.to_identifier(alias, quoted=True),
                )
            )
    return {name for name, _, _ in ends.values()}


def _bare_copy(node: exp.Expr) -> exp.Expr:
    """``node`` copied without the types annotated on it: a drifted record's type can have
    hundreds of fields, and copying it into each of hundreds of branches dominated the
    translation (the branches are annotated again)."""
    args = {}
    for key, value in node.args.items():
        if isinstance(value, exp.Expr):
            value = _bare_copy(value)
        elif isinstance(value, list):
            value = [_bare_copy(v) if isinstance(v, exp.Expr) else v for v in value]
        args[key] = value
    return type(node)(**args)


def _origin(column: exp.Column, scope: Scope) -> tuple[exp.Expr, list[str]] | None:
    """The wildcard union that ``column`` reads and the path it reads there (a column of
    the union, then the field names and ELEMENTS steps of the UNNESTs that lead to
    ``column``'s element); None when it reads something else."""
    found = _selected(column.table, scope)
    if found is None:
        return None
    source, owner = found
    if isinstance(source, Scope):
        if source.expression.meta.get(WILDCARD_META):
            return source.expression, [column.name]
        source = source.expression  # an UNNEST is a scope of its own
    alias = source.args.get("alias") if isinstance(source, exp.Unnest) else None
    if alias is None or not alias.columns or len(source.expressions) != 1:
        return None
    offset = source.args.get("offset")
    if column.name in {c.name for c in alias.columns[1:]} or (
        isinstance(offset, exp.Identifier) and offset.name == column.name
    ):
        return None  # the position
    # Any other name is a field of the element, as BigQuery reads a value table's fields.
    bare = [] if alias.columns[0].name == column.name else [column.name]
    array, fields = source.expressions[0], []
    while isinstance(array, exp.Dot):
        fields.insert(0, array.expression.name)
        array = array.this
    if not isinstance(array, exp.Column) or not array.table:
        return None
    origin = _origin(array, owner)
    if origin is None:
        return None
    union, path = origin
    return union, [*path, *fields, ELEMENTS, *bare]


def _selected(name: str, scope: Scope) -> tuple[exp.Expr | Scope, Scope] | None:
    """The source that ``name`` (a column's table) names in ``scope`` or an enclosing one,
    and the scope that selects it."""
    current: Scope | None = scope
    while current is not None:
        if name in current.selected_sources:
            return current.selected_sources[name][1], current
        current = current.parent
    return None


def _wildcard_union(name: str, scope: Scope) -> exp.Expr | None:
    """The union of the wildcard table that ``name`` (a column's table) names in ``scope``
    or an enclosing one (a correlated reference); None when it names another source. Any
    enclosing scope counts, not only a subquery's: a column kept that is not read costs
    nothing, and one read but left out would make SQL that does not run."""
    current: Scope | None = scope
    while current is not None:
        if name in current.selected_sources:
            source = current.selected_sources[name][1]
            if isinstance(source, Scope) and source.expression.meta.get(WILDCARD_META):
                return source.expression
            return None
        current = current.parent
    return None
