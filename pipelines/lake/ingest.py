"""Reading a declared source into the raw zone: files through DuckDB, a database table through
the ADBC PostgreSQL driver as Arrow record batches, written batch by batch so memory stays
bounded by one batch; and a source's schema, for the catalog derived from the sources.

:func:`publish_source` makes ``raw/<name>`` hold what the source holds, through the lake's
staging and atomic publish, or keeps the published version when nothing changed: for files,
the source files' bytes (their sha256 is in the manifest); for a database, the extracted
table itself (its Parquet digest). Any failure is a one-line :class:`SourceError` naming the
source, and the published version stays as it was.

A database URL holds a password: it is read from the environment at the moment of use and
never written, logged or put in a message: a URL libpq would read otherwise than written is
refused before the driver sees it, and driver messages are redacted
(:mod:`pipelines.lake.database_url`).

Pure logic: no Dagster here. The declarations (:mod:`pipelines.lake.sources`) import no engine,
so that loading a code location stays light; this module is imported when a source is read.
"""

from __future__ import annotations

import glob
import hashlib
import importlib.metadata
import os
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

import duckdb
import pyarrow as pa
import pyarrow.parquet as pq
from sqlglot import exp

from pipelines.lake.catalog import Correspondence, LakeImport, correspondence, schema_columns
from pipelines.lake.csv_files import CsvError, csv_problem, csv_relation
from pipelines.lake.database_url import DatabaseUrl, DatabaseUrlError, parse_database_url
from pipelines.lake.duckdb_limits import connection_config
from pipelines.lake.raw import RAW_ZONE, RawTable
from pipelines.lake.sources import (
    EXTENSIONS,
    DatabaseSource,
    FileSource,
    Source,
    SourceError,
    describe,
    one_line,
    outside,
    outside_problem,
    select_all,
)
from pipelines.lake.store import Lake, TableVersion, digest_files, table_stats
from sql.ansi import Ansi

T = TypeVar("T")
# libpq waits forever on a host that drops packets; a run must fail instead.
CONNECT_TIMEOUT_SECONDS = 30
BATCH_ROWS = 65_536
DATA_FILE = "part-00000.parquet"
# PostgreSQL NUMERIC's typmod: ((precision << 16) | scale) + VARHDRSZ, scale an 11-bit signed
# number (postgres src/backend/utils/adt/numeric.c, make_numeric_typmod).
_VARHDRSZ = 4
_MAX_ARROW_DECIMAL = 76
# PostgreSQL types the ADBC driver reads into an Arrow type that does not hold the same
# value, and what to do instead.
_REFUSED_POSTGRES_TYPES = {
    "money": "the driver reads it as a bare integer of the currency's smallest unit; "
    "select it as NUMERIC in a view and read the view",
}


# -- publishing -----------------------------------------------------------------------------


def publish_source(
    lake: Lake, source: Source, *, environ: Mapping[str, str] | None = None
) -> RawTable:
    """Make ``raw/<name>`` hold what ``source`` holds, or keep the published version when it
    already does (``reused=True``, same digest). Raises SourceError, publishing nothing,
    when the source cannot be read."""
    current = lake.current(RAW_ZONE, source.name)
    try:
        if isinstance(source, FileSource):
            return _publish_files(lake, source, current)
        return _publish_table(lake, source, current, os.environ if environ is None else environ)
    except SourceError as error:
        if current is None:
            raise
        kept = f"{error.problem}; {source.lake_table} keeps its version {current.path.name}"
        raise SourceError(source, kept) from None


def _source_manifest(source: Source) -> dict[str, Any]:
    """What the manifest says of a source: never a URL."""
    if isinstance(source, FileSource):
        declared = {"columns": dict(source.columns)} if source.columns else {}
        return {"kind": "files", "format": source.format, "pattern": source.pattern, **declared}
    return {
        "kind": "database",
        "driver": source.driver,
        "table": source.table,
        "url_env": source.url_env,
    }


