"""Aggregates translated from one source's meaning into the standard's: KEEP (DENSE_RANK ...),
MEDIAN, the statistics of number pairs and ANY_VALUE, run on DuckDB and Spark against values
worked out by hand (or by Python's statistics module, for the floating-point ones)."""

from __future__ import annotations

import math
import statistics
from datetime import date
from decimal import ROUND_HALF_UP, Decimal, localcontext

import duckdb
import pytest

from sql.diagnostics import TranslationError
from sql.render import render
from sql.translate import translate
from tests.sql.engine_tables import engine_tables

# (o_orderkey, o_custkey, o_totalprice, o_shippriority, o_orderdate): even and odd groups, NULLs in each
# column, a group of only NULL prices, one row, integers whose sum overflows INTEGER, and a
# group whose priorities do not vary.
ROWS = [
    (1, 1, "1.00", 1, "2024-01-01"),
    (2, 1, "2.00", 2, "2024-01-01"),
    (3, 1, "3.00", 3, "2024-02-01"),
    (4, 1, "10.00", 4, "2024-03-01"),
    (5, 2, "5.25", 7, None),
    (6, 2, None, 8, "2024-01-01"),
    (7, 2, "7.50", None, "2024-01-01"),
    (8, 3, None, None, "2024-02-01"),
    (9, 3, None, 5, "2024-02-01"),
    (10, 4, "-4.10", -3, "2024-05-05"),
    (11, 5, "2.00", 2000000000, "2024-01-01"),
    (12, 5, "9.99", 2100000000, "2024-01-02"),
    (13, 6, "1.00", 3, "2024-01-01"),
    (14, 6, "2.00", 3, "2024-01-01"),
]
TABLES = {
    "snowflake": "SALES.ORDERS",
    "oracle": "SALES.ORDERS",
    "bigquery": "sales.orders",
    "redshift": "sales.orders",
    "teradata": "SALES_DB.ORDERS",
}


def _sql_value(value: object) -> str:
    return "NULL" if value is None else f"'{value}'"


@pytest.fixture(scope="module")
def engines(spark_engine):
    values = ", ".join("(" + ", ".join(_sql_value(v) for v in row) + ")" for row in ROWS)
    rows = (
        "SELECT CAST(o AS INTEGER) AS o_orderkey, CAST(k AS INTEGER) AS o_custkey, "
        "CAST(p AS DECIMAL(15, 2)) AS o_totalprice, CAST(s AS INTEGER) AS o_shippriority, "
        f"CAST(d AS DATE) AS o_orderdate FROM (VALUES {values}) AS t(o, k, p, s, d)"
    )
    with engine_tables(spark_engine, orders=rows) as engines:
        yield engines


def _run(engines, dialect: str, select: str) -> tuple[list[tuple], list[tuple], str]:
    """The translation of ``SELECT o_custkey, <select> AS v FROM orders GROUP BY o_custkey``
    run on both engines: (DuckDB rows, Spark rows, ANSI SQL), ordered by o_custkey."""
    source = f"SELECT o_custkey, {select} AS v FROM {TABLES[dialect]} GROUP BY o_custkey"
    return _run_query(engines, source, dialect)


def _run_query(engines, source: str, dialect: str) -> tuple[list[tuple], list[tuple], str]:
    """The translation of ``source`` (over the orders table) run on both engines: (DuckDB
    rows, Spark rows, ANSI SQL), each sorted."""
    con, spark = engines
    ansi_sql = translate(source, dialect).ansi_sql.replace('"raw"."orders"', '"orders"')
    on_duckdb = sorted(con.sql(render(ansi_sql, "duckdb")).fetchall())
    on_spark = sorted(tuple(r) for r in spark.sql(render(ansi_sql, "spark")).collect())
    return on_duckdb, on_spark, ansi_sql


def _by_group(values: list[object]) -> list[tuple]:
    return [(k, v) for k, v in enumerate(values, start=1)]


