"""Rendering stored ANSI for an engine is lossless or refused."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal

import duckdb
import pytest

from sql.diagnostics import TranslationError
from sql.render import render
from sql.translate import translate

PORTABLE = [
    ("tsql", "SELECT TOP 3 o_orderkey FROM dbo.Orders ORDER BY o_orderkey"),
    ("oracle", "SELECT NVL(o_comment, 'x') AS c FROM SALES.ORDERS WHERE ROWNUM <= 2"),
    (
        "snowflake",
        "SELECT LISTAGG(o_orderstatus, ',') WITHIN GROUP (ORDER BY o_orderkey) AS s FROM SALES.ORDERS",
    ),
    ("bigquery", "SELECT DATE_DIFF(o_orderdate, DATE '1995-01-01', MONTH) AS m FROM sales.orders"),
]


@pytest.mark.parametrize(("dialect", "source"), PORTABLE)
@pytest.mark.parametrize("engine", ["duckdb", "spark"])
def test_portable_sql_renders_for_each_engine(dialect, source, engine):
    rendered = render(translate(source, dialect).ansi_sql, engine)
    assert '"raw"' in rendered or "`raw`" in rendered


@pytest.mark.parametrize(
    "source",
    [
        "SELECT DISTINCT TOP 10 PERCENT o_orderkey FROM dbo.Orders ORDER BY o_orderkey",
        "SELECT DISTINCT TOP 3 WITH TIES o_orderdate FROM dbo.Orders ORDER BY o_orderdate",
    ],
)
@pytest.mark.parametrize("engine", ["duckdb", "spark"])
def test_fetch_options_without_a_window_form_are_refused(source, engine):
    # PERCENT and WITH TIES become a filter on ROW_NUMBER / RANK (tests/sql/rules/
    # test_tsql_expressions.py), which a DISTINCT would number before removing duplicates.
    ansi_sql = translate(source, "tsql").ansi_sql
    with pytest.raises(TranslationError) as raised:
        render(ansi_sql, engine, file="report.sql")
    [diagnostic] = raised.value.diagnostics
    assert (diagnostic.rule, diagnostic.file) == ("RENDER", "report.sql")
    assert "FETCH FIRST" in diagnostic.message


def test_rendered_duckdb_sql_runs():
    ansi_sql = translate("SELECT 1 AS one FROM DUAL", "oracle").ansi_sql
    assert duckdb.sql(render(ansi_sql, "duckdb")).fetchall() == [(1,)]


def test_unknown_engine_is_refused():
    with pytest.raises(TranslationError, match="RENDER"):
        render("SELECT 1 AS one", "postgres")  # type: ignore[arg-type]


def test_distinct_listagg_next_to_another_distinct_aggregate_runs_on_spark(spark_engine):
    """Spark 4.3 crashes on LISTAGG(DISTINCT ...) WITHIN GROUP beside COUNT(DISTINCT ...);
    the Spark rendering uses collect_set instead and gives the same strings (NULL if none)."""
    ansi_sql = (
        "SELECT k, COUNT(DISTINCT w) AS n,"
        " LISTAGG(DISTINCT v, ',') WITHIN GROUP (ORDER BY v ASC NULLS LAST) AS up,"
        " LISTAGG(DISTINCT v, ';') WITHIN GROUP (ORDER BY v DESC NULLS LAST) AS down"
        " FROM t GROUP BY k"
    )
    rows = [(1, "b", 1), (1, "a", 2), (1, "b", 2), (2, None, 3), (3, "c", 4)]
    spark = spark_engine.session().newSession()
    spark.createDataFrame(rows, "k INT, v STRING, w INT").createOrReplaceTempView("t")
    on_spark = sorted(tuple(r) for r in spark.sql(render(ansi_sql, "spark")).collect())
    with duckdb.connect() as con:
        con.execute("CREATE TABLE t (k INTEGER, v VARCHAR, w INTEGER)")
        con.executemany("INSERT INTO t VALUES (?, ?, ?)", rows)
        on_duckdb = sorted(con.sql(render(ansi_sql, "duckdb")).fetchall())
    assert on_spark == on_duckdb == [(1, 2, "a,b", "b;a"), (2, 1, None, None), (3, 1, "c", "c")]


DATES = {"raw": {"t": {"a": "DATE", "b": "DATE", "ts": "TIMESTAMP"}}}
DAY_DIFF = (
    'SELECT EXTRACT(DAY FROM (CAST("t"."a" AS TIMESTAMP) - CAST("t"."b" AS TIMESTAMP))) AS "d"'
    ' FROM "raw"."t" AS "t"'
)
MONTH_END = (
    'SELECT CAST(CAST("t"."a" AS DATE) - (EXTRACT(DAY FROM CAST("t"."a" AS DATE)) - 1)'
    " * INTERVAL '1' DAY + INTERVAL '1' MONTH - INTERVAL '1' DAY AS DATE) AS \"e\""
    ' FROM "raw"."t" AS "t"'
)


MONTH_START = (
    'SELECT CAST(CAST("t"."ts" AS DATE) - (EXTRACT(DAY FROM CAST("t"."ts" AS DATE)) - 1)'
    ' * INTERVAL \'1\' DAY AS DATE) AS "s" FROM "raw"."t" AS "t"'
)


def test_month_start_takes_date_trunc():
    rendered = render(MONTH_START, "duckdb")
    assert 'DATE_TRUNC(\'MONTH\', CAST("t"."ts" AS DATE))' in rendered
    assert "INTERVAL" not in rendered


def test_day_difference_of_dates_takes_duckdbs_date_subtraction():
    rendered = render(DAY_DIFF, "duckdb", schema=DATES)
    assert "EXTRACT" not in rendered and "TIMESTAMP" not in rendered
    assert '"t"."a" - "t"."b"' in rendered


def test_day_difference_stays_portable_without_types_or_on_timestamps():
    assert "EXTRACT(DAY" in render(DAY_DIFF, "duckdb")
    on_timestamps = DAY_DIFF.replace('"t"."a"', '"t"."ts"')
    # A timestamp's time of day makes the interval's DAY field differ from a date count.
    assert "EXTRACT(DAY" in render(on_timestamps, "duckdb", schema=DATES)
    assert "EXTRACT(DAY" in render(DAY_DIFF, "spark", schema=DATES)


def test_month_end_takes_last_day_and_nested_patterns_are_replaced():
    assert 'LAST_DAY(CAST("t"."a" AS DATE))' in render(MONTH_END, "duckdb")
    nested = MONTH_END.replace(
        'CAST("t"."a" AS DATE)',
        'CAST(CAST("t"."b" AS DATE) + EXTRACT(DAY FROM (CAST("t"."a" AS TIMESTAMP)'
        ' - CAST("t"."b" AS TIMESTAMP))) * INTERVAL \'1\' DAY AS DATE)',
    )
    rendered = render(nested, "duckdb", schema=DATES)
    assert "LAST_DAY" in rendered and "EXTRACT" not in rendered, rendered


def test_native_forms_return_the_same_values_and_types_as_the_portable_sql():
    con = duckdb.connect()
    con.execute("CREATE SCHEMA raw")
    # Every pair of days across leap years, month ends, DST changes and NULLs.
    con.execute(
        "CREATE TABLE raw.t AS SELECT a::DATE AS a, b::DATE AS b, a::TIMESTAMP AS ts FROM"
        " range(DATE '2023-12-25', DATE '2024-03-05', INTERVAL 3 DAY) r(a),"
        " (SELECT * FROM range(DATE '1999-02-27', DATE '1999-03-02', INTERVAL 1 DAY)"
        "  UNION ALL SELECT DATE '2024-10-27' UNION ALL SELECT NULL) s(b)"
    )
    for sql in (DAY_DIFF, MONTH_END, MONTH_START):
        portable = con.sql(render(sql, "duckdb"))
        native = con.sql(render(sql, "duckdb", schema=DATES))
        assert native.types == portable.types
        assert native.fetchall() == portable.fetchall()


def test_grouping_has_the_sources_type_and_values_on_both_engines(spark_engine):
    """DuckDB types GROUPING as BIGINT and Spark as TINYINT; the translation casts it to the
    source's type, so both engines give one schema and the same rows."""
    rows = [(1, "F", "1-URGENT"), (2, "O", "2-HIGH"), (3, None, "1-URGENT"), (4, "F", "2-HIGH")]
    queries = {
        "tsql": "SELECT o_orderstatus, GROUPING(o_orderstatus) + GROUPING(o_orderpriority) AS g"
        " FROM dbo.Orders GROUP BY ROLLUP (o_orderstatus, o_orderpriority)",
        "snowflake": "SELECT GROUPING_ID(o_orderstatus, o_orderpriority) AS g, COUNT(*) AS n"
        " FROM SALES.ORDERS GROUP BY CUBE (o_orderstatus, o_orderpriority)",
    }
    spark = spark_engine.session().newSession()
    spark.createDataFrame(
        rows, "o_orderkey INT, o_orderstatus STRING, o_orderpriority STRING"
    ).createOrReplaceTempView("orders")
    with duckdb.connect() as con:
        con.execute(
            "CREATE TABLE orders (o_orderkey INT, o_orderstatus VARCHAR, o_orderpriority VARCHAR)"
        )
        con.executemany("INSERT INTO orders VALUES (?, ?, ?)", rows)
        for dialect, source in queries.items():
            # The lake table, read here under its bare name in both engines.
            ansi_sql = translate(source, dialect).ansi_sql.replace('"raw"."orders"', '"orders"')
            on_duckdb = con.sql(render(ansi_sql, "duckdb"))
            on_spark = spark.sql(render(ansi_sql, "spark"))
            types = {"tsql": "int", "snowflake": "bigint"}[dialect]
            assert on_spark.schema["g"].dataType.simpleString() == types
            assert str(on_duckdb.types[on_duckdb.columns.index("g")]).lower().startswith(types)
            key = lambda row: tuple((v is None, v) for v in row)  # noqa: E731
            assert sorted(map(tuple, on_spark.collect()), key=key) == sorted(
                on_duckdb.fetchall(), key=key
            )