def _unchanged(lake: Lake, current: TableVersion, wanted: Mapping[str, Any]) -> bool:
    """Whether ``current`` was made from what ``wanted`` describes, and its files are intact."""
    return all(current.manifest.get(k) == v for k, v in wanted.items()) and lake.verify(current)


def _publish_files(lake: Lake, source: FileSource, current: TableVersion | None) -> RawTable:
    files = matching_files(source)
    seen = {f: _stat(source, f) for f in files}
    wanted = {
        "source": _source_manifest(source),
        "source_files": {str(f): _sha256(source, f) for f in files},
        "reader": f"duckdb {duckdb.__version__}",
    }
    if current is not None and _unchanged(lake, current, wanted):
        return RawTable(current, table_stats(current.path), reused=True)

    connection = duckdb.connect(config=connection_config())
    try:
        _files_schema(source, files, connection)  # refuses files that disagree, naming them
        with lake.stage(RAW_ZONE, source.name) as staging:
            try:
                reader = _relation(source, files, connection).to_arrow_reader(BATCH_ROWS)
                _write_parquet(source, reader.schema, reader, staging / DATA_FILE)
            # A row that does not fit surfaces from the stream as Arrow's OSError.
            except (duckdb.Error, OSError) as error:
                raise SourceError(source, _read_problem(source, files, error)) from None
            for file, stat in seen.items():
                if _stat(source, file) != stat:
                    raise SourceError(source, f"{file} changed while it was read; run again")
            stats = table_stats(staging)
            # Another run may have published the same files meanwhile: then that version stays.
            published = lake.publish_version(
                RAW_ZONE,
                source.name,
                staging,
                {**wanted, "row_count": stats.row_count},
                same=lake.same_files,
            )
    finally:
        connection.close()
    return RawTable(published.version, stats, reused=published.kept)


def _publish_table(
    lake: Lake, source: DatabaseSource, current: TableVersion | None, environ: Mapping[str, str]
) -> RawTable:
    wanted = {"source": _source_manifest(source)}
    with lake.stage(RAW_ZONE, source.name) as staging:
        _extract(source, environ, staging / DATA_FILE, existed=current is not None)
        # The table's content is what the extraction wrote: the same rows in the same order
        # give the same bytes, so an unchanged table keeps its version and digest.
        if current is not None and _unchanged(
            lake, current, {**wanted, "digest": digest_files(staging)}
        ):
            return RawTable(current, table_stats(current.path), reused=True)
        stats = table_stats(staging)
        manifest = {**wanted, "reader": _driver_version(source), "row_count": stats.row_count}
        published = lake.publish_version(
            RAW_ZONE, source.name, staging, manifest, same=lake.same_files
        )
    return RawTable(published.version, stats, reused=published.kept)


# -- files ----------------------------------------------------------------------------------


def matching_files(source: FileSource) -> list[Path]:
    """The files a source reads, sorted: the glob's matches, the folder's files with the
    format's extension (not its subfolders'), or the one file. SourceError when none, or
    when one leads outside the source's allowed folders (a link out of the project)."""
    files = _matching_files(source)
    for file in files:
        resolved = outside(file, source.allowed)
        if resolved is not None:
            raise SourceError(source, outside_problem(file, resolved))
    return files


def _matching_files(source: FileSource) -> list[Path]:
    path = Path(source.pattern)
    if glob.escape(source.pattern) != source.pattern:
        found = [Path(p) for p in glob.glob(source.pattern, recursive=True)]
        files = sorted(p for p in found if p.is_file())
        if not files:
            raise SourceError(source, "no file matches the pattern")
        return files
    if path.is_dir():
        endings = EXTENSIONS[source.format]
        files = sorted(p for p in path.iterdir() if p.is_file() and p.name.endswith(endings))
        if not files:
            hint = "" if source.format == "csv" else "; for CSV files, add format: csv"
            raise SourceError(source, f"the folder has no {' or '.join(endings)} file{hint}")
        return files
    if path.is_file():
        return [path]
    raise SourceError(source, "no such file or folder")


