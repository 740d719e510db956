"""Case sensitivity of Teradata and T-SQL text comparisons: the rows each source returns
(Teradata's documented rule: case blind unless an operand is CASESPECIFIC, simple Latin
letters converted to upper case), on DuckDB and Spark, and refusals where no exact form is."""

from __future__ import annotations

import duckdb
import pytest

from sql.assumptions import Assumptions
from sql.catalog import load_catalog, merge_catalogs
from sql.diagnostics import TranslationError
from sql.render import render
from sql.rules.base import example_catalog
from sql.rules.case_sensitivity import backslash_escaped
from sql.translate import translate, translate_script

NAMES = ["foo", "FOO", "Foo", "bar", "é", "É", "", "ß", "SS", None]
TABLE = {"teradata": "SALES_DB.NAMES", "tsql": "dbo.Names"}
# A table whose text columns declare no case attribute (the demo catalog's Teradata columns
# are declared CASESPECIFIC): the session mode's default decides.
NAMES_CATALOG = """
tables:
  raw.names:
    c_custkey: BIGINT
    c_name: VARCHAR
    c_mktsegment: VARCHAR
legacy:
  teradata:
    SALES_DB.NAMES: raw.names
  tsql:
    dbo.Names: raw.names
"""


@pytest.fixture(scope="module")
def names(tmp_path_factory):
    path = tmp_path_factory.mktemp("names") / "catalog.yaml"
    path.write_text(NAMES_CATALOG)
    return load_catalog(path)