def test_compiled_date_formats_print_the_same_text_on_both_engines(spark_engine):
    """EXTRACT(SECOND) carries the fraction (the standard's, on both engines); the compiled
    format prints whole, zero-padded fields on both."""
    source = (
        "SELECT TO_CHAR(TO_TIMESTAMP_NTZ('2024-03-01 09:05:07.5'), 'YYYYMMDD HH24:MI:SS') AS t,"
        " TO_CHAR(o_orderdate, 'YYYY-MM-DD') AS d FROM SALES.ORDERS"
    )
    ansi_sql = translate(source, "snowflake").ansi_sql.replace('"raw"."orders"', '"orders"')
    spark = spark_engine.session().newSession()
    spark.sql("SELECT DATE'0987-11-05' AS o_orderdate").createOrReplaceTempView("orders")
    on_spark = [tuple(row) for row in spark.sql(render(ansi_sql, "spark")).collect()]
    with duckdb.connect() as con:
        con.execute("CREATE TABLE orders AS SELECT DATE '0987-11-05' AS o_orderdate")
        on_duckdb = con.sql(render(ansi_sql, "duckdb")).fetchall()
    assert on_spark == on_duckdb == [("20240301 09:05:07", "0987-11-05")]


def test_epoch_counts_beyond_32_bits_give_the_same_timestamps_on_both_engines(spark_engine):
    """Snowflake epoch conversions become n * INTERVAL 'u' SECOND; DuckDB multiplies an
    interval by a 32-bit integer only, so its rendering counts microseconds in a BIGINT."""
    source = (
        "SELECT TO_TIMESTAMP_NTZ(o_orderkey / 1000000) AS micros, TO_TIMESTAMP(o_custkey, 3)"
        " AS millis, TO_TIMESTAMP_NTZ(o_shippriority) AS seconds FROM SALES.ORDERS"
    )
    ansi_sql = translate(source, "snowflake").ansi_sql.replace('"raw"."orders"', '"orders"')
    assert "INTERVAL '0.000001' SECOND" in ansi_sql
    rows = (
        "SELECT CAST(1700000000123456 AS BIGINT) AS o_orderkey, CAST(-1700000000123 AS BIGINT)"
        " AS o_custkey, CAST(4102444800 AS BIGINT) AS o_shippriority"
    )
    spark = spark_engine.session().newSession()
    spark.sql(rows).createOrReplaceTempView("orders")
    on_spark = [tuple(row) for row in spark.sql(render(ansi_sql, "spark")).collect()]
    with duckdb.connect() as con:
        con.execute(f"CREATE TABLE orders AS {rows}")
        on_duckdb = con.sql(render(ansi_sql, "duckdb")).fetchall()
    expected = (
        dt.datetime(2023, 11, 14, 22, 13, 20, 123456),
        dt.datetime(1916, 2, 18, 1, 46, 39, 877000),
        dt.datetime(2100, 1, 1),
    )
    assert on_spark == on_duckdb == [expected]


