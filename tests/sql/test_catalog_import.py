"""`plumbline catalog import --from DIALECT`: legacy DDL to a catalog with exact ANSI types."""

from __future__ import annotations

import csv
import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from pipelines.cli.main import main
from sql.catalog import CatalogError, load_catalog, load_catalogs
from sql.catalog_import import CatalogImportError, catalog_yaml, import_ddl, read_ddl

CORPORA = Path("/work/shared/corpora")
DIAGNOSTIC = re.compile(r"^.+:\d+:\d+: (error|warning|info)\[[A-Z-]+\]: .+$")
OPAQUE = None  # expected "type" of a column with no exact ANSI form

# (dialect, declared type, exact ANSI type or OPAQUE), from each vendor's type reference.
TYPES = [
    # Snowflake: every integer is NUMBER(38,0); CHAR is an unpadded VARCHAR; FLOAT is 64-bit.
    ("snowflake", "NUMBER", "DECIMAL(38,0)"),
    ("snowflake", "NUMBER(10,2)", "DECIMAL(10,2)"),
    ("snowflake", "NUMERIC(5)", "DECIMAL(5,0)"),
    ("snowflake", "DECIMAL", "DECIMAL(38,0)"),
    ("snowflake", "INT", "DECIMAL(38,0)"),
    ("snowflake", "INTEGER", "DECIMAL(38,0)"),
    ("snowflake", "BIGINT", "DECIMAL(38,0)"),
    ("snowflake", "TINYINT", "DECIMAL(38,0)"),
    ("snowflake", "FLOAT", "DOUBLE PRECISION"),
    ("snowflake", "REAL", "DOUBLE PRECISION"),
    ("snowflake", "DOUBLE", "DOUBLE PRECISION"),
    ("snowflake", "VARCHAR(25)", "VARCHAR(25)"),
    ("snowflake", "VARCHAR(16777216)", "VARCHAR"),
    ("snowflake", "VARCHAR", "VARCHAR"),
    ("snowflake", "STRING", "VARCHAR"),
    ("snowflake", "TEXT", "VARCHAR"),
    ("snowflake", "CHARACTER VARYING(4)", "VARCHAR(4)"),
    ("snowflake", "CHAR(5)", "VARCHAR(5)"),
    ("snowflake", "CHAR", "VARCHAR(1)"),
    ("snowflake", "NVARCHAR(5)", "VARCHAR(5)"),
    ("snowflake", "BINARY(10)", "VARBINARY(10)"),
    ("snowflake", "BOOLEAN", "BOOLEAN"),
    ("snowflake", "DATE", "DATE"),
    ("snowflake", "TIME", "TIME(9)"),
    ("snowflake", "TIMESTAMP_NTZ", "TIMESTAMP(9)"),
    ("snowflake", "TIMESTAMP_NTZ(6)", "TIMESTAMP"),
    ("snowflake", "DATETIME", "TIMESTAMP(9)"),
    ("snowflake", "TIMESTAMP_TZ(3)", "TIMESTAMP(3) WITH TIME ZONE"),
    ("snowflake", "TIMESTAMP_LTZ", OPAQUE),
    ("snowflake", "VARIANT", OPAQUE),
    ("snowflake", "OBJECT", OPAQUE),
    ("snowflake", "ARRAY", OPAQUE),
    ("snowflake", "GEOGRAPHY", OPAQUE),
    # T-SQL: a length left out in DDL is 1; national strings are UTF-8 in the lake.
    ("tsql", "INT", "INTEGER"),
    ("tsql", "BIGINT", "BIGINT"),
    ("tsql", "SMALLINT", "SMALLINT"),
    ("tsql", "TINYINT", "SMALLINT"),
    ("tsql", "BIT", "BOOLEAN"),
    ("tsql", "DECIMAL", "DECIMAL(18,0)"),
    ("tsql", "NUMERIC(10,2)", "DECIMAL(10,2)"),
    ("tsql", "MONEY", "DECIMAL(19,4)"),
    ("tsql", "SMALLMONEY", "DECIMAL(10,4)"),
    ("tsql", "FLOAT", "DOUBLE PRECISION"),
    ("tsql", "FLOAT(24)", "REAL"),
    ("tsql", "REAL", "REAL"),
    ("tsql", "DATETIME", "TIMESTAMP(3)"),
    ("tsql", "DATETIME2", "TIMESTAMP(7)"),
    ("tsql", "DATETIME2(3)", "TIMESTAMP(3)"),
    ("tsql", "SMALLDATETIME", "TIMESTAMP(0)"),
    ("tsql", "DATETIMEOFFSET(2)", "TIMESTAMP(2) WITH TIME ZONE"),
    ("tsql", "TIME", "TIME(7)"),
    ("tsql", "CHAR(10)", "CHAR(10)"),
    ("tsql", "VARCHAR", "VARCHAR(1)"),
    ("tsql", "VARCHAR(MAX)", "VARCHAR"),
    ("tsql", "NVARCHAR(40)", "VARCHAR(40)"),
    ("tsql", "NVARCHAR(MAX)", "VARCHAR"),
    ("tsql", "NCHAR(2)", "CHAR(2)"),
    ("tsql", "VARBINARY(MAX)", "VARBINARY"),
    ("tsql", "TIMESTAMP", OPAQUE),  # ROWVERSION, not a date and time
    ("tsql", "UNIQUEIDENTIFIER", OPAQUE),
    ("tsql", "SQL_VARIANT", OPAQUE),
    ("tsql", "XML", OPAQUE),
    ("tsql", "HIERARCHYID", OPAQUE),
    # Teradata: a bare DECIMAL is DECIMAL(5,0); all floating types are 64-bit.
    ("teradata", "BYTEINT", "SMALLINT"),
    ("teradata", "INTEGER", "INTEGER"),
    ("teradata", "DECIMAL", "DECIMAL(5,0)"),
    ("teradata", "DECIMAL(18)", "DECIMAL(18,0)"),
    ("teradata", "NUMBER(12,2)", "DECIMAL(12,2)"),
    ("teradata", "NUMBER", OPAQUE),
    ("teradata", "FLOAT", "DOUBLE PRECISION"),
    ("teradata", "REAL", "DOUBLE PRECISION"),
    ("teradata", "CHAR", "CHAR(1)"),
    ("teradata", "VARCHAR(100)", "VARCHAR(100)"),
    ("teradata", "BYTE(4)", "BINARY(4)"),
    ("teradata", "VARBYTE(8)", "VARBINARY(8)"),
    ("teradata", "TIMESTAMP", "TIMESTAMP"),
    ("teradata", "TIMESTAMP(0) WITH TIME ZONE", "TIMESTAMP(0) WITH TIME ZONE"),
    ("teradata", "TIME", "TIME(6)"),
    ("teradata", "PERIOD(DATE)", OPAQUE),
    ("teradata", "INTERVAL DAY TO SECOND", OPAQUE),
    ("teradata", "JSON", OPAQUE),
    # Oracle: NUMBER without precision and FLOAT are decimal floating point; DATE has a time.
    ("oracle", "NUMBER(10,2)", "DECIMAL(10,2)"),
    ("oracle", "NUMBER(9)", "DECIMAL(9,0)"),
    ("oracle", "NUMBER(*,0)", "DECIMAL(38,0)"),
    ("oracle", "NUMBER", OPAQUE),
    ("oracle", "NUMBER(2,5)", OPAQUE),
    ("oracle", "INTEGER", "DECIMAL(38,0)"),
    ("oracle", "FLOAT", OPAQUE),
    ("oracle", "DOUBLE PRECISION", OPAQUE),
    ("oracle", "BINARY_FLOAT", "REAL"),
    ("oracle", "BINARY_DOUBLE", "DOUBLE PRECISION"),
    ("oracle", "VARCHAR2(10)", "VARCHAR(10)"),
    ("oracle", "VARCHAR2(10 BYTE)", "VARCHAR(10)"),
    ("oracle", "VARCHAR2(10 CHAR)", "VARCHAR(10)"),
    ("oracle", "NVARCHAR2(10)", "VARCHAR(10)"),
    ("oracle", "CHAR", "CHAR(1)"),
    ("oracle", "DATE", "TIMESTAMP(0)"),
    ("oracle", "TIMESTAMP", "TIMESTAMP"),
    ("oracle", "TIMESTAMP(3) WITH TIME ZONE", "TIMESTAMP(3) WITH TIME ZONE"),
    ("oracle", "TIMESTAMP WITH LOCAL TIME ZONE", OPAQUE),
    ("oracle", "CLOB", "VARCHAR"),
    ("oracle", "LONG", "VARCHAR"),
    ("oracle", "RAW(16)", "VARBINARY(16)"),
    ("oracle", "XMLTYPE", OPAQUE),
    # BigQuery: integers are INT64; NUMERIC is DECIMAL(38,9); TIMESTAMP is an instant.
    ("bigquery", "INT64", "BIGINT"),
    ("bigquery", "INT", "BIGINT"),
    ("bigquery", "NUMERIC", "DECIMAL(38,9)"),
    ("bigquery", "NUMERIC(10)", "DECIMAL(10,0)"),
    ("bigquery", "NUMERIC(10, 2)", "DECIMAL(10,2)"),
    ("bigquery", "BIGNUMERIC", OPAQUE),
    ("bigquery", "BIGNUMERIC(38, 10)", "DECIMAL(38,10)"),
    ("bigquery", "BIGNUMERIC(40, 10)", OPAQUE),
    ("bigquery", "FLOAT64", "DOUBLE PRECISION"),
    ("bigquery", "STRING", "VARCHAR"),
    ("bigquery", "STRING(10)", "VARCHAR(10)"),
    ("bigquery", "BOOL", "BOOLEAN"),
    ("bigquery", "BYTES", "VARBINARY"),
    ("bigquery", "DATE", "DATE"),
    ("bigquery", "DATETIME", "TIMESTAMP"),
    ("bigquery", "TIME", "TIME(6)"),
    ("bigquery", "TIMESTAMP", "TIMESTAMP WITH TIME ZONE"),
    # typed arrays and structs: each part by the same rules; field names fold as columns do
    ("bigquery", "ARRAY<STRING>", "VARCHAR ARRAY"),
    ("bigquery", "STRUCT<x INT64, Y STRING>", 'ROW("x" BIGINT, "y" VARCHAR)'),
    (
        "bigquery",
        "ARRAY<STRUCT<a NUMERIC(10, 2), b ARRAY<DATE>>>",
        'ROW("a" DECIMAL(10,2), "b" DATE ARRAY) ARRAY',
    ),
    ("bigquery", "ARRAY<GEOGRAPHY>", OPAQUE),  # a part without an exact form
    ("bigquery", "STRUCT<INT64>", OPAQUE),  # a field without a name
    ("bigquery", "STRUCT<a INT64, A STRING>", OPAQUE),  # two fields of one name
    ("bigquery", "JSON", OPAQUE),
    ("bigquery", "GEOGRAPHY", OPAQUE),
    # Redshift: a bare VARCHAR and TEXT are VARCHAR(256), MAX is 65535, BPCHAR is CHAR(256).
    ("redshift", "INT2", "SMALLINT"),
    ("redshift", "INT4", "INTEGER"),
    ("redshift", "INT8", "BIGINT"),
    ("redshift", "DECIMAL", "DECIMAL(18,0)"),
    ("redshift", "NUMERIC(12,2)", "DECIMAL(12,2)"),
    ("redshift", "REAL", "REAL"),
    ("redshift", "FLOAT4", "REAL"),
    ("redshift", "FLOAT", "DOUBLE PRECISION"),
    ("redshift", "CHAR(10)", "CHAR(10)"),
    ("redshift", "BPCHAR", "CHAR(256)"),
    ("redshift", "VARCHAR", "VARCHAR(256)"),
    ("redshift", "VARCHAR(MAX)", "VARCHAR(65535)"),
    ("redshift", "TEXT", "VARCHAR(256)"),
    ("redshift", "CHARACTER VARYING(10)", "VARCHAR(10)"),
    ("redshift", "TIMESTAMP", "TIMESTAMP"),
    ("redshift", "TIMESTAMP WITHOUT TIME ZONE", "TIMESTAMP"),
    ("redshift", "TIMESTAMPTZ", "TIMESTAMP WITH TIME ZONE"),
    ("redshift", "TIME", "TIME(6)"),
    ("redshift", "VARBYTE(10)", "VARBINARY(10)"),
    ("redshift", "SUPER", OPAQUE),
    ("redshift", "GEOMETRY", OPAQUE),
]


