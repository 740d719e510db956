"""The user's catalog: legacy object names -> lake tables, and the lake schema for typing.

A catalog is one or more YAML files in the format of ``sql/catalog.yaml`` (this project's
own) or written by ``plumbline catalog import`` from a warehouse's DDL or a lake. Several
files merge; a table or name that two files define differently is an error naming both.

Names are compared the way each source dialect compares them: an unquoted identifier
folds (upper in Snowflake, Oracle and Teradata, case-insensitive elsewhere), a quoted one
keeps its case only in dialects where quoting makes a name case-sensitive, and BigQuery
dataset and table names are case-sensitive. A name written with fewer parts than the
dialect's full name (``ORDERS`` for ``DB.SCHEMA.ORDERS``) is completed with the session's
default namespace, a stated assumption (``sql/assumptions.py``); where that default is
unknown, the name resolves only if exactly one catalog table matches it.

A project's own tables (``ProjectTable``: each table one of its legacy files builds) are
known by name too, without a catalog entry, so that one migrated query can read another's
output; ``Catalog.resolve_name`` says how they and the catalog's tables share names.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from itertools import islice
from pathlib import Path

import yaml
from sqlglot import exp
from sqlglot.dialects.dialect import NormalizationStrategy

from sql import yaml_text
from sql.ansi import parse_type
from sql.assumptions import Assumptions
from sql.diagnostics import Diagnostic, TranslationError
from sql.paths import DEFAULT_CATALOG_PATH, repository_relative
from sql.source_dialects import semantics
from sql.tree import clone

# The type sqlglot sees for a column whose declared type has no exact ANSI form: a
# user-defined type that annotation carries through CTEs and derived tables, so every
# expression that depends on it can be found and refused.
OPAQUE_PREFIX = "plumbline_opaque_"

NamePart = str | exp.Identifier


class CatalogError(Exception):
    """A catalog file is malformed, or two catalog files contradict each other."""


def legacy_key(name_parts: Sequence[NamePart], dialect: str) -> tuple[str, ...]:
    """How ``dialect`` compares the parts of a legacy name: the key of ``Catalog.legacy``."""
    return tuple(fold(part, dialect) for part in name_parts)


def fold(part: NamePart, dialect: str) -> str:
    """One name part as ``dialect`` compares it."""
    name = part.name if isinstance(part, exp.Identifier) else part
    if (
        semantics(dialect).NORMALIZATION_STRATEGY
        is NormalizationStrategy.CASE_INSENSITIVE_EXCEPT_TABLES
    ):
        return name
    if (
        isinstance(part, exp.Identifier)
        and part.quoted
        and semantics(dialect).NORMALIZATION_STRATEGY is NormalizationStrategy.UPPERCASE
    ):
        return name
    return (
        name.upper()
        if semantics(dialect).NORMALIZATION_STRATEGY is NormalizationStrategy.UPPERCASE
        else name.lower()
    )


def _shown(parts: Sequence[NamePart]) -> str:
    return ".".join(p.name if isinstance(p, exp.Identifier) else p for p in parts)


@dataclass(frozen=True)
class Resolution:
    lake_table: str
    # What the name relied on that its text does not show ("tsql_schema=dbo", or the note
    # that an unknown default matched one table); None when the name matched as written.
    assumed: str | None = None
    # The default namespace settings it was completed with: (("tsql_schema", "dbo"),).
    settings: tuple[tuple[str, str], ...] = ()


@dataclass(frozen=True)
class PrefixMatch:
    # suffix (the rest of the table name after the prefix) -> the lake tables that legacy
    # names with that suffix map to (one, unless the name is ambiguous), in suffix order.
    tables: dict[str, list[str]]
    # The default namespace settings the name was completed with.
    settings: tuple[tuple[str, str], ...] = ()
    # The namespaces (dataset, project) the name can mean when it matches more than one.
    ambiguous: list[tuple[str | None, ...]] = field(default_factory=list)


@dataclass(frozen=True)
class ProjectTable:
    """A table the project's own legacy SQL builds (``warehouse.<name>``), readable by every
    other file of the project without a catalog entry.

    Where the legacy warehouse kept it is not known for a query's output (a file's stem
    names it): it is known by its name alone, however a reader qualifies it. A table a
    script's CREATE TABLE named (``DW.ORDER_SUMMARY``) is known, in that script's
    ``dialect``, by that name as written (a legacy name of ``Catalog.legacy``, completed with
    the default namespace like any other); in another dialect's files, by its name alone:
    another warehouse's schemas mean nothing there."""

    name: str  # its table name as written (the last part), or the file's stem
    file: str  # the legacy file that builds it, for messages
    # Set when ``Catalog.legacy`` holds the name a script wrote for it in this dialect.
    dialect: str | None = None
    quoted: bool = False  # the name was written quoted (it keeps its case where quoting does)