def test_like_patterns_keep_the_sources_escapes_on_both_engines(spark_engine):
    """BigQuery reads a backslash in a LIKE pattern as an escape, Oracle as a character, the
    standard has no escape without ESCAPE, and Spark's default escape is a backslash."""
    sources = {
        # literal underscore, then anything
        ("bigquery", "SELECT c_name FROM sales.customer WHERE c_name LIKE 'a\\\\_%'"): ["a_c"],
        # a backslash, then anything
        ("oracle", "SELECT c_name FROM SALES.CUSTOMER WHERE c_name LIKE 'a\\%'"): ["a\\c", "a\\x"],
        # ILIKE reads the same escapes (Redshift, as PostgreSQL)
        ("redshift", "SELECT c_name FROM sales.customer WHERE c_name ILIKE 'A\\\\_%'"): ["a_c"],
        # an escaped backslash is one literal backslash
        ("bigquery", "SELECT c_name FROM sales.customer WHERE c_name LIKE r'a\\\\_'"): [
            "a\\c",
            "a\\x",
        ],
    }
    rows = "SELECT * FROM (VALUES ('a_c'), ('abc'), ('a\\c'), ('a\\x')) AS t(c_name)"
    spark = spark_engine.session().newSession()
    spark.sql(rows.replace("\\", "\\\\")).createOrReplaceTempView("customer")
    with duckdb.connect() as con:
        con.execute(f"CREATE TABLE customer AS {rows}")
        for (dialect, source), expected in sources.items():
            ansi_sql = translate(source, dialect).ansi_sql.replace('"raw"."customer"', '"customer"')
            on_duckdb = sorted(r[0] for r in con.sql(render(ansi_sql, "duckdb")).fetchall())
            on_spark = sorted(r[0] for r in spark.sql(render(ansi_sql, "spark")).collect())
            assert on_duckdb == on_spark == expected, (dialect, source, ansi_sql)


