"""The rule machinery: :class:`Rule`, the ``@rule`` registration, the per-dialect index and
the bottom-up walk that applies rules (:func:`apply_rules`)."""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any, Literal

from sqlglot import exp
from sqlglot.optimizer.scope import Scope

from sql.assumptions import SETTING_DIALECTS, AssumptionError, Assumptions
from sql.diagnostics import Diagnostic, LineIndex, Severity, TranslationError, node_offset
from sql.scopes import SCOPE_NODES
from sql.source_dialects import DIALECTS
from sql.tree import NO_CHILDREN, preorder

Action = Literal["rewrite", "warn", "refuse", "info"]
Phase = Literal["syntax", "typed", "arithmetic", "final"]
ALL_DIALECTS = DIALECTS


@dataclass
class Context:
    """What a rule may read (dialect, source text) and write (diagnostics, applied rule ids)."""

    dialect: str
    file: str
    text: str
    assumptions: Assumptions = field(default_factory=Assumptions)
    diagnostics: list[Diagnostic] = field(default_factory=list)
    applied: set[str] = field(default_factory=set)
    # The server settings this translation relied on (name -> value as text), read through
    # ``assume``: what the manifest and the audit record as assumed, rather than every
    # setting of sql/assumptions.yaml.
    assumed: dict[str, str] = field(default_factory=dict)
    # Offsets where each statement of the script starts, to locate statement-level problems
    # at the statement's first token rather than at its first name.
    statement_starts: list[int] = field(default_factory=list)
    # What the rules changed since types were last annotated (each replacement, and each
    # node a rule changed in place): the only places whose types may now be stale.
    rewritten: list[exp.Expr] = field(default_factory=list)
    # How many times a rule applied (rewrote, or changed the tree in place whatever its
    # action: an info rule may drop a node): a walk of the tree taken at the same count
    # is still the tree's, as far as the rules go.
    applications: int = 0
    # ``node_offset`` of each parsed statement, found while it was first walked.
    statement_offsets: dict[int, tuple[exp.Expr, int | None]] = field(
        default_factory=dict, repr=False
    )
    # The query's scopes, built once after qualification (``sql/scopes.py``); None once a
    # rule wrote a query, table function or table into the tree.
    scopes: list[Scope] | None = field(default=None, repr=False)
    # Line starts of ``text``, built on first use; the contexts of one script's tables share
    # it, so that locating statement N does not count lines from the start of the file.
    lines: LineIndex | None = field(default=None, repr=False, compare=False)
    # Settings the script itself states before the statement translated (sql/session.py):
    # name -> the statement, as messages show it ("SET DATEFIRST 1 at 3:1"). Their values
    # are facts of the script, not assumptions.
    stated: dict[str, str] = field(default_factory=dict)

    def assume(self, name: str) -> Any:
        """The assumed value of server setting ``name`` (an ``Assumptions`` field), recorded
        as one this translation relies on (unless the script states it). Raises
        AssumptionError when this dialect's servers have no such setting: a rule reading it
        would record an assumption the file cannot depend on."""
        if self.dialect not in SETTING_DIALECTS.get(name, ()):
            raise AssumptionError(f"{self.dialect} has no server setting {name}")
        value = getattr(self.assumptions, name)
        if name not in self.stated:
            self.assumed[name] = str(value)
        return value

    def setting_note(self, name: str) -> str:
        """How a rule that read setting ``name`` says where its value comes from: set it in
        sql/assumptions.yaml, or the statement of the script that states it."""
        stated = self.stated.get(name)
        if stated is not None:
            return f"the script's {stated} states it"
        return f"set {name} in sql/assumptions.yaml"

    def line_col(self, offset: int) -> tuple[int, int]:
        if self.lines is None:
            self.lines = LineIndex(self.text)
        return self.lines.line_col(offset)

    def locate(self, node: exp.Expr | None) -> tuple[int, int]:
        offset = node_offset(node)
        return self.line_col(offset) if offset is not None else (1, 1)

    def locate_statement(self, node: exp.Expr | None) -> tuple[int, int]:
        known = self.statement_offsets.get(id(node)) if node is not None else None
        offset = known[1] if known is not None and known[0] is node else node_offset(node)
        if offset is None:
            return 1, 1
        # The last statement start at or before ``offset`` (the starts are in text order).
        index = bisect_right(self.statement_starts, offset)
        start = self.statement_starts[index - 1] if index else offset
        return self.line_col(start)

    def report(
        self,
        severity: Severity,
        rule: str,
        node: exp.Expr | None,
        message: str,
        *,
        statement: bool = False,
        settings: tuple[str, ...] = (),
    ) -> None:
        """``settings``: the assumptions a warning is about; where the script states every
        one of them (sql/session.py), the warning is an info line: no assumption is left."""
        if severity == "warning" and settings and all(s in self.stated for s in settings):
            severity = "info"
        line, col = self.locate_statement(node) if statement else self.locate(node)
        diagnostic = Diagnostic(severity, rule, message, self.file, line, col)
        if diagnostic not in self.diagnostics:
            self.diagnostics.append(diagnostic)

    def wrote(self, written: exp.Expr) -> None:
        """``written`` took the place of a part of the node a rule matched, which the rule
        returns as changed in place: then only what it wrote is retyped (not the whole node),
        and what it built there is left alone by later phases, as a rule's result is."""
        written.meta["changed"] = True
        self.rewritten.append(written)
        _mark_generated(written, self)

    def raise_errors(self) -> None:
        errors = [d for d in self.diagnostics if d.severity == "error"]
        if errors:
            raise TranslationError(sorted(errors, key=lambda d: (d.line, d.col, d.rule)))


