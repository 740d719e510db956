"""Reconciliation against the legacy database itself: a real PostgreSQL server
(tests/postgres_server.py) computes aggregates and row hashes in its own SQL, and they must
be DuckDB's for the same rows."""

from __future__ import annotations

import datetime as dt
import os
from collections.abc import Iterator
from decimal import Decimal

import duckdb
import pyarrow as pa
import pytest
from sqlglot import exp

from pipelines.lake.sources import SourcesError
from pipelines.warehouse.legacy_database import DatabaseSide, LegacyDatabaseError
from pipelines.warehouse.reconcile import reconcile
from pipelines.warehouse.row_hash import Column, Kind, decimal_digits, duckdb_kind, row_hash
from pipelines.warehouse.snapshot import LegacyDatabase, parse_database
from tests.postgres_server import (
    REQUIRE_SETTING,
    PostgresServer,
    PostgresUnavailable,
    postgres_server,
)

PASSWORD = "Rec0ncile-s3cret"
URL_ENV = "LEGACY_DATABASE_URL"

# Every kind a row hash covers, with the values that tell canonical texts apart: scales,
# signs, NULL beside '', the separator and the escape in text, fractions of a second, a
# zone, years before 1000, non-ASCII text.
POSTGRES_TABLE = """
CREATE TABLE legacy.kinds (
    id int PRIMARY KEY, big bigint, amount numeric(12, 2), loose numeric, share float8,
    name text, code varchar(5), day date, at timestamp, at_utc timestamptz, clock time,
    flag bool, raw bytea
);
INSERT INTO legacy.kinds VALUES
 (1, 10000000000, 1.50, 7, 0.1, 'a|b\\c', 'x', '2024-01-02', '2024-01-02 03:04:05.5',
  '2024-01-02 03:04:05+02', '01:02:03.25', true, '\\x00ff'),
 (2, NULL, -0.50, 100.000, NULL, '', NULL, '0999-12-31', '2024-01-02 00:00:00', NULL,
  '00:00:00', false, NULL),
 (3, 3, 0.00, -12.3400, 1e20, 'é€😀', ' y ', NULL, NULL, '2024-06-01 00:00:00+00', NULL,
  NULL, '\\x'),
 (4, -9223372036854775808, 99999999.99, 0.000001, -0.0, 'NULL', '\\N', '2024-02-29',
  '2024-02-29 23:59:59.999999', '1970-01-01 00:00:00+00', '23:59:59.999999', true, '\\x0a')
"""
# The same rows as DuckDB types them when they are built there.
DUCKDB_TYPES = {
    "id": "INTEGER",
    "big": "BIGINT",
    "amount": "DECIMAL(12,2)",
    "loose": "DECIMAL(20,6)",
    "share": "DOUBLE",
    "name": "VARCHAR",
    "code": "VARCHAR",
    "day": "DATE",
    "at": "TIMESTAMP",
    "at_utc": "TIMESTAMPTZ",
    "clock": "TIME",
    "flag": "BOOLEAN",
    "raw": "BLOB",
}


_POSTGRES_KINDS = {
    "id": Kind.INTEGER,
    "big": Kind.INTEGER,
    "amount": Kind.DECIMAL,
    "loose": Kind.DECIMAL,
    "share": Kind.APPROXIMATE,
    "name": Kind.TEXT,
    "code": Kind.TEXT,
    "day": Kind.DATE,
    "at": Kind.TIMESTAMP,
    "at_utc": Kind.TIMESTAMPTZ,
    "clock": Kind.TIME,
    "flag": Kind.BOOLEAN,
    "raw": Kind.BINARY,
}


@pytest.fixture(scope="module")
def postgres() -> Iterator[PostgresServer]:
    try:
        with postgres_server(PASSWORD) as server:
            with server.connect() as connection:
                connection.execute("CREATE SCHEMA legacy")
                for statement in POSTGRES_TABLE.split(";"):
                    connection.execute(statement)
            yield server
    except PostgresUnavailable as unavailable:
        if os.environ.get(REQUIRE_SETTING) == "1":
            pytest.fail(f"{REQUIRE_SETTING}=1 and PostgreSQL cannot start: {unavailable}")
        pytest.skip(f"PostgreSQL cannot start here: {unavailable}")


@pytest.fixture(scope="module")
def environ(postgres: PostgresServer) -> dict[str, str]:
    return {URL_ENV: postgres.url}


@pytest.fixture(scope="module")
def built(postgres: PostgresServer) -> pa.Table:
    """The legacy table's rows as DuckDB holds them (read over psycopg, typed by DuckDB)."""
    with postgres.connect() as connection:
        rows = connection.execute("SELECT * FROM legacy.kinds ORDER BY id").fetchall()
    columns = list(DUCKDB_TYPES)
    with duckdb.connect() as con:
        con.execute("SET TimeZone = 'UTC'")
        con.execute(
            "CREATE TABLE t (" + ", ".join(f'"{c}" {t}' for c, t in DUCKDB_TYPES.items()) + ")"
        )
        con.executemany(f"INSERT INTO t VALUES ({', '.join('?' * len(columns))})", rows)
        return con.table("t").to_arrow_table()