_FORMAT_NAMES = {"csv": "CSV", "parquet": "Parquet"}


def _relation(
    source: FileSource, files: list[Path], connection: duckdb.DuckDBPyConnection
) -> duckdb.DuckDBPyRelation:
    """The files as one DuckDB relation: CSV read strictly (``pipelines.lake.csv_files``),
    with a header row and detected types, or Parquet. SourceError naming the file and line
    of a CSV file that cannot be read as a table."""
    names = [str(f) for f in files]
    if source.format == "csv":
        declared = {
            column: exp.DataType.build(kind, dialect=Ansi).sql("duckdb")
            for column, kind in source.columns
        }
        try:
            return csv_relation(connection, files, declared)
        except CsvError as error:
            raise SourceError(source, str(error)) from None
    return connection.read_parquet(names)


def _read_problem(source: FileSource, files: list[Path], error: Exception) -> str:
    """What a failed read of ``files`` says: the file and line of a CSV row that does not
    fit, else DuckDB's own message."""
    if source.format == "csv":
        return csv_problem(error, files[0])
    return f"cannot read the files: {error}"


def _file_schema(
    source: FileSource, file: Path, connection: duckdb.DuckDBPyConnection
) -> pa.Schema:
    """One file's schema as DuckDB reads it: a Parquet footer, a CSV file's sniffed sample."""
    try:
        return _relation(source, [file], connection).limit(0).to_arrow_table().schema
    except duckdb.Error as error:
        kind = _FORMAT_NAMES[source.format]
        raise SourceError(source, f"{file} is not a readable {kind} file: {error}") from None


def _files_schema(
    source: FileSource, files: list[Path], connection: duckdb.DuckDBPyConnection
) -> pa.Schema:
    """The one schema of every file of ``source``: SourceError naming two files whose
    schemas differ."""
    first = _file_schema(source, files[0], connection)
    for other in files[1:]:
        schema = _file_schema(source, other, connection)
        if not schema.equals(first):
            raise SourceError(
                source,
                f"{files[0]} and {other} have different schemas: "
                f"{_schema_difference(files[0], first, other, schema)}; a table's files must agree",
            )
    names = [f.name for f in first]
    repeated = sorted({n for n in names if names.count(n) > 1})
    if repeated:
        raise SourceError(source, f"column {', '.join(repeated)} appears more than once")
    return first


def _schema_difference(
    one: Path, one_schema: pa.Schema, other: Path, other_schema: pa.Schema
) -> str:
    """The first column where two files' schemas disagree."""
    ones = {f.name: f.type for f in one_schema}
    others = {f.name: f.type for f in other_schema}
    for name, kind in ones.items():
        if name not in others:
            return f"column {name} is in {one}, not in {other}"
        if others[name] != kind:
            return f"column {name} is {kind} in {one}, {others[name]} in {other}"
    for name in others:
        if name not in ones:
            return f"column {name} is in {other}, not in {one}"
    return f"columns {', '.join(ones)} in {one}, in the order {', '.join(others)} in {other}"


def _stat(source: FileSource, file: Path) -> tuple[int, int]:
    try:
        stat = file.stat()
    except OSError as error:
        raise SourceError(source, f"{file} cannot be read: {error.strerror}") from None
    return stat.st_size, stat.st_mtime_ns


def _sha256(source: FileSource, file: Path) -> str:
    digest = hashlib.sha256()
    try:
        with file.open("rb") as f:
            for chunk in iter(lambda: f.read(1 << 20), b""):
                digest.update(chunk)
    except OSError as error:
        raise SourceError(source, f"{file} cannot be read: {error.strerror}") from None
    return digest.hexdigest()