# Returns the replacement node, the same node when it only reported, or None when the
# rule does not apply to this particular node.
Apply = Callable[[exp.Expr, Context], exp.Expr | None]


@dataclass(frozen=True)
class Rule:
    id: str
    action: Action
    dialects: tuple[str, ...]
    nodes: tuple[type[exp.Expr], ...]
    description: str
    # (dialect, source SQL, expected ANSI on one line); for refusals the expected text is
    # the "line:col" of the diagnostic.
    examples: tuple[tuple[str, str, str], ...]
    apply: Apply
    # "syntax" rules run before column qualification (they remove what it cannot resolve,
    # such as ROWNUM); "typed" rules run after type annotation; types are annotated again
    # before "arithmetic" (date/number operators) and "final" (division, casts, averages),
    # because those depend on the result types of everything rewritten before them.
    phase: Phase = "typed"


RULES: dict[str, Rule] = {}


def rule(
    id: str,
    action: Action,
    dialects: tuple[str, ...],
    nodes: tuple[type[exp.Expr], ...],
    description: str,
    examples: tuple[tuple[str, str, str], ...],
    phase: Phase = "typed",
) -> Callable[[Apply], Apply]:
    """Register ``apply`` in the catalog under ``id``."""

    def register(apply: Apply) -> Apply:
        if id in RULES:
            raise ValueError(f"duplicate rule id {id}")
        if not examples:
            raise ValueError(f"rule {id} needs at least one example")
        RULES[id] = Rule(id, action, dialects, nodes, description, examples, apply, phase)
        rules_for.cache_clear()
        return apply

    return register


@lru_cache(maxsize=32)
def rules_for(dialect: str, phase: Phase) -> dict[type[exp.Expr], list[Rule]]:
    """Rules of ``dialect`` and ``phase`` by the node types they match; refusals come last
    so that a specific rewrite (e.g. Teradata ZEROIFNULL) wins over a catch-all refusal, and
    the refusals of every dialect after those of a few, which name what is missing."""
    by_type: dict[type[exp.Expr], list[Rule]] = {}
    ordered = sorted(
        RULES.values(),
        key=lambda r: (r.action == "refuse", r.action == "refuse" and r.dialects == ALL_DIALECTS),
    )
    for registered in ordered:
        if dialect in registered.dialects and registered.phase == phase:
            for node_type in registered.nodes:
                by_type.setdefault(node_type, []).append(registered)
    return by_type