D = Decimal
JAN1, FEB1, MAR1, MAY5 = date(2024, 1, 1), date(2024, 2, 1), date(2024, 3, 1), date(2024, 5, 5)

# (dialect, aggregate, the value per o_custkey 1..6)
EXACT_CASES = [
    # Oracle KEEP: the rows that rank first (last) by the key, every tie included; NULL keys
    # sort last ascending and first descending
    (
        "oracle",
        "MAX(o_totalprice) KEEP (DENSE_RANK FIRST ORDER BY o_orderdate)",
        [D("2.00"), D("7.50"), None, D("-4.10"), D("2.00"), D("2.00")],
    ),
    (
        "oracle",
        "MIN(o_totalprice) KEEP (DENSE_RANK LAST ORDER BY o_orderdate)",
        [D("10.00"), D("5.25"), None, D("-4.10"), D("9.99"), D("1.00")],
    ),
    (
        "oracle",
        "MIN(o_totalprice) KEEP (DENSE_RANK FIRST ORDER BY o_orderdate DESC)",
        [D("10.00"), D("5.25"), None, D("-4.10"), D("9.99"), D("1.00")],
    ),
    (
        "oracle",
        "MAX(o_orderdate) KEEP (DENSE_RANK FIRST ORDER BY o_shippriority)",
        [JAN1, None, FEB1, MAY5, JAN1, JAN1],
    ),
    (
        "oracle",
        "MAX(o_totalprice) KEEP (DENSE_RANK LAST ORDER BY o_orderdate NULLS FIRST, "
        "o_shippriority DESC)",
        # customer 2's last row: dated, its priority 8 after the NULL one (DESC: NULLs first)
        [D("10.00"), None, None, D("-4.10"), D("9.99"), D("2.00")],
    ),
    # MEDIAN: the mean of the middle two, in the source's type
    (
        "snowflake",
        "MEDIAN(o_totalprice)",
        [D("2.50000"), D("6.37500"), None, D("-4.10000"), D("5.99500"), D("1.50000")],
    ),
    (
        "snowflake",
        "MEDIAN(o_shippriority)",
        [D("2.500"), D("7.500"), D("5.000"), D("-3.000"), D("2050000000.000"), D("3.000")],
    ),
    (
        "snowflake",
        "MEDIAN(CAST(o_shippriority AS NUMBER(38, 0)))",
        [D("2.500"), D("7.500"), D("5.000"), D("-3.000"), D("2050000000.000"), D("3.000")],
    ),
    (
        "oracle",
        "MEDIAN(o_totalprice)",
        [D("2.500"), D("6.375"), None, D("-4.100"), D("5.995"), D("1.500")],
    ),
    # PERCENTILE_CONT: RN = 1 + p * (N - 1), interpolated between the values around it
    (
        "snowflake",
        "PERCENTILE_CONT(0.25) WITHIN GROUP (ORDER BY o_totalprice)",
        [D("1.75000"), D("5.81250"), None, D("-4.10000"), D("3.99750"), D("1.25000")],
    ),
    (
        "oracle",
        "PERCENTILE_CONT(0.25) WITHIN GROUP (ORDER BY o_shippriority DESC)",
        [D("3.25"), D("7.75"), D("5.00"), D("-3.00"), D("2075000000.00"), D("3.00")],
    ),
    (
        "oracle",
        "PERCENTILE_CONT(0.125) WITHIN GROUP (ORDER BY o_totalprice)",
        [D("1.37500"), D("5.53125"), None, D("-4.10000"), D("2.99875"), D("1.12500")],
    ),
    (
        "oracle",
        "PERCENTILE_CONT(1) WITHIN GROUP (ORDER BY o_totalprice)",
        [D("10.00"), D("7.50"), None, D("-4.10"), D("9.99"), D("2.00")],
    ),
    # REGR_COUNT: the pairs with neither value NULL
    ("snowflake", "REGR_COUNT(o_totalprice, o_shippriority)", [4, 1, 0, 1, 2, 2]),
    ("teradata", "REGR_COUNT(o_totalprice, o_shippriority)", [4, 1, 0, 1, 2, 2]),
]