@dataclass(frozen=True)
class Catalog:
    # lake table "zone.table" -> {column: ANSI type}, columns in the table's order; an opaque
    # column holds its declared type (see ``opaque``).
    tables: Mapping[str, Mapping[str, str]]
    # dialect -> {folded legacy name parts: lake table}
    legacy: Mapping[str, Mapping[tuple[str, ...], str]] = field(default_factory=dict)
    # lake table -> {column: declared type} for types with no exact ANSI form (VARIANT, ...)
    opaque: Mapping[str, Mapping[str, str]] = field(default_factory=dict)
    # The files this catalog was read from, for messages (relative to the repository when
    # they lie in it, as reports show paths).
    sources: tuple[str, ...] = ()
    # lake table -> its columns declared NOT NULL (``required: true``), tables without any
    # left out. What the legacy DDL promised; translation does not rely on it.
    required: Mapping[str, frozenset[str]] = field(default_factory=dict)
    # lake table -> {column: CASESPECIFIC?} for Teradata text columns declared CASESPECIFIC
    # (True) or NOT CASESPECIFIC (False): which decides how they compare
    # (``sql/rules/case_sensitivity.py``, which reads it on the column's type).
    casespecific: Mapping[str, Mapping[str, bool]] = field(default_factory=dict)
    # lake table -> {column: (dialect, declared type)}: the column's type in the legacy DDL it
    # was imported from (``legacy: oracle DATE``), which decides the semantics its dialect
    # gives it where the ANSI type alone does not (an Oracle DATE is TIMESTAMP(0) and
    # subtracts to a number of days; an Oracle TIMESTAMP(0) subtracts to an interval).
    declared: Mapping[str, Mapping[str, tuple[str, str]]] = field(default_factory=dict)
    # lake table -> {column: ANSI type the lake stores} where it is not the column's type
    # (``lake: INTEGER`` for a NUMBER(10) exported as a 32-bit integer): translation reasons
    # with ``tables``' type and reads the lake's through a CAST (``plumbline catalog import
    # --from-sources`` checks on the data that the CAST loses no value).
    physical: Mapping[str, Mapping[str, str]] = field(default_factory=dict)
    # dialect -> lake table -> {column: (ANSI type, declared type)}: a table the DDL of
    # several dialects declares (one legacy warehouse's tables copied to another, each file
    # of ``plumbline catalog import`` declaring it in its own dialect). A translation from
    # that dialect reads it with those types (``for_dialect``); ``tables`` then holds what
    # the lake stores, which every other dialect reads.
    dialect_types: Mapping[str, Mapping[str, Mapping[str, tuple[str, str]]]] = field(
        default_factory=dict
    )
    # lake table -> how the project's own legacy SQL that builds it names it (``ProjectTable``;
    # its columns, once translated, are in ``tables``); empty for a catalog read from files.
    project: Mapping[str, ProjectTable] = field(default_factory=dict)
    # dialect -> (how many legacy names are indexed, {last name part: legacy names}): the
    # only names a name that needs completing can match. Kept up to date as names are
    # added (a script's own tables are, one by one); scanning every name per lookup made a
    # long script's translation quadratic.
    _by_last_part: dict[str, tuple[int, dict[str, list[tuple[str, ...]]]]] = field(
        default_factory=dict, init=False, compare=False, repr=False
    )
    # dialect -> {folded table name: the project's tables known by it there}, built once.
    _project_index: dict[str, dict[str, list[str]]] = field(
        default_factory=dict, init=False, compare=False, repr=False
    )

    def resolve(
        self,
        name_parts: Sequence[NamePart],
        dialect: str,
        file: str,
        line: int,
        col: int,
        assumptions: Assumptions | None = None,
    ) -> str:
        """The lake table ("zone.table") a legacy name reads, or a located error."""
        return self.resolve_name(name_parts, dialect, file, line, col, assumptions).lake_table

    def resolve_name(
        self,
        name_parts: Sequence[NamePart],
        dialect: str,
        file: str,
        line: int,
        col: int,
        assumptions: Assumptions | None = None,
    ) -> Resolution:
        """Resolve a legacy name as ``dialect`` does: as written, else completed with the
        default namespace. NAME-UNKNOWN or NAME-AMBIGUOUS (a located error) otherwise.

        The project's own tables (``project``) are tables such a name can mean too, by their
        name alone: a name the catalog holds as written is the catalog's table, and so is one
        that is complete (written in full, or completed with stated defaults only) and names
        exactly one catalog table; otherwise each catalog table it matches and each project
        table of its name is a candidate, and more than one is ambiguous."""
        names = self.legacy.get(dialect, {})
        key = legacy_key(name_parts, dialect)
        found = names.get(key)
        if found is not None:
            return Resolution(found)
        namespace = (assumptions or Assumptions()).namespace(dialect)
        defaults = [(n, fold(v, dialect) if v else None) for n, v in namespace]
        wanted = _complete(key, defaults)
        matches = {
            names[legacy_key]
            for legacy_key in self._ending_in(dialect, key[-1])
            if _matches(wanted, _complete(legacy_key, defaults))
        }
        filled = defaults[: max(0, len(defaults) + 1 - len(key))]
        used = [f"{n}={v}" for n, v in filled if v]
        unknown = [n for n, v in filled if v is None]
        shown = _shown(name_parts)
        own = set(self._project_named(dialect, key[-1])) - matches
        if own and not (len(matches) == 1 and not unknown):
            if not matches and len(own) == 1:
                lake = own.pop()
                return Resolution(
                    lake,
                    f"{shown} resolved to {lake}, the table {self.project[lake].file} builds "
                    "(a table of the project is known by its name alone, however qualified)",
                )
            searched = ", ".join(self.sources) or "the catalog"
            named = [f"{t} (catalog: {searched})" for t in sorted(matches)] + [
                f"{t} (built by {self.project[t].file})" for t in sorted(own)
            ]
            message = (
                f"table {shown!r} is ambiguous for dialect {dialect}: it can name "
                f"{' and '.join(named)}; a table of the project is known by its name alone, so "
                "write the catalog's name in full to read the catalog's table, or map this "
                "name to the one it means in a catalog"
            )
            raise TranslationError(
                [Diagnostic("error", "NAME-AMBIGUOUS", message, file, line, col)]
            )
        if len(matches) == 1:
            lake = matches.pop()
            notes = []
            if used:
                notes.append("assuming " + ", ".join(used))
            if unknown:
                notes.append(
                    f"the only catalog table it can name with {', '.join(unknown)} unknown "
                    f"(set --assume {unknown[-1]}=NAME to pin it)"
                )
            if own:
                notes.append(
                    f"not {', '.join(sorted(own))}, the project's table of that name, which the "
                    "catalog does not name so"
                )
            settings = tuple((n, v) for n, v in namespace[: len(filled)] if v)
            return Resolution(lake, f"{shown} resolved to {lake}, " + "; ".join(notes), settings)
        searched = ", ".join(self.sources) or "the catalog"
        if matches:
            message = (
                f"table {shown!r} is ambiguous for dialect {dialect}: it can name "
                f"{', '.join(sorted(matches))} (catalog: {searched}); qualify it, or set "
                f"--assume {unknown[-1] if unknown else namespace[-1][0]}=NAME"
            )
            raise TranslationError(
                [Diagnostic("error", "NAME-AMBIGUOUS", message, file, line, col)]
            )
        hint = f", assuming {', '.join(used)}" if used else ""
        message = (
            f"table {shown!r} is not in the catalog for dialect {dialect}{hint} "
            f"(searched: {searched}); add it, or import one with `plumbline catalog import`"
            + self._case_hint(key, dialect)
        )
        raise TranslationError([Diagnostic("error", "NAME-UNKNOWN", message, file, line, col)])

    def _case_hint(self, key: tuple[str, ...], dialect: str) -> str:
        """What the catalog holds under ``key`` in another case, for a dialect where a
        quoted name keeps its case: a name declared unquoted folded to upper case, so a
        quoted mixed-case name does not name it (the error's likeliest cause)."""
        if semantics(dialect).NORMALIZATION_STRATEGY is not NormalizationStrategy.UPPERCASE:
            return ""  # names fold the other way, or compare exactly (BigQuery)
        wanted = [part.upper() for part in key]
        found = sorted(
            ".".join(name)
            for name in self.legacy.get(dialect, {})
            if len(name) >= len(key) and [p.upper() for p in name[-len(key) :]] == wanted
        )
        if not found:
            return ""
        return (
            f". The catalog has {', '.join(found[:3])}, named in another case: in {dialect} "
            "a quoted name keeps its case and an unquoted one is upper case, so a table "
            "declared unquoted is not named by a quoted mixed-case name (declare it quoted "
            "as the database holds it, or write the name as declared)"
        )

    def resolve_prefix(
        self,
        name_parts: Sequence[NamePart],
        dialect: str,
        assumptions: Assumptions | None = None,
    ) -> PrefixMatch:
        """The catalog tables a wildcard name reads (BigQuery ``dataset.events_*``, its last
        part given without the ``*``): every legacy name whose leading parts match as
        ``resolve_name`` matches them and whose last part starts with the prefix."""
        key = legacy_key(name_parts, dialect)
        namespace = (assumptions or Assumptions()).namespace(dialect)
        defaults = [(n, fold(v, dialect) if v else None) for n, v in namespace]
        wanted = _complete(key, defaults)
        prefix = key[-1]
        tables: dict[str, set[str]] = {}
        namespaces: set[tuple[str | None, ...]] = set()
        for candidate, lake in self.legacy.get(dialect, {}).items():
            if not candidate[-1].startswith(prefix):
                continue
            completed = _complete(candidate, defaults)
            if _matches(wanted[:-1], completed[:-1]):
                tables.setdefault(candidate[-1][len(prefix) :], set()).add(lake)
                namespaces.add(completed[:-1])
        filled = defaults[: max(0, len(defaults) + 1 - len(key))]
        settings = tuple((n, v) for n, v in namespace[: len(filled)] if v)
        # A name written with fewer parts may match tables of several datasets (or
        # projects) when the default is unknown: those are different wildcard tables.
        written = {n for n in namespaces if None not in n}
        return PrefixMatch(
            {suffix: sorted(lakes) for suffix, lakes in sorted(tables.items())},
            settings,
            sorted(written) if len(written) > 1 else [],
        )

    def _ending_in(self, dialect: str, last: str) -> list[tuple[str, ...]]:
        """The legacy names of ``dialect`` whose last part is ``last`` (folded)."""
        names = self.legacy.get(dialect, {})
        indexed, index = self._by_last_part.get(dialect, (0, {}))
        if indexed != len(names):
            if indexed > len(names) or not isinstance(names, dict):
                indexed, index = 0, {}
                added = list(names)
            else:  # names are only ever added: the newest are the last ones
                added = list(islice(reversed(names), len(names) - indexed))[::-1]
            for legacy_key in added:
                index.setdefault(legacy_key[-1], []).append(legacy_key)
            self._by_last_part[dialect] = (len(names), index)
        return index.get(last, [])

    def _project_named(self, dialect: str, name: str) -> list[str]:
        """The project's tables known in ``dialect`` by the table name ``name`` (folded)."""
        if dialect not in self._project_index:
            index: dict[str, list[str]] = {}
            for lake, table in self.project.items():
                if table.dialect == dialect:
                    continue  # known there by the name its script wrote (``legacy``)
                written = exp.Identifier(this=table.name, quoted=table.quoted)
                index.setdefault(fold(written, dialect), []).append(lake)
            self._project_index[dialect] = index
        return self._project_index[dialect].get(name, [])

    def digest(self) -> str:
        """sha256 of what the catalog says (not of where it came from): part of a stored
        translation's cache key, since names and types change what a translation is."""
        content = {
            "tables": {t: list(c.items()) for t, c in sorted(self.tables.items())},
            "opaque": {t: sorted(c.items()) for t, c in sorted(self.opaque.items())},
            "legacy": {
                d: sorted([list(k), v] for k, v in names.items())
                for d, names in sorted(self.legacy.items())
            },
        }
        if self.required:  # absent otherwise: a catalog without it keeps its digest
            content["required"] = {t: sorted(c) for t, c in sorted(self.required.items())}
        if self.casespecific:
            content["casespecific"] = {
                t: sorted(c.items()) for t, c in sorted(self.casespecific.items())
            }
        if self.declared:
            content["declared"] = {
                t: sorted([k, list(v)] for k, v in c.items())
                for t, c in sorted(self.declared.items())
            }
        if self.physical:
            content["physical"] = {t: sorted(c.items()) for t, c in sorted(self.physical.items())}
        if self.dialect_types:
            content["dialect_types"] = {
                d: {t: [[c, list(v)] for c, v in cs.items()] for t, cs in sorted(ts.items())}
                for d, ts in sorted(self.dialect_types.items())
            }
        if self.project:
            content["project"] = {
                t: [p.name, p.quoted, p.dialect, p.file] for t, p in sorted(self.project.items())
            }
        return hashlib.sha256(json.dumps(content, sort_keys=True).encode()).hexdigest()

    def schema(
        self, tables: Iterable[str] | None = None
    ) -> dict[str, dict[str, dict[str, str | exp.DataType]]]:
        """Nested {zone: {table: {column: type}}} of every table (or of ``tables``), usable as
        a sqlglot MappingSchema; opaque columns get a user-defined type that annotation
        carries to every use."""
        nested: dict[str, dict[str, dict[str, str | exp.DataType]]] = {}
        # Not ``set(self.tables)``: a script's own tables make the catalog as long as the script.
        names = self.tables if tables is None else sorted({t for t in tables if t in self.tables})
        for qualified in names:
            columns = self.tables[qualified]
            zone, table = qualified.split(".")
            opaque = self.opaque.get(qualified, {})
            case = self.casespecific.get(qualified, {})
            declared = self.declared.get(qualified, {})
            physical = self.physical.get(qualified, {})
            nested.setdefault(zone, {})[table] = {
                column: exp.DataType.build(opaque_type_name(opaque[column]), udt=True)
                if column in opaque
                else _with_meta(kind, case.get(column), declared.get(column), physical.get(column))
                if column in case or column in declared or column in physical
                else kind
                for column, kind in columns.items()
            }
        return nested

    def lake_columns(self, table: str) -> dict[str, str]:
        """The columns of ``table`` as the lake stores them: each column's physical type
        where the catalog names one (``lake:``), else its type."""
        physical = self.physical.get(table, {})
        return {column: physical.get(column, kind) for column, kind in self.tables[table].items()}

    def for_dialect(self, dialect: str) -> Catalog:
        """This catalog as a ``dialect`` file reads it: each table whose DDL that dialect
        declared among several (``dialect_types``) with that dialect's types and declared
        types, read from what the lake stores."""
        own = self.dialect_types.get(dialect)
        if not own:
            return self
        tables = dict(self.tables)
        declared = dict(self.declared)
        physical = dict(self.physical)
        for table, columns in own.items():
            stored = self.lake_columns(table)
            tables[table] = {c: kind for c, (kind, _) in columns.items()}
            declared[table] = {c: (dialect, text) for c, (_, text) in columns.items() if text}
            differs = {
                c: stored[c] for c, (kind, _) in columns.items() if not reads_as(stored[c], kind)
            }
            if differs:
                physical[table] = differs
            else:
                physical.pop(table, None)
        return replace(self, tables=tables, declared=declared, physical=physical)