# -- a database table -----------------------------------------------------------------------


def _extract(
    source: DatabaseSource, environ: Mapping[str, str], target: Path, *, existed: bool
) -> None:
    """Write ``SELECT * FROM table`` to ``target``, one Arrow record batch at a time."""

    def extract(cursor) -> None:
        cursor.execute(select_all(source))
        batches = cursor.fetch_record_batch()
        schema = _lake_schema(source, batches.schema)
        _write_parquet(source, schema, _lake_batches(source, batches, schema), target)

    _with_cursor(source, environ, extract, existed=existed)


def _with_cursor(
    source: DatabaseSource,
    environ: Mapping[str, str],
    work: Callable[[Any], T],
    *,
    existed: bool = False,
) -> T:
    """``work(cursor)`` on a new connection to the source's database. Driver errors become
    SourceErrors, raised after their except blocks rather than in them so that they carry no
    driver exception (whose text may hold what the redaction removes). Every driver message
    passes through ``pipelines.lake.database_url``'s redaction."""
    url = source_database_url(source, environ)
    dbapi = postgres_dbapi()
    try:
        connection = dbapi.connect(url.url)
    except dbapi.Error as error:
        problem = f"cannot connect to the database: {url.driver_message(error)}"
    else:
        try:
            with connection, connection.cursor() as cursor:
                return work(cursor)
        # A stream that breaks off mid-table surfaces through Arrow's C stream interface.
        except (dbapi.Error, pa.ArrowInvalid) as error:
            problem = _query_problem(error, url, existed=existed)
    raise SourceError(source, problem)


def postgres_dbapi():
    """The PostgreSQL ADBC driver's DB-API module (sources, and reconciliation against a
    legacy database). Imported on use: the driver loads a shared library that file sources
    never need."""
    import adbc_driver_postgresql.dbapi

    return adbc_driver_postgresql.dbapi


def _driver_version(source: DatabaseSource) -> str:
    package = f"adbc-driver-{source.driver}"
    return f"{package} {importlib.metadata.version(package)}"


def source_database_url(source: DatabaseSource, environ: Mapping[str, str]) -> DatabaseUrl:
    """The URL from ``environ[url_env]``, checked and with a connect timeout, with the
    secrets in it that no message may show."""
    text = environ.get(source.url_env, "").strip()
    if not text:
        raise SourceError(source, f"environment variable {source.url_env} is not set")
    try:
        return parse_database_url(text, connect_timeout=CONNECT_TIMEOUT_SECONDS)
    except DatabaseUrlError as error:
        raise SourceError(source, f"environment variable {source.url_env} {error}") from None


# SQLSTATEs (https://www.postgresql.org/docs/current/errcodes-appendix.html).
_UNDEFINED_TABLE = {"42P01", "3F000"}  # undefined_table, invalid_schema_name
_INSUFFICIENT_PRIVILEGE = "42501"


def _query_problem(error: Exception, url: DatabaseUrl, *, existed: bool) -> str:
    state = getattr(error, "sqlstate", None)
    if state in _UNDEFINED_TABLE:
        return "the table no longer exists" if existed else "the table does not exist"
    if state == _INSUFFICIENT_PRIVILEGE:
        return "the database refuses this role the table (permission denied)"
    return f"the database failed the query: {url.driver_message(error)}"


def _lake_field(source: DatabaseSource, field: pa.Field) -> pa.Field:
    """The Parquet column for a fetched column: NUMERIC(p,s) as the decimal it is (the
    driver hands every NUMERIC over as text), every other type as fetched, and no driver
    metadata. SourceError for a type the driver reads into something else."""
    metadata = field.metadata or {}
    postgres_type = metadata.get(b"POSTGRESQL:type", b"").decode()
    if postgres_type in _REFUSED_POSTGRES_TYPES:
        raise SourceError(
            source,
            f"column {field.name} has PostgreSQL type {postgres_type}: "
            f"{_REFUSED_POSTGRES_TYPES[postgres_type]}",
        )
    kind = field.type
    if postgres_type == "numeric":
        kind = _numeric_type(int(metadata.get(b"POSTGRESQL:typmod", b"-1"))) or kind
    return pa.field(field.name, kind, field.nullable)