@pytest.mark.parametrize(("dialect", "aggregate", "expected"), EXACT_CASES)
def test_aggregates_give_the_sources_values_on_both_engines(engines, dialect, aggregate, expected):
    on_duckdb, on_spark, ansi_sql = _run(engines, dialect, aggregate)
    assert on_duckdb == on_spark == _by_group(expected), ansi_sql


@pytest.mark.parametrize(
    ("dialect", "aggregate"),
    [
        ("redshift", "MEDIAN(CAST(o_totalprice AS DOUBLE PRECISION))"),
        ("snowflake", "PERCENTILE_CONT(0.5) WITHIN GROUP (ORDER BY o_totalprice::FLOAT)"),
    ],
)
def test_medians_of_doubles_are_doubles(engines, dialect, aggregate):
    on_duckdb, on_spark, ansi_sql = _run(engines, dialect, aggregate)
    expected = _by_group([2.5, 6.375, None, -4.1, 5.995, 1.5])
    for rows in (on_duckdb, on_spark):
        assert [(k, v if v is None else pytest.approx(v)) for k, v in expected] == rows, ansi_sql
        assert all(isinstance(v, float) for _, v in rows if v is not None), ansi_sql


def test_keep_as_a_window_gives_each_row_its_partitions_value(engines):
    source = (
        "SELECT o_custkey, MAX(o_totalprice) KEEP (DENSE_RANK FIRST ORDER BY o_orderdate) "
        "OVER (PARTITION BY o_custkey) AS v FROM SALES.ORDERS"
    )
    on_duckdb, on_spark, ansi_sql = _run_query(engines, source, "oracle")
    per_group = dict(_by_group([D("2.00"), D("7.50"), None, D("-4.10"), D("2.00"), D("2.00")]))
    expected = sorted((row[1], per_group[row[1]]) for row in ROWS)
    assert on_duckdb == on_spark == expected, ansi_sql


# Snowflake's MIN_BY / MAX_BY per its documentation: x on a row with the smallest (largest)
# key, NULL keys ignored (customer 3's prices are all NULL), a NULL x returned as it is
# (customer 2's priority 7 is on a row without a date), tied rows holding one x (customer 6's
# priorities are 3 and 3, both dated 2024-01-01).
MIN_BY_CASES = [
    ("MIN_BY(o_orderkey, o_totalprice)", [1, 5, None, 10, 11, 13]),
    ("MAX_BY(o_orderkey, o_totalprice)", [4, 7, None, 10, 12, 14]),
    ("ARG_MIN(o_orderdate, o_shippriority)", [JAN1, None, FEB1, MAY5, JAN1, JAN1]),
    ("MAX_BY(o_orderdate, o_shippriority)", [MAR1, JAN1, FEB1, MAY5, date(2024, 1, 2), JAN1]),
]


@pytest.mark.parametrize(("aggregate", "expected"), MIN_BY_CASES)
def test_snowflake_min_by_gives_the_value_of_the_extreme_row(engines, aggregate, expected):
    on_duckdb, on_spark, ansi_sql = _run(engines, "snowflake", aggregate)
    assert on_duckdb == on_spark == _by_group(expected), ansi_sql


