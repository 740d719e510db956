"""The exact quotient builder (sql/rules/exact_division.py) on DuckDB and Spark, against
Python's decimal arithmetic."""

from __future__ import annotations

import itertools
import math
import random
import re
from dataclasses import replace
from decimal import ROUND_DOWN, ROUND_HALF_EVEN, ROUND_HALF_UP, ROUND_UP, Decimal, localcontext

import pytest
from sqlglot import exp

from sql.ansi import Ansi
from sql.assumptions import Assumptions
from sql.diagnostics import TranslationError
from sql.render import render
from sql.rules.exact_division import exact_quotient
from sql.translate import Translation, translate, translate_script
from tests.sql.engine_tables import imported_catalog, rows_on_engines

MODES = {"truncate": ROUND_DOWN, "half_away": ROUND_HALF_UP, "half_even": ROUND_HALF_EVEN}
# (dividend, its DECIMAL type, divisor, its type, result scale)
CASES = [
    ("1.00", (5, 2), "3.00", (5, 2), 2),
    ("2.00", (5, 2), "3.00", (5, 2), 2),
    ("-2.00", (5, 2), "3.00", (5, 2), 2),
    ("0.25", (5, 2), "10", (5, 0), 2),  # 0.025: a halfway value
    ("-0.35", (5, 2), "10", (5, 0), 2),  # -0.035
    ("0.45", (5, 2), "-10", (5, 0), 2),
    ("7", (10, 0), "2", (10, 0), 0),
    ("-7", (10, 0), "2", (10, 0), 0),
    ("5", (10, 0), "2", (10, 0), 0),
    ("1.5", (10, 1), "0.7", (3, 1), 6),
    # sums far beyond 2^53 units: DuckDB's DOUBLE first try is corrected
    ("123456789012345678901.23", (30, 2), "7", (10, 0), 6),
    ("-98765432109876543210.99", (30, 2), "13", (10, 0), 6),
    ("99999999999999.99", (20, 2), "0.03", (5, 2), 9),
]


def _expected(a: str, b: str, scale: int, mode: str) -> Decimal:
    with localcontext() as context:
        context.prec = 80
        exact = Decimal(a) / Decimal(b)
        return exact.quantize(Decimal(1).scaleb(-scale), rounding=MODES[mode])


def test_the_quotient_is_the_exact_one_rounded_on_both_engines(spark_engine):
    # every case in every rounding, as the columns of one query per engine
    columns, expected, scales = [], [], []
    for mode in sorted(MODES):
        # the even-digit rounding, the most involved, on every case; the others on the
        # halfway, negative and large ones (Spark plans each column for a while)
        cases = CASES if mode == "half_even" else [CASES[i] for i in (2, 3, 4, 5, 8, 11)]
        for a, a_type, b, b_type, scale in cases:
            dividend = exp.Cast(
                this=exp.Literal.number(a), to=exp.DataType.build(f"DECIMAL{a_type}")
            )
            divisor = exp.Cast(
                this=exp.Literal.number(b), to=exp.DataType.build(f"DECIMAL{b_type}")
            )
            quotient = exact_quotient(
                dividend, a_type[1], divisor, b_type[1], scale, mode, "DIV-DECIMAL", dividend
            )
            assert quotient is not None
            columns.append(exp.alias_(quotient, f"c{len(columns)}"))
            expected.append(_expected(a, b, scale, mode))
            scales.append(-scale)
    sql = exp.select(*columns).sql(dialect=Ansi)
    on_duckdb, on_spark = rows_on_engines(spark_engine.session(), sql)
    assert list(on_duckdb[0]) == list(on_spark[0]) == expected
    # and of the type the source gives: DECIMAL(38, scale)
    assert [value.as_tuple().exponent for value in on_spark[0]] == scales


def test_a_quotient_with_fewer_places_than_the_dividend_scales_the_divisor_up():
    # 1.25 / 1 to 1 place: 125 / 10 in whole units (Oracle's ROUND(d / e, 1), DIV-ROUNDED);
    # its value on the engines: test_oracle_rounds_quotients_and_averages_exactly
    dividend = exp.Cast(this=exp.Literal.number("1.25"), to=exp.DataType.build("DECIMAL(5, 2)"))
    one = exp.Literal.number(1)
    quotient = exact_quotient(dividend, 2, one, 0, 1, "truncate", "DIV-ROUNDED", one)
    assert quotient is not None
    assert "CAST(CAST(1 AS DECIMAL(35, 0)) * 10 AS DECIMAL(38, 0))" in quotient.sql(dialect=Ansi)
    assert exact_quotient(dividend, 2, one, 0, -1, "truncate", "DIV-ROUNDED", one) is None