def _single_column(dialect: str, declared: str):
    imported = import_ddl([("t.sql", f"CREATE TABLE s.t (c {declared})")], dialect)
    (table,) = imported.tables.values()
    (column,) = table.columns
    return column, imported


@pytest.mark.parametrize(("dialect", "declared", "expected"), TYPES)
def test_each_declared_type_maps_to_its_exact_ansi_type_or_is_opaque(dialect, declared, expected):
    column, imported = _single_column(dialect, declared)
    if expected is OPAQUE:
        assert column.type.opaque
        assert column.type.text == declared  # kept as the DDL declares it
        assert imported.catalog_opaque() == {"raw.t": {"c": declared}}
    else:
        assert not column.type.opaque
        assert column.type.text == expected


def test_opaque_columns_are_reported_at_their_line_and_column():
    ddl = (
        "CREATE TABLE SALES.PUBLIC.EVENTS (\n"
        "    ID NUMBER(38,0),\n"
        "    PAYLOAD VARIANT,\n"
        '      "Tags" ARRAY\n'
        ");\n"
    )
    imported = import_ddl([("events.sql", ddl)], "snowflake")
    assert [d.format() for d in imported.diagnostics] == [
        "events.sql:3:5: warning[CATALOG-OPAQUE]: column SALES.PUBLIC.EVENTS.payload has type "
        "VARIANT, read as the JSON text the lake holds: paths into it cast to a string, FLOAT "
        "or BOOLEAN and FLATTEN of its arrays translate (VARIANT-PATH, VARIANT-FLATTEN), it "
        "can be selected, counted or tested for NULL; other expressions over it will be refused",
        "events.sql:4:7: warning[CATALOG-OPAQUE]: column SALES.PUBLIC.EVENTS.Tags has type "
        "ARRAY, read as the JSON text the lake holds: paths into it cast to a string, FLOAT "
        "or BOOLEAN and FLATTEN of its arrays translate (VARIANT-PATH, VARIANT-FLATTEN), it "
        "can be selected, counted or tested for NULL; other expressions over it will be refused",
    ]
    assert imported.catalog_tables() == {
        "raw.events": {"id": "DECIMAL(38,0)", "payload": "VARIANT", "Tags": "ARRAY"}
    }
    assert imported.catalog_opaque() == {"raw.events": {"payload": "VARIANT", "Tags": "ARRAY"}}


