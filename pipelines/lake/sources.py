"""Raw tables from the user's own sources: files (Parquet, CSV) or a table in their database.

A ``sources`` mapping (from a Dagster component's YAML) declares each raw table::

    orders:                               # lake table raw.orders
      files: exports/orders/*.parquet     # a glob, a folder or a file, relative to a base folder
    customers:
      files: exports/customers.csv        # the format comes from the extension...
      format: csv                         # ...or is given (a folder or a bare glob: parquet)
    stores:
      database:
        url_env: SHOP_DATABASE_URL        # the variable holding postgresql://user:pass@host/db
        table: public.stores

:func:`publish_source` makes ``raw/<name>`` hold what the source holds, through the lake's
staging and atomic publish, or keeps the published version when nothing changed: for files,
the source files' bytes (their sha256 is in the manifest); for a database, the extracted
table itself (its Parquet digest). Files are read with DuckDB; a database table is fetched
as Arrow record batches by the ADBC PostgreSQL driver and written batch by batch, so memory
stays bounded by one batch. Any failure is a one-line :class:`SourceError` naming the source,
and the published version stays as it was.

A database URL holds a password: it is read from the environment at the moment of use and
never written, logged or put in a message; driver messages are scrubbed of it.

Pure logic: no Dagster here.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, get_args

import sqlglot
from sqlglot import exp
from sqlglot.errors import SqlglotError
from sqlglot.optimizer.normalize_identifiers import normalize_identifiers

from pipelines.lake.raw import RAW_ZONE
from sql.ansi import Ansi

FileFormat = Literal["parquet", "csv"]
FILE_FORMATS: tuple[str, ...] = get_args(FileFormat)
Driver = Literal["postgresql"]
DRIVERS: tuple[str, ...] = get_args(Driver)

# What a file name ends with, per format: a folder is read as its files with these endings.
EXTENSIONS: dict[str, tuple[str, ...]] = {"csv": (".csv", ".csv.gz"), "parquet": (".parquet",)}
SOURCE_KEYS = ("columns", "database", "files", "format")
DATABASE_KEYS = ("driver", "table", "url_env")
# A lake table name: it becomes a folder and an unquoted SQL identifier.
_NAME = re.compile(r"[a-z_][a-z0-9_]*")
_ENV_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


class SourceError(RuntimeError):
    """A source cannot be read or published. One line that names the source; never a
    credential."""

    def __init__(self, source: Source, problem: str) -> None:
        self.source = source
        self.problem = one_line(problem)
        super().__init__(one_line(f"{describe(source)}: {self.problem}"))


class SourcesError(ValueError):
    """A source declaration is malformed: ``field`` names what is at fault (in the YAML,
    ``sources.orders.files``), ``problem`` says what is wrong with it. Never shows a
    database key's value, which may be a URL with its password."""

    def __init__(self, field: str, problem: str) -> None:
        self.field, self.problem = field, problem
        super().__init__(f"{field}: {problem}")


_NAME_RULE = (
    "a table name must be a lower-case identifier (letters a-z, digits, _; not first a digit)"
)
_URL_ENV_RULE = (
    "expected the name of an environment variable (the URL itself goes in that variable, "
    "never in this file)"
)


@dataclass(frozen=True)
class FileSource:
    name: str  # the lake table is raw.<name>
    pattern: str  # absolute: a glob, a folder or a file
    format: FileFormat
    # CSV columns read as these ANSI types instead of the detected ones (a DECIMAL(12,2) the
    # detection would read as DOUBLE), in a tuple of (column, type) pairs.
    columns: tuple[tuple[str, str], ...] = ()
    # The folders its files may lie in once links are followed (a project's folder and its
    # allowed_paths); empty: anywhere (a source built in code). Not part of what it reads.
    allowed: tuple[str, ...] = field(default=(), compare=False)

    def __post_init__(self) -> None:
        _check_name(self.name)
        if not isinstance(self.pattern, str) or not os.path.isabs(self.pattern):
            raise SourcesError("pattern", "expected an absolute path (a glob, a folder or a file)")
        if self.format not in FILE_FORMATS:
            raise SourcesError("format", f"expected one of {', '.join(FILE_FORMATS)}")
        if self.columns and self.format != "csv":
            raise SourcesError("columns", "only a CSV source declares column types")
        for column, kind in self.columns:
            try:
                exp.DataType.build(kind, dialect=Ansi)
            except (SqlglotError, ValueError):
                raise SourcesError(
                    f"columns.{column}", "expected an ANSI SQL type such as DECIMAL(12,2)"
                ) from None

    @property
    def lake_table(self) -> str:
        return f"{RAW_ZONE}.{self.name}"