# Rows tied on the key with different values, of which Snowflake returns any: customer 6's
# priorities 3 and 3 (and dates, both 2024-01-01) hold prices 1.00 and 2.00; customer 2's
# latest date is on a row without a price and on one of 7.50 (NULL is a different value).
@pytest.mark.parametrize(
    ("aggregate", "tied"),
    [("MIN_BY(o_totalprice, o_shippriority)", "6"), ("MAX_BY(o_totalprice, o_orderdate)", "2, 6")],
)
def test_snowflake_min_by_stops_where_tied_rows_differ(engines, aggregate, tied):
    con, spark = engines
    source = f"SELECT o_custkey, {aggregate} AS v FROM SALES.ORDERS GROUP BY o_custkey"
    ansi_sql = translate(source, "snowflake").ansi_sql.replace('"raw"."orders"', '"orders"')
    with pytest.raises(duckdb.Error, match="FN-MIN-BY"):
        con.sql(render(ansi_sql, "duckdb")).fetchall()
    with pytest.raises(Exception, match="FN-MIN-BY"):
        spark.sql(render(ansi_sql, "spark")).collect()
    # without those customers it runs: the guard stops only on a group whose tied rows differ
    others = source.replace("GROUP BY", f"WHERE o_custkey NOT IN ({tied}) GROUP BY")
    on_duckdb, on_spark, ansi_sql = _run_query(engines, others, "snowflake")
    assert on_duckdb == on_spark and len(on_duckdb) == 6 - len(tied.split(",")), ansi_sql


# BigQuery's analytic PERCENTILE_CONT(x, p) of FLOAT64 prices per customer: RN = 1 + p * (N - 1)
# over the non-NULL values sorted, interpolated between the two around it (the definition
# BigQuery documents, NULLs ignored by default), the partition's value on each of its rows.
BIGQUERY_PERCENTILES = {
    "0.5": [2.5, 6.375, None, -4.1, 5.995, 1.5],
    "0.9": [7.9, 7.275, None, -4.1, 9.191, 1.9],
    "1": [10.0, 7.5, None, -4.1, 9.99, 2.0],
}


def test_bigquery_analytic_percentile_gives_each_row_its_partitions_value(engines):
    con, spark = engines
    fractions = list(BIGQUERY_PERCENTILES)
    columns = ", ".join(
        f"PERCENTILE_CONT(CAST(o_totalprice AS FLOAT64), {p}) OVER (PARTITION BY o_custkey) AS p{i}"
        for i, p in enumerate(fractions)
    )
    source = f"SELECT o_orderkey, {columns} FROM sales.orders"
    ansi_sql = translate(source, "bigquery").ansi_sql.replace('"raw"."orders"', '"orders"')
    customer = {row[0]: row[1] for row in ROWS}
    for rows in (
        con.sql(render(ansi_sql, "duckdb")).fetchall(),
        [tuple(r) for r in spark.sql(render(ansi_sql, "spark")).collect()],
    ):
        assert sorted(row[0] for row in rows) == sorted(customer), ansi_sql
        for key, *values in rows:
            for fraction, got in zip(fractions, values, strict=True):
                want = BIGQUERY_PERCENTILES[fraction][customer[key] - 1]
                if want is None:
                    assert got is None, (key, fraction, ansi_sql)
                else:
                    assert isinstance(got, float) and got == pytest.approx(want, rel=1e-15)


def _pairs(group: int) -> tuple[list[float], list[float]]:
    """(y, x) = (o_totalprice, o_shippriority) of a group's rows with neither NULL."""
    kept = [(float(p), float(s)) for _, k, p, s, _ in ROWS if k == group and None not in (p, s)]
    return [y for y, _ in kept], [x for _, x in kept]


def _expected_statistic(name: str, group: int, dialect: str) -> float | None:
    """The standard's definitions (SQL:2016 10.9), by Python's statistics module."""
    y, x = _pairs(group)
    if not y:
        return None
    if name == "COVAR_POP":
        return statistics.fmean(
            (a - statistics.fmean(y)) * (b - statistics.fmean(x)) for a, b in zip(y, x, strict=True)
        )
    if len(y) < 2:
        return None
    if name == "COVAR_SAMP":
        return statistics.covariance(y, x)
    flat_x, flat_y = len(set(x)) == 1, len(set(y)) == 1
    if name == "CORR":
        if flat_x or flat_y:
            return math.nan if dialect == "bigquery" else None
        return statistics.correlation(y, x)
    if name == "REGR_SLOPE":
        return None if flat_x else statistics.linear_regression(x, y).slope
    raise AssertionError(name)