@pytest.mark.parametrize(
    ("dialect", "source"),
    [
        ("tsql", "SELECT c_name FROM dbo.Customer WHERE c_name LIKE '[ab'"),  # unclosed
        ("snowflake", "SELECT c_name FROM SALES.CUSTOMER WHERE c_name LIKE 'a\\\\_%'"),
        ("redshift", "SELECT c_name FROM sales.customer WHERE c_name LIKE c_phone"),
    ],
)
def test_like_patterns_the_standard_reads_differently_are_refused(dialect, source):
    with pytest.raises(TranslationError) as raised:
        translate(source, dialect)
    assert [d.rule for d in raised.value.diagnostics] == ["LIKE-PATTERN"]


@pytest.mark.parametrize(
    ("dialect", "table", "cast"),
    [("tsql", "dbo.Orders", "DATETIME2"), ("snowflake", "SALES.ORDERS", "TIMESTAMP_NTZ")],
)
def test_time_unit_differences_count_boundaries_on_both_engines(spark_engine, dialect, table, cast):
    """DATEDIFF in hours, minutes and seconds counts the boundaries crossed: 10:59:59.9 to
    11:00:00.1 the next day is 25 hours, 1441 minutes and 86401 seconds, and backwards over
    a leap day the same with a minus sign."""
    pairs = [
        ("2024-01-01 10:59:59.9", "2024-01-02 11:00:00.1"),
        ("2024-03-01 00:00:00", "2024-02-28 23:59:59.999"),
    ]
    parts = []
    for i, (a, b) in enumerate(pairs):
        for unit in ("hour", "minute", "second"):
            parts.append(
                f"DATEDIFF({unit}, CAST('{a}' AS {cast}), CAST('{b}' AS {cast})) AS {unit}_{i}"
            )
    source = f"SELECT {', '.join(parts)} FROM {table}"
    ansi_sql = translate(source, dialect).ansi_sql.replace('"raw"."orders"', '"orders"')
    spark = spark_engine.session().newSession()
    spark.sql("SELECT 1 AS o_orderkey").createOrReplaceTempView("orders")
    on_spark = [tuple(row) for row in spark.sql(render(ansi_sql, "spark")).collect()]
    with duckdb.connect() as con:
        con.execute("CREATE TABLE orders AS SELECT 1 AS o_orderkey")
        on_duckdb = con.sql(render(ansi_sql, "duckdb")).fetchall()
    assert on_spark == on_duckdb == [(25, 1441, 86401, -25, -1441, -86401)]