@dataclass(frozen=True)
class DatabaseSource:
    name: str
    url_env: str  # the environment variable that holds the database URL
    table: str  # [schema.]table as PostgreSQL reads it (unquoted parts fold to lower case)
    driver: Driver = "postgresql"

    def __post_init__(self) -> None:
        _check_name(self.name)
        if not isinstance(self.url_env, str) or not _ENV_NAME.fullmatch(self.url_env):
            raise SourcesError("url_env", _URL_ENV_RULE)
        postgres_table(self.table)
        if self.driver not in DRIVERS:
            raise SourcesError("driver", f"expected one of {', '.join(DRIVERS)}")

    @property
    def lake_table(self) -> str:
        return f"{RAW_ZONE}.{self.name}"


Source = FileSource | DatabaseSource


def _check_name(name: object) -> None:
    if not isinstance(name, str) or not _NAME.fullmatch(name):
        raise SourcesError("name", _NAME_RULE)


def describe(source: Source) -> str:
    """How messages name a source: ``source raw.stores (postgresql table public.stores via
    $SHOP_DATABASE_URL)``."""
    if isinstance(source, FileSource):
        return f"source {source.lake_table} ({source.format} files {source.pattern})"
    return (
        f"source {source.lake_table} ({source.driver} table {source.table} via ${source.url_env})"
    )


# -- the YAML mapping ---------------------------------------------------------------------


def parse_sources(
    mapping: object, base: Path, *, allowed: tuple[Path, ...] = ()
) -> tuple[Source, ...]:
    """The sources a ``sources`` mapping declares, in its order; file patterns are taken
    from ``base``. With ``allowed`` folders, a pattern that leads outside them (once links
    are followed) is refused, and so is each file it matches when it is read. Raises
    SourcesError naming the field at fault."""
    if not isinstance(mapping, Mapping) or not mapping:
        raise SourcesError(
            "sources", "expected a mapping of table names to sources (files: or database:)"
        )
    return tuple(_parse_source(name, spec, Path(base), allowed) for name, spec in mapping.items())


def _parse_source(name: object, spec: object, base: Path, allowed: tuple[Path, ...]) -> Source:
    where = f"sources.{name}"
    try:
        _check_name(name)
    except SourcesError as error:
        raise SourcesError(where, error.problem) from None
    if not isinstance(spec, Mapping):
        raise SourcesError(where, "expected a mapping with files: or database:")
    _refuse_unknown_keys(spec, SOURCE_KEYS, where)
    if ("files" in spec) == ("database" in spec):
        raise SourcesError(where, "needs exactly one of files or database")
    if "database" in spec:
        if "format" in spec:
            raise SourcesError(f"{where}.format", "only a files source has a format")
        return _parse_database(str(name), spec["database"], f"{where}.database")
    files = spec["files"]
    if not isinstance(files, str) or not files.strip():
        raise SourcesError(f"{where}.files", "expected a glob, a folder or a file, as text")
    if "\x00" in files:
        raise SourcesError(f"{where}.files", "a path cannot hold a NUL character")
    pattern = os.path.abspath(base / files.strip())
    resolved = outside(pattern_root(pattern), allowed)
    if resolved is not None:
        raise SourcesError(f"{where}.files", outside_problem(files.strip(), resolved))
    file_format = spec.get("format") or _format_of(pattern)
    columns = spec.get("columns") or {}
    if not isinstance(columns, Mapping) or not all(
        isinstance(k, str) and isinstance(v, str) for k, v in columns.items()
    ):
        raise SourcesError(f"{where}.columns", "expected a mapping of column names to ANSI types")
    fields = {"name": where, "pattern": f"{where}.files", "format": f"{where}.format"}
    try:
        return FileSource(
            str(name),
            pattern,
            file_format,
            tuple(columns.items()),
            allowed=tuple(str(folder) for folder in allowed),
        )
    except SourcesError as error:
        field = fields.get(error.field, f"{where}.{error.field}")
        raise SourcesError(field, error.problem) from None


