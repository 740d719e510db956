"""The exact quotient builder (sql/rules/exact_division.py) on DuckDB and Spark, against
Python's decimal arithmetic."""

from __future__ import annotations

import math
import re
from dataclasses import replace
from decimal import ROUND_DOWN, ROUND_HALF_EVEN, ROUND_HALF_UP, Decimal, localcontext

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


def test_no_exact_form_where_the_quotient_has_fewer_places_than_the_operands_give():
    dividend = exp.Cast(this=exp.Literal.number("1.25"), to=exp.DataType.build("DECIMAL(5, 2)"))
    one = exp.Literal.number(1)
    assert exact_quotient(dividend, 2, one, 0, 1, "truncate", "DIV-DECIMAL", one) is None


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
    ("snowflake", "SALES.ORDERS", "o_totalprice / o_shippriority", "DIV-DECIMAL"),
    ("snowflake", "SALES.ORDERS", "AVG(o_totalprice)", "AVG-DECIMAL"),
    ("oracle", "SALES.ORDERS", "o_totalprice / 7", "DIV-DECIMAL"),
    ("oracle", "SALES.ORDERS", "AVG(o_totalprice)", "AVG-DECIMAL"),
]


@pytest.mark.parametrize(("dialect", "table", "value", "rule_id"), REFUSED)
def test_an_undocumented_rounding_is_refused_where_it_is_written(dialect, table, value, rule_id):
    with pytest.raises(TranslationError) as raised:
        translate(f"SELECT {value} AS v FROM {table}", dialect)
    [error] = [d for d in raised.value.diagnostics if d.severity == "error"]
    assert (error.rule, error.line, error.col) == (rule_id, 1, 8)
    assert "DOUBLE PRECISION" in error.message


def test_a_floating_point_operand_divides_as_before():
    ansi = translate("SELECT AVG(CAST(o_totalprice AS FLOAT)) / 2 AS v FROM dbo.Orders", "tsql")
    assert "MOD" not in ansi.ansi_sql


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