def reads_as(stored: str, kind: str) -> bool:
    """Whether the lake's ``stored`` type reads as ``kind`` without a CAST: the same type, or
    timestamps of any precision (the engines have one TIMESTAMP; catalog import checked the
    values' fractional digits)."""
    a, b = parse_type(stored), parse_type(kind)
    if a.this == b.this and a.this in _UNSIZED_IN_THE_LAKE:
        return True
    return a == b


# Types whose size the lake does not keep (Parquet strings have no length) or the engines
# read as one (TIMESTAMP): a catalog's VARCHAR(30) or TIMESTAMP(0) is what the lake stores
# as VARCHAR or TIMESTAMP.
_UNSIZED_IN_THE_LAKE = {
    exp.DType.VARCHAR,
    exp.DType.CHAR,
    exp.DType.TEXT,
    exp.DType.NVARCHAR,
    exp.DType.NCHAR,
    exp.DType.TIMESTAMP,
}


# Where a column's declared legacy type travels on its type: (dialect, declared type); and
# the type the lake stores, where it is another.
DECLARED_META = "declared"
PHYSICAL_META = "physical"


def _with_meta(
    kind: str,
    casespecific: bool | None,
    declared: tuple[str, str] | None,
    physical: str | None = None,
) -> exp.DataType:
    """The type of a column declared [NOT] CASESPECIFIC, of a declared legacy type or stored
    as another type: its own object, carrying these to every expression annotation types
    with it."""
    typed = clone(parse_type(kind))  # read for every statement: no deep copy
    if casespecific is not None:
        typed.meta["casespecific"] = casespecific
    if declared is not None:
        typed.meta[DECLARED_META] = declared
    if physical is not None:
        typed.meta[PHYSICAL_META] = physical
    return typed