@pytest.mark.parametrize(
    ("dialect", "ddl", "columns"),
    [
        # Unquoted names fold; a quoted name keeps its case only where quoting makes it
        # case-sensitive (Snowflake, Oracle), and a quoted all-upper name is the unquoted one.
        ("snowflake", 'CREATE TABLE t (A INT, "B" INT, "MixedCase" INT)', ["a", "b", "MixedCase"]),
        ("oracle", 'CREATE TABLE t (A INT, "lower" INT)', ["a", "lower"]),
        ("tsql", "CREATE TABLE t ([MixedCase] INT, Other INT)", ["mixedcase", "other"]),
        ("bigquery", "CREATE TABLE d.t (MixedCase INT64)", ["mixedcase"]),
    ],
)
def test_column_names_fold_as_the_translator_compares_them(dialect, ddl, columns):
    (table,) = import_ddl([("t.sql", ddl)], dialect).tables.values()
    assert [c.name for c in table.columns] == columns


@pytest.mark.parametrize(
    ("ddl", "lake_tables"),
    [
        # Tables sharing a name in different schemas are all qualified by their schema.
        (
            "CREATE TABLE SALES.PUBLIC.ORDERS (a INT); CREATE TABLE SALES.ARCHIVE.ORDERS (a INT);"
            " CREATE TABLE SALES.PUBLIC.CUSTOMER (a INT);",
            {
                "raw.archive__orders": "SALES.ARCHIVE.ORDERS",
                "raw.customer": "SALES.PUBLIC.CUSTOMER",
                "raw.public__orders": "SALES.PUBLIC.ORDERS",
            },
        ),
        # ... and by their database when the schema is shared too.
        (
            "CREATE TABLE EAST.PUBLIC.ORDERS (a INT); CREATE TABLE WEST.PUBLIC.ORDERS (a INT);",
            {
                "raw.east__public__orders": "EAST.PUBLIC.ORDERS",
                "raw.west__public__orders": "WEST.PUBLIC.ORDERS",
            },
        ),
        # A name without qualifiers keeps its plain lake name.
        (
            "CREATE TABLE ORDERS (a INT); CREATE TABLE ARCHIVE.ORDERS (a INT);",
            {"raw.orders": "ORDERS", "raw.archive__orders": "ARCHIVE.ORDERS"},
        ),
    ],
)
def test_colliding_names_are_qualified_deterministically(ddl, lake_tables):
    imported = import_ddl([("ddl.sql", ddl)], "snowflake")
    assert {lake: t.written for lake, t in imported.tables.items()} == lake_tables
    assert imported.catalog_legacy() == {
        "snowflake": {written: lake for lake, written in lake_tables.items()}
    }