# (dialect, assumptions, query over c_name, the rows the source returns)
CASES = [
    # TERA mode: text is NOT CASESPECIFIC, literals too: a..z compare as A..Z
    ("teradata", {}, "SELECT c_name FROM T WHERE c_name = 'foo'", ["FOO", "Foo", "foo"]),
    (
        "teradata",
        {},
        "SELECT c_name FROM T WHERE c_name <> 'foo'",
        ["", "SS", "bar", "ß", "É", "é"],
    ),
    # only simple Latin letters fold: é is not É, ß is not SS
    ("teradata", {}, "SELECT c_name FROM T WHERE c_name = 'é'", ["é"]),
    ("teradata", {}, "SELECT c_name FROM T WHERE c_name = 'ss'", ["SS"]),
    ("teradata", {}, "SELECT c_name FROM T WHERE c_name LIKE 'f_O'", ["FOO", "Foo", "foo"]),
    # a letter as ESCAPE: read by Teradata's escape rules ('oo' is one literal o, 'a_' a
    # literal _), then matched without case
    (
        "teradata",
        {},
        "SELECT c_name FROM T WHERE c_name LIKE 'foooo' ESCAPE 'o'",
        ["FOO", "Foo", "foo"],
    ),
    (
        "teradata",
        {},
        "SELECT c_name FROM T WHERE c_name LIKE 'F%' ESCAPE 'x'",
        ["FOO", "Foo", "foo"],
    ),
    (
        "teradata",
        {},
        "SELECT c_name FROM T WHERE c_name NOT LIKE 'ba_' ESCAPE 'a'",
        ["", "FOO", "Foo", "SS", "bar", "foo", "ß", "É", "é"],
    ),
    # Teradata's LIKE keeps trailing blanks ("Pad characters are significant"): 'foo ' is
    # not LIKE 'foo', and is LIKE 'foo_'
    ("teradata", {}, "SELECT c_name FROM T WHERE c_name || ' ' LIKE 'foo'", []),
    ("teradata", {}, "SELECT c_name FROM T WHERE c_name || ' ' LIKE 'fo_'", []),
    ("teradata", {}, "SELECT c_name FROM T WHERE c_name || ' ' LIKE 'foo_'", ["FOO", "Foo", "foo"]),
    (
        "teradata",
        {},
        "SELECT c_name FROM T WHERE c_name IN ('BAR', 'fOo')",
        ["FOO", "Foo", "bar", "foo"],
    ),
    ("teradata", {}, "SELECT c_name FROM T WHERE c_name BETWEEN 'a' AND 'C'", ["bar"]),
    (
        "teradata",
        {},
        "SELECT c_name FROM T WHERE c_name > 'F'",
        ["FOO", "Foo", "SS", "foo", "ß", "É", "é"],
    ),
    ("teradata", {}, "SELECT COUNT(DISTINCT c_name) AS n FROM T", [7]),
    (
        "teradata",
        {},
        "SELECT c_name, COUNT(*) OVER (PARTITION BY c_name) AS n FROM T",
        [
            ("", 1),
            ("FOO", 3),
            ("Foo", 3),
            ("SS", 1),
            ("bar", 1),
            ("foo", 3),
            ("ß", 1),
            ("É", 1),
            ("é", 1),
            (None, 1),
        ],
    ),
    # grouping without case: 'foo', 'FOO' and 'Foo' are one group, which shows one of them
    # (guarded: sql/rules/text_groups.py); the other groups hold one value each
    (
        "teradata",
        {},
        "SELECT c_name, COUNT(*) AS n FROM T WHERE c_name NOT IN ('FOO', 'Foo') GROUP BY c_name",
        [("", 1), ("SS", 1), ("bar", 1), ("ß", 1), ("É", 1), ("é", 1)],
    ),
    (
        "teradata",
        {},
        "SELECT c_name FROM T WHERE c_name IN (SELECT c_name FROM T WHERE c_name = 'BAR')",
        ["bar"],
    ),
    # an operand written CASESPECIFIC makes the comparison case specific
    ("teradata", {}, "SELECT c_name FROM T WHERE c_name (CASESPECIFIC) = 'foo'", ["foo"]),
    ("teradata", {}, "SELECT c_name FROM T WHERE UPPER(c_name) = 'FOO'", ["FOO", "Foo", "foo"]),
    # ... and through a derived table
    (
        "teradata",
        {},
        "WITH f (x) AS (SELECT c_name (CASESPECIFIC) FROM T) SELECT x FROM f WHERE x = 'foo'",
        ["foo"],
    ),
    (
        "teradata",
        {},
        "WITH f (x) AS (SELECT c_name (CASESPECIFIC) FROM T) SELECT x FROM f GROUP BY x",
        NAMES,
    ),
    # ANSI mode: CASESPECIFIC by default; grouping is then exact
    (
        "teradata",
        {"teradata_session_mode": "ANSI"},
        "SELECT c_name FROM T WHERE c_name = 'foo'",
        ["foo"],
    ),
    (
        "teradata",
        {"teradata_session_mode": "ANSI"},
        "SELECT c_name FROM T WHERE c_name = 'FOO' OR c_name (NOT CS) = 'bAR'",
        ["FOO"],  # a literal is CASESPECIFIC in ANSI mode, so the second compares with case
    ),
    (
        "teradata",
        {"teradata_session_mode": "ANSI"},
        "SELECT COUNT(*) AS n FROM (SELECT DISTINCT c_name FROM T) AS d",
        [10],
    ),
    # T-SQL under the stated case-sensitive collation
    ("tsql", {}, "SELECT c_name FROM T WHERE c_name = 'foo'", ["foo"]),
    ("tsql", {}, "SELECT c_name, COUNT(*) AS n FROM T GROUP BY c_name", [(n, 1) for n in NAMES]),
]


def _key(row):
    return tuple((v is None, "" if v is None else str(v)) for v in row)


@pytest.fixture(scope="module")
def tables(spark_engine):
    values = ", ".join("(NULL)" if n is None else f"('{n}')" for n in NAMES)
    rows = f"SELECT * FROM (VALUES {values}) AS t(c_name)"
    spark = spark_engine.session().newSession()
    spark.sql(rows).createOrReplaceTempView("customer")
    con = duckdb.connect()
    con.execute(f"CREATE TABLE customer AS {rows}")
    yield con, spark
    con.close()