def declared_type(kind: exp.DataType | None) -> tuple[str, str] | None:
    """(dialect, declared type) of a catalog column's type, where the catalog records one."""
    if kind is None or not kind._meta:
        return None
    return kind.meta.get(DECLARED_META)


def physical_type(kind: exp.DataType | None) -> str | None:
    """The type the lake stores a catalog column as, where it is not the column's type."""
    if kind is None or not kind._meta:
        return None
    return kind.meta.get(PHYSICAL_META)


def opaque_type_name(declared: str) -> str:
    return OPAQUE_PREFIX + "".join(c if c.isalnum() else "_" for c in declared.lower())


def is_opaque(kind: exp.DataType | None) -> bool:
    return (
        kind is not None
        and kind.this == exp.DType.USERDEFINED
        and kind.sql().lower().startswith(OPAQUE_PREFIX)
    )


def _complete(
    parts: tuple[str, ...], defaults: Sequence[tuple[str, str | None]]
) -> tuple[str | None, ...]:
    """``parts`` with the missing leading levels filled from ``defaults`` (None: unknown)."""
    missing = len(defaults) + 1 - len(parts)
    if missing <= 0:
        return parts
    return tuple(v for _, v in defaults[:missing]) + parts


def _matches(wanted: tuple[str | None, ...], candidate: tuple[str | None, ...]) -> bool:
    if len(wanted) != len(candidate):
        return False
    return all(a is None or b is None or a == b for a, b in zip(wanted, candidate, strict=True))


