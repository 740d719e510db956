"""Canonical values and row hashes: what each engine's SQL writes for one value.

DuckDB's rendering runs here; PostgreSQL's is checked against a real server in
test_legacy_database.py (the same rows give the same hashes). Snowflake, BigQuery and SQL
Server have no engine here: their renderings are pinned as text, each as that dialect
parses it back.
"""

from __future__ import annotations

import hashlib

import duckdb
import pytest
import sqlglot
from sqlglot import exp

from pipelines.warehouse.row_hash import (
    Column,
    Kind,
    RowHashError,
    canonical_text,
    decimal_digits,
    dialect,
    duckdb_kind,
    hash_halves,
    parse_query,
    render,
    row_hash,
    row_text,
)


def _duckdb_text(value_sql: str, duckdb_type: str) -> str | None:
    """The canonical text DuckDB writes for ``value_sql`` typed ``duckdb_type``."""
    with duckdb.connect() as con:
        con.execute("SET TimeZone = 'UTC'")
        con.execute(f"CREATE TABLE t AS SELECT CAST({value_sql} AS {duckdb_type}) AS v")
        relation = con.table("t")
        kind_type = str(relation.types[0])
        digits = decimal_digits(kind_type)
        column = Column(
            "v", duckdb_kind(kind_type), digits[1] if digits else None, "_NS" in kind_type
        )
        query = exp.select(canonical_text(column, "duckdb")).from_("t")
        return con.sql(query.sql("duckdb")).fetchall()[0][0]


@pytest.mark.parametrize(
    ("value", "duckdb_type", "text"),
    [
        ("7", "INTEGER", "7"),
        ("7", "DECIMAL(10,0)", "7"),
        ("7", "DECIMAL(12,2)", "7"),
        ("7", "HUGEINT", "7"),
        ("-0.50", "DECIMAL(12,2)", "-0.5"),
        ("0.00", "DECIMAL(12,2)", "0"),
        ("100.10", "DECIMAL(38,4)", "100.1"),
        ("12345678901234567890.12", "DECIMAL(38,2)", "12345678901234567890.12"),
        ("'a|b\\c'", "VARCHAR", "a|b\\c"),
        ("''", "VARCHAR", ""),
        ("true", "BOOLEAN", "true"),
        ("DATE '0999-12-31'", "DATE", "0999-12-31"),
        ("TIMESTAMP '2024-01-02 00:00:00'", "TIMESTAMP", "2024-01-02 00:00:00"),
        ("TIMESTAMP '2024-01-02 03:04:05.5'", "TIMESTAMP", "2024-01-02 03:04:05.5"),
        ("TIMESTAMP '2024-01-02 03:04:05'", "TIMESTAMP_S", "2024-01-02 03:04:05"),
        ("'2024-01-02 03:04:05.123456789'", "TIMESTAMP_NS", "2024-01-02 03:04:05.123456789"),
        ("TIMESTAMPTZ '2024-01-02 03:04:05+02'", "TIMESTAMPTZ", "2024-01-02 01:04:05"),
        ("TIME '10:00:00'", "TIME", "10:00:00"),
        ("TIME '01:02:03.25'", "TIME", "01:02:03.25"),
        ("'\\x00\\xFF'::BLOB", "BLOB", "00ff"),
        ("NULL", "VARCHAR", None),
    ],
)
def test_the_canonical_text_of_each_kind_on_duckdb(value, duckdb_type, text):
    assert _duckdb_text(value, duckdb_type) == text


def test_the_row_text_tells_null_from_empty_and_escapes_the_separator():
    columns = [Column("a", Kind.TEXT), Column("b", Kind.TEXT)]
    query = exp.select(row_text(columns, "duckdb")).from_("t")
    rows = [("a|b", "c"), ("a", "b|c"), (None, ""), ("", None), ("\\N", None), ("\\", "|")]
    with duckdb.connect() as con:
        con.execute("CREATE TABLE t (a VARCHAR, b VARCHAR)")
        texts = []
        for row in rows:
            con.execute("DELETE FROM t")
            con.execute("INSERT INTO t VALUES (?, ?)", row)
            texts.append(con.sql(query.sql("duckdb")).fetchall()[0][0])
    assert texts == ["a\\|b|c", "a|b\\|c", "\\N|", "|\\N", "\\\\N|\\N", "\\\\|\\|"]
    assert len(set(texts)) == len(texts)