STATISTICS = [
    ("snowflake", "CORR"),
    ("bigquery", "CORR"),
    ("snowflake", "REGR_SLOPE"),
    ("snowflake", "COVAR_POP"),
    ("bigquery", "COVAR_SAMP"),
]


@pytest.mark.parametrize(("dialect", "name"), STATISTICS)
def test_pair_statistics_follow_the_standard_and_the_source(engines, dialect, name):
    on_duckdb, on_spark, ansi_sql = _run(engines, dialect, f"{name}(o_totalprice, o_shippriority)")
    for group, (duckdb_row, spark_row) in enumerate(zip(on_duckdb, on_spark, strict=True), 1):
        expected = _expected_statistic(name, group, dialect)
        for got in (duckdb_row[1], spark_row[1]):
            if expected is None:
                assert got is None, (group, ansi_sql)
            elif math.isnan(expected):
                assert got is not None and math.isnan(got), (group, ansi_sql)
            else:
                assert got == pytest.approx(expected, rel=1e-12), (group, ansi_sql)


# BigQuery documents ANY_VALUE as skipping NULLs; Snowflake as "some value of the expression
# from the group": a group's non-NULL value is a result each allows.
@pytest.mark.parametrize("dialect", ["bigquery", "snowflake"])
def test_any_value_is_one_of_the_groups_non_null_values(engines, dialect):
    on_duckdb, on_spark, ansi_sql = _run(engines, dialect, "ANY_VALUE(o_totalprice)")
    assert on_duckdb == on_spark, ansi_sql
    for group, value in on_duckdb:
        present = {D(p) for _, k, p, _, _ in ROWS if k == group and p is not None}
        assert value in present if present else value is None, (group, ansi_sql)


def test_snowflake_any_value_over_a_partition_is_one_of_its_values(engines):
    source = (
        "SELECT o_orderkey, ANY_VALUE(o_totalprice) OVER (PARTITION BY o_custkey) AS v "
        "FROM SALES.ORDERS"
    )
    on_duckdb, on_spark, ansi_sql = _run_query(engines, source, "snowflake")
    assert on_duckdb == on_spark, ansi_sql
    group = {o: k for o, k, _, _, _ in ROWS}
    for order, value in on_duckdb:
        present = {D(p) for _, k, p, _, _ in ROWS if k == group[order] and p is not None}
        assert value in present if present else value is None, (order, ansi_sql)


@pytest.mark.parametrize(
    ("dialect", "aggregate", "rule"),
    [
        (
            "oracle",
            "SUM(o_totalprice) KEEP (DENSE_RANK FIRST ORDER BY o_orderdate)",
            "FN-KEEP-DENSE-RANK",
        ),
        ("oracle", "CORR(o_totalprice, o_shippriority)", "FN-PAIR-AGGREGATE"),
        ("teradata", "REGR_SLOPE(o_totalprice, o_shippriority)", "FN-PAIR-AGGREGATE"),
        ("bigquery", "ANY_VALUE(o_orderdate HAVING MAX o_totalprice)", "FN-ANY-VALUE"),
        # the array form, whose order among tied keys Snowflake does not fix
        ("snowflake", "MIN_BY(o_orderdate, o_totalprice, 2)", "FN-MIN-BY"),
        # -0.0 and 0.0 tie as one value, and Snowflake may return either
        ("snowflake", "MAX_BY(o_totalprice::FLOAT, o_orderdate)", "FN-MIN-BY"),
        ("snowflake", "MIN_BY(o_orderkey, NULL)", "FN-MIN-BY"),  # a key of no known order
        ("teradata", "MEDIAN(o_totalprice)", "FN-MEDIAN"),
        (
            "snowflake",
            "PERCENTILE_CONT(0.1234) WITHIN GROUP (ORDER BY o_totalprice)",
            "FN-PERCENTILE-CONT",
        ),
        (
            "redshift",
            "PERCENTILE_CONT(0.5) WITHIN GROUP (ORDER BY o_totalprice)",
            "FN-PERCENTILE-CONT",
        ),
        (
            "oracle",
            "PERCENTILE_CONT(o_totalprice) WITHIN GROUP (ORDER BY o_totalprice)",
            "FN-PERCENTILE-CONT",
        ),
        ("redshift", "MEDIAN(o_shippriority)", "FN-MEDIAN"),
    ],
)
def test_aggregates_without_an_exact_form_are_refused(dialect, aggregate, rule):
    source = f"SELECT o_custkey, {aggregate} AS v FROM {TABLES[dialect]} GROUP BY o_custkey"
    with pytest.raises(TranslationError) as raised:
        translate(source, dialect)
    assert [d.rule for d in raised.value.diagnostics] == [rule]


