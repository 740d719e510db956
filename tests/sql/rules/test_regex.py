"""Regular-expression predicates: the source's matches, on DuckDB (RE2) and Spark (Java)."""

from __future__ import annotations

import pytest

from sql.diagnostics import TranslationError
from sql.render import render
from sql.rules.regex import PatternError, translate_pattern
from sql.translate import translate
from tests.sql.engine_tables import engine_tables, rows_on_engines

NAMES = [
    "Customer#01",
    "customer#01",
    "Cust#7",
    "x\nCustomer#01",
    "Customer#01\n",
    "a.b",
    "a\nb",
    "",
    None,
]

# (dialect, predicate on c_name, the names it matches under the source's own rules)
CASES = [
    # Snowflake matches the whole string
    ("snowflake", "REGEXP_LIKE(c_name, 'Cust(omer)?#\\\\d+')", ["Cust#7", "Customer#01"]),
    ("snowflake", "c_name RLIKE 'a.b'", ["a.b"]),  # `.` is not a newline
    # BigQuery: a match anywhere; `$` is the end of the string, not before a final newline
    (
        "bigquery",
        "REGEXP_CONTAINS(c_name, r'#01$')",
        ["Customer#01", "customer#01", "x\nCustomer#01"],
    ),
    # POSIX classes are ASCII in RE2; a lazy quantifier matches the same strings
    (
        "bigquery",
        "REGEXP_CONTAINS(c_name, r'^[[:upper:]]')",
        ["Cust#7", "Customer#01", "Customer#01\n"],
    ),
    (
        "bigquery",
        "REGEXP_CONTAINS(c_name, r'^C[a-z]*?#')",
        ["Cust#7", "Customer#01", "Customer#01\n"],
    ),
    # Oracle: a match anywhere, `.` excludes the newline, \d is ASCII
    ("oracle", "REGEXP_LIKE(c_name, '^[A-Z][^#]+#[0-9]{2}$')", ["Customer#01"]),
    # Redshift (PostgreSQL): `.` matches a newline
    ("redshift", "c_name ~ 'a.b'", ["a\nb", "a.b"]),
]


@pytest.fixture(scope="module")
def tables(spark_engine):
    values = ", ".join(
        "(NULL)" if n is None else "('" + n.replace("\n", "' || CHR(10) || '") + "')" for n in NAMES
    )
    rows = f"SELECT * FROM (VALUES {values}) AS t(c_name)"
    usages = ", ".join(
        f"({key}, NULL)"
        if text is None
        else f"({key}, '" + text.replace("\n", "' || CHR(10) || '") + "')"
        for key, (text, _) in enumerate(SPANS)
    )
    usage_rows = f"SELECT * FROM (VALUES {usages}) AS t(c_custkey, c_name)"
    with engine_tables(spark_engine, customer=rows, usages=usage_rows) as engines:
        yield engines


SCHEMAS = {
    "snowflake": "SALES.CUSTOMER",
    "bigquery": "sales.customer",
    "oracle": "SALES.CUSTOMER",
    "redshift": "sales.customer",
}


@pytest.mark.parametrize(("dialect", "predicate", "expected"), CASES)
def test_regex_predicates_match_what_the_source_matches_on_both_engines(
    tables, dialect, predicate, expected
):
    con, spark = tables
    source = f"SELECT c_name FROM {SCHEMAS[dialect]} WHERE {predicate}"
    ansi_sql = translate(source, dialect).ansi_sql
    assert "LIKE_REGEX" in ansi_sql
    ansi_sql = ansi_sql.replace('"raw"."customer"', '"customer"')
    on_duckdb = sorted(r[0] for r in con.sql(render(ansi_sql, "duckdb")).fetchall())
    on_spark = sorted(r[0] for r in spark.sql(render(ansi_sql, "spark")).collect())
    assert on_duckdb == on_spark == sorted(expected), ansi_sql