@pytest.mark.parametrize(("dialect", "assumed", "query", "expected"), CASES)
def test_comparisons_return_the_rows_the_source_returns_on_both_engines(
    tables, names, dialect, assumed, query, expected
):
    con, spark = tables
    source = query.replace(" T", " " + TABLE[dialect])
    assumptions = Assumptions().with_overrides(assumed)
    ansi_sql = translate(source, dialect, catalog=names, assumptions=assumptions).ansi_sql
    ansi_sql = ansi_sql.replace('"raw"."names"', '"customer"')
    on_duckdb = sorted((tuple(r) for r in con.sql(render(ansi_sql, "duckdb")).fetchall()), key=_key)
    on_spark = sorted((tuple(r) for r in spark.sql(render(ansi_sql, "spark")).collect()), key=_key)
    wanted = sorted((e if isinstance(e, tuple) else (e,) for e in expected), key=_key)
    assert on_duckdb == wanted, ansi_sql
    assert on_spark == wanted, ansi_sql


@pytest.mark.parametrize(
    ("dialect", "assumed", "query", "rule", "named"),
    [
        (
            "teradata",
            {},
            "SELECT c_name FROM T INTERSECT ALL SELECT c_name FROM T",
            "CASE-VARIANT",
            "INTERSECT",
        ),
        ("teradata", {}, "SELECT MIN(c_name) AS m FROM T", "CASE-VARIANT", "MIN"),
        (
            "teradata",
            {},
            "SELECT c_name FROM T WHERE c_name LIKE 'fA_%' ESCAPE 'a'",
            "TD-CASESPECIFIC",
            "its other case 'A'",
        ),
        (
            "teradata",
            {},
            "SELECT c_name FROM T WHERE c_name LIKE 'fab%' ESCAPE 'a'",
            "TD-CASESPECIFIC",
            "which Teradata rejects",
        ),
        (
            "teradata",
            {},
            "SELECT c_name FROM T WHERE c_name LIKE c_mktsegment ESCAPE 'a'",
            "TD-CASESPECIFIC",
            "not a literal",
        ),
        (
            "tsql",
            {"tsql_collation_case": "INSENSITIVE"},
            "SELECT c_name FROM T WHERE c_name = 'foo'",
            "TSQL-COLLATION",
            "tsql_collation_case=INSENSITIVE",
        ),
        (
            "tsql",
            {"tsql_collation_case": "INSENSITIVE"},
            "SELECT c_name FROM T ORDER BY c_name",
            "CASE-IMPLICIT",
            "collation",
        ),
    ],
)
def test_comparisons_without_an_exact_form_are_refused(names, dialect, assumed, query, rule, named):
    source = query.replace(" T", " " + TABLE[dialect])
    with pytest.raises(TranslationError) as raised:
        translate(source, dialect, catalog=names, assumptions=Assumptions().with_overrides(assumed))
    assert any(d.rule == rule and named in d.message for d in raised.value.diagnostics)


@pytest.mark.parametrize(
    ("query", "rule"),
    [
        ("SELECT c_name, COUNT(*) AS n FROM T GROUP BY c_name", "CASE-VARIANT"),
        ("SELECT DISTINCT c_name FROM T", "CASE-VARIANT"),
        ("SELECT c_name FROM T UNION SELECT c_mktsegment FROM T", "CASE-VARIANT"),
        ("SELECT MAX(c_name) AS m FROM T", "CASE-VARIANT"),
        ("SELECT c_name FROM T ORDER BY c_name", "CASE-IMPLICIT"),
        (
            "SELECT RANK() OVER (PARTITION BY c_name ORDER BY c_custkey) AS r FROM T",
            "CASE-IMPLICIT",
        ),
        ("SELECT c_name FROM T WHERE c_name < 'x'", "TSQL-COLLATION"),
    ],
)
def test_every_comparison_the_tsql_assumption_decides_is_reported(query, rule):
    result = translate(query.replace(" T", " dbo.Customer"), "tsql")
    assert any(
        d.rule == rule and "tsql_collation_case=SENSITIVE" in d.message for d in result.diagnostics
    )