def test_percentile_disc_is_the_standards_value_of_the_sorted_type_on_both_engines(spark_engine):
    """The first value whose cumulative distribution reaches p, NULLs left out, of the
    column's own type: Spark's percentile_disc would return a DOUBLE (wrong digits for big
    integers, an error for strings) and sqlglot writes DuckDB's without the direction."""
    fractions = [0, 0.25, 0.26, 0.5, 0.6, 1]
    parts = [
        f"PERCENTILE_DISC({p}) WITHIN GROUP (ORDER BY o_orderkey) AS k{i}"
        for i, p in enumerate(fractions)
    ]
    parts += [
        "PERCENTILE_DISC(0.25) WITHIN GROUP (ORDER BY o_orderkey DESC) AS down",
        "PERCENTILE_DISC(0.5) WITHIN GROUP (ORDER BY o_orderstatus) AS status",
        "PERCENTILE_DISC(0.5) WITHIN GROUP (ORDER BY o_totalprice) AS price",
    ]
    source = f"SELECT o_custkey, {', '.join(parts)} FROM SALES.ORDERS GROUP BY o_custkey"
    ansi_sql = translate(source, "snowflake").ansi_sql.replace('"raw"."orders"', '"orders"')
    rows = (
        "SELECT * FROM (VALUES (1, CAST(12345678901234567 AS BIGINT), 'b', CAST(2.20 AS DECIMAL(12, 2))),"
        " (1, CAST(12345678901234569 AS BIGINT), 'a', CAST(1.10 AS DECIMAL(12, 2))),"
        " (1, CAST(12345678901234571 AS BIGINT), 'c', CAST(3.30 AS DECIMAL(12, 2))),"
        " (1, CAST(12345678901234573 AS BIGINT), NULL, NULL), (1, NULL, NULL, NULL),"
        " (2, NULL, NULL, NULL)) AS t(o_custkey, o_orderkey, o_orderstatus, o_totalprice)"
    )
    spark = spark_engine.session().newSession()
    spark.sql(rows).createOrReplaceTempView("orders")
    on_spark = sorted(tuple(r) for r in spark.sql(render(ansi_sql, "spark")).collect())
    with duckdb.connect() as con:
        con.execute(f"CREATE TABLE orders AS {rows}")
        on_duckdb = sorted(con.sql(render(ansi_sql, "duckdb")).fetchall())
    base = 12345678901234567
    keys = [base, base, base + 2, base + 2, base + 4, base + 6]  # positions 1, 1, 2, 2, 3, 4
    expected = [
        (1, *keys, base + 6, "b", Decimal("2.20")),
        (2, *([None] * 6), None, None, None),
    ]
    assert on_spark == on_duckdb == expected