# DIV-DECIMAL and AVG-DECIMAL: the source's quotient and average, or a located refusal.
DDL = "CREATE TABLE sales.amounts (k INTEGER, d DECIMAL(8,2), e DECIMAL(5,3));"
AMOUNTS = [(1, "0.25", "3.000"), (2, "0.35", "-0.700"), (3, "-1.00", "0.003"), (4, "1.25", "4.000")]


@pytest.fixture(scope="module")
def teradata_catalog(tmp_path_factory):
    return imported_catalog(tmp_path_factory.mktemp("quotients"), "teradata", DDL)


def _teradata(sql: str, catalog, **settings) -> Translation:
    [table] = translate_script(
        sql,
        "teradata",
        file="q.sql",
        catalog=catalog,
        assumptions=replace(Assumptions(), **settings),
    ).tables
    return table


def _amounts() -> str:
    values = ", ".join(
        f"({k}, CAST({d} AS DECIMAL(8, 2)), CAST({e} AS DECIMAL(5, 3)))" for k, d, e in AMOUNTS
    )
    return f"SELECT * FROM (VALUES {values}) AS t(k, d, e)"


@pytest.mark.parametrize(("setting", "mode"), [("FALSE", "half_even"), ("TRUE", "half_away")])
def test_teradata_divides_decimals_to_the_larger_scale_rounded_by_its_setting(
    teradata_catalog, spark_engine, setting, mode
):
    # "DECIMAL Result Data Type": DECIMAL(m,n) / DECIMAL(k,j) is DECIMAL(p, max(n,j)); an
    # integer is a DECIMAL of scale 0. 0.25 / 10 is .025, halfway: .02 or .03 by the setting.
    table = _teradata(
        "SELECT k, d / 10 AS a, d / e AS b FROM sales.amounts",
        teradata_catalog,
        teradata_round_halfway_mag_up=setting,
    )
    assert "DIV-DECIMAL" in table.rules_applied
    assert ("teradata_round_halfway_mag_up", setting) in table.assumed
    assert not [d for d in table.diagnostics if d.rule == "PORTABLE-TYPE"]
    on_duckdb, on_spark = rows_on_engines(
        spark_engine.session(), table.ansi_sql, amounts=_amounts()
    )
    expected = [(k, _expected(d, "10", 2, mode), _expected(d, e, 3, mode)) for k, d, e in AMOUNTS]
    assert on_duckdb == on_spark == expected
    assert expected[0][1] == Decimal("0.02" if setting == "FALSE" else "0.03")
    assert expected[3][2] == Decimal("0.312" if setting == "FALSE" else "0.313")  # .3125
    assert [v.as_tuple().exponent for v in on_spark[0][1:]] == [-2, -3]


def test_teradata_averages_exact_numbers_as_its_real(teradata_catalog, spark_engine):
    # AVG's "Data Type: REAL", Teradata's 64-bit float; DISTINCT of a DECIMAL(8,2) too, whose
    # distinct values are distinct doubles.
    table = _teradata(
        "SELECT AVG(d) AS a, AVG(k) AS n, AVG(DISTINCT d) AS u FROM sales.amounts", teradata_catalog
    )
    assert table.ansi_sql.count("AS DOUBLE PRECISION)") == 3
    on_duckdb, on_spark = rows_on_engines(
        spark_engine.session(), table.ansi_sql, amounts=_amounts()
    )
    # A sum of binary floats depends on the order the engine adds them in (here DuckDB's
    # .2125 and Spark's .21250000000000002), as Teradata's sum of REALs does.
    mean = float(sum(Decimal(d) for _, d, _ in AMOUNTS) / len(AMOUNTS))
    for rows in (on_duckdb, on_spark):
        [(average, count_average, distinct)] = rows
        assert count_average == 2.5
        assert math.isclose(average, mean, rel_tol=1e-15)
        assert math.isclose(distinct, mean, rel_tol=1e-15)