@pytest.mark.parametrize(
    ("dialect", "source"),
    [
        (
            "oracle",
            "SELECT MIN(o_orderdate) KEEP (DENSE_RANK LAST ORDER BY o_totalprice) OVER "
            "(PARTITION BY o_custkey ORDER BY o_orderkey) AS v FROM SALES.ORDERS",
        ),
        (
            "snowflake",
            "SELECT MEDIAN(o_totalprice) OVER (PARTITION BY o_custkey) AS v FROM SALES.ORDERS",
        ),
        (
            "snowflake",
            "SELECT PERCENTILE_CONT(0.5) WITHIN GROUP (ORDER BY o_totalprice) OVER "
            "(PARTITION BY o_custkey) AS v FROM SALES.ORDERS",
        ),
        (
            "snowflake",
            "SELECT MIN_BY(o_orderkey, o_totalprice) OVER (PARTITION BY o_custkey) AS v "
            "FROM SALES.ORDERS",
        ),
        # BigQuery's NUMERIC result rounds to its scale as it does not document; RESPECT NULLS
        (
            "bigquery",
            "SELECT PERCENTILE_CONT(o_totalprice, 0.5) OVER (PARTITION BY o_custkey) AS v "
            "FROM sales.orders",
        ),
        (
            "bigquery",
            "SELECT PERCENTILE_CONT(CAST(o_totalprice AS FLOAT64), 0.5 RESPECT NULLS) OVER () "
            "AS v FROM sales.orders",
        ),
    ],
)
def test_window_forms_without_an_exact_form_are_refused(dialect, source):
    with pytest.raises(TranslationError):
        translate(source, dialect)


# Teradata's moving functions over the rows sorted by (o_orderdate, o_orderkey), NULL dates
# first: o_orderkey 5, 1, 2, 6, 7, 11, 13, 14, 12, 3, 8, 9, 4, 10, whose prices are
# 5.25, 1.00, 2.00, NULL, 7.50, 2.00, 1.00, 2.00, 9.99, 3.00, NULL, NULL, 10.00, -4.10.
SORTED_KEYS = [5, 1, 2, 6, 7, 11, 13, 14, 12, 3, 8, 9, 4, 10]
MOVING_CASES = [
    (
        "CSUM(o_totalprice, o_orderdate, o_orderkey)",
        ["5.25", "6.25", "8.25", "8.25", "15.75", "17.75", "18.75", "20.75", "30.74", "33.74",
         "33.74", "33.74", "43.74", "39.64"],
    ),
    (
        "MSUM(o_totalprice, 3, o_orderdate, o_orderkey)",
        ["5.25", "6.25", "8.25", "3.00", "9.50", "9.50", "10.50", "5.00", "12.99", "14.99",
         "12.99", "3.00", "10.00", "5.90"],
    ),
    (
        "MDIFF(o_totalprice, 2, o_orderdate, o_orderkey)",
        [None, None, "-3.25", None, "5.50", None, "-6.50", "0.00", "8.99", "1.00", None, None,
         None, None],
    ),
    (
        "MAVG(o_totalprice, 2, o_orderdate, o_orderkey)",
        ["5.25", "3.125", "1.5", "2.00", "7.50", "4.75", "1.5", "1.5", "5.995", "6.495", "3.00",
         None, "10.00", "2.95"],
    ),
]  # fmt: skip