@pytest.mark.parametrize(
    "source",
    [
        # interpolated to more decimals than Snowflake documents its rounding for, or windowed
        # (the aggregates themselves translate: tests/sql/rules/test_aggregates.py)
        "SELECT PERCENTILE_CONT(0.1234) WITHIN GROUP (ORDER BY o_totalprice) AS m FROM SALES.ORDERS",
        "SELECT MEDIAN(o_totalprice) OVER () AS m FROM SALES.ORDERS",
        "SELECT PERCENTILE_DISC(1.5) WITHIN GROUP (ORDER BY o_totalprice) AS m FROM SALES.ORDERS",
        "SELECT PERCENTILE_DISC(0.5) WITHIN GROUP (ORDER BY o_totalprice) OVER () AS m FROM SALES.ORDERS",
    ],
)
def test_interpolated_or_windowed_percentiles_are_refused(source):
    with pytest.raises(TranslationError):
        translate(source, "snowflake")


@pytest.mark.parametrize(
    ("call", "expected"),
    [
        # BigQuery's documented examples, then the starts that count from the end or from 0
        ("SUBSTR(s, 2)", "pple"),
        ("SUBSTR(s, 2, 2)", "pp"),
        ("SUBSTR(s, -2)", "le"),
        ("SUBSTR(s, 1, 123)", "apple"),
        ("SUBSTR(s, 123)", ""),
        ("SUBSTR(s, 0, 2)", "ap"),
        ("SUBSTR(s, -1)", "e"),
        ("SUBSTR(s, -5)", "apple"),
        ("SUBSTR(s, -7, 3)", "app"),  # left of the first character: from 1
        ("SUBSTR(s, 2, 0)", ""),
        ("SUBSTR(s, p, 2)", "le"),  # p = -2, from a column
        ("SUBSTR(s, p - 5, 2)", "ap"),  # -7
        ("SUBSTR(s, p + 2, 2)", "ap"),  # 0
        ("SUBSTR(s, p + 5)", "ple"),  # 3
    ],
)
def test_bigquery_substr_counts_its_start_as_bigquery_does_on_both_engines(
    spark_engine, call, expected
):
    source = f"WITH w AS (SELECT 'apple' AS s, -2 AS p) SELECT {call} AS r FROM w"
    ansi_sql = translate(source, "bigquery").ansi_sql
    assert duckdb.sql(render(ansi_sql, "duckdb")).fetchall() == [(expected,)], ansi_sql
    rows = spark_engine.session().sql(render(ansi_sql, "spark")).collect()
    assert [tuple(r) for r in rows] == [(expected,)], ansi_sql


@pytest.mark.parametrize(
    "call",
    [
        "SUBSTR(s, 1, p)",  # a negative length is an error in BigQuery: only literals
        "SUBSTR(s, 1, -1)",
        "SUBSTR(s, 'a')",
    ],
)
def test_bigquery_substr_that_may_differ_is_refused(call):
    source = f"WITH w AS (SELECT 'apple' AS s, -2 AS p) SELECT {call} AS r FROM w"
    with pytest.raises(TranslationError, match=r"error\[FN-SUBSTR\]"):
        translate(source, "bigquery")


def test_a_distinct_listagg_of_a_subquery_runs_on_both_engines(spark_engine):
    """DuckDB cannot bind LISTAGG(DISTINCT (subquery)) WITHIN GROUP (ORDER BY (subquery)):
    its rendering sorts the list of distinct values instead, with the same strings."""
    ansi_sql = translate(
        "WITH t AS (SELECT 1 AS k, 'b' AS v UNION ALL SELECT 1, 'a' UNION ALL SELECT 1, 'b'"
        " UNION ALL SELECT 2, NULL UNION ALL SELECT 3, 'c' UNION ALL SELECT 3, 'B')"
        " SELECT k, STRING_AGG(DISTINCT (SELECT MAX(w.v) FROM t AS w WHERE w.v = t.v), '; ')"
        " AS g FROM t GROUP BY k",
        "bigquery",
    ).ansi_sql
    assert "LISTAGG(DISTINCT" in " ".join(ansi_sql.split())
    expected = [(1, "a; b"), (2, None), (3, "B; c")]
    assert sorted(duckdb.sql(render(ansi_sql, "duckdb")).fetchall()) == expected
    spark = spark_engine.session()
    assert sorted(tuple(r) for r in spark.sql(render(ansi_sql, "spark")).collect()) == expected
    # beside another DISTINCT aggregate Spark fails, and its array form takes no subquery
    paired = ansi_sql.replace('AS "g"', 'AS "g", COUNT(DISTINCT "t"."v") AS "n"')
    with pytest.raises(TranslationError, match=r"RENDER.*no spark form"):
        render(paired, "spark")