@pytest.mark.parametrize(
    ("pattern", "flavour", "element"),
    [
        ("(a)\\1", "re2", "\\1"),
        ("(?=a)", "re2", "(?="),
        ("\\bword", "re2", "\\b"),
        ("\\p{L}", "re2", "\\p"),
        ("[[:punct:]]", "posix", "[:punct:]"),
        ("[\\d]", "posix", "\\"),
        ("a*+", "re2", "*+"),
        ("[a&&b]", "re2", "&&"),
        ("*a", "re2", "*"),
    ],
)
def test_flavour_specific_elements_are_refused_by_name(pattern, flavour, element):
    with pytest.raises(PatternError) as raised:
        translate_pattern(pattern, flavour, whole=False)
    assert raised.value.element == element


def test_common_elements_are_spelled_for_every_flavour():
    assert translate_pattern("a.b\\d\\w+", "re2", whole=False) == "a[^\\n]b[0-9][0-9A-Za-z_]+"
    assert translate_pattern("a.b", "postgres", whole=False) == "a[\\s\\S]b"
    assert translate_pattern("(?:x|y)*?[-a-c\\]]", "re2", whole=True) == "^((x|y)*[\\-a-c\\]])$"
    assert translate_pattern("[[:digit:]]{2,}", "posix", whole=False) == "[0-9]{2,}"


@pytest.mark.parametrize(
    ("dialect", "source"),
    [
        ("snowflake", "SELECT c_name FROM SALES.CUSTOMER WHERE REGEXP_LIKE(c_name, 'a', 'm')"),
        ("bigquery", "SELECT c_name FROM sales.customer WHERE REGEXP_CONTAINS(c_name, c_phone)"),
        ("oracle", "SELECT c_name FROM SALES.CUSTOMER WHERE REGEXP_LIKE(c_name, '')"),
        ("snowflake", "SELECT c_name FROM SALES.CUSTOMER WHERE REGEXP_LIKE(c_name, '(a)\\\\1')"),
    ],
)
def test_regex_predicates_without_exact_form_are_refused(dialect, source):
    with pytest.raises(TranslationError) as raised:
        translate(source, dialect)
    assert [d.rule for d in raised.value.diagnostics] == ["FN-REGEXP-LIKE"]


# BigQuery's REGEXP_REPLACE(s, 'Any (.*) Activity', 'New \\1 Profile Created'): RE2 replaces
# every leftmost match; the greedy `.*` runs to the last ' Activity' of the line, and `.`
# does not match a newline. (text, BigQuery's result), written by hand.
SPANS = [
    ("Any Firefox Desktop Activity", "New Firefox Desktop Profile Created"),
    ("x Any a Activity b Activity y", "x New a Activity b Profile Created y"),
    ("Any  Activity", "New  Profile Created"),  # an empty group
    ("Any Activity", "Any Activity"),  # the blank is P1's or P2's, not both
    ("Activity Any x", "Activity Any x"),
    ("Any caf\u00e9 Activity", "New caf\u00e9 Profile Created"),
    ("Any x Activity\nAny y", "New x Profile Created\nAny y"),  # the match is on one line
    ("", ""),
    (None, None),
]


def test_bigquery_regexp_replace_of_a_span_on_both_engines(tables):
    con, spark = tables
    source = (
        "SELECT c_custkey, REGEXP_REPLACE(c_name, 'Any (.*) Activity', "
        "'New \\\\1 Profile Created') AS r FROM sales.customer"
    )
    ansi_sql = translate(source, "bigquery").ansi_sql.replace('"raw"."customer"', '"usages"')
    expected = {key: result for key, (_, result) in enumerate(SPANS)}
    assert dict(con.sql(render(ansi_sql, "duckdb")).fetchall()) == expected
    assert dict(spark.sql(render(ansi_sql, "spark")).collect()) == expected