CASE_CATALOG = """
tables:
  raw.people:
    k: INTEGER
    cs: {type: VARCHAR(10), casespecific: true}
    ncs: {type: VARCHAR(10), casespecific: false}
legacy:
  teradata:
    db1.people: raw.people
"""


@pytest.fixture(scope="module")
def declared(tmp_path_factory):
    path = tmp_path_factory.mktemp("catalog") / "catalog.yaml"
    path.write_text(CASE_CATALOG)
    return merge_catalogs([example_catalog(), load_catalog(path)])


def test_a_declared_attribute_decides_before_the_session_mode(declared):
    # CASESPECIFIC: grouping is exact in TERA mode, and nothing was assumed
    result = translate(
        "SELECT cs, COUNT(*) AS n FROM db1.people GROUP BY cs", "teradata", catalog=declared
    )
    assert not [d for d in result.diagnostics if "teradata_session_mode" in d.message]
    # NOT CASESPECIFIC: grouped without case in ANSI mode too, the guard naming the declaration
    result = translate(
        "SELECT ncs, COUNT(*) AS n FROM db1.people GROUP BY ncs",
        "teradata",
        catalog=declared,
        assumptions=Assumptions(teradata_session_mode="ANSI"),
    )
    assert result.guards == ("CASE-VARIANT",)
    assert "declared NOT CASESPECIFIC" in result.ansi_sql
    # either operand CASESPECIFIC: the comparison is case specific, unfolded
    result = translate("SELECT k FROM db1.people WHERE ncs = cs", "teradata", catalog=declared)
    assert "TRANSLATE" not in result.ansi_sql


def test_a_script_table_keeps_its_declared_attribute_through_a_view():
    script = (
        "CREATE TABLE test.tfoo(x CHAR(30) CASESPECIFIC, y CHAR(30) NOT CASESPECIFIC);\n"
        "CREATE VIEW v AS SELECT x, y FROM test.tfoo;\n"
        "SELECT x, COUNT(*) AS n FROM v WHERE x = 'foo' AND y = 'bar' GROUP BY x;\n"
    )
    tables = translate_script(script, "teradata").tables
    last = " ".join(next(t for t in tables if t.defines == "query").ansi_sql.split())
    assert "TRIM(TRAILING ' ' FROM \"v\".\"x\") = 'foo'" in last
    assert "TRANSLATE(" in last and "'BAR'" in last
    [grouped] = [
        t
        for t in translate_script(
            script.replace("SELECT x, COUNT", "SELECT y, COUNT").replace("BY x", "BY y"), "teradata"
        ).tables
        if t.defines == "query"
    ]
    assert grouped.guards == ("CASE-VARIANT",)
    assert "declared NOT CASESPECIFIC" in grouped.ansi_sql