def test_tables_that_no_qualifier_tells_apart_are_refused():
    ddl = 'CREATE TABLE S.ORDERS (a INT);\nCREATE TABLE S."Orders" (a INT);'
    with pytest.raises(CatalogImportError) as raised:
        import_ddl([("ddl.sql", ddl)], "snowflake")
    (error,) = raised.value.diagnostics
    assert error.format().startswith('ddl.sql:2:14: error[CATALOG-COLLISION]: table S."Orders"')


def test_a_table_declared_twice_differently_is_refused_and_identically_is_kept():
    first = "CREATE TABLE s.t (a INT, b VARCHAR(5));"
    assert len(import_ddl([("a.sql", first), ("b.sql", first)], "tsql").tables) == 1
    with pytest.raises(CatalogImportError) as raised:
        import_ddl([("a.sql", first), ("b.sql", "CREATE TABLE S.T (a INT);")], "tsql")
    assert [d.rule for d in raised.value.diagnostics] == ["CATALOG-DUPLICATE"]
    assert "a.sql:1:14" in raised.value.diagnostics[0].message


@pytest.mark.parametrize(
    ("ddl", "skipped"),
    [
        ("CREATE VIEW v AS SELECT 1 AS a", "1:1: info[CATALOG-SKIP]: skipped CREATE VIEW"),
        ("\n  INSERT INTO t VALUES (1)", "2:3: info[CATALOG-SKIP]: skipped INSERT"),
        ("ALTER TABLE t ADD COLUMN c INT", "1:1: info[CATALOG-SKIP]: skipped ALTER"),
        ("-- nothing but a comment\n", "1:1: info[CATALOG-SKIP]: no SQL statement"),
        (
            "CREATE TABLE t AS SELECT 1 AS a",
            "1:1: info[CATALOG-SKIP]: skipped CREATE TABLE without",
        ),
        ("CREATE TEMPORARY TABLE t (a INT)", "1:1: info[CATALOG-SKIP]: skipped a temporary table"),
        (
            "CREATE TABLE IDENTIFIER('t') (a INT)",
            "1:1: info[CATALOG-SKIP]: skipped CREATE TABLE with",
        ),
    ],
)
def test_statements_that_declare_no_lake_table_are_skipped_with_an_info_line(ddl, skipped):
    tables, diagnostics = read_ddl(ddl, "snowflake", file="x.sql")
    assert tables == []
    assert diagnostics[0].format().startswith(f"x.sql:{skipped}")