def apply_rules(
    tree: exp.Expr,
    ctx: Context,
    phase: Phase,
    order: list[exp.Expr] | None = None,
    candidates: list[exp.Expr] | None = None,
) -> exp.Expr:
    """Run every matching rule of ``phase`` bottom-up; returns the (possibly replaced) root.
    ``order`` is ``list(tree.walk(bfs=False))`` when the caller has it already;
    ``candidates``: :func:`candidates` of it, when the caller has them."""
    by_type = rules_for(ctx.dialect, phase)
    if candidates is None:
        # Reversed pre-order visits every node after all of its descendants.
        order = order if order is not None else preorder(tree)
        candidates = [n for n in reversed(order) if type(n) in by_type]
    for node in candidates:
        if node.meta.get("generated"):
            continue  # already ANSI: written by a rule, not parsed from the source
        for candidate in by_type[type(node)]:
            recorded = len(ctx.rewritten)
            result = candidate.apply(node, ctx)
            if result is None:
                continue
            ctx.applied.add(candidate.id)
            ctx.applications += 1
            if result is node:
                # Changed in place: as a whole, unless the rule named what it wrote (wrote).
                if candidate.action == "rewrite" and len(ctx.rewritten) == recorded:
                    ctx.rewritten.append(node)  # changed in place
                    node.meta["changed"] = True  # copies of it carry the mark (sql/retype.py)
                    if ctx.scopes is not None and any(
                        isinstance(n, SCOPE_NODES) for n in preorder(node)
                    ):
                        ctx.scopes = None
            else:
                ctx.rewritten.append(result)
                result.meta["changed"] = True
                if result.type is None and node.type is not None:
                    result.type = node.type
                _mark_generated(result, ctx)
                if node is tree:
                    tree = result
                else:
                    node.replace(result)
            break
    return tree


def _mark_generated(result: exp.Expr, ctx: Context) -> None:
    """What a rule built is ANSI already; what it copied from the source (marked at parse
    time) still needs the later phases, e.g. a date subtraction repeated inside the CASE that
    replaces SIGN(...)."""
    # One walk that marks as it goes (no list of the nodes first; any order): rules write
    # several thousand nodes per statement, and this runs over each of them.
    stack = [result]
    pop, push = stack.pop, stack.append
    expr = exp.Expr
    scoped = _SCOPED
    leaves = NO_CHILDREN  # their arguments are never nodes
    found_scope = False
    while stack:
        written = pop()
        meta = written._meta
        if meta is None:
            written._meta = {"generated": True}
        elif "start" not in meta and not meta.get("source"):
            meta["generated"] = True
        kind = type(written)
        scope = scoped.get(kind)
        if scope is None:
            scope = scoped[kind] = issubclass(kind, SCOPE_NODES)
        found_scope = found_scope or scope
        if kind in leaves:
            continue
        for value in written.args.values():
            if type(value) is list:
                for item in value:
                    if isinstance(item, expr):
                        push(item)
            elif isinstance(value, expr):
                push(value)
    if found_scope:
        ctx.scopes = None  # a query or table written or copied


# Whether each node type is one of SCOPE_NODES, filled on first sight.
_SCOPED: dict[type, bool] = {}


def candidates(order: list[exp.Expr], dialect: str, phase: Phase) -> list[exp.Expr]:
    """The nodes of ``order`` (a pre-order walk) that a rule of ``phase`` may match, in the
    order apply_rules visits them: of a type its rules match, not written by a rule."""
    by_type = rules_for(dialect, phase)
    return [
        n
        for n in reversed(order)
        if type(n) in by_type and not (n._meta and n._meta.get("generated"))
    ]