def _name_parts(name: str, dialect: str) -> list[NamePart]:
    """A legacy name as the dialect writes it (``DB.SCHEMA."MixedCase"``, ``[Sales DW].dbo.T``),
    split into identifiers that keep their quoting; plain dotted text where it does not parse."""
    from sql.source_dialects import SOURCE_DIALECTS  # sql.source_dialects is pure sqlglot

    try:
        table = exp.to_table(name, dialect=SOURCE_DIALECTS.get(dialect, dialect))
    except Exception:  # sqlglot raises ParseError/TokenError on names it cannot read
        return list(name.split("."))
    parts = [p for p in table.parts if isinstance(p, exp.Identifier)]
    return list(parts) if parts and len(parts) == len(table.parts) else list(name.split("."))


# A column's type: ``T``, ``{type: T}`` or ``{opaque: TYPE}``, the last two with an optional
# ``required: true`` (declared NOT NULL), a text column's ``casespecific: true|false``, the
# declared type of the legacy DDL it came from (``legacy: oracle NUMBER(10)``) and, where the
# lake stores another type than T, that type (``lake: INTEGER``).
_COLUMN_KEYS = {"type", "opaque", "required", "casespecific", "legacy", "lake"}


@dataclass
class _Columns:
    types: dict[str, str] = field(default_factory=dict)
    opaque: dict[str, str] = field(default_factory=dict)
    required: set[str] = field(default_factory=set)
    casespecific: dict[str, bool] = field(default_factory=dict)
    declared: dict[str, tuple[str, str]] = field(default_factory=dict)
    physical: dict[str, str] = field(default_factory=dict)