def test_an_unparseable_statement_is_a_located_error():
    ddl = "CREATE TABLE ok (a INT);\nCREATE TABLE broken (a INT, b VARCHAR(10) c);"
    with pytest.raises(CatalogImportError) as raised:
        import_ddl([("bad.sql", ddl)], "snowflake")
    (error,) = [d for d in raised.value.diagnostics if d.severity == "error"]
    assert (error.rule, error.line, error.col) == ("CATALOG-PARSE", 2, 43)


def test_a_computed_column_without_a_type_is_opaque():
    imported = import_ddl([("t.sql", "CREATE TABLE t (a INT, b AS (a + 1))")], "tsql")
    assert imported.catalog_opaque() == {"raw.t": {"b": "COMPUTED"}}
    assert [(d.rule, d.col) for d in imported.diagnostics] == [("CATALOG-OPAQUE", 24)]


def test_declared_case_attributes_are_kept():
    ddl = "CREATE TABLE d.t (a VARCHAR(10) NOT CASESPECIFIC, b VARCHAR(10) CASESPECIFIC, c CHAR)"
    imported = import_ddl([("t.sql", ddl)], "teradata")
    assert imported.diagnostics == ()
    assert imported.catalog_casespecific() == {"raw.t": {"a": False, "b": True}}
    assert "a: {type: VARCHAR(10), casespecific: false, legacy: teradata VARCHAR(10)}" in (
        imported.yaml()
    )