def test_the_row_hash_is_the_md5_of_the_row_text_and_its_halves_are_its_hex_digits():
    columns = [Column("i", Kind.INTEGER), Column("s", Kind.TEXT)]
    hashed = row_hash(columns, "duckdb")
    query = exp.select(
        exp.alias_(hashed, "h"),
        *(exp.alias_(h, f"x{i}") for i, h in enumerate(hash_halves(hashed, "duckdb"))),
    ).from_("t")
    with duckdb.connect() as con:
        con.execute("CREATE TABLE t AS SELECT 42 AS i, 'é' AS s")
        digest, high, low = con.sql(query.sql("duckdb")).fetchall()[0]
    assert digest == hashlib.md5("42|é".encode()).hexdigest()
    assert (high, low) == (int(digest[0:15], 16), int(digest[15:30], 16))


# Each dialect's canonical text of one column of each kind, as written for that engine.
RENDERINGS = [
    ("postgres", Kind.INTEGER, 'CAST("v" AS TEXT)'),
    ("postgres", Kind.DATE, "TO_CHAR(\"v\", 'YYYY-MM-DD')"),
    (
        "postgres",
        Kind.TIMESTAMPTZ,
        "TRIM(TRAILING '.' FROM TRIM(TRAILING '0' FROM "
        "TO_CHAR(\"v\" AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI:SS.US')))",
    ),
    ("postgres", Kind.BINARY, "ENCODE(\"v\", 'hex')"),
    ("snowflake", Kind.INTEGER, 'TO_VARCHAR("v")'),
    (
        "snowflake",
        Kind.DECIMAL,
        "CASE WHEN CHARINDEX('.', TO_VARCHAR(\"v\")) > 0 THEN "
        "RTRIM(RTRIM(TO_VARCHAR(\"v\"), '0'), '.') ELSE TO_VARCHAR(\"v\") END",
    ),
    ("snowflake", Kind.DATE, "TO_CHAR(\"v\", 'YYYY-MM-DD')"),
    (
        "snowflake",
        Kind.TIMESTAMP,
        "RTRIM(RTRIM(TO_CHAR(\"v\", 'YYYY-MM-DD HH24:MI:SS.FF9'), '0'), '.')",
    ),
    (
        "snowflake",
        Kind.TIMESTAMPTZ,
        "RTRIM(RTRIM(TO_CHAR(CAST(CONVERT_TIMEZONE('UTC', \"v\") AS TIMESTAMPNTZ), "
        "'YYYY-MM-DD HH24:MI:SS.FF9'), '0'), '.')",
    ),
    ("snowflake", Kind.BINARY, 'LOWER(HEX_ENCODE("v"))'),
    ("bigquery", Kind.INTEGER, "CAST(`v` AS STRING)"),
    ("bigquery", Kind.DATE, "FORMAT_DATE('%Y-%m-%d', `v`)"),
    (
        "bigquery",
        Kind.TIMESTAMP,
        "RTRIM(RTRIM(FORMAT_DATETIME('%Y-%m-%d %H:%M:%E6S', `v`), '0'), '.')",
    ),
    (
        "bigquery",
        Kind.TIMESTAMPTZ,
        "RTRIM(RTRIM(FORMAT_DATETIME('%Y-%m-%d %H:%M:%E6S', DATETIME(`v`, 'UTC')), '0'), '.')",
    ),
    ("bigquery", Kind.TIME, "RTRIM(RTRIM(FORMAT_TIME('%H:%M:%E6S', `v`), '0'), '.')"),
    ("bigquery", Kind.BINARY, "TO_HEX(`v`)"),
    ("tsql", Kind.INTEGER, "CAST([v] AS NVARCHAR(MAX))"),
    (
        "tsql",
        Kind.DECIMAL,
        "CASE WHEN CHARINDEX('.', CAST([v] AS NVARCHAR(MAX))) > 0 THEN TRIM(TRAILING '.' FROM "
        "TRIM(TRAILING '0' FROM CAST([v] AS NVARCHAR(MAX)))) ELSE CAST([v] AS NVARCHAR(MAX)) END",
    ),
    ("tsql", Kind.BOOLEAN, "CASE WHEN [v] = 1 THEN 'true' WHEN [v] = 0 THEN 'false' END"),
    ("tsql", Kind.DATE, "CONVERT(VARCHAR(10), [v], 23)"),
    (
        "tsql",
        Kind.TIMESTAMP,
        "TRIM(TRAILING '.' FROM TRIM(TRAILING '0' FROM CONVERT(VARCHAR(27), [v], 121)))",
    ),
    (
        "tsql",
        Kind.TIMESTAMPTZ,
        "TRIM(TRAILING '.' FROM TRIM(TRAILING '0' FROM "
        "CONVERT(VARCHAR(27), CAST(SWITCHOFFSET([v], '+00:00') AS DATETIME2), 121)))",
    ),
    (
        "tsql",
        Kind.TIME,
        "TRIM(TRAILING '.' FROM TRIM(TRAILING '0' FROM CONVERT(VARCHAR(16), [v])))",
    ),
    ("tsql", Kind.BINARY, "LOWER(CONVERT(VARCHAR(MAX), [v], 2))"),
]