def parse_declared(text: object) -> tuple[str, str] | None:
    """``oracle NUMBER(10)`` as ("oracle", "NUMBER(10)"); None unless it starts with a
    source dialect and a space."""
    from sql.source_dialects import DIALECTS

    if not isinstance(text, str):
        return None
    dialect, _, declared = text.strip().partition(" ")
    if dialect.lower() not in DIALECTS or not declared.strip():
        return None
    return dialect.lower(), " ".join(declared.split())


def _ansi_type(path: Path, where: str, kind: object) -> str:
    if not isinstance(kind, str) or not kind.strip():
        raise CatalogError(f"{path}: {where}: expected an ANSI type")
    try:
        parse_type(kind)
    except Exception:  # sqlglot raises ParseError or ValueError on bad type text
        raise CatalogError(
            f"{path}: {where}: {kind!r} is not an ANSI type; write a type with no exact ANSI "
            "form as {opaque: TYPE}"
        ) from None
    return kind


def _columns(path: Path, table: str, spec: object) -> _Columns:
    if not isinstance(spec, dict) or not spec:
        raise CatalogError(f"{path}: tables.{table}: expected a mapping of column: type")
    parsed = _Columns()
    for column, kind in spec.items():
        column = str(column)
        where = f"tables.{table}.{column}"
        if isinstance(kind, str):
            parsed.types[column] = _ansi_type(path, where, kind)
            continue
        if (
            not isinstance(kind, dict)
            or not set(kind) <= _COLUMN_KEYS
            or len({"type", "opaque"} & set(kind)) != 1
        ):
            raise CatalogError(
                f"{path}: {where}: expected an ANSI type, {{type: T}} or {{opaque: TYPE}} "
                "(with optional required: true, casespecific: true|false, legacy: DIALECT "
                "TYPE and lake: T)"
            )
        if not isinstance(kind.get("required", False), bool):
            raise CatalogError(f"{path}: {where}: required is true or false")
        if kind.get("required"):
            parsed.required.add(column)
        if "casespecific" in kind:
            if not isinstance(kind["casespecific"], bool):
                raise CatalogError(f"{path}: {where}: casespecific is true or false")
            parsed.casespecific[column] = kind["casespecific"]
        if "legacy" in kind:
            declared = parse_declared(kind["legacy"])
            if declared is None:
                raise CatalogError(
                    f"{path}: {where}: legacy is a dialect and the type its DDL declares "
                    f"(legacy: oracle DATE); got {kind['legacy']!r}"
                )
            parsed.declared[column] = declared
        if "opaque" in kind:
            if not isinstance(kind["opaque"], str) or "lake" in kind:
                raise CatalogError(
                    f"{path}: {where}: opaque is the declared type's text, without lake:"
                )
            parsed.types[column] = parsed.opaque[column] = kind["opaque"]
            continue
        parsed.types[column] = _ansi_type(path, where, kind["type"])
        if "lake" in kind:
            parsed.physical[column] = _ansi_type(path, f"{where}.lake", kind["lake"])
    return parsed