def test_teradata_ddl_as_show_table_writes_it_imports():
    # Table options (MAP, CHECKSUM, ...) and RANGE_N row partitioning: storage only.
    ddl = (
        "CREATE SET TABLE d.t, FALLBACK, NO BEFORE JOURNAL, CHECKSUM = DEFAULT, "
        "DEFAULT MERGEBLOCKRATIO, MAP = TD_MAP1 (k INTEGER NOT NULL, d DATE FORMAT "
        "'YYYY-MM-DD') PRIMARY INDEX (k) PARTITION BY RANGE_N (d BETWEEN DATE '2007-01-01' "
        "AND DATE '2022-01-01' EACH INTERVAL '1' MONTH, NO RANGE OR UNKNOWN);"
    )
    imported = import_ddl([("t.sql", ddl)], "teradata")
    assert imported.diagnostics == ()
    assert imported.catalog_tables() == {"raw.t": {"k": "INTEGER", "d": "DATE"}}


def test_case_insensitive_collations_are_flagged():
    ddl = "CREATE TABLE dbo.t (a VARCHAR(10) COLLATE Latin1_General_CI_AS)"
    imported = import_ddl([("t.sql", ddl)], "tsql")
    assert [d.rule for d in imported.diagnostics] == ["CATALOG-CASE"]
    assert "tsql_collation_case" in imported.diagnostics[0].message


def test_legacy_names_keep_the_ddl_spelling_and_quote_only_case_sensitive_parts():
    ddl = 'CREATE TABLE Sales_DB.Public."OrderLines" (a INT); CREATE TABLE "SALES".ORDERS (a INT);'
    imported = import_ddl([("t.sql", ddl)], "snowflake")
    assert imported.catalog_legacy() == {
        "snowflake": {
            'Sales_DB.Public."OrderLines"': "raw.orderlines",
            "SALES.ORDERS": "raw.orders",
        }
    }


DDL = """\
CREATE TABLE SALES.PUBLIC.ORDERS (
  O_ORDERKEY NUMBER(38,0) NOT NULL,
  O_STATUS VARCHAR(1),
  O_EXTRA VARIANT
);
CREATE TABLE SALES.PUBLIC.CUSTOMER (C_CUSTKEY INT, C_NAME STRING);
"""