ZERO_DIVISIONS = [
    # the standard raises on a zero divisor (SQLSTATE 22012), DuckDB's `/` gives inf / nan
    'SELECT 1 / 0 AS "x"',
    'SELECT CAST(1 AS DOUBLE PRECISION) / CAST(0 AS DOUBLE PRECISION) AS "x"',
    'SELECT CAST(0 AS DECIMAL(10, 2)) / CAST(0 AS DECIMAL(10, 2)) AS "x"',
    'SELECT MOD(CAST(5 AS DOUBLE PRECISION), 0) AS "x"',
    'SELECT COUNT("v") / COUNT(*) AS "x" FROM (VALUES (1)) AS "t"("v") WHERE "v" > 1',
]


@pytest.mark.parametrize("ansi_sql", ZERO_DIVISIONS)
def test_a_zero_divisor_raises_on_both_engines(spark_engine, ansi_sql):
    with pytest.raises(duckdb.Error, match="division by zero"):
        duckdb.sql(render(ansi_sql, "duckdb")).fetchall()
    with pytest.raises(Exception, match=r"DIVIDE_BY_ZERO|REMAINDER_BY_ZERO"):
        spark_engine.session().sql(render(ansi_sql, "spark")).collect()


def test_a_divisor_that_cannot_be_zero_is_not_guarded_and_null_stays_null():
    assert "CASE" not in render('SELECT "a" / 100 AS "x" FROM "t"', "duckdb")
    assert "CASE" not in render('SELECT "a" / NULLIF("b", 0) AS "x" FROM "t"', "duckdb")
    assert duckdb.sql(render('SELECT 1 / CAST(NULL AS INTEGER) AS "x"', "duckdb")).fetchall() == [
        (None,)
    ]
    assert duckdb.sql(render('SELECT 6 / 4 AS "x"', "duckdb")).fetchall() == [(1.5,)]
    # NULL / 0 is NULL in the standard, as in Spark
    null_by_zero = 'SELECT CAST(NULL AS INTEGER) / 0 AS "x"'
    assert duckdb.sql(render(null_by_zero, "duckdb")).fetchall() == [(None,)]


# SUBSTRING(s FROM p FOR n) in the standard (SQL:2016 6.32 <string value function>): the
# characters at positions p .. p + n - 1 that exist, none before position 1; n < 0 raises.
# Both engines count a p below 1 from the end instead.
SUBSTRING_CASES = [
    ("SUBSTRING(s FROM 0 FOR 2)", ["a", "a", "", None]),
    ("SUBSTRING(s FROM -1 FOR 3)", ["a", "a", "", None]),
    ("SUBSTRING(s FROM -1)", ["abcdef", "ab", "", None]),
    ("SUBSTRING(s FROM p FOR 2)", ["", "b", "", None]),
    ("SUBSTRING(s FROM p)", ["abcdef", "b", "", None]),
    ("SUBSTRING(s FROM 2 FOR n)", ["bcd", "", "", None]),
    ("SUBSTRING(s FROM p FOR n)", ["a", "", "", None]),
    ("SUBSTRING(s FROM CHAR_LENGTH(s) - 4 + 1)", ["cdef", "ab", "", None]),
]
SUBSTRING_ROWS = "(VALUES (1, 'abcdef', -1, 3), (2, 'ab', 2, 0), (3, '', 1, 1), (4, NULL, 1, 1)) AS t(i, s, p, n)"


