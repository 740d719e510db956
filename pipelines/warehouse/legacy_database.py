"""The legacy database itself as the reference of a reconciliation.

A table's reconciliation may name the legacy system instead of its exported output::

    reconciliation:
      tables:
        store_revenue:
          key: [store_id]
          database:
            url_env: LEGACY_DATABASE_URL     # postgresql://user:password@host/db
            query: SELECT store_id, sum(amount) AS revenue FROM sales GROUP BY store_id
            # or: table: reports.store_revenue

The same shape and machinery as a source's ``database:`` (``pipelines.lake.sources``): the
URL is read from the environment when the reconciliation runs, never stored or shown, and
the driver's messages are scrubbed of its password (``pipelines.lake.ingest``). The query
runs there, as written, wrapped in the aggregate and hash queries of
:mod:`pipelines.warehouse.reconcile_queries` rendered in the database's own dialect: only
aggregates and one fingerprint per row (MD5s, and the values of columns compared within a
tolerance) cross the wire, and a few rows when some differ.

The ADBC PostgreSQL driver is the one connected today (tested against a real server); the
hash queries are also rendered for Snowflake, BigQuery and SQL Server
(:mod:`pipelines.warehouse.row_hash`), untested against a live system.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

import pyarrow as pa
from sqlglot import exp

from pipelines.lake.database_url import DatabaseUrl
from pipelines.lake.sources import DatabaseSource, SourceError
from pipelines.warehouse.reconcile import ReconcileError
from pipelines.warehouse.row_hash import Column, Kind
from pipelines.warehouse.snapshot import LegacyDatabase

# PostgreSQL's type names (the ADBC driver's POSTGRESQL:type field metadata) by kind.
_POSTGRES_KINDS = {
    **dict.fromkeys(("int2", "int4", "int8", "oid"), Kind.INTEGER),
    "numeric": Kind.DECIMAL,
    **dict.fromkeys(("float4", "float8"), Kind.APPROXIMATE),
    **dict.fromkeys(("text", "varchar", "bpchar", "name", "char"), Kind.TEXT),
    "bool": Kind.BOOLEAN,
    "date": Kind.DATE,
    "timestamp": Kind.TIMESTAMP,
    "timestamptz": Kind.TIMESTAMPTZ,
    "time": Kind.TIME,
    "bytea": Kind.BINARY,
}


class LegacyDatabaseError(ReconcileError):
    """The legacy database cannot answer; one line that names it, never a credential."""


def _kind(field: pa.Field) -> Kind:
    postgres_type = (field.metadata or {}).get(b"POSTGRESQL:type", b"").decode()
    if postgres_type in _POSTGRES_KINDS:
        return _POSTGRES_KINDS[postgres_type]
    kind = field.type
    if pa.types.is_integer(kind):
        return Kind.INTEGER
    if pa.types.is_decimal(kind):
        return Kind.DECIMAL
    if pa.types.is_floating(kind):
        return Kind.APPROXIMATE
    if pa.types.is_string(kind) or pa.types.is_large_string(kind):
        return Kind.TEXT
    if pa.types.is_boolean(kind):
        return Kind.BOOLEAN
    if pa.types.is_date(kind):
        return Kind.DATE
    if pa.types.is_timestamp(kind):
        return Kind.TIMESTAMPTZ if kind.tz else Kind.TIMESTAMP
    if pa.types.is_time(kind):
        return Kind.TIME
    if pa.types.is_binary(kind):
        return Kind.BINARY
    raise LegacyDatabaseError(
        f"column {field.name} has type {postgres_type or kind}, which a reconciliation "
        "cannot compare across engines; cast it in the query"
    )


@dataclass(frozen=True)
class DatabaseSide:
    """The reference side of ``reconcile``: ``database``, reached through ``environ``."""

    database: LegacyDatabase
    environ: Mapping[str, str]

    @contextlib.contextmanager
    def session(self) -> Iterator[_Session]:
        # Imported on use: the driver loads a shared library, and the functions are the
        # sources' own (one place that reads a URL and scrubs a driver's messages).
        from pipelines.lake.ingest import postgres_dbapi, source_database_url

        database = self.database
        proxy = DatabaseSource("reconciliation", database.url_env, "reconciliation")
        try:
            url = source_database_url(proxy, self.environ)
        except SourceError as error:
            raise LegacyDatabaseError(f"{database.describe()}: {error.problem}") from None
        dbapi = postgres_dbapi()
        problem = None
        try:
            connection = dbapi.connect(url.url)
        except dbapi.Error as error:
            problem = f"cannot connect to the database: {url.driver_message(error)}"
        if problem is not None:
            raise LegacyDatabaseError(f"{database.describe()}: {problem}")
        try:
            with connection:
                yield _Session(database, connection, dbapi, url)
        except _DriverFailure as failure:
            raise LegacyDatabaseError(f"{database.describe()}: {failure.problem}") from None


class _DriverFailure(Exception):
    def __init__(self, problem: str) -> None:
        self.problem = problem


class _Session:
    """One connection to the legacy database, for one reconciliation."""

    def __init__(
        self, database: LegacyDatabase, connection: Any, dbapi: Any, url: DatabaseUrl
    ) -> None:
        self.database = database
        self.dialect = database.dialect
        self.source = database.source()
        self._connection = connection
        self._dbapi = dbapi
        self._url = url
        self._cursors: list[Any] = []

    def _failed(self, error: Exception) -> _DriverFailure:
        return _DriverFailure(f"the database failed the query: {self._url.driver_message(error)}")

    def columns(self) -> list[Column]:
        query = exp.select(exp.Star()).from_(self.source.copy()).sql(self.dialect)
        try:
            with self._connection.cursor() as cursor:
                schema = cursor.adbc_execute_schema(query)
        except (self._dbapi.Error, pa.ArrowInvalid) as error:
            raise self._failed(error) from None
        return [Column(f.name, _kind(f)) for f in schema]

    def fetch(self, query: exp.Select) -> list[dict[str, Any]]:
        try:
            with self._connection.cursor() as cursor:
                cursor.execute(query.sql(self.dialect))
                return cursor.fetch_arrow_table().to_pylist()
        except (self._dbapi.Error, pa.ArrowInvalid) as error:
            raise self._failed(error) from None

    def stream(self, query: exp.Select) -> pa.RecordBatchReader:
        """The rows of ``query`` as Arrow record batches, one batch in memory at a time."""
        cursor = self._connection.cursor()
        try:
            cursor.execute(query.sql(self.dialect))
            reader = cursor.fetch_record_batch()
        except (self._dbapi.Error, pa.ArrowInvalid) as error:
            cursor.close()
            raise self._failed(error) from None

        def batches() -> Iterator[pa.RecordBatch]:
            try:
                yield from reader
            except (self._dbapi.Error, pa.ArrowInvalid) as error:
                raise self._failed(error) from None
            finally:
                cursor.close()

        return pa.RecordBatchReader.from_batches(reader.schema, batches())