def test_the_written_file_reads_back_as_the_same_catalog(tmp_path):
    text = import_ddl([("ddl.sql", DDL)], "snowflake", zone="legacy").yaml()
    path = tmp_path / "catalog.yaml"
    path.write_text(text)
    catalog = load_catalog(path)
    assert catalog.tables == {
        "legacy.customer": {"c_custkey": "DECIMAL(38,0)", "c_name": "VARCHAR"},
        "legacy.orders": {
            "o_orderkey": "DECIMAL(38,0)",
            "o_status": "VARCHAR(1)",
            "o_extra": "VARIANT",
        },
    }
    assert catalog.opaque == {"legacy.orders": {"o_extra": "VARIANT"}}
    assert catalog.legacy["snowflake"][("SALES", "PUBLIC", "ORDERS")] == "legacy.orders"


def test_names_yaml_would_misread_are_quoted(tmp_path):
    tables = {
        "raw.t": {
            "on": "BOOLEAN",
            "2019": "INTEGER",
            "a: b": "VARCHAR",
            "s": "STRUCT<x INT64, y STRING>",
        }
    }
    opaque = {"raw.t": {"s": "STRUCT<x INT64, y STRING>"}}
    path = tmp_path / "c.yaml"
    path.write_text(catalog_yaml(tables, opaque=opaque, source="a test"))
    catalog = load_catalog(path)
    assert catalog.tables == tables
    assert catalog.opaque == opaque


def test_not_null_is_kept_in_the_catalog(tmp_path):
    ddl = (
        "CREATE TABLE SALES.PUBLIC.EVENTS (id NUMBER NOT NULL, amount NUMBER(15,2) NOT NULL,\n"
        "  payload VARIANT NOT NULL, note VARCHAR NULL, other INT, PRIMARY KEY (other))"
    )
    imported = import_ddl([("events.sql", ddl)], "snowflake")
    assert imported.catalog_required() == {"raw.events": frozenset({"id", "amount", "payload"})}
    path = tmp_path / "c.yaml"
    path.write_text(imported.yaml())
    assert '    id: {type: "DECIMAL(38,0)", required: true, legacy: snowflake NUMBER}\n' in (
        path.read_text()
    )
    catalog = load_catalog(path)
    assert catalog.required == imported.catalog_required()
    assert catalog.tables == imported.catalog_tables()
    assert catalog.opaque == {"raw.events": {"payload": "VARIANT"}}
    assert catalog.declared["raw.events"]["amount"] == ("snowflake", "NUMBER(15,2)")
    # Nullability is what the DDL promised: the typed schema, and so translation, ignore it.
    amount = catalog.schema(["raw.events"])["raw"]["events"]["amount"]
    assert amount.sql() == "DECIMAL(15, 2)" and "required" not in amount.meta


def test_a_table_declared_with_different_not_null_columns_is_a_conflict(tmp_path):
    first, second = tmp_path / "a.yaml", tmp_path / "b.yaml"
    first.write_text("tables:\n  raw.t:\n    a: {type: INTEGER, required: true}\n")
    second.write_text("tables:\n  raw.t:\n    a: INTEGER\n")
    with pytest.raises(CatalogError, match="NOT NULL"):
        load_catalogs([first, second])
    assert load_catalogs([first, first]).required == {"raw.t": frozenset({"a"})}


def test_the_same_ddl_gives_the_same_bytes_whatever_the_file_order():
    other = "CREATE TABLE SALES.ARCHIVE.ORDERS (a INT);"
    once = import_ddl([("a.sql", DDL), ("b.sql", other)], "snowflake").yaml()
    again = import_ddl([("b.sql", other), ("a.sql", DDL)], "snowflake").yaml()
    assert once == again
    assert "raw.public__orders" in once and "raw.archive__orders" in once


def _cli(*args: str):
    return CliRunner().invoke(main, ["catalog", "import", *args])