def _format_of(pattern: str) -> FileFormat:
    """The format a pattern's extension says; parquet for a folder or a bare glob."""
    for file_format, endings in EXTENSIONS.items():
        if pattern.lower().endswith(endings):
            return file_format  # type: ignore[return-value]
    return "parquet"


def _parse_database(name: str, spec: object, where: str) -> DatabaseSource:
    if not isinstance(spec, Mapping):
        raise SourcesError(where, "expected a mapping with url_env and table")
    _refuse_unknown_keys(spec, DATABASE_KEYS, where)
    for key in ("url_env", "table"):
        if key not in spec:
            raise SourcesError(f"{where}.{key}", "missing")
    try:
        table = spec["table"].strip() if isinstance(spec["table"], str) else spec["table"]
        return DatabaseSource(name, spec["url_env"], table, spec.get("driver", "postgresql"))
    except SourcesError as error:
        field = where.rpartition(".")[0] if error.field == "name" else f"{where}.{error.field}"
        raise SourcesError(field, error.problem) from None


def _refuse_unknown_keys(spec: Mapping[Any, Any], known: tuple[str, ...], where: str) -> None:
    # Only a key's name is shown: its value may be a URL with its password.
    unknown = sorted(str(k) for k in spec if k not in known)
    if unknown:
        raise SourcesError(
            f"{where}.{unknown[0]}", f"unknown key; expected one of {', '.join(known)}"
        )


def postgres_table(text: object) -> exp.Table:
    """``[schema.]table`` as PostgreSQL names it, every part quoted: unquoted parts fold to
    lower case first, as PostgreSQL folds them. Raises SourcesError for anything else."""
    # The value is not shown: it might be a URL pasted into the wrong field.
    accepted = SourcesError("table", "expected schema.table (or a table on the search path)")
    if not isinstance(text, str) or not text.strip():
        raise accepted
    try:
        table = sqlglot.parse_one(text, read="postgres", into=exp.Table)
    except SqlglotError:
        raise accepted from None
    parts = table.parts
    plain = {k for k, v in table.args.items() if v} <= {"this", "db"} and all(
        isinstance(p, exp.Identifier) and p.name for p in parts
    )
    if not plain or not 1 <= len(parts) <= 2:
        raise accepted
    table = normalize_identifiers(table, dialect="postgres")
    for identifier in table.find_all(exp.Identifier):
        identifier.set("quoted", True)
    return table


def pattern_root(pattern: str) -> Path:
    """The part of a file pattern before its first wildcard: where it reads, whatever it
    matches (the pattern itself when it has none)."""
    return Path(re.split(r"[*?\[]", pattern, maxsplit=1)[0] or "/")


def outside(path: Path, allowed: tuple[Path, ...] | tuple[str, ...]) -> Path | None:
    """Where ``path`` leads once every link is followed, when that is outside each of the
    ``allowed`` folders; None when it is inside one (or nothing is allowed: anywhere)."""
    if not allowed:
        return None
    resolved = Path(path).resolve()
    if any(resolved.is_relative_to(Path(folder).resolve()) for folder in allowed):
        return None
    return resolved


def outside_problem(shown: str | Path, resolved: Path) -> str:
    """What is said of a path that leads outside the project folder."""
    leads = "" if str(shown) == str(resolved) else f" (it leads to {resolved})"
    return (
        f"{shown} is outside the project folder{leads}; to read it, list its folder under "
        "allowed_paths: in defs.yaml"
    )


def select_all(source: DatabaseSource) -> str:
    """``SELECT * FROM "schema"."table"`` in PostgreSQL's dialect."""
    return exp.select(exp.Star()).from_(postgres_table(source.table)).sql(dialect="postgres")


def one_line(text: str) -> str:
    return " ".join(text.split())