def _side(environ: dict[str, str], **declared: str) -> DatabaseSide:
    return DatabaseSide(LegacyDatabase(URL_ENV, **declared), environ)


def test_postgres_and_duckdb_hash_the_same_rows_alike(postgres, built):
    hashed = [name for name in DUCKDB_TYPES if name != "share"]  # floats are never hashed
    on_postgres = [Column(name, _POSTGRES_KINDS[name]) for name in hashed]
    query = exp.select(exp.column("id"), exp.alias_(row_hash(on_postgres, "postgres"), "h"))
    with postgres.connect() as connection:
        remote = dict(connection.execute(query.from_("legacy.kinds").sql("postgres")).fetchall())
    on_duckdb = []
    for name in hashed:
        digits = decimal_digits(DUCKDB_TYPES[name])
        on_duckdb.append(
            Column(name, duckdb_kind(DUCKDB_TYPES[name]), digits[1] if digits else None)
        )
    with duckdb.connect() as con:
        con.execute("SET TimeZone = 'UTC'")
        con.register("t", built)
        local_query = exp.select(
            exp.column("id"), exp.alias_(row_hash(on_duckdb, "duckdb"), "h")
        ).from_("t")
        local = dict(con.sql(local_query.sql("duckdb")).fetchall())
    assert local == remote
    assert len(set(local.values())) == 4


@pytest.mark.parametrize("key", [(), ("id",)])
def test_the_built_table_reconciles_against_the_legacy_table(built, environ, key):
    result = reconcile(built, _side(environ, table="legacy.kinds"), key=key)
    assert result.passed, [c for c in result.comparisons if not c.passed]
    by_measure = {(c.column, c.measure): c.reference for c in result.comparisons}
    # Exact aggregates from the other engine: sums of integers and decimals to the digit.
    assert by_measure[("amount", "sum")] == Decimal("99999999.99") + Decimal("1.00")
    assert by_measure[("big", "min")] == -9223372036854775808
    assert by_measure[("at_utc", "max")] == dt.datetime(2024, 6, 1)


@pytest.mark.parametrize(
    ("column", "value", "differing"),
    [
        ("name", "", "name"),  # '' where PostgreSQL holds 'é€😀'
        ("amount", Decimal("0.01"), "amount"),
        ("code", None, "code"),  # NULL where PostgreSQL holds ' y '
    ],
)
def test_a_changed_value_is_caught_and_its_row_fetched_from_both_sides(
    built, environ, column, value, differing
):
    index = built.schema.get_field_index(column)
    values = built.column(column).to_pylist()
    values[2] = value
    changed = built.set_column(index, column, pa.array(values, built.schema.field(column).type))
    result = reconcile(changed, _side(environ, table="legacy.kinds"), key=["id"])
    assert not result.passed
    assert differing in result.columns_differing
    assert (result.only_in_table, result.only_in_reference) == (1, 1)
    [ours], [theirs] = result.sample_only_in_table, result.sample_only_in_reference
    assert ours["id"] == theirs["id"] == "3"
    assert ours[column] != theirs[column]


def test_the_legacy_query_runs_as_written_there(built, environ):
    query = "SELECT id, amount * 2 AS doubled FROM legacy.kinds WHERE id <> 4"
    table = pa.table({"id": pa.array([1, 2, 3], pa.int32()), "doubled": [3.0, -1.0, 0.0]})
    result = reconcile(table, _side(environ, query=query), key=["id"])
    # DOUBLE beside NUMERIC: compared by value, within the run's tolerance.
    assert result.passed, result.summary()


def test_a_failing_database_is_one_line_without_its_password(environ):
    wrong = {URL_ENV: environ[URL_ENV].replace(PASSWORD, PASSWORD + "x")}
    with pytest.raises(LegacyDatabaseError) as failed:
        reconcile(pa.table({"id": [1]}), _side(wrong, table="legacy.kinds"))
    assert "cannot connect" in str(failed.value) and PASSWORD not in str(failed.value)
    assert "\n" not in str(failed.value)
    with pytest.raises(LegacyDatabaseError, match=f"{URL_ENV} is not set"):
        reconcile(pa.table({"id": [1]}), _side({}, table="legacy.kinds"))
    with pytest.raises(LegacyDatabaseError, match="failed the query"):
        reconcile(pa.table({"id": [1]}), _side(environ, table="legacy.missing"))


@pytest.mark.parametrize(
    ("spec", "field"),
    [
        ({"url_env": "X"}, "database"),
        ({"url_env": "X", "table": "t", "query": "SELECT 1"}, "database"),
        ({"url_env": "postgresql://u:pw@h/db", "table": "t"}, "database.url_env"),
        ({"url_env": "X", "query": "DROP TABLE t"}, "database.query"),
        ({"url_env": "X", "table": "t", "password": "pw"}, "database.password"),
        ({"url_env": "X", "table": "t", "driver": "oracle"}, "database.driver"),
        ({"table": "t"}, "database.url_env"),
    ],
)
def test_a_malformed_declaration_names_its_field(spec, field):
    with pytest.raises(SourcesError) as refused:
        parse_database(spec, "database")
    assert refused.value.field == field
    assert "pw@" not in str(refused.value)