def test_cli_writes_the_catalog_to_stdout_and_reports_on_stderr(tmp_path):
    ddl = tmp_path / "ddl.sql"
    ddl.write_text(DDL)
    result = _cli("--from", "snowflake", str(ddl))
    assert result.exit_code == 0, result.stderr
    assert result.stdout == import_ddl([(str(ddl), DDL)], "snowflake").yaml()
    lines = result.stderr.splitlines()
    assert lines[0] == (
        f"{ddl}:4:3: warning[CATALOG-OPAQUE]: column SALES.PUBLIC.ORDERS.o_extra has type "
        "VARIANT, read as the JSON text the lake holds: paths into it cast to a string, "
        "FLOAT or BOOLEAN and FLATTEN of its arrays translate (VARIANT-PATH, "
        "VARIANT-FLATTEN), it can be selected, counted or tested for NULL; other "
        "expressions over it will be refused"
    )
    assert lines[-1].startswith("catalog import: 2 tables, 5 columns (1 opaque)")


def test_cli_writes_the_same_file_twice_atomically(tmp_path):
    ddl = tmp_path / "ddl.sql"
    ddl.write_text(DDL)
    out = tmp_path / "catalog.yaml"
    assert _cli("--from", "snowflake", str(ddl), "-o", str(out)).exit_code == 0
    first = out.read_bytes()
    assert _cli("--from", "snowflake", str(ddl), "-o", str(out)).exit_code == 0
    assert out.read_bytes() == first
    assert sorted(p.name for p in tmp_path.iterdir()) == ["catalog.yaml", "ddl.sql"]


def test_cli_refuses_unparseable_ddl_with_exit_1_and_writes_nothing(tmp_path):
    ddl = tmp_path / "bad.sql"
    ddl.write_text("CREATE TABLE t (a INT b INT);")
    out = tmp_path / "catalog.yaml"
    result = _cli("--from", "tsql", str(ddl), "-o", str(out))
    assert result.exit_code == 1
    assert not out.exists()
    lines = result.stderr.splitlines()
    assert lines and all(DIAGNOSTIC.match(line) for line in lines), result.stderr
    assert f"{ddl}:1:" in lines[0] and "error[CATALOG-PARSE]" in lines[0]


@pytest.mark.parametrize(
    "args",
    [
        (),  # neither FILE nor --from-lake
        ("--from", "snowflake"),  # no FILE
        ("--from", "mysql", "x.sql"),  # unknown dialect
        ("--from", "snowflake", "/no/such/file.sql"),  # unreadable
        ("--from", "snowflake", "--from-lake", "/tmp", "x.sql"),  # both
        ("--from-lake", "/no/such/lake"),
        ("--from", "snowflake", "--zone", "Raw Zone", "x.sql"),
    ],
)
def test_cli_usage_errors_are_one_line_with_exit_2(args):
    result = _cli(*args)
    assert result.exit_code == 2
    assert result.stdout == ""
    (line,) = result.stderr.splitlines()
    assert line.startswith("plumbline: error: ")


def test_real_ddl_corpora_import_without_crashing():
    """Spider2's Snowflake and BigQuery schemas and Redshift's TPC-H DDL, where present."""
    if not CORPORA.is_dir():
        pytest.skip("the shared DDL corpora are not on this machine")
    csv.field_size_limit(1 << 30)
    imported = import_ddl(
        [(str(p), p.read_text()) for p in [CORPORA / "redshift_tpch/ddl.sql"]], "redshift"
    )
    assert len(imported.tables) == 8 and not imported.catalog_opaque()
    for dialect in ("snowflake", "bigquery"):
        files = sorted((CORPORA / "spider2/schemas" / dialect).rglob("DDL.csv"))
        # The smallest few keep this fast; /tmp scripts run the whole corpus.
        for path in sorted(files, key=lambda p: (p.stat().st_size, p))[:8]:
            with path.open(newline="") as f:
                rows = list(csv.DictReader(f))
            sources = [
                (f"{path}:{r['table_name']}", r.get("DDL") or r.get("ddl") or "") for r in rows
            ]
            try:
                imported = import_ddl(sources, dialect)
            except CatalogImportError as refused:  # sqlglot cannot parse a few real tables
                assert all(
                    d.rule == "CATALOG-PARSE" for d in refused.diagnostics if d.severity == "error"
                )
                continue
            assert imported.tables