REFUSED = [
    ("tsql", "dbo.Orders", "o_totalprice / 3", "DIV-DECIMAL"),
    ("tsql", "dbo.Orders", "AVG(o_totalprice)", "AVG-DECIMAL"),
    ("redshift", "sales.orders", "o_totalprice / o_shippriority", "DIV-DECIMAL"),
    ("redshift", "sales.orders", "AVG(o_totalprice)", "AVG-DECIMAL"),
    ("bigquery", "sales.orders", "o_totalprice / 2", "DIV-DECIMAL"),
    ("bigquery", "sales.orders", "SAFE_DIVIDE(o_totalprice, 2)", "FN-SAFE-DIVIDE"),
    ("bigquery", "sales.orders", "AVG(o_totalprice)", "AVG-DECIMAL"),
    ("snowflake", "SALES.ORDERS", "AVG(o_totalprice)", "AVG-DECIMAL"),
    ("oracle", "SALES.ORDERS", "o_totalprice / 7", "DIV-DECIMAL"),
    ("oracle", "SALES.ORDERS", "AVG(o_totalprice)", "AVG-DECIMAL"),
    # A number with a decimal point is an exact literal in T-SQL ("Constants": decimal
    # constants), Redshift (read so) and Oracle (NUMBER): not a DOUBLE division.
    ("tsql", "dbo.Orders", "o_custkey / 1.5", "DIV-DECIMAL"),
    ("tsql", "dbo.Orders", "AVG(o_custkey * 0.5)", "AVG-DECIMAL"),
    ("redshift", "sales.orders", "o_custkey / 1.5", "DIV-DECIMAL"),
    ("oracle", "SALES.ORDERS", "o_custkey / 1.5", "DIV-DECIMAL"),
]


@pytest.mark.parametrize(("dialect", "table", "value", "rule_id"), REFUSED)
def test_an_undocumented_rounding_is_refused_where_it_is_written(dialect, table, value, rule_id):
    with pytest.raises(TranslationError) as raised:
        translate(f"SELECT {value} AS v FROM {table}", dialect)
    [error] = [d for d in raised.value.diagnostics if d.severity == "error"]
    assert (error.rule, error.line, error.col) == (rule_id, 1, 8)
    # Oracle's DOUBLE PRECISION is a decimal FLOAT(126): its binary type is BINARY_DOUBLE
    assert ("BINARY_DOUBLE" if dialect == "oracle" else "DOUBLE PRECISION") in error.message


def test_a_floating_point_operand_divides_as_before():
    ansi = translate("SELECT AVG(CAST(o_totalprice AS FLOAT)) / 2 AS v FROM dbo.Orders", "tsql")
    assert "MOD" not in ansi.ansi_sql
    # T-SQL's and Teradata's constants in scientific notation are floats ("Constants").
    for dialect, table in (("tsql", "dbo.Orders"), ("teradata", "SALES_DB.ORDERS")):
        ansi = translate(f"SELECT o_custkey / 1.5E0 AS v FROM {table}", dialect)
        assert "MOD" not in ansi.ansi_sql, dialect


def test_a_decimal_literal_divides_exactly_where_the_source_documents_it(
    teradata_catalog, oracle_catalog, spark_engine
):
    # Teradata's 1.5 is a DECIMAL(2,1) ("Decimal literals"): k / 1.5 is DECIMAL(38, 1),
    # halves to the even digit; Oracle's ROUND(k / 1.5, 2) the exact quotient's rounding.
    table = _teradata("SELECT k, k / 1.5 AS q FROM sales.amounts", teradata_catalog)
    assert "DIV-DECIMAL" in table.rules_applied
    on_duckdb, on_spark = rows_on_engines(
        spark_engine.session(), table.ansi_sql, amounts=_amounts()
    )
    assert (
        on_duckdb
        == on_spark
        == [(k, _expected(str(k), "1.5", 1, "half_even")) for k, _, _ in AMOUNTS]
    )
    rows = _oracle(
        "SELECT k, ROUND(k / 1.5, 2) AS q FROM sales.amounts", oracle_catalog, spark_engine
    )
    with localcontext() as context:
        context.prec = 80
        assert rows == [(k, _round(Decimal(k) / Decimal("1.5"), 2)) for k, _, _ in AMOUNTS]
    assert [q for _, q in rows] == [Decimal(v) for v in ("0.67", "1.33", "2.00", "2.67")]