@pytest.mark.parametrize(
    ("query", "outcome"),
    [
        # a derived table's column is what defines it
        (
            "WITH w AS (SELECT cs AS e FROM db1.people) SELECT e, COUNT(*) AS n FROM w GROUP BY e",
            None,
        ),
        # NOT CASESPECIFIC: grouped without case, guarded (the guard names the declaration)
        ("WITH w AS (SELECT ncs AS e FROM db1.people) SELECT e FROM w GROUP BY e", "guarded"),
        # an expression over a declared column has no documented attribute, directly or not,
        # unless it agrees with the session default (ANSI mode: CASESPECIFIC)
        ("SELECT k FROM db1.people WHERE SUBSTR(cs, 1, 2) = 'ab'", "not documented"),
        (
            "WITH w AS (SELECT SUBSTR(cs, 1, 3) AS s FROM db1.people) SELECT s FROM w WHERE s = 'ab'",
            "not documented",
        ),
        # either operand CASESPECIFIC: the union compares with case
        ("SELECT cs FROM db1.people UNION SELECT ncs FROM db1.people", None),
    ],
)
def test_derived_columns_take_the_attribute_of_their_definition(declared, query, outcome):
    if outcome is None:
        translate(query, "teradata", catalog=declared)
        return
    if outcome == "guarded":
        ansi_sql = translate(query, "teradata", catalog=declared).ansi_sql
        assert "CASE-VARIANT" in ansi_sql and "declared NOT CASESPECIFIC" in ansi_sql
        return
    with pytest.raises(TranslationError) as raised:
        translate(query, "teradata", catalog=declared)
    assert outcome in raised.value.diagnostics[0].message


def test_an_expression_agreeing_with_the_session_default_is_decided(declared):
    query = "SELECT SUBSTRING(cs FROM 1 FOR 2) AS s, COUNT(*) AS n FROM db1.people GROUP BY 1"
    with pytest.raises(TranslationError):
        translate(query, "teradata", catalog=declared)
    ansi = Assumptions(teradata_session_mode="ANSI")
    translate(query, "teradata", catalog=declared, assumptions=ansi)
    written = query.replace("AS s,", "(CASESPECIFIC) AS s,")
    assert "TRANSLATE" not in translate(written, "teradata", catalog=declared).ansi_sql


@pytest.mark.parametrize(
    ("pattern", "escape", "written"),
    [
        ("0foo%", "o", "0fo%"),  # oo: the letter itself, then % a wildcard
        ("2ba_", "a", "2b\\_"),
        ("a%\\_x_", "x", "a%\\\\_\\_"),  # a backslash is escaped, x_ is a literal _
        ("fo", "o", None),  # the ESCAPE character ends the pattern
        ("fob", "o", None),  # ... or escapes a character that is not _, % or itself
        ("fOo_", "o", None),  # the letter's other case: which one escapes is not documented
    ],
)
def test_teradata_letter_escapes_are_read_by_its_escape_rules(pattern, escape, written):
    assert backslash_escaped(pattern, escape)[0] == written


CHAR_CATALOG = """
tables:
  raw.codes:
    k: INTEGER
    c: CHAR(5)
legacy:
  teradata:
    db1.codes: raw.codes
"""


@pytest.mark.parametrize(
    ("where", "expected"),
    [
        # Teradata's CHAR(5) value 'ab' is 'ab' and three blanks, which LIKE matches as it is
        # ("Pad characters are significant"), whether the lake holds the blanks or not
        ("c LIKE 'ab'", []),
        ("c LIKE 'AB___'", [1, 2]),
        ("c LIKE 'ab%'", [1, 2]),
        ("c LIKE '%b'", []),
        ("c NOT LIKE 'a_ %'", []),
    ],
)
def test_teradata_like_reads_a_char_value_with_its_pad_on_both_engines(
    spark_engine, tmp_path, where, expected
):
    path = tmp_path / "catalog.yaml"
    path.write_text(CHAR_CATALOG)
    source = f"SELECT k FROM db1.codes WHERE {where}"
    ansi_sql = translate(source, "teradata", catalog=load_catalog(path)).ansi_sql
    rows = "(SELECT * FROM (VALUES (1, 'ab'), (2, 'ab   ')) AS t(k, c))"
    ansi_sql = ansi_sql.replace('"raw"."codes"', rows)
    on_duckdb = sorted(r[0] for r in duckdb.sql(render(ansi_sql, "duckdb")).fetchall())
    on_spark = sorted(r[0] for r in spark_engine.session().sql(render(ansi_sql, "spark")).collect())
    assert on_duckdb == on_spark == expected, ansi_sql
