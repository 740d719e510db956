"""Script variables: T-SQL ``DECLARE @v TYPE = expr`` / ``SET @v = expr`` / ``SELECT @v = ...``
and BigQuery ``DECLARE v [TYPE] DEFAULT expr`` / ``SET v = expr``, replaced at each use.

A variable's value is an expression the script's later statements can compute themselves:
literals, other variables, deterministic functions, or a scalar subquery over tables the script
no longer changes. It is converted to the declared type as an assignment converts it
(``CAST(value AS type)`` in the source dialect, which the rules translate like any CAST), and
each use becomes that expression. Evaluating it again at each use gives the same value only
when it is deterministic and the tables it reads do not change in between; where that does not
hold (GETDATE(), RAND(), a function this translation cannot see, a value assigned under
IF/WHILE, the last row of a query), each use is refused as SCRIPT-VARIABLE, located at the use.
A BigQuery query parameter ``@day`` given a typed value by the user (``--param
day:DATE:2024-01-01``, sql/parameters.py) is replaced at each use by ``CAST(<literal> AS
<type>)``, like a variable. A parameter whose value the text never gives and the user did not
supply (a BigQuery query parameter, a T-SQL procedure parameter) is refused as SCRIPT-PARAMETER
at each use.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field

from sqlglot import exp

from sql.rules import Context
from sql.rules.build import VOLATILE
from sql.source_dialects import semantics
from sql.tree import preorder

# Past this many nodes a value (each use copies it) is refused rather than grown further:
# `SET @x = @x + @x` repeated doubles it each time.
MAX_VALUE_NODES = 2000
# T-SQL: a character or binary type declared without a length is one long in DECLARE (it is
# 30 in CAST), so the declared type is written out with its length.
TSQL_LENGTH_ONE = {
    exp.DType.CHAR,
    exp.DType.NCHAR,
    exp.DType.VARCHAR,
    exp.DType.NVARCHAR,
    exp.DType.BINARY,
    exp.DType.VARBINARY,
}
TSQL_PADDED = {exp.DType.CHAR, exp.DType.NCHAR}
TSQL_WIDE = {exp.DType.NCHAR, exp.DType.NVARCHAR}
_BIGQUERY_BLOCK = re.compile(r"^(IF|WHILE|LOOP|REPEAT|FOR|BEGIN|CASE)\b", re.IGNORECASE)
_BIGQUERY_SET = re.compile(r"\bSET\s+\(?\s*([A-Za-z_]\w*)", re.IGNORECASE)


@dataclass(frozen=True)
class Known:
    value: exp.Expr  # in the source dialect, already converted to the declared type


@dataclass(frozen=True)
class Unknown:
    reason: str  # why no expression computes the value where it is used


Value = Known | Unknown


@dataclass
class ScriptVariables:
    """The variables of one script, followed statement by statement."""

    ctx: Context
    # Each table a statement writes, by ``table_key``, and the index of the last one that does.
    last_write: dict[str, int]
    table_key: Callable[[exp.Table], str]
    # A subquery reading the helpers (temporary tables) as they are at the assignment: their
    # later changes make new versions, which it does not read.
    bind_helpers: Callable[[exp.Query], exp.Query]
    is_helper: Callable[[str], bool]
    values: dict[str, Value] = field(default_factory=dict)
    # BigQuery query parameters the user gave values, by lower-case name without the @:
    # ``CAST(<literal> AS <type>)`` in BigQuery (sql/parameters.py).
    parameters: dict[str, exp.Expr] = field(default_factory=dict)
    types: dict[str, exp.DataType | None] = field(default_factory=dict)
    depth: int = 0  # BigQuery: how deep inside IF/WHILE/LOOP ... END the statements are
    # BigQuery: uses of a variable by its bare name, (name, line, col): a column of that name
    # would be read instead, which only the catalog can tell (sql/translate.py checks it).
    bare_uses: list[tuple[str, int, int]] = field(default_factory=list)

    @property
    def bigquery(self) -> bool:
        return semantics(self.ctx.dialect).VARIABLES_ARE_BARE_NAMES

    # -- statements that assign ---------------------------------------------------------

    def consume(self, statement: exp.Expr, index: int) -> bool:
        """Follow ``statement`` if it declares or assigns variables (True: nothing else to do
        with it); mark variables assigned under control flow as unknown."""
        if not semantics(self.ctx.dialect).SCRIPT_VARIABLES:
            return False
        if self.bigquery and isinstance(statement, exp.Command):
            return self._bigquery_block(statement)
        if self.depth:
            self._assigned_under_control_flow(statement)
            return False
        if isinstance(statement, exp.IfBlock | exp.WhileBlock):
            self._assigned_under_control_flow(statement)
            return False
        if isinstance(statement, exp.Declare):
            return self._declare(statement, index)
        if isinstance(statement, exp.Set):
            return self._set(statement, index)
        if isinstance(statement, exp.Select) and _assignments(statement):
            self._select_assign(statement, index)
            return True
        return False

    def _declare(self, statement: exp.Declare, index: int) -> bool:
        items = statement.expressions
        if any(isinstance(i.args.get("kind"), exp.Schema) for i in items):
            return False  # DECLARE @t TABLE (...): a table variable, refused as a statement
        for item in items:
            kind = item.args.get("kind")
            default = item.args.get("default")
            declared = self._declared_type(kind) if isinstance(kind, exp.DataType) else None
            for target in item.this:
                name = self._name(target)
                if name is None:
                    self._report(target, "a DECLARE of something that is not a variable")
                    continue
                if name in self.values:
                    self._report(target, f"variable {self._shown(name)} is declared twice")
                    continue
                self.types[name] = declared
                if isinstance(default, exp.Expr):
                    self.values[name] = self._value(default, declared, statement, index)
                elif declared is not None:
                    self.values[name] = Known(exp.cast(exp.null(), declared.copy()))
                else:
                    self.values[name] = Unknown("it is declared without a type or a value")
        return True

    def _set(self, statement: exp.Set, index: int) -> bool:
        assignments: list[tuple[exp.Expr, exp.Expr]] = []
        for item in statement.expressions:
            equation = item.this if isinstance(item, exp.SetItem) else None
            if not isinstance(equation, exp.EQ):
                return False
            target, value = equation.this, equation.expression
            if isinstance(target, exp.Tuple) and isinstance(value, exp.Tuple):
                if len(target.expressions) != len(value.expressions):
                    return False
                assignments.extend(zip(target.expressions, value.expressions, strict=True))
            elif isinstance(target, exp.Tuple):
                for part in target.expressions:
                    name = self._name(part)
                    if name is not None and name in self.values:
                        self.values[name] = Unknown(
                            "it is assigned from the fields of one row, which has no exact form"
                        )
                return True
            else:
                assignments.append((target, value))
        names = [self._name(target) for target, _ in assignments]
        if any(name is None for name in names):
            return False  # SET NOCOUNT ON, SET DATEFIRST 1, ...: session settings
        # Every value is computed before any variable changes (BigQuery SET (a, b) = (b, a)).
        new: dict[str, Value] = {}
        for (target, value), name in zip(assignments, names, strict=True):
            assert name is not None
            if name not in self.values:
                self._report(target, f"variable {self._shown(name)} is set but never declared")
                continue
            if isinstance(value, exp.Alias):
                # T-SQL's parser takes a following keyword for an alias: the text is not
                # what it seems; refuse rather than guess.
                new[name] = Unknown("its value could not be read unambiguously")
                continue
            new[name] = self._value(value, self.types.get(name), statement, index)
        self.values.update(new)
        return True

    def _select_assign(self, statement: exp.Select, index: int) -> None:
        """T-SQL ``SELECT @a = expr, ... [FROM ...]``: without FROM, a SET of each; from a
        query, the value of its last row, which only an aggregate query (exactly one row)
        gives exactly: then a scalar subquery."""
        assignments = _assignments(statement)
        assigned = {self._name(target) for target, _ in assignments}
        from_query = statement.args.get("from_") is not None
        reason = None
        if from_query:
            reason = _not_one_row(statement)
        new: dict[str, Value] = {}
        for target, value in assignments:
            name = self._name(target)
            assert name is not None
            if name not in self.values:
                self._report(target, f"variable {self._shown(name)} is set but never declared")
                continue
            reads = {self._name(p) for p in value.find_all(exp.Parameter)} & assigned
            if reads:
                new[name] = Unknown(
                    "it is assigned in a SELECT that also assigns a variable its value reads; "
                    "T-SQL does not define the order"
                )
            elif reason is not None:
                new[name] = Unknown(reason)
            elif from_query:
                if not _aggregate_only(value):
                    new[name] = Unknown(
                        "it is assigned from a query's rows: T-SQL keeps the last row's value, "
                        "which has no exact form unless the query is an aggregate without GROUP BY"
                    )
                    continue
                query = statement.copy()
                query.set("expressions", [value.copy()])
                query.set("order", None)
                new[name] = self._value(
                    exp.Subquery(this=query), self.types.get(name), statement, index
                )
            else:
                new[name] = self._value(value, self.types.get(name), statement, index)
        self.values.update(new)

    def _bigquery_block(self, statement: exp.Command) -> bool:
        """BigQuery's IF ... END IF, WHILE ... END WHILE, ... are opaque to the parser: one
        Command per statement. Variables they set are unknown after them."""
        text = f"{statement.name} {statement.expression or ''}".strip()
        keyword = statement.name.upper()
        if keyword == "END":
            self.depth = max(0, self.depth - 1)
        elif _BIGQUERY_BLOCK.match(text):
            self.depth += 1
        if self.depth or keyword == "END":
            for name in _BIGQUERY_SET.findall(text):
                if name.lower() in self.values:
                    self.values[name.lower()] = Unknown(
                        "it is assigned under IF/WHILE: its value depends on control flow"
                    )
        return False

    def _assigned_under_control_flow(self, statement: exp.Expr) -> None:
        for node in preorder(statement):
            if isinstance(node, exp.EQ) and isinstance(node.parent, exp.SetItem | exp.Block):
                target = node.this
            elif isinstance(node, exp.Select):
                for target, _ in _assignments(node):
                    self._mark_control_flow(target)
                continue
            elif isinstance(node, exp.Declare):
                for item in node.expressions:
                    for target in item.this:
                        self._mark_control_flow(target)
                continue
            else:
                continue
            self._mark_control_flow(target)

    def _mark_control_flow(self, target: exp.Expr) -> None:
        name = self._name(target)
        if name is not None:
            self.values[name] = Unknown(
                "it is assigned under IF/WHILE: its value depends on control flow"
            )
            self.types.setdefault(name, None)

    # -- values -------------------------------------------------------------------------

    def _value(
        self, value: exp.Expr, declared: exp.DataType | None, statement: exp.Expr, index: int
    ) -> Value:
        holder = exp.Paren(this=value.copy())  # a use may be the whole value
        unknown = self._substitute(holder, report=False)
        if unknown is not None:
            return unknown
        value = holder.this
        nodes = preorder(value)
        for node in nodes:
            if isinstance(node, VOLATILE):
                return Unknown(
                    f"its value calls {node.sql(self.ctx.dialect)}, which gives a different "
                    "value when evaluated again where the variable is used"
                )
            if isinstance(node, exp.Anonymous):
                return Unknown(
                    f"its value calls {node.name}, which this translation cannot tell to give "
                    "the same value each time"
                )
            if isinstance(node, exp.Column) and not _inside_query(node, value):
                return Unknown(
                    f"its value reads {node.sql(self.ctx.dialect)}, which is not a value"
                )
            if isinstance(node, exp.Table):
                key = self.table_key(node)
                if not self.is_helper(key) and self.last_write.get(key, -1) >= index:
                    return Unknown(
                        f"its value reads {node.sql(self.ctx.dialect)}, which the script "
                        "writes after the assignment"
                    )
        if len(nodes) > MAX_VALUE_NODES:
            return Unknown("its value grew past what a translation copies to each use")
        for subquery in [n for n in nodes if isinstance(n, exp.Subquery)]:
            inner = subquery.this
            if isinstance(inner, exp.Query):
                # The temporary tables it reads, as they are now (a later INSERT would change them).
                subquery.set("this", self.bind_helpers(inner))
        if declared is None:
            return Known(value if _atomic(value) else exp.Paren(this=value))
        converted = self._converted(value, declared)
        return converted if isinstance(converted, Unknown) else Known(converted)

    def _converted(self, value: exp.Expr, declared: exp.DataType) -> exp.Expr | Unknown:
        """``value`` converted to ``declared`` as an assignment converts it."""
        if (
            semantics(self.ctx.dialect).STRING_CASTS_TRUNCATE
            and declared.this in TSQL_LENGTH_ONE | TSQL_PADDED
        ):
            # CAST to a shorter string truncates in T-SQL; the rules do not model it, so a
            # literal is cut here and anything else that could be longer is refused.
            size = declared.expressions[0] if declared.expressions else None
            length = int(size.name) if size is not None and size.name.isdigit() else None
            if length is None:
                return exp.cast(value, declared.copy())
            if isinstance(value, exp.Literal) and value.is_string:
                text = value.this
                limit = 0x7F if declared.this not in TSQL_WIDE else 0xFFFF
                if any(ord(c) > limit for c in text):
                    return Unknown(
                        "its text has characters whose length in bytes T-SQL's conversion "
                        "counts; no exact form"
                    )
                text = text[:length]
                if declared.this in TSQL_PADDED:
                    text = text.ljust(length)
                return exp.cast(exp.Literal.string(text), declared.copy())
            if isinstance(value, exp.Null):
                return exp.cast(value, declared.copy())
            return Unknown(
                f"its value is converted to {declared.sql('tsql')}, which cuts longer text; "
                "the translation does not model the cut"
            )
        return exp.cast(value, declared.copy())

    def _declared_type(self, kind: exp.DataType) -> exp.DataType:
        kind = kind.copy()
        if (
            semantics(self.ctx.dialect).UNSIZED_STRINGS_ARE_SHORT
            and kind.this in TSQL_LENGTH_ONE
            and not kind.expressions
        ):
            kind.set("expressions", [exp.DataTypeParam(this=exp.Literal.number(1))])
        return kind

    # -- uses -----------------------------------------------------------------------------

    def substitute(self, statement: exp.Expr) -> None:
        """Replace each use of a variable in ``statement`` by its value; refuse the uses of
        unknown values and of parameters the script does not set."""
        if not semantics(self.ctx.dialect).SCRIPT_VARIABLES:
            return
        self._substitute(statement, report=True)

    def _substitute(self, tree: exp.Expr, *, report: bool) -> Unknown | None:
        aliases: set[str] | None = None
        for node in preorder(tree):
            if isinstance(node, exp.Parameter):
                if isinstance(node.parent, exp.Parameter):
                    continue
                found = self._use(node, report)
            elif self.bigquery and isinstance(node, exp.Column) and not node.table:
                if node.name.lower() not in self.values:
                    continue
                if aliases is None:
                    aliases = _alias_names(tree)
                if node.name.lower() in aliases or node.name.lower() in _visible_select_aliases(
                    node
                ):
                    # BigQuery would read the alias or the variable by rules this translation
                    # does not model: refuse rather than pick one.
                    reason = (
                        f"{node.name} is both a variable and a name this query defines "
                        "(an alias, a CTE or a range variable); rename one of them"
                    )
                    if not report:
                        return Unknown(reason)
                    self._refuse_use(node, "SCRIPT-VARIABLE", reason)
                    continue
                if not report and _inside_query(node, tree):
                    # A value is checked against no catalog: inside its query, a column of
                    # the same name could be what BigQuery reads.
                    return Unknown(
                        f"its value reads {node.name} inside a query, where a column of that "
                        "name would be read instead"
                    )
                found = self._use(node, report)
            else:
                continue
            if found is not None:
                return found
        return None

    def _use(self, node: exp.Expr, report: bool) -> Unknown | None:
        name = self._name(node)
        if name is None:
            # @@ROWCOUNT, @@ERROR, ...: the server's state after the previous statement.
            if report:
                self._refuse_use(
                    node,
                    "SCRIPT-VARIABLE",
                    f"{node.sql(self.ctx.dialect)} is the server's state at run time; no exact form",
                )
                return None
            return Unknown(f"its value reads {node.sql(self.ctx.dialect)}, the server's state")
        value = self.values.get(name)
        if value is None and self.bigquery and name.startswith("@"):
            supplied = self.parameters.get(name[1:])
            value = Known(supplied) if supplied is not None else None
        if value is None:
            shown = self._shown(name)
            if self.bigquery:
                bare = shown.lstrip("@")
                message = (
                    f"query parameter {shown} gets its value only when the query runs; supply "
                    f"it: --param {bare}:TYPE:VALUE (as bq query --parameter takes it, e.g. "
                    f"{bare}:DATE:2024-01-01)"
                )
            else:
                message = (
                    f"{shown} is not declared in this script (a procedure's parameter gets its "
                    f"value only when it runs); supply it: DECLARE {shown} <type> = <value>; "
                    "before this use"
                )
            if report:
                self._refuse_use(node, "SCRIPT-PARAMETER", message)
                return None
            return Unknown(f"its value reads {shown}, which has no value in the script")
        if isinstance(value, Unknown):
            if report:
                self._refuse_use(
                    node,
                    "SCRIPT-VARIABLE",
                    f"variable {self._shown(name)} has no value known before the query runs: "
                    f"{value.reason}",
                )
                return None
            return Unknown(f"its value reads {self._shown(name)}, and {value.reason}")
        if report:
            line, col = self.ctx.locate(node)
            if isinstance(node, exp.Column):
                self.bare_uses.append((name, line, col))
            self.ctx.applied.add("SCRIPT-VARIABLE")
        replacement = value.value.copy()
        if _in_row_limit(node):
            replacement = _integer_literal(replacement) or replacement
        node.replace(replacement)
        return None

    def _refuse_use(self, node: exp.Expr, rule: str, message: str) -> None:
        self.ctx.report("error", rule, node, message)
        # The script is refused as a whole now; a NULL in its place keeps later stages from
        # reporting the same use again as an unknown construct.
        node.replace(exp.null())

    def _report(self, node: exp.Expr, message: str) -> None:
        self.ctx.report("error", "SCRIPT-VARIABLE", node, message)

    def _name(self, node: exp.Expr) -> str | None:
        """The variable ``node`` names, compared without case (T-SQL's default collation and
        BigQuery both ignore it), or None."""
        if isinstance(node, exp.Parameter):
            inner = node.this
            if isinstance(inner, exp.Var | exp.Identifier) and not self.bigquery:
                return inner.name.lower()
            if isinstance(inner, exp.Var | exp.Identifier) and self.bigquery:
                return "@" + inner.name.lower()  # a query parameter, never a declared variable
            return None
        if self.bigquery and isinstance(node, exp.Column) and not node.table:
            return node.name.lower()
        if self.bigquery and isinstance(node, exp.Identifier):
            return node.name.lower()
        return None

    def _shown(self, name: str) -> str:
        return name if self.bigquery else f"@{name}"


# The integer types and their ranges: an integer literal cast to one, in range, is the literal.
_INTEGER_RANGES = {
    exp.DType.TINYINT: (0, 255),
    exp.DType.SMALLINT: (-(2**15), 2**15 - 1),
    exp.DType.INT: (-(2**31), 2**31 - 1),
    exp.DType.BIGINT: (-(2**63), 2**63 - 1),
}


def _in_row_limit(node: exp.Expr) -> bool:
    """Whether ``node`` is the count of TOP/LIMIT/FETCH/OFFSET, which takes a literal."""
    parent = node.parent
    while isinstance(parent, exp.Paren):
        parent = parent.parent
    return isinstance(parent, exp.Limit | exp.Fetch | exp.Offset)


def _integer_literal(value: exp.Expr) -> exp.Literal | None:
    """The integer literal ``CAST(literal AS integer type)`` stands for, where it is in range."""
    if not (isinstance(value, exp.Cast) and isinstance(value.this, exp.Literal)):
        return None
    literal = value.this
    bounds = _INTEGER_RANGES.get(value.to.this)
    if literal.is_string or bounds is None or not literal.is_int:
        return None
    return literal if bounds[0] <= int(literal.name) <= bounds[1] else None


def _assignments(select: exp.Select) -> list[tuple[exp.Expr, exp.Expr]]:
    """T-SQL ``SELECT @a = x, @b = y``: the (variable, value) pairs, if every projection is one."""
    pairs = [
        (p.this, p.expression)
        for p in select.expressions
        if isinstance(p, exp.EQ) and isinstance(p.this, exp.Parameter)
    ]
    return pairs if pairs and len(pairs) == len(select.expressions) else []


def _not_one_row(select: exp.Select) -> str | None:
    """Why ``select`` may not return exactly one row (None: it does, given aggregates only)."""
    for clause, what in (
        ("group", "GROUP BY"),
        ("having", "HAVING"),
        ("limit", "TOP/LIMIT"),
        ("offset", "OFFSET"),
        ("qualify", "QUALIFY"),
        ("into", "INTO"),
    ):
        if select.args.get(clause):
            return (
                f"it is assigned from a query with {what}: T-SQL keeps the last row's value "
                "(or the old value when there is none), which has no exact form"
            )
    return None


def _aggregate_only(value: exp.Expr) -> bool:
    """Whether ``value`` is an aggregate over the query's rows: at least one aggregate, every
    column inside one, no window function."""
    nodes = preorder(value)
    if any(isinstance(n, exp.Window) for n in nodes):
        return False
    aggregates = [n for n in nodes if isinstance(n, exp.AggFunc)]
    if not aggregates:
        return False
    for column in (n for n in nodes if isinstance(n, exp.Column)):
        parent = column.parent
        while parent is not None and parent is not value and not isinstance(parent, exp.AggFunc):
            parent = parent.parent
        if not isinstance(parent, exp.AggFunc):
            return False
    return True


def _inside_query(node: exp.Expr, root: exp.Expr) -> bool:
    parent = node.parent
    while parent is not None and parent is not root:
        if isinstance(parent, exp.Query):
            return True
        parent = parent.parent
    return isinstance(root, exp.Query)


def _atomic(value: exp.Expr) -> bool:
    return isinstance(
        value, exp.Literal | exp.Cast | exp.Subquery | exp.Paren | exp.Func | exp.Null | exp.Boolean
    )


def _alias_names(tree: exp.Expr) -> set[str]:
    """The names a BigQuery query gives its sources (range variables, CTE and derived-table
    columns), lower-case: a bare name among them may read a column, not a variable."""
    names: set[str] = set()
    for node in preorder(tree):
        if isinstance(node, exp.TableAlias):
            if node.name:
                names.add(node.name.lower())
            names.update(c.name.lower() for c in node.columns)
        elif isinstance(node, exp.Table) and not node.alias:
            names.add(node.name.lower())
        elif isinstance(node, exp.Alias) and node.alias and _feeds_a_source(node.parent):
            names.add(node.alias.lower())
    return names


def _feeds_a_source(select: exp.Expr | None) -> bool:
    """Whether ``select``'s columns are read as a source: a CTE or a derived table."""
    node = select
    while isinstance(node, exp.Select | exp.SetOperation | exp.Subquery):
        parent = node.parent
        if isinstance(parent, exp.CTE):
            return True
        if isinstance(node, exp.Subquery) and isinstance(parent, exp.From | exp.Join):
            return True
        node = parent
    return False


def _visible_select_aliases(column: exp.Column) -> set[str]:
    """The select-list aliases BigQuery lets ``column`` name: those of the SELECT whose
    GROUP BY, HAVING, QUALIFY or ORDER BY it is in."""
    child, parent = column, column.parent
    while parent is not None and not isinstance(parent, exp.Select):
        child, parent = parent, parent.parent
    if not isinstance(parent, exp.Select):
        return set()
    clauses = [parent.args.get(k) for k in ("group", "having", "qualify", "order")]
    if not any(child is c for c in clauses if c is not None):
        return set()
    return {p.alias.lower() for p in parent.expressions if isinstance(p, exp.Alias) and p.alias}