def _numeric_type(typmod: int) -> pa.DataType | None:
    """The Arrow decimal of NUMERIC(precision, scale); None for NUMERIC without them (any
    precision, any scale: no decimal type holds every value, so the text is kept and the
    column is opaque)."""
    if typmod < _VARHDRSZ:
        return None
    precision = ((typmod - _VARHDRSZ) >> 16) & 0xFFFF
    scale = (((typmod - _VARHDRSZ) & 0x7FF) ^ 1024) - 1024
    if not 0 <= scale <= precision or not 1 <= precision <= _MAX_ARROW_DECIMAL:
        return None
    return pa.decimal128(precision, scale) if precision <= 38 else pa.decimal256(precision, scale)


def _lake_schema(source: DatabaseSource, fetched: pa.Schema) -> pa.Schema:
    return pa.schema([_lake_field(source, f) for f in fetched])


def _lake_batches(
    source: DatabaseSource, batches: Iterable[pa.RecordBatch], schema: pa.Schema
) -> Iterator[pa.RecordBatch]:
    for batch in batches:
        columns = []
        for column, field in zip(batch.columns, schema, strict=True):
            if column.type != field.type:  # a NUMERIC's text
                storage = column.storage if isinstance(column, pa.ExtensionArray) else column
                try:
                    column = storage.cast(field.type)
                except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
                    raise SourceError(
                        source,
                        f"column {field.name} holds a value that {field.type} cannot hold "
                        "(NaN or Infinity)",
                    ) from None
            columns.append(column)
        yield pa.RecordBatch.from_arrays(columns, schema=schema)


# -- shared ---------------------------------------------------------------------------------


def _write_parquet(
    source: Source, schema: pa.Schema, batches: Iterable[pa.RecordBatch], target: Path
) -> None:
    """Write ``batches`` to one Parquet file, a row group per batch: memory holds one batch.
    SourceError naming the column when Parquet has no type for it."""
    _check_writable(source, schema)
    with pq.ParquetWriter(target, schema) as writer:
        for batch in batches:
            writer.write_batch(batch)


def _check_writable(source: Source, schema: pa.Schema) -> None:
    for field in schema:
        try:
            pq.ParquetWriter(pa.BufferOutputStream(), pa.schema([field])).close()
        except (pa.ArrowNotImplementedError, pa.ArrowInvalid):
            raise SourceError(
                source,
                f"column {field.name} has type {field.type}, which Parquet cannot store; "
                "cast it in a view (or export it as text)",
            ) from None


# -- catalogs -------------------------------------------------------------------------------


def source_schema(source: Source, environ: Mapping[str, str] | None = None) -> pa.Schema:
    """The Arrow schema ``publish_source`` would write, read without reading the rows: the
    files' footers (a CSV file's sniffed sample), or the database's description of the
    query's result."""
    if isinstance(source, FileSource):
        connection = duckdb.connect(config=connection_config())
        try:
            return _files_schema(source, matching_files(source), connection)
        finally:
            connection.close()
    query = select_all(source)
    fetched = _with_cursor(
        source,
        os.environ if environ is None else environ,
        lambda cursor: cursor.adbc_execute_schema(query),
    )
    schema = _lake_schema(source, fetched)
    _check_writable(source, schema)
    return schema