@pytest.mark.parametrize(("function", "expected"), MOVING_CASES)
def test_teradata_moving_functions_are_the_standards_windows(engines, function, expected):
    con, spark = engines
    source = f"SELECT o_orderkey, {function} AS v FROM SALES_DB.ORDERS"
    ansi_sql = translate(source, "teradata").ansi_sql.replace('"raw"."orders"', '"orders"')
    on_duckdb = sorted(con.sql(render(ansi_sql, "duckdb")).fetchall())
    on_spark = sorted(tuple(r) for r in spark.sql(render(ansi_sql, "spark")).collect())
    wanted = sorted(zip(SORTED_KEYS, [None if v is None else D(v) for v in expected], strict=True))
    for rows in (on_duckdb, on_spark):
        if function.startswith("MAVG"):
            # Teradata's window AVG is a FLOAT, on both engines (their sums of doubles may
            # differ in the last place: compared approximately)
            assert all(isinstance(v, float) for _, v in rows if v is not None), rows
        got = [(k, None if v is None else D(str(v))) for k, v in rows]
        assert [k for k, _ in got] == [k for k, _ in wanted], ansi_sql
        for (key, value), (_, want) in zip(got, wanted, strict=True):
            assert value == want if want is None else value == pytest.approx(want), (key, ansi_sql)


@pytest.mark.parametrize(
    "source",
    [
        "SELECT o_custkey, CSUM(o_totalprice, o_orderdate) AS v FROM SALES_DB.ORDERS "
        "GROUP BY o_custkey",
        "SELECT MSUM(o_totalprice, 0, o_orderdate) AS v FROM SALES_DB.ORDERS",
        "SELECT MAVG(o_totalprice, o_shippriority, o_orderdate) AS v FROM SALES_DB.ORDERS",
        "SELECT MLINREG(o_totalprice, 3, o_orderdate) AS v FROM SALES_DB.ORDERS",
    ],
)
def test_teradata_moving_functions_without_an_exact_form_are_refused(source):
    with pytest.raises(TranslationError) as raised:
        translate(source, "teradata")
    assert [d.rule for d in raised.value.diagnostics] == ["TD-MOVING-FUNCTION"]


# o_shippriority over its customer's sum, by o_orderkey (customer 2's sum is 7 + 8 = 15)
PRIORITY_RATIOS = {
    1: 1 / 10, 2: 2 / 10, 3: 3 / 10, 4: 4 / 10, 5: 7 / 15, 6: 8 / 15, 7: None, 8: None, 9: 1.0,
    10: 1.0, 11: 2 / 4.1, 12: 2.1 / 4.1, 13: 0.5, 14: 0.5,
}  # fmt: skip


def _ratio(key: int) -> Decimal:
    """PRIORITY_RATIOS[key] exactly, rounded half away from zero to 6 places."""
    [(custkey, share)] = [(k, s) for o, k, _, s, _ in ROWS if o == key]
    total = sum(s for _, k, _, s, _ in ROWS if k == custkey and s is not None)
    with localcontext() as context:
        context.prec = 50
        exact = Decimal(share) / Decimal(total)
        return exact.quantize(Decimal("0.000001"), rounding=ROUND_HALF_UP)


