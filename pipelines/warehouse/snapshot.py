"""The legacy warehouse's output of one table, as a build reconciles against it: exported
files (a snapshot), or the legacy database itself, asked when the table is built."""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from sqlglot import exp

from pipelines.lake.sources import DRIVERS, DatabaseSource, Driver, SourcesError, postgres_table
from pipelines.warehouse.row_hash import RowHashError, parse_query

# The dialect each driver's database speaks.
DIALECT_OF_DRIVER: dict[str, str] = {"postgresql": "postgres"}
DATABASE_KEYS = ("driver", "query", "table", "url_env")
# The subquery's alias around a query run as written.
LEGACY_ALIAS = "legacy"


@dataclass(frozen=True)
class LegacyDatabase:
    """Where the legacy output is computed: ``query`` (the legacy SQL as written, in the
    database's own dialect) or ``table`` (a table or view), on the database whose URL the
    environment variable ``url_env`` holds."""

    url_env: str
    table: str | None = None
    query: str | None = None
    driver: Driver = "postgresql"

    def __post_init__(self) -> None:
        if (self.table is None) == (self.query is None):
            raise SourcesError("database", "needs exactly one of query or table")
        if self.driver not in DRIVERS:
            raise SourcesError("driver", f"expected one of {', '.join(DRIVERS)}")
        # The URL's variable and the table as a source declares them.
        DatabaseSource("reconciliation", self.url_env, self.table or "query", self.driver)
        if self.query is not None:
            if not isinstance(self.query, str) or not self.query.strip():
                raise SourcesError("query", "expected the legacy query's SQL text")
            try:
                parse_query(self.query, self.dialect)
            except RowHashError as error:
                raise SourcesError("query", str(error)) from None

    @property
    def dialect(self) -> str:
        return DIALECT_OF_DRIVER[self.driver]

    def source(self) -> exp.Expr:
        """What the reconciliation's queries read from: the table, or the query as a
        subquery."""
        if self.table is not None:
            return postgres_table(self.table)
        assert self.query is not None
        return parse_query(self.query, self.dialect).subquery(LEGACY_ALIAS)

    def describe(self) -> str:
        """``postgresql table reports.revenue via $URL_ENV`` (a query by its sha256)."""
        what = (
            f"table {self.table}"
            if self.table is not None
            else f"query sha256:{hashlib.sha256(str(self.query).encode()).hexdigest()[:12]}"
        )
        return f"{self.driver} {what} via ${self.url_env}"

    def identity(self) -> dict[str, str | None]:
        """What a code version records of it (the SQL's digest, never the URL)."""
        return {
            "driver": self.driver,
            "url_env": self.url_env,
            "table": self.table,
            "query_sha256": None
            if self.query is None
            else hashlib.sha256(self.query.encode()).hexdigest(),
        }


def parse_database(spec: object, where: str) -> LegacyDatabase:
    """A ``reconciliation.tables.T.database`` mapping; SourcesError naming the field."""
    if not isinstance(spec, Mapping):
        raise SourcesError(where, "expected a mapping with url_env and query or table")
    unknown = sorted(str(k) for k in spec if k not in DATABASE_KEYS)
    if unknown:
        # Only a key's name: its value may be a URL with its password.
        raise SourcesError(
            f"{where}.{unknown[0]}", f"unknown key; expected one of {', '.join(DATABASE_KEYS)}"
        )
    if "url_env" not in spec:
        raise SourcesError(f"{where}.url_env", "missing")
    try:
        return LegacyDatabase(
            url_env=spec["url_env"],
            table=spec.get("table"),
            query=spec.get("query"),
            driver=spec.get("driver", "postgresql"),
        )
    except SourcesError as error:
        field = where if error.field == "database" else f"{where}.{error.field}"
        raise SourcesError(field, error.problem) from None


@dataclass(frozen=True)
class Snapshot:
    """The legacy output of a table: files at ``path`` (a Parquet file or folder, or a CSV
    file) or, with ``database``, what the legacy database computes; and how to compare with
    it: rows matched by ``key`` when given, numeric columns within their relative
    ``tolerance``."""

    path: Path | None
    key: tuple[str, ...] = ()
    tolerance: Mapping[str, float] = field(default_factory=dict)
    database: LegacyDatabase | None = None

    def __post_init__(self) -> None:
        if (self.path is None) == (self.database is None):
            raise ValueError("a snapshot is files (path) or the legacy database, one of them")

    def describe(self) -> str:
        """How a check's description names it."""
        if self.database is not None:
            return f"the legacy database itself ({self.database.describe()})"
        assert self.path is not None
        return f"the legacy warehouse's own output, the snapshot {self.path.name}"