def source_catalog(
    sources: Iterable[Source], environ: Mapping[str, str] | None = None
) -> LakeImport:
    """The catalog of the raw tables ``sources`` make (``raw.<name>`` -> ANSI types), as
    ``pipelines.lake.catalog.import_lake`` reads it from their published Parquet."""
    tables: dict[str, dict[str, str]] = {}
    opaque: dict[str, dict[str, str]] = {}
    warnings: list[str] = []
    for source in sources:
        table = source.lake_table
        tables[table], table_opaque, table_warnings = schema_columns(
            table, source_schema(source, environ), describe(source)
        )
        if table_opaque:
            opaque[table] = table_opaque
        warnings.extend(table_warnings)
    return LakeImport(tables=tables, opaque=opaque, warnings=tuple(warnings))


def count_values(
    source: Source, conditions: Mapping[str, exp.Expr], environ: Mapping[str, str] | None = None
) -> dict[str, int]:
    """For each column of ``source``, how many of its non-NULL values meet its condition (an
    expression over ``pipelines.lake.catalog.VALUE``), in one scan of what the source holds:
    the files through DuckDB, a database table as Arrow record batches streamed into it."""
    from pipelines.lake.catalog import VALUE

    if not conditions:
        return {}

    def over(condition: exp.Expr, column: exp.Expr) -> exp.Expr:
        return condition.transform(
            lambda node: (
                column.copy() if isinstance(node, exp.Column) and node.name == VALUE else node
            )
        )

    counts = []
    for name, condition in conditions.items():
        column = exp.column(name, quoted=True)
        present = exp.not_(exp.Is(this=column.copy(), expression=exp.Null()))
        met = exp.and_(present, over(condition, column))
        counts.append(exp.alias_(exp.func("count_if", met), name, quoted=True))
    query = exp.select(*counts).from_(exp.to_identifier("source_rows", quoted=True))

    def counted(connection: duckdb.DuckDBPyConnection, rows: duckdb.DuckDBPyRelation) -> dict:
        connection.register("source_rows", rows)
        try:
            values = connection.sql(query.sql("duckdb")).fetchall()[0]
        except duckdb.Error as error:
            raise SourceError(source, f"cannot check its values: {one_line(str(error))}") from None
        return {name: int(n or 0) for name, n in zip(conditions, values, strict=True)}

    connection = duckdb.connect(config=connection_config())
    try:
        if isinstance(source, FileSource):
            return counted(connection, _relation(source, matching_files(source), connection))

        def scan(cursor) -> dict[str, int]:
            cursor.execute(select_all(source))
            batches = cursor.fetch_record_batch()
            schema = _lake_schema(source, batches.schema)
            reader = pa.RecordBatchReader.from_batches(
                schema, _lake_batches(source, batches, schema)
            )
            return counted(connection, connection.from_arrow(reader))

        return _with_cursor(source, os.environ if environ is None else environ, scan)
    finally:
        connection.close()


@dataclass(frozen=True)
class CatalogAgreement:
    """How the legacy DDL's tables and the sources agree (``plumbline catalog import
    --from-sources --from DIALECT``): ``problems``, one line each, or per lake table and
    source column the DDL column it is and how the source's type reads its values."""

    problems: list[str]
    columns: dict[str, dict[str, tuple[str, Correspondence | None]]]
    # Source tables the DDL does not declare (another dialect's, or never in the legacy
    # warehouse): typed as the source holds them.
    undeclared: list[str]

    def data_checks(self) -> dict[str, dict[str, exp.Expr]]:
        """Per lake table, per column, the condition that finds values its legacy type cannot
        hold (only where some can exist)."""
        found: dict[str, dict[str, exp.Expr]] = {}
        for table, columns in self.columns.items():
            for column, (_, read) in columns.items():
                if read is not None and read.offending is not None:
                    found.setdefault(table, {})[column] = read.offending
        return found