@pytest.mark.parametrize("dialect", ["oracle", "redshift", "snowflake"])
def test_ratio_to_report_is_the_share_of_the_partitions_sum(engines, dialect):
    con, spark = engines
    ratio = "RATIO_TO_REPORT(o_shippriority) OVER (PARTITION BY o_custkey)"
    if dialect == "oracle":
        # a quotient of NUMBERs, of 38 digits: exact rounded to places (DIV-ROUNDED)
        ratio = f"ROUND({ratio}, 6)"
    source = f"SELECT o_orderkey, {ratio} AS v FROM {TABLES[dialect]}"
    ansi_sql = translate(source, dialect).ansi_sql.replace('"raw"."orders"', '"orders"')
    for rows in (
        con.sql(render(ansi_sql, "duckdb")).fetchall(),
        [tuple(r) for r in spark.sql(render(ansi_sql, "spark")).collect()],
    ):
        got = dict(rows)
        assert got.keys() == PRIORITY_RATIOS.keys(), ansi_sql
        for key, want in PRIORITY_RATIOS.items():
            if want is None:
                assert got[key] is None, (key, ansi_sql)
            elif dialect == "oracle":
                assert got[key] == _ratio(key), (key, ansi_sql)
            else:
                # Snowflake divides integers to 6 decimals (DIV-INTEGER)
                want = round(want, 6) if dialect == "snowflake" else want
                assert float(got[key]) == pytest.approx(want, rel=1e-12), (key, ansi_sql)


def test_an_oracle_ratio_to_report_of_numbers_is_refused_bare():
    with pytest.raises(TranslationError) as raised:
        translate(
            "SELECT RATIO_TO_REPORT(o_shippriority) OVER (PARTITION BY o_custkey) AS v "
            "FROM SALES.ORDERS",
            "oracle",
        )
    assert [d.rule for d in raised.value.diagnostics] == ["DIV-INTEGER"]


@pytest.mark.parametrize("dialect", ["oracle", "redshift"])
def test_ratio_to_report_of_a_zero_sum_fails_where_the_source_does_not_document_it(
    engines, dialect
):
    con, spark = engines
    ratio = "RATIO_TO_REPORT(o_shippriority - 3) OVER (PARTITION BY o_custkey)"
    # customer 6's priorities are 3 and 3; Oracle's quotient of NUMBERs: rounded (DIV-ROUNDED)
    ratio = f"ROUND({ratio}, 6)" if dialect == "oracle" else ratio
    source = f"SELECT o_orderkey, {ratio} AS v FROM {TABLES[dialect]}"
    ansi_sql = translate(source, dialect).ansi_sql.replace('"raw"."orders"', '"orders"')
    with pytest.raises(duckdb.Error, match="division by zero"):
        con.sql(render(ansi_sql, "duckdb")).fetchall()
    # SQLSTATE 22012 either way (DIV-ROUNDED's MOD by the sum comes first)
    with pytest.raises(Exception, match=r"DIVIDE_BY_ZERO|REMAINDER_BY_ZERO"):
        spark.sql(render(ansi_sql, "spark")).collect()


@pytest.mark.parametrize(("dialect", "name"), [("snowflake", "REGR_SLOPE"), ("bigquery", "CORR")])
def test_pair_statistics_over_a_window_give_each_row_its_partitions_value(engines, dialect, name):
    con, spark = engines
    source = (
        f"SELECT o_orderkey, {name}(o_totalprice, o_shippriority) OVER (PARTITION BY o_custkey) "
        f"AS v FROM {TABLES[dialect]}"
    )
    ansi_sql = translate(source, dialect).ansi_sql.replace('"raw"."orders"', '"orders"')
    customer = {row[0]: row[1] for row in ROWS}
    for rows in (
        con.sql(render(ansi_sql, "duckdb")).fetchall(),
        [tuple(r) for r in spark.sql(render(ansi_sql, "spark")).collect()],
    ):
        assert sorted(k for k, _ in rows) == sorted(customer), ansi_sql
        for key, got in rows:
            expected = _expected_statistic(name, customer[key], dialect)
            if expected is None:
                assert got is None, (key, ansi_sql)
            elif math.isnan(expected):
                assert got is not None and math.isnan(got), (key, ansi_sql)
            else:
                assert got == pytest.approx(expected, rel=1e-12), (key, ansi_sql)