def test_substring_positions_before_the_first_character_take_none_on_both_engines(spark_engine):
    columns = ", ".join(f"{call} AS c{k}" for k, (call, _) in enumerate(SUBSTRING_CASES))
    ansi_sql = f"SELECT i, {columns} FROM {SUBSTRING_ROWS} ORDER BY i"
    on_duckdb = duckdb.sql(render(ansi_sql, "duckdb")).fetchall()
    on_spark = [tuple(r) for r in spark_engine.session().sql(render(ansi_sql, "spark")).collect()]
    for k, (call, want) in enumerate(SUBSTRING_CASES, start=1):
        assert [row[k] for row in on_duckdb] == want, call
        assert [row[k] for row in on_spark] == want, call


def test_a_negative_substring_length_raises_on_both_engines(spark_engine):
    ansi_sql = "SELECT SUBSTRING(s FROM 2 FOR n) AS x FROM (VALUES ('abc', -1)) AS t(s, n)"
    with pytest.raises(duckdb.Error, match="substring error"):
        duckdb.sql(render(ansi_sql, "duckdb")).fetchall()
    with pytest.raises(Exception, match="substring error"):
        spark_engine.session().sql(render(ansi_sql, "spark")).collect()
    # a literal one in a branch no row takes raises nothing
    unreached = "SELECT CASE WHEN 1 = 1 THEN 'x' ELSE SUBSTRING('abc' FROM 2 FOR -1) END AS x"
    assert duckdb.sql(render(unreached, "duckdb")).fetchall() == [("x",)]
    assert spark_engine.session().sql(render(unreached, "spark")).collect()[0][0] == "x"


def test_substrings_rules_write_keep_the_engines_own_call():
    assert "CASE" not in render(
        "SELECT SUBSTRING(s FROM 1 FOR 2), SUBSTRING(s FROM 3) FROM t", "duckdb"
    )


def test_trim_without_characters_removes_only_spaces_on_both_engines(spark_engine):
    # DuckDB's TRIM alone also removes a no-break space (U+00A0) and other space separators
    ansi_sql = (
        "SELECT TRIM(s) AS b, TRIM(LEADING FROM s) AS l, TRIM(TRAILING FROM s) AS r "
        "FROM (VALUES (U&'\\00A0 a \\3000')) AS t(s)"
    )
    want = ("\xa0 a \u3000", "\xa0 a \u3000", "\xa0 a \u3000")
    assert duckdb.sql(render(ansi_sql, "duckdb")).fetchall() == [want]
    assert tuple(spark_engine.session().sql(render(ansi_sql, "spark")).collect()[0]) == want
    spaced = "SELECT TRIM(s) AS b FROM (VALUES (' a  ')) AS t(s)"
    assert duckdb.sql(render(spaced, "duckdb")).fetchall() == [("a",)]


def test_extract_second_keeps_the_fraction_as_an_exact_decimal_on_both_engines(spark_engine):
    """The standard's EXTRACT(SECOND) is exact with the value's fraction (Spark's
    DECIMAL(8, 6)); DuckDB's own is whole seconds, so its rendering reads the microseconds."""
    ansi_sql = (
        "SELECT EXTRACT(SECOND FROM CAST('2024-01-01 12:00:59.123456' AS TIMESTAMP)) AS t, "
        "EXTRACT(SECOND FROM CAST('1969-12-31 23:59:07.5' AS TIMESTAMP)) AS before_1970, "
        "EXTRACT(SECOND FROM INTERVAL '1.25' SECOND) AS i, "
        "EXTRACT(SECOND FROM -INTERVAL '90.5' SECOND) AS negative, "
        "EXTRACT(SECOND FROM CAST('2024-01-01 00:00:07' AS TIMESTAMP)) AS whole"
    )
    want = (Decimal("59.123456"), Decimal("7.5"), Decimal("1.25"), Decimal("-30.5"), Decimal(7))
    assert duckdb.sql(render(ansi_sql, "duckdb")).fetchall() == [want]
    assert tuple(spark_engine.session().sql(render(ansi_sql, "spark")).collect()[0]) == want
    types = duckdb.sql(render(ansi_sql, "duckdb")).types
    assert {str(kind) for kind in types} == {"DECIMAL(8,6)"}
    time_sql = "SELECT EXTRACT(SECOND FROM CAST('12:00:01.25' AS TIME)) AS t"
    assert duckdb.sql(render(time_sql, "duckdb")).fetchall() == [(Decimal("1.25"),)]