def test_bigquery_regexp_replace_across_a_line_break_stops_on_both_engines(tables):
    con, spark = tables
    source = (
        "SELECT REGEXP_REPLACE(c_name, 'a(.*)b', 'x') AS r FROM sales.customer "
        "WHERE c_name LIKE 'a%'"
    )
    ansi_sql = translate(source, "bigquery").ansi_sql.replace('"raw"."customer"', '"customer"')
    # 'a.b' is replaced; 'a\nb' has no match in BigQuery, whose `.` is no newline: it stops.
    for run in (
        lambda: con.sql(render(ansi_sql, "duckdb")).fetchall(),
        lambda: spark.sql(render(ansi_sql, "spark")).collect(),
    ):
        with pytest.raises(Exception, match="FN-REGEXP-REPLACE-SPAN"):
            run()


@pytest.mark.parametrize(
    "arguments",
    [
        "'Any (.*?) Activity', 'x'",  # lazy: the first ' Activity', not the last
        "'^Any (.*) Activity', 'x'",  # an anchor
        "'Any (.*) Activity', '\\\\0'",  # the whole match
        "'(.*) Activity', 'x'",  # no text before the group
        "'Any (.*) Activity', c_phone",
    ],
)
def test_bigquery_regexp_replace_without_exact_form_is_refused(arguments):
    source = f"SELECT REGEXP_REPLACE(c_name, {arguments}) AS r FROM sales.customer"
    with pytest.raises(TranslationError, match="REGEXP_REPLACE"):
        translate(source, "bigquery")


# Snowflake's 'i' ("case-insensitive matching"): each ASCII letter in either case. Whether
# it also folds the dotless i, the dotted capital I and the Kelvin sign to i and k it does not
# document: where that decides the match the statement stops; 'cla\u0131m x' matches
# in no reading, so it does not.
CLAIMS = ["claim", "CLAIM", "Claim", "claims", "a claim", "clam", "cla\u0131m x", None]
CLAIM_ROWS = "SELECT * FROM (VALUES {}) AS t(c_name)"


def _claim_rows(names: list[str | None]) -> str:
    return CLAIM_ROWS.format(", ".join("(NULL)" if n is None else f"('{n}')" for n in names))


@pytest.mark.parametrize(
    ("pattern", "expected"),
    [
        ("\\\\bclaim\\\\b", ["claim", "CLAIM", "Claim"]),  # spider2 sf_bq210's pattern
        ("cl[a-e]IM", ["claim", "CLAIM", "Claim"]),
        ("(a )?CL[A]im", ["claim", "CLAIM", "Claim", "a claim"]),
        ("cla.m x", ["cla\u0131m x"]),
    ],
)
def test_snowflake_case_insensitive_regexp_like_on_both_engines(spark_engine, pattern, expected):
    source = f"SELECT c_name FROM SALES.CUSTOMER WHERE REGEXP_LIKE(c_name, '{pattern}', 'i')"
    ansi_sql = translate(source, "snowflake").ansi_sql
    spark = spark_engine.session().newSession()
    on_duckdb, on_spark = rows_on_engines(spark, ansi_sql, customer=_claim_rows(CLAIMS))
    assert on_duckdb == on_spark == sorted(((n,) for n in expected), key=repr), ansi_sql


@pytest.mark.parametrize("name", ["cla\u0131m", "CLA\u0130M", "\u212aiwi"])
def test_snowflake_case_insensitive_regexp_like_stops_where_its_folding_decides(spark_engine, name):
    source = (
        "SELECT c_name FROM SALES.CUSTOMER WHERE REGEXP_LIKE(c_name, 'claim', 'i') "
        "OR REGEXP_LIKE(c_name, 'kiwi', 'i')"
    )
    result = translate(source, "snowflake")
    assert result.guards == ("FN-REGEXP-LIKE",)
    spark = spark_engine.session().newSession()
    with pytest.raises(Exception, match="FN-REGEXP-LIKE"):
        rows_on_engines(spark, result.ansi_sql, customer=_claim_rows([name]))