# AVG-INTEGER and DIV-INTEGER: integer quotients, truncated toward zero, exact beyond 2^53.
COUNTS_DDL = "CREATE TABLE dbo.counts (k INT, n INT, b BIGINT);"
COUNTS = (
    "SELECT * FROM (VALUES (1, -7, CAST(9007199254740993 AS BIGINT)), "
    "(1, 0, CAST(9007199254740995 AS BIGINT)), (2, 5, CAST(-5 AS BIGINT)), "
    "(2, 6, CAST(-6 AS BIGINT)), (2, 6, CAST(NULL AS BIGINT))) AS t(k, n, b)"
)


@pytest.fixture(scope="module")
def counts_catalogs(tmp_path_factory):
    folder = tmp_path_factory.mktemp("counts")
    return {
        dialect: imported_catalog(folder, dialect, COUNTS_DDL.replace("dbo.", schema))
        for dialect, schema in (("tsql", "dbo."), ("redshift", "sales."))
    }


@pytest.mark.parametrize(
    ("dialect", "table"), [("tsql", "dbo.counts"), ("redshift", "sales.counts")]
)
def test_integer_averages_and_quotients_truncate_exactly_in_the_sources_type(
    counts_catalogs, spark_engine, dialect, table
):
    [translation] = translate_script(
        f"SELECT k, AVG(n) AS a, AVG(b) AS w, b / 3 AS q FROM {table} GROUP BY k, b",
        dialect,
        file="q.sql",
        catalog=counts_catalogs[dialect],
    ).tables
    # T-SQL: AVG of an int is an int; Redshift: BIGINT for any integer
    result_type = "INTEGER" if dialect == "tsql" else "BIGINT"
    assert re.search(rf'AS {result_type}\)\s+END AS "a"', translation.ansi_sql)
    on_duckdb, on_spark = rows_on_engines(
        spark_engine.session(), translation.ansi_sql, counts=COUNTS
    )
    big = 9007199254740993  # 2^53 + 1: no DOUBLE holds it
    expected = [
        (1, -7, big, big // 3),
        (1, 0, big + 2, (big + 2) // 3),
        (2, 6, None, None),
        (2, 5, -5, -1),
        (2, 6, -6, -2),
    ]
    assert on_duckdb == on_spark == sorted(expected, key=repr)


def test_a_tsql_int_average_whose_sum_overflows_an_int_stops_as_sql_server_does(
    counts_catalogs, spark_engine
):
    [translation] = translate_script(
        "SELECT AVG(n) AS a FROM dbo.counts", "tsql", file="q.sql", catalog=counts_catalogs["tsql"]
    ).tables
    rows = "SELECT * FROM (VALUES (1, 2000000000, CAST(1 AS BIGINT)), (1, 2000000000, CAST(1 AS BIGINT))) AS t(k, n, b)"
    for engine in ("duckdb", "spark"):
        with pytest.raises(Exception, match="AVG-INTEGER: arithmetic overflow"):
            if engine == "duckdb":
                rows_on_engines(spark_engine.session(), translation.ansi_sql, counts=rows)
            else:
                sql = translation.ansi_sql.replace(
                    '"raw"."counts" AS "counts"', f"({rows}) AS counts"
                )
                spark_engine.session().sql(render(sql, "spark")).collect()


# DIV-ROUNDED: Oracle's quotients and averages of NUMBERs are decimal floating point of 38
# digits; bare, refused where written; ROUND or TRUNC of them to n places, exact.
ORACLE_REFUSED = [
    ("o_shippriority / 3", "DIV-INTEGER", 8),
    ("AVG(o_shippriority)", "AVG-DECIMAL", 8),
    ("AVG(o_shippriority) OVER ()", "AVG-DECIMAL", 8),
    ("ROUND(o_shippriority / 3 * 50, 2)", "DIV-INTEGER", 14),  # times other than 10^k
    ("ROUND(o_totalprice / 3, -1)", "DIV-DECIMAL", 14),  # places left of the point
    ("ROUND(o_totalprice / 3, o_shippriority)", "DIV-DECIMAL", 14),  # computed places
    ("ROUND(AVG(o_totalprice), 37)", "AVG-DECIMAL", 14),  # more places than Spark keeps
]


@pytest.mark.parametrize(("value", "rule_id", "col"), ORACLE_REFUSED)
def test_a_bare_oracle_quotient_or_average_of_numbers_is_refused_where_written(value, rule_id, col):
    with pytest.raises(TranslationError) as raised:
        translate(f"SELECT {value} AS v FROM SALES.ORDERS", "oracle")
    errors = {(d.rule, d.line, d.col) for d in raised.value.diagnostics if d.severity == "error"}
    assert (rule_id, 1, col) in errors
    [message] = [d.message for d in raised.value.diagnostics if d.rule == rule_id]
    assert "38 significant digits" in message and "BINARY_DOUBLE" in message


def test_a_binary_double_operand_divides_and_averages_in_binary_as_oracle_does():
    ansi = translate(
        "SELECT o_shippriority / CAST(3 AS BINARY_DOUBLE) AS q, "
        "AVG(CAST(o_shippriority AS BINARY_DOUBLE)) AS a FROM SALES.ORDERS GROUP BY o_custkey",
        "oracle",
    )
    assert "MOD" not in ansi.ansi_sql and "DIV-ROUNDED" not in ansi.rules_applied


ORACLE_DDL = "CREATE TABLE sales.amounts (k NUMBER(10), d NUMBER(8,2), e NUMBER(5,3));"


@pytest.fixture(scope="module")
def oracle_catalog(tmp_path_factory):
    return imported_catalog(tmp_path_factory.mktemp("oracle"), "oracle", ORACLE_DDL)


def _round(value: Decimal, places: int, mode: str = "half_away") -> Decimal:
    with localcontext() as context:
        context.prec = 80
        return value.quantize(Decimal(1).scaleb(-places), rounding=MODES[mode])


def test_oracle_rounds_quotients_and_averages_exactly(oracle_catalog, spark_engine):
    # ROUND of a NUMBER: "If n is negative, then ROUND(n, integer) returns -ROUND(-n,
    # integer). If n is positive, then ROUND(n, integer) = FLOOR(n * POWER(10, integer) +
    # 0.5) * POWER(10, -integer)": halves away from zero; TRUNC toward zero.
    rows = _oracle(
        "SELECT k, ROUND(d / 10, 2) AS h, TRUNC(d / e, 1) AS t, ROUND(d / 3, 1) AS f, "
        "ROUND(k / 8, 2) AS i, ROUND(k / 3 * 100, 2) AS p, TRUNC(1000 * (d / e), 1) AS m "
        "FROM sales.amounts",
        oracle_catalog,
        spark_engine,
    )
    with localcontext() as context:
        context.prec = 80
        expected = [
            (
                k,
                _round(Decimal(d) / 10, 2),
                _round(Decimal(d) / Decimal(e), 1, "truncate"),
                _round(Decimal(d) / 3, 1),
                _round(Decimal(k) / 8, 2),
                # A quotient times a power of ten: Oracle's 38 digits with the point moved.
                _round(Decimal(k) * 100 / 3, 2),
                _round(Decimal(d) * 1000 / Decimal(e), 1, "truncate"),
            )
            for k, d, e in AMOUNTS
        ]
    assert rows == expected
    # .025 -> .03, -.035 -> -.04 (away from zero), -333.33 -> -333.3, .125 -> .13
    assert [r[1] for r in rows] == [Decimal(v) for v in ("0.03", "0.04", "-0.10", "0.13")]
    assert rows[2][2] == Decimal("-333.3") and rows[0][4] == Decimal("0.13")
    assert rows[0][5] == Decimal("33.33") and rows[1][5] == Decimal("66.67")


def test_oracle_rounds_averages_of_numbers_exactly(oracle_catalog, spark_engine):
    [row] = _oracle(
        "SELECT ROUND(AVG(d), 3) AS a, ROUND(AVG(k)) AS k, TRUNC(AVG(e), 2) AS t, "
        "ROUND(AVG(DISTINCT e), 4) AS u, ROUND(SUM(d) / COUNT(*), 4) AS r, "
        "ROUND(AVG(d) * 10, 2) AS p FROM sales.amounts",
        oracle_catalog,
        spark_engine,
    )
    # .85 / 4 = .2125 -> .213 (half away from zero; to even: .212); 2.5 -> 3; 6.303 / 4 =
    # 1.57575 -> 1.57 truncated, 1.5758 rounded; 2.125 -> 2.13
    assert row == tuple(Decimal(v) for v in ("0.213", "3", "1.57", "1.5758", "0.2125", "2.13"))
    empty = _oracle(
        "SELECT ROUND(AVG(d), 3) AS a FROM sales.amounts WHERE k > 9", oracle_catalog, spark_engine
    )
    assert empty == [(None,)]


def test_oracle_rounds_window_averages_of_numbers_exactly(oracle_catalog, spark_engine):
    # AVG(d) OVER w is SUM(d) OVER w / COUNT(d) OVER w, over the same window.
    rows = _oracle(
        "SELECT k, ROUND(AVG(d) OVER (ORDER BY k ROWS BETWEEN 1 PRECEDING AND CURRENT ROW), 2) "
        "AS m, ROUND(AVG(e) OVER (PARTITION BY MOD(k, 2)) * 100, 1) AS p FROM sales.amounts",
        oracle_catalog,
        spark_engine,
    )
    ds = [Decimal(d) for _, d, _ in AMOUNTS]
    es = [Decimal(e) for _, _, e in AMOUNTS]
    with localcontext() as context:
        context.prec = 80
        expected = [
            (
                k,
                _round(sum(ds[max(0, i - 1) : i + 1]) / len(ds[max(0, i - 1) : i + 1]), 2),
                _round(sum(es[j] for j in range(4) if j % 2 == i % 2) * 100 / 2, 1),
            )
            for i, (k, _, _) in enumerate(AMOUNTS)
        ]
    assert sorted(rows) == expected
    # (.25 + .35) / 2 = .30; (1.25 - 1.00) / 2 = .125 -> .13 (away from zero)
    assert [r[1] for r in sorted(rows)] == [Decimal(v) for v in ("0.25", "0.30", "-0.33", "0.13")]


def _oracle(sql: str, catalog, spark_engine) -> list:
    [table] = translate_script(sql, "oracle", file="q.sql", catalog=catalog).tables
    assert "DIV-ROUNDED" in table.rules_applied
    assert not [d for d in table.diagnostics if d.severity == "error"]
    on_duckdb, on_spark = rows_on_engines(
        spark_engine.session(), table.ansi_sql, amounts=_amounts()
    )
    assert on_duckdb == on_spark
    return on_spark


FIRST_ROUNDINGS = (ROUND_HALF_EVEN, ROUND_HALF_UP, ROUND_DOWN, ROUND_UP)


def _oracle_then_rounded(
    n: int, d: int, digits: int, truncate: bool, first: str = ROUND_HALF_EVEN
) -> Decimal:
    """Oracle's ROUND (TRUNC) to 0 places of n / d, its quotient first rounded to ``digits``
    significant digits (as ``first`` says: how Oracle does is not documented)."""
    with localcontext() as context:
        context.prec = digits
        context.rounding = first
        quotient = Decimal(n) / Decimal(d)
    return _round(quotient, 0, "truncate" if truncate else "half_away")


def _exactly_rounded(n: int, d: int, truncate: bool) -> Decimal:
    with localcontext() as context:
        context.prec = 100
        return _round(Decimal(n) / Decimal(d), 0, "truncate" if truncate else "half_away")


def test_rounding_oracles_38_digit_quotient_gives_the_exact_quotients_rounding():
    # DIV-ROUNDED's argument (sql/rules/division.py rounded_quotient): a quotient N / D in
    # units of the place after the last kept, |N| < 10^37, is never within a unit of its 38th
    # digit of a boundary H (a half, a whole) unless it is H. The nearest quotients to every
    # kind of boundary, over divisors up to the bound, in 38 and 40 digits:
    rng = random.Random(7)
    checked = 0
    for _ in range(300):
        d = rng.randrange(3, 10 ** rng.randrange(2, 37))
        tens = (10**37 - 2) // d // 10 - 1  # boundaries h = 10 * j + 5 (a half) or 10 * j + 10
        if tens < 1:
            continue
        j = rng.randrange(0, tens)
        for h, truncate in ((10 * j + 5, False), (10 * j + 10, True)):
            for n in (h * d - 1, h * d, h * d + 1, -(h * d - 1), -(h * d + 1)):
                assert abs(n) < 10**37
                exact = _exactly_rounded(n, 10 * d, truncate)
                for digits, first in itertools.product((38, 40), FIRST_ROUNDINGS):
                    rounded = _oracle_then_rounded(n, 10 * d, digits, truncate, first)
                    assert rounded == exact, (n, d, digits, first)
                    checked += 1
    assert checked > 6000
    # Beyond the bound the 38 digits decide, as the digits Oracle keeps do (38 to 40): 49.5
    # less 1 / (2 * 10^36 + 2) is 49 exactly, 50 from 38 digits, 49 from 40. exact_quotient
    # keeps the dividend under 10^36, so such a quotient stops the statement.
    b = 10**36 + 1
    a = 99 * b - 1
    assert _exactly_rounded(a, 2 * b, False) == 49
    assert _oracle_then_rounded(a, 2 * b, 38, False) == 50
    assert _oracle_then_rounded(a, 2 * b, 40, False) == 49


# Snowflake: a quotient of NUMBERs (integers and literals like 1.5 included) has scale
# max(s1, min(s1 + 6, 12)), its last digit rounded half away from zero ("Arithmetic
# operators"; BCR-1400: "consistent with the results from using the division operator").
SNOWFLAKE_DDL = (
    "CREATE TABLE sales.amounts (k INTEGER, n INTEGER, b INTEGER, d NUMBER(8,2), e NUMBER(5,3));"
)
BIG = 2**53 + 1  # no DOUBLE holds it
SNOWFLAKE_AMOUNTS = [
    (1, 1, 128, "0.25", "3.000"),  # 1/128 = .0078125, .25/128 = .001953125: halfway
    (2, -1, 128, "-0.35", "-0.700"),  # -.0078125, -.002734375: halfway, away from zero
    (3, BIG, 7, "-1.00", "0.003"),
    (4, -BIG - 2, -3, "1.25", "4.000"),
    (5, 2, 3, "999999.99", "0.001"),
]


@pytest.fixture(scope="module")
def snowflake_catalog(tmp_path_factory):
    return imported_catalog(tmp_path_factory.mktemp("snowflake"), "snowflake", SNOWFLAKE_DDL)


def _snowflake_amounts(rows) -> str:
    values = ", ".join(
        f"({k}, CAST({n} AS DECIMAL(38, 0)), CAST({b} AS DECIMAL(38, 0)), "
        f"CAST({d} AS DECIMAL(8, 2)), "
        f"CAST({e} AS DECIMAL(5, 3)))"
        for k, n, b, d, e in rows
    )
    return f"SELECT * FROM (VALUES {values}) AS t(k, n, b, d, e)"


def _snowflake(sql: str, catalog) -> Translation:
    [table] = translate_script(sql, "snowflake", file="q.sql", catalog=catalog).tables
    return table


def test_snowflake_divides_numbers_exactly_to_its_documented_scale(snowflake_catalog, spark_engine):
    table = _snowflake(
        "SELECT k, n / b AS i, d / b AS m, d / e AS r, d / 1.5 AS l, n / 1.5 AS j "
        "FROM sales.amounts",
        snowflake_catalog,
    )
    # Snowflake's INTEGER is NUMBER(38, 0) (the catalog's DECIMAL(38, 0)): DIV-DECIMAL's
    assert "DIV-DECIMAL" in table.rules_applied
    assert "DOUBLE" not in table.ansi_sql
    assert not [d for d in table.diagnostics if d.rule == "PORTABLE-TYPE"]
    on_duckdb, on_spark = rows_on_engines(
        spark_engine.session(),
        table.ansi_sql,
        amounts=_snowflake_amounts(SNOWFLAKE_AMOUNTS),
    )
    expected = [
        (
            k,
            _expected(str(n), str(b), 6, "half_away"),
            _expected(d, str(b), 8, "half_away"),
            _expected(d, e, 8, "half_away"),
            _expected(d, "1.5", 8, "half_away"),
            _expected(str(n), "1.5", 6, "half_away"),
        )
        for k, n, b, d, e in SNOWFLAKE_AMOUNTS
    ]
    assert on_duckdb == on_spark == expected
    assert [row[1] for row in expected[:2]] == [Decimal("0.007813"), Decimal("-0.007813")]
    assert [row[2] for row in expected[:2]] == [Decimal("0.00195313"), Decimal("-0.00273438")]
    assert [v.as_tuple().exponent for v in on_spark[0][1:]] == [-6, -8, -8, -8, -6]


def test_a_snowflake_division_by_zero_stops_on_both_engines(snowflake_catalog, spark_engine):
    # Snowflake raises "Division by zero" (DIV0 is the function that gives 0 instead)
    table = _snowflake("SELECT n / b AS i, d / e AS r FROM sales.amounts", snowflake_catalog)
    for zero in ([(1, 1, 0, "1.00", "1.000")], [(1, 1, 1, "1.00", "0.000")]):
        rows = _snowflake_amounts(zero)
        # DuckDB: "Division by zero"; Spark: REMAINDER_BY_ZERO (SQLSTATE 22012)
        with pytest.raises(Exception, match=r"(?i)by zero"):
            rows_on_engines(spark_engine.session(), table.ansi_sql, amounts=rows)
        sql = table.ansi_sql.replace('"raw"."amounts" AS "amounts"', f"({rows}) AS amounts")
        with pytest.raises(Exception, match=r"(?i)by zero"):
            spark_engine.session().sql(render(sql, "spark")).collect()


def test_snowflake_div0_is_zero_where_the_quotient_would_stop(snowflake_catalog, spark_engine):
    # BCR-1400: "DIV0 and DIV0NULL round the output half away from zero. This is consistent
    # with the results from using the division operator (/)": DIV0(5, 9) is 0.555556.
    table = _snowflake(
        "SELECT k, DIV0(n, b) AS z, DIV0NULL(d, e) AS y FROM sales.amounts", snowflake_catalog
    )
    rows = _snowflake_amounts([(1, 5, 0, "1.00", "0.000"), (2, 5, 9, "1.00", "NULL")])
    on_duckdb, on_spark = rows_on_engines(spark_engine.session(), table.ansi_sql, amounts=rows)
    assert on_duckdb == on_spark == [(1, 0, 0), (2, Decimal("0.555556"), 0)]
    assert [v.as_tuple().exponent for v in on_spark[1][1:]] == [-6, -8]


SNOWFLAKE_REFUSED = [
    # AVG of a NUMBER, integers included: its scale is not documented
    ("AVG(o_shippriority)", "AVG-DECIMAL", 8, "SUM(x) / COUNT(x)"),
    ("AVG(o_totalprice * 1.5) OVER ()", "AVG-DECIMAL", 8, "SUM(x) / COUNT(x)"),
    # a literal with an exponent: NUMBER or FLOAT, the pages found do not say
    ("AVG(o_shippriority * 1.5e0)", "AVG-DECIMAL", 8, "CAST"),
    # 12 places of operands of scale 12: beyond Spark's 38 digits (located at the dividend)
    (
        "CAST(o_totalprice AS NUMBER(30, 12)) / CAST(o_shippriority AS NUMBER(30, 12))",
        "DIV-DECIMAL",
        13,
        "fewer digits",
    ),
]


@pytest.mark.parametrize(("value", "rule_id", "col", "advice"), SNOWFLAKE_REFUSED)
def test_snowflake_averages_and_unworkable_quotients_are_refused_where_written(
    value, rule_id, col, advice
):
    with pytest.raises(TranslationError) as raised:
        translate(f"SELECT {value} AS v FROM SALES.ORDERS", "snowflake")
    [error] = [d for d in raised.value.diagnostics if d.severity == "error"]
    assert (error.rule, error.line, error.col) == (rule_id, 1, col)
    assert advice in error.message


def test_a_snowflake_float_operand_divides_in_floating_point():
    ansi = translate(
        "SELECT o_shippriority / CAST(1.5e0 AS FLOAT) AS f, o_totalprice / CAST(2 AS FLOAT) AS g, "
        "AVG(CAST(o_shippriority AS FLOAT)) AS a FROM SALES.ORDERS",
        "snowflake",
    )
    assert "MOD" not in ansi.ansi_sql


def test_a_snowflake_literal_with_an_exponent_is_refused_in_a_quotient():
    # its type (NUMBER or FLOAT) is not on the pages found: the quotient's value depends on it
    with pytest.raises(TranslationError) as raised:
        translate("SELECT o_shippriority / 1.5e0 AS v FROM SALES.ORDERS", "snowflake")
    [error] = [d for d in raised.value.diagnostics if d.severity == "error"]
    assert (error.rule, error.line, error.col) == ("DIV-INTEGER", 1, 8)
    assert "CAST" in error.message