def load_catalog(path: Path = DEFAULT_CATALOG_PATH, *, project_tables: bool = False) -> Catalog:
    """The catalog file ``path``. With ``project_tables``, a legacy name may map to a lake
    table the file does not declare: one the project's own legacy SQL builds, whose columns
    come from its translation (the caller checks that one does: ``undeclared_names``)."""
    path = Path(path)
    try:
        data = yaml_text.safe_load(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise CatalogError(f"{path}: cannot read catalog: {exc.strerror}") from None
    except UnicodeDecodeError as exc:
        raise CatalogError(f"{path}: byte {exc.start}: not UTF-8 text") from None
    except yaml.YAMLError as exc:
        where = getattr(exc, "problem_mark", None)
        at = f":{where.line + 1}:{where.column + 1}" if where is not None else ""
        problem = getattr(exc, "problem", None) or "not valid YAML"
        raise CatalogError(f"{path}{at}: {problem}") from None
    if not isinstance(data, dict) or not isinstance(data.get("tables"), dict):
        raise CatalogError(f"{path}: expected a mapping with 'tables' (and 'legacy')")
    tables: dict[str, dict[str, str]] = {}
    opaque: dict[str, dict[str, str]] = {}
    required: dict[str, frozenset[str]] = {}
    casespecific: dict[str, dict[str, bool]] = {}
    declared: dict[str, dict[str, tuple[str, str]]] = {}
    physical: dict[str, dict[str, str]] = {}
    for name, spec in data["tables"].items():
        name = str(name)
        if len(name.split(".")) != 2 or not all(name.split(".")):
            raise CatalogError(f"{path}: tables.{name}: a lake table is named zone.table")
        parsed = _columns(path, name, spec)
        tables[name] = parsed.types
        if parsed.casespecific:
            casespecific[name] = parsed.casespecific
        if parsed.opaque:
            opaque[name] = parsed.opaque
        if parsed.required:
            required[name] = frozenset(parsed.required)
        if parsed.declared:
            declared[name] = parsed.declared
        if parsed.physical:
            physical[name] = parsed.physical
    legacy: dict[str, dict[tuple[str, ...], str]] = {}
    legacy_data = data.get("legacy") or {}
    if not isinstance(legacy_data, dict):
        raise CatalogError(f"{path}: legacy: expected a mapping of dialect: names")
    for dialect, names in legacy_data.items():
        if not isinstance(names, dict):
            raise CatalogError(f"{path}: legacy.{dialect}: expected a mapping of name: table")
        folded: dict[tuple[str, ...], str] = {}
        for legacy_name, lake_table in names.items():
            if lake_table not in tables and not (project_tables and _is_lake_name(lake_table)):
                raise CatalogError(
                    f"{path}: {dialect} name {legacy_name!r} maps to unknown {lake_table!r}"
                )
            key = legacy_key(_name_parts(str(legacy_name), str(dialect)), str(dialect))
            if folded.get(key, lake_table) != lake_table:
                raise CatalogError(
                    f"{path}: {dialect} name {legacy_name!r} maps to both {folded[key]!r} "
                    f"and {lake_table!r}"
                )
            folded[key] = lake_table
        legacy[str(dialect)] = folded
    return Catalog(
        tables=tables,
        legacy=legacy,
        opaque=opaque,
        sources=(repository_relative(path),),
        required=required,
        casespecific=casespecific,
        declared=declared,
        physical=physical,
    )


def _is_lake_name(name: object) -> bool:
    return isinstance(name, str) and len(name.split(".")) == 2 and all(name.split("."))


def undeclared_names(catalog: Catalog) -> list[tuple[str, str, str]]:
    """(dialect, legacy name, lake table) of each legacy name that maps to a table the
    catalog neither declares nor knows as one of the project's (``load_catalog``'s
    ``project_tables``)."""
    return [
        (dialect, ".".join(key), lake)
        for dialect, names in sorted(catalog.legacy.items())
        for key, lake in names.items()
        if lake not in catalog.tables and lake not in catalog.project
    ]


def merge_catalogs(catalogs: Iterable[Catalog]) -> Catalog:
    """One catalog from several; a table or legacy name defined differently is an error
    naming both files, except a table whose files declare it in different dialects over the
    same lake columns (the DDL of each warehouse that held a copy): each dialect keeps its
    own types (``Catalog.dialect_types``)."""
    definitions: dict[str, list[tuple[str, Catalog]]] = {}
    legacy: dict[str, dict[tuple[str, ...], str]] = {}
    project: dict[str, ProjectTable] = {}
    name_origin: dict[tuple[str, tuple[str, ...]], str] = {}
    sources: list[str] = []
    for catalog in catalogs:
        origin = ", ".join(catalog.sources) or "<catalog>"
        sources.extend(catalog.sources)
        for name in catalog.tables:
            definitions.setdefault(name, []).append((origin, catalog))
        for dialect, names in catalog.legacy.items():
            merged = legacy.setdefault(dialect, {})
            for key, lake in names.items():
                if merged.get(key, lake) != lake:
                    raise CatalogError(
                        f"{origin}: {dialect} name {'.'.join(key)} maps to {lake}, but to "
                        f"{merged[key]} in {name_origin[(dialect, key)]}"
                    )
                merged[key] = lake
                name_origin.setdefault((dialect, key), origin)
        for lake, table in catalog.project.items():
            if project.get(lake, table) != table:
                raise CatalogError(
                    f"{table.file}: builds {lake}, which {project[lake].file} builds too"
                )
            project[lake] = table
    merged_tables = _MergedTables()
    for name, found in definitions.items():
        merged_tables.add(name, found)
    return Catalog(
        tables=merged_tables.tables,
        legacy=legacy,
        opaque=merged_tables.opaque,
        sources=tuple(sources),
        required=merged_tables.required,
        casespecific=merged_tables.casespecific,
        declared=merged_tables.declared,
        physical=merged_tables.physical,
        project=project,
        dialect_types=merged_tables.dialect_types,
    )


def _same_storage(one: tuple[tuple[str, str], ...], other: tuple[tuple[str, str], ...]) -> bool:
    """Whether two tables' columns (name, type) are what the lake stores alike: the same
    names in the same order, and types that read as each other."""
    return len(one) == len(other) and all(
        a == b and reads_as(x, y) for (a, x), (b, y) in zip(one, other, strict=True)
    )


@dataclass(frozen=True)
class _Definition:
    """One file's definition of a table, as merging compares it."""

    types: tuple[tuple[str, str], ...]
    opaque: tuple[tuple[str, str], ...]
    required: frozenset[str]
    casespecific: tuple[tuple[str, bool], ...]
    declared: tuple[tuple[str, tuple[str, str]], ...]
    physical: tuple[tuple[str, str], ...]
    lake: tuple[tuple[str, str], ...]

    @classmethod
    def of(cls, catalog: Catalog, name: str) -> _Definition:
        return cls(
            types=tuple(catalog.tables[name].items()),
            opaque=tuple(sorted(catalog.opaque.get(name, {}).items())),
            required=catalog.required.get(name, frozenset()),
            casespecific=tuple(sorted(catalog.casespecific.get(name, {}).items())),
            declared=tuple(catalog.declared.get(name, {}).items()),
            physical=tuple(sorted(catalog.physical.get(name, {}).items())),
            lake=tuple(catalog.lake_columns(name).items()),
        )

    @property
    def dialects(self) -> set[str]:
        return {dialect for _, (dialect, _) in self.declared}


@dataclass
class _MergedTables:
    tables: dict[str, Mapping[str, str]] = field(default_factory=dict)
    opaque: dict[str, Mapping[str, str]] = field(default_factory=dict)
    required: dict[str, frozenset[str]] = field(default_factory=dict)
    casespecific: dict[str, Mapping[str, bool]] = field(default_factory=dict)
    declared: dict[str, Mapping[str, tuple[str, str]]] = field(default_factory=dict)
    physical: dict[str, Mapping[str, str]] = field(default_factory=dict)
    dialect_types: dict[str, dict[str, Mapping[str, tuple[str, str]]]] = field(default_factory=dict)

    def add(self, name: str, found: list[tuple[str, Catalog]]) -> None:
        origin, first = found[0]
        one = _Definition.of(first, name)
        variants: dict[str, tuple[str, Mapping[str, tuple[str, str]]]] = {}
        for other_origin, catalog in found:
            for dialect, tables in catalog.dialect_types.items():
                if name in tables:
                    self._variant(variants, name, dialect, tables[name], other_origin)
        kinds = [_Definition.of(c, name) for _, c in found]
        if len(set(kinds)) == 1 and not variants:
            self._plain(name, first)
            return
        if not variants and not any(k.dialects for k in kinds):
            other_origin = next(o for (o, _), k in zip(found, kinds, strict=True) if k != one)
            raise CatalogError(
                f"{other_origin}: table {name} differs from its definition in {origin} "
                "(columns, order, types, NOT NULL, CASESPECIFIC or lake types)"
            )
        for other_origin, catalog in found:
            other = _Definition.of(catalog, name)
            if (
                not _same_storage(other.lake, one.lake)
                or (other.opaque, other.casespecific) != (one.opaque, one.casespecific)
                or len(other.dialects) > 1
            ):
                raise CatalogError(
                    f"{other_origin}: table {name} differs from its definition in {origin} "
                    "(columns, order, types the lake stores, CASESPECIFIC, or a legacy type "
                    "of another dialect than the file's)"
                )
            if not other.dialects:
                if not _same_storage(other.types, one.lake):
                    raise CatalogError(
                        f"{other_origin}: table {name} differs from its definition in "
                        f"{origin}: it declares no legacy type, so its types must be those "
                        "the lake stores"
                    )
                continue
            (dialect,) = other.dialects
            texts = dict(other.declared)
            columns = {c: (kind, texts.get(c, ("", ""))[1]) for c, kind in other.types}
            self._variant(variants, name, dialect, columns, other_origin)
        self.tables[name] = dict(one.lake)
        if one.opaque:
            self.opaque[name] = dict(one.opaque)
        if one.casespecific:
            self.casespecific[name] = dict(one.casespecific)
        required = frozenset().union(*(_Definition.of(c, name).required for _, c in found))
        if required:
            self.required[name] = required
        for dialect, (_, columns) in variants.items():
            self.dialect_types.setdefault(dialect, {})[name] = columns

    def _variant(
        self,
        variants: dict[str, tuple[str, Mapping[str, tuple[str, str]]]],
        name: str,
        dialect: str,
        columns: Mapping[str, tuple[str, str]],
        origin: str,
    ) -> None:
        known = variants.get(dialect)
        if known is not None and dict(known[1]) != dict(columns):
            raise CatalogError(
                f"{origin}: table {name} has other {dialect} types than in {known[0]}"
            )
        variants.setdefault(dialect, (origin, columns))

    def _plain(self, name: str, catalog: Catalog) -> None:
        self.tables[name] = catalog.tables[name]
        for mine, theirs in (
            (self.opaque, catalog.opaque),
            (self.required, catalog.required),
            (self.casespecific, catalog.casespecific),
            (self.declared, catalog.declared),
            (self.physical, catalog.physical),
        ):
            if name in theirs:
                mine[name] = theirs[name]


def load_catalogs(paths: Sequence[Path], *, project_tables: bool = False) -> Catalog:
    """The merged catalog of ``paths`` (at least one file; ``project_tables``: see
    ``load_catalog``)."""
    if not paths:
        raise CatalogError("no catalog file given")
    return merge_catalogs(load_catalog(Path(p), project_tables=project_tables) for p in paths)