def catalog_agreement(
    ddl: Mapping[str, Mapping[str, str]],
    derived: LakeImport,
    *,
    ddl_opaque: Mapping[str, Mapping[str, str]],
    ddl_source: str,
    derived_source: str | Mapping[str, str],
) -> CatalogAgreement:
    """How the catalog derived from the sources agrees with the legacy DDL's (``tables`` of
    ``plumbline catalog import``): a problem per table or column on one side only, per
    column whose source type cannot hold the legacy type's values whatever the data (text
    for a number), and per table whose shared columns are in another order, each naming
    both sides: ``ddl_source``, and ``derived_source`` (one text, or one per table such as
    ``{"raw.orders": "source raw.orders (exports/orders/*.parquet)"}``). A source type that
    holds them where the data allows (NUMBER(10) exported as INTEGER, an Oracle DATE as a
    DATE) is a correspondence the caller checks on the data (``data_checks``)."""

    def derived_side(table: str) -> str:
        if isinstance(derived_source, str):
            return derived_source
        return derived_source.get(table, "the sources")

    lines: list[str] = []
    columns: dict[str, dict[str, tuple[str, Correspondence | None]]] = {}
    undeclared: list[str] = []
    for table in sorted(set(ddl) | set(derived.tables)):
        if table not in derived.tables:
            lines.append(f"{table}: a table in {ddl_source}, missing from {derived_side(table)}")
            continue
        if table not in ddl:
            undeclared.append(table)
            continue
        table_lines, columns[table] = _column_agreement(
            table,
            ddl[table],
            derived.tables[table],
            derived.opaque.get(table, {}),
            ddl_opaque.get(table, {}),
            ddl_source,
            derived_side(table),
        )
        lines.extend(table_lines)
    return CatalogAgreement(lines, columns, undeclared)


def _column_agreement(
    table: str,
    declared: Mapping[str, str],
    stored: Mapping[str, str],
    opaque: Mapping[str, str],
    declared_opaque: Mapping[str, str],
    ddl_source: str,
    derived_source: str,
) -> tuple[list[str], dict[str, tuple[str, Correspondence | None]]]:
    matched = {name: _match_column(name, stored) for name in declared}
    lines = []
    columns: dict[str, tuple[str, Correspondence | None]] = {}
    for name, kind in declared.items():
        found = matched[name]
        if found is None:
            lines.append(f"{table}.{name}: {kind} in {ddl_source}, missing from {derived_source}")
            continue
        if name in declared_opaque:
            # A type with no ANSI form: read as the lake holds it, and only passed through.
            columns[found] = (name, None)
            continue
        if found in opaque:
            lines.append(
                f"{table}.{name}: {kind} in {ddl_source}, {stored[found]} (no exact ANSI form) "
                f"in {derived_source}"
            )
            continue
        read = correspondence(kind, stored[found])
        if read is None:
            lines.append(
                f"{table}.{name}: {kind} in {ddl_source}, {stored[found]} in {derived_source}: "
                "no lossless reading of one as the other"
            )
            continue
        columns[found] = (name, read)
    taken = {found for found in matched.values() if found is not None}
    for name, kind in stored.items():
        if name not in taken:
            lines.append(f"{table}.{name}: {kind} in {derived_source}, missing from {ddl_source}")
    ddl_order = [name for name, found in matched.items() if found is not None]
    derived_order = [name for name in stored if name in taken]
    by_stored = {found: name for name, found in matched.items() if found is not None}
    if [matched[n] for n in ddl_order] != derived_order:
        lines.append(
            f"{table}: columns in another order: {', '.join(ddl_order)} in {ddl_source}, "
            f"{', '.join(by_stored[n] for n in derived_order)} in {derived_source}"
        )
    return lines, columns


def _match_column(name: str, stored: Mapping[str, str]) -> str | None:
    """The derived column that DDL column ``name`` is. An imported DDL name is folded to
    lower case unless quoting made it case-sensitive (``sql.catalog_import``'s
    ``_column_name``): a folded name matches any case, a case-sensitive one only itself."""
    if name in stored:
        return name
    if name != name.lower():
        return None
    same = [s for s in stored if s.lower() == name]
    return same[0] if len(same) == 1 else None