@pytest.mark.parametrize(
    ("pattern", "element"),
    [
        ("cust", "s"),  # ß and the ligatures fold to ss, st, ff, fi, fl
        ("[a-z]+", "a-z"),
        ("\\\\w+", "\\w"),
        ("[^a]+", "[^"),
        ("[[:alpha:]]", "[:alpha:]"),
        ("-\\\\bclaim", "\\b"),  # a boundary beside a character that is no word character
    ],
)
def test_snowflake_case_insensitive_elements_without_exact_form_are_refused(pattern, element):
    source = f"SELECT c_name FROM SALES.CUSTOMER WHERE REGEXP_LIKE(c_name, '{pattern}', 'i')"
    with pytest.raises(TranslationError) as raised:
        translate(source, "snowflake")
    (diagnostic,) = raised.value.diagnostics
    assert diagnostic.rule == "FN-REGEXP-LIKE"
    assert f"'{element}'" in diagnostic.message


@pytest.mark.parametrize(
    ("pattern", "expected"),
    [
        ("\\bclaim\\b", "^(claim)$"),
        ("\\b9\\b", "^(9)$"),
        ("claim_\\b", "^(claim_)$"),
    ],
)
def test_word_boundaries_at_the_ends_of_a_whole_match_always_hold(pattern, expected):
    assert translate_pattern(pattern, "posix", whole=True) == expected


@pytest.mark.parametrize(
    "pattern", ["\\bclaim", "claim\\b", "a\\b-", "\\b-a", "\\ba?b", "\\d\\b", "(a)\\b"]
)
def test_other_word_boundaries_are_refused(pattern):
    whole = pattern not in ("\\bclaim", "claim\\b")  # a match anywhere: not at the ends
    with pytest.raises(PatternError) as raised:
        translate_pattern(pattern, "posix", whole=whole)
    assert raised.value.element == "\\b"


# Teradata's REGEXP_SIMILAR: 1 when the whole string matches, 0 when not, NULL for NULL;
# case sensitive by default and under 'c', either case under 'i' (Teradata's documentation).
SIMILAR = [
    ("'Cust(omer)?#[0-9]+'", {"Customer#01", "Cust#7"}),
    ("'cust(omer)?#[0-9]+', 'i'", {"Customer#01", "customer#01", "Cust#7"}),
    ("'[b-c][A-U]+#0[0-1]', 'i'", {"Customer#01", "customer#01"}),
    ("'a.b', 'c'", {"a.b"}),  # a period is not a newline
    ("'a.b', ''", {"a.b"}),  # an empty match argument is the default
]


def test_regexp_similar_is_one_when_the_whole_string_matches_on_both_engines(tables):
    con, spark = tables
    columns = ", ".join(
        f"REGEXP_SIMILAR(c_name, {arguments}) AS m{i}" for i, (arguments, _) in enumerate(SIMILAR)
    )
    source = f"SELECT c_name, {columns} FROM SALES_DB.CUSTOMER"
    ansi_sql = translate(source, "teradata").ansi_sql.replace('"raw"."customer"', '"customer"')
    on_duckdb = sorted(con.sql(render(ansi_sql, "duckdb")).fetchall(), key=repr)
    on_spark = sorted((tuple(r) for r in spark.sql(render(ansi_sql, "spark")).collect()), key=repr)
    expected = sorted(
        (
            (name, *(None if name is None else int(name in matched) for _, matched in SIMILAR))
            for name in NAMES
        ),
        key=repr,
    )
    assert on_duckdb == on_spark == expected, ansi_sql


@pytest.mark.parametrize(
    ("arguments", "element"),
    [
        ("'a.b', 'n'", "'n'"),  # a period matching a newline
        ("'a.b', 'im'", "'im'"),
        ("c_phone", "not a literal"),
        ("'caf\u00e9', 'i'", "\u00e9"),  # a letter beyond ASCII, folded differently
        ("'[0-z]', 'i'", "0-z"),
        ("'[[:upper:]]', 'i'", "[:upper:]"),
    ],
)
def test_regexp_similar_without_exact_form_is_refused(arguments, element):
    source = f"SELECT REGEXP_SIMILAR(c_name, {arguments}) AS m FROM SALES_DB.CUSTOMER"
    with pytest.raises(TranslationError) as raised:
        translate(source, "teradata")
    [diagnostic] = raised.value.diagnostics
    assert diagnostic.rule == "FN-REGEXP-SIMILAR"
    assert element in diagnostic.message