@pytest.mark.parametrize(("dialect_name", "kind", "sql"), RENDERINGS)
def test_each_dialect_writes_the_canonical_text_in_its_own_sql(dialect_name, kind, sql):
    rendered = render(canonical_text(Column("v", kind), dialect_name), dialect_name)
    assert rendered == sql
    # SQL of that dialect, as sqlglot's parser of it reads it.
    assert isinstance(sqlglot.parse_one(rendered, read=dialect_name), exp.Expr)


@pytest.mark.parametrize(
    ("dialect_name", "md5", "half"),
    [
        ("postgres", "MD5(t)", "CAST(CAST('x' || SUBSTR(h, 16, 15) AS BIT(60)) AS BIGINT)"),
        ("snowflake", "MD5(t)", "TO_NUMBER(SUBSTR(h, 16, 15), 'XXXXXXXXXXXXXXX')"),
        ("bigquery", "TO_HEX(MD5(t))", "CAST(CONCAT('0x', SUBSTR(h, 16, 15)) AS INT64)"),
        (
            "tsql",
            "LOWER(CONVERT(VARCHAR(32), HASHBYTES('MD5', "
            "CONVERT(VARCHAR(MAX), t COLLATE Latin1_General_100_BIN2_UTF8)), 2))",
            "CONVERT(BIGINT, CONVERT(VARBINARY(8), CONCAT('0', SUBSTRING(h, 16, 15)), 2))",
        ),
    ],
)
def test_each_dialect_hashes_utf8_text_as_lower_case_md5_hex(dialect_name, md5, half):
    assert render(dialect(dialect_name).md5_hex(exp.column("t")), dialect_name) == md5
    assert render(hash_halves(exp.column("h"), dialect_name)[1], dialect_name) == half


def test_text_escapes_are_written_as_each_dialect_reads_them():
    # Snowflake and BigQuery read a backslash in a literal as an escape: written doubled.
    field = row_text([Column("s", Kind.TEXT)], "snowflake")
    assert "REPLACE(REPLACE(\"s\", '\\\\', '\\\\\\\\'), '|', '\\\\|')" in render(field, "snowflake")
    assert "'\\N'" in render(row_text([Column("s", Kind.TEXT)], "postgres"), "postgres")


@pytest.mark.parametrize(
    ("duckdb_type", "kind"),
    [
        ("INTEGER", Kind.INTEGER),
        ("UBIGINT", Kind.INTEGER),
        ("DECIMAL(18,3)", Kind.DECIMAL),
        ("DOUBLE", Kind.APPROXIMATE),
        ("FLOAT", Kind.APPROXIMATE),
        ("VARCHAR", Kind.TEXT),
        ("DATE", Kind.DATE),
        ("TIMESTAMP_NS", Kind.TIMESTAMP),
        ("TIMESTAMP WITH TIME ZONE", Kind.TIMESTAMPTZ),
        ("TIME", Kind.TIME),
        ("BLOB", Kind.BINARY),
        ("INTEGER[]", Kind.OTHER),
    ],
)
def test_duckdb_types_have_kinds(duckdb_type, kind):
    assert duckdb_kind(duckdb_type) is kind


def test_a_type_without_canonical_text_is_refused_on_another_engine():
    with pytest.raises(RowHashError, match="column v"):
        canonical_text(Column("v", Kind.OTHER), "postgres")


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("SELECT 1; SELECT 2", "one query"),
        ("DELETE FROM t", "one query"),
        ("SELECT FROM WHERE (", "does not parse"),
    ],
)
def test_a_legacy_query_must_be_one_query(text, problem):
    with pytest.raises(RowHashError, match=problem):
        parse_query(text, "postgres")