# Tables the rule examples read besides the repository's own lake (sql/catalog.yaml): a
# Snowflake table with a VARIANT column, for the VARIANT rules.
EXAMPLE_TABLES = {"raw.events": {"id": "BIGINT", "payload": "VARIANT"}}
EXAMPLE_OPAQUE = {"raw.events": {"payload": "VARIANT"}}
EXAMPLE_LEGACY = {"snowflake": {("APP", "EVENTS"): "raw.events"}}
# Daily tables of one schema, read by the wildcard-table examples (sql/wildcards.py).
EXAMPLE_TABLES.update(
    {f"raw.visits_2024010{day}": {"id": "BIGINT", "page": "VARCHAR"} for day in (1, 2, 3)}
)
EXAMPLE_LEGACY["bigquery"] = {
    ("acme-dw", "web", f"visits_2024010{day}"): f"raw.visits_2024010{day}" for day in (1, 2, 3)
}
# Daily tables whose records gained a field (hits.product.coupon), for the same examples.
_HITS = 'ROW("page" VARCHAR, "product" ROW("sku" VARCHAR{}) ARRAY) ARRAY'
for _day, _added in ((1, ""), (2, ', "coupon" VARCHAR')):
    EXAMPLE_TABLES[f"raw.hits_{_day}"] = {"id": "BIGINT", "hits": _HITS.format(_added)}
    EXAMPLE_LEGACY["bigquery"][("acme-dw", "web", f"hits_{_day}")] = f"raw.hits_{_day}"
# Instants (a BigQuery TIMESTAMP), read by the examples of functions of a TIMESTAMP.
EXAMPLE_TABLES["raw.sessions"] = {"id": "BIGINT", "started_at": "TIMESTAMP WITH TIME ZONE"}
EXAMPLE_LEGACY["bigquery"][("acme-dw", "web", "sessions")] = "raw.sessions"
# An ARRAY<STRING> column, read by the examples of array functions.
EXAMPLE_TABLES["raw.pages"] = {"id": "BIGINT", "tags": "VARCHAR ARRAY"}
EXAMPLE_LEGACY["bigquery"][("acme-dw", "web", "pages")] = "raw.pages"


# Oracle DATEs (TIMESTAMP(0) with their declared type) and a T-SQL datetime, read by the
# examples of date arithmetic (sql/rules/day_arithmetic.py).
EXAMPLE_TABLES["raw.shipments"] = {
    "id": "BIGINT",
    "shipped_at": "TIMESTAMP(0)",
    "delivered_at": "TIMESTAMP(0)",
}
EXAMPLE_TABLES["raw.scans"] = {"id": "BIGINT", "scanned_at": "TIMESTAMP(3)"}
EXAMPLE_LEGACY["oracle"] = {("LOGISTICS", "SHIPMENTS"): "raw.shipments"}
# Teradata text of declared lengths, read by the set operation examples (TD-SET-TYPES).
EXAMPLE_TABLES["raw.regions_short"] = {"code": "VARCHAR(3)", "name": "VARCHAR(10)"}
EXAMPLE_TABLES["raw.regions_long"] = {"code": "VARCHAR(8)", "name": "VARCHAR(40)"}
EXAMPLE_LEGACY["teradata"] = {
    ("sales_db", "regions_short"): "raw.regions_short",
    ("sales_db", "regions_long"): "raw.regions_long",
}
# A T-SQL smalldatetime and datetimeoffset, read by the examples of their conversions
# (sql/rules/tsql_smalldatetime.py, sql/rules/tsql_datetimeoffset.py).
EXAMPLE_TABLES["raw.bookings"] = {
    "id": "BIGINT",
    "booked_at": "TIMESTAMP(0)",
    "confirmed_at": "TIMESTAMP WITH TIME ZONE",
}
EXAMPLE_LEGACY["tsql"] = {("dbo", "scans"): "raw.scans", ("dbo", "bookings"): "raw.bookings"}
EXAMPLE_DECLARED = {
    "raw.shipments": {"shipped_at": ("oracle", "DATE"), "delivered_at": ("oracle", "DATE")},
    "raw.scans": {"scanned_at": ("tsql", "DATETIME")},
    "raw.bookings": {
        "booked_at": ("tsql", "SMALLDATETIME"),
        "confirmed_at": ("tsql", "DATETIMEOFFSET"),
    },
}


def example_catalog():
    """The catalog rule examples are translated against: sql/catalog.yaml and
    :data:`EXAMPLE_TABLES`."""
    from sql.catalog import Catalog, load_catalog, merge_catalogs

    examples = Catalog(
        tables=EXAMPLE_TABLES,
        legacy=EXAMPLE_LEGACY,
        opaque=EXAMPLE_OPAQUE,
        sources=(__file__,),
        declared=EXAMPLE_DECLARED,
    )
    return merge_catalogs([load_catalog(), examples])
