"""Snowflake VARIANT paths and FLATTEN translate to the standard's SQL/JSON, and the rendered
SQL reads the same rows from one Parquet file of JSON text on DuckDB and on Spark; what has
no exact form fails (at run time) or is refused (at translation), never differs."""

from __future__ import annotations

import math
from decimal import Decimal

import duckdb
import pytest
import sqlglot

from sql import jsonpath
from sql.ansi import Ansi, generate
from sql.catalog import Catalog
from sql.diagnostics import TranslationError
from sql.render import render
from sql.translate import translate

CATALOG = Catalog(
    tables={"raw.events": {"id": "BIGINT", "payload": "VARIANT"}},
    legacy={"snowflake": {("APP", "EVENTS"): "raw.events"}},
    opaque={"raw.events": {"payload": "VARIANT"}},
    sources=("test_variant.py",),
)
# The VARIANT column as the lake holds it: JSON text, one document per row.
GOOD = [
    (1, '{"user": {"name": "Ann"}, "items": [{"sku": "A1"}, {"sku": "B\\"2"}], "Q": "upper",'
     ' "k y": [{"Code": "c1", "tags": ["x", "y"]}], "we\\"ird": "w", "n": 2.5, "c": 7}'),
    (2, '{"user": {"name": null}, "items": [], "k y": [], "n": -0.0, "b": true, "c": -3}'),
    (3, None),
    (4, '{"user": {}, "items": [{"sku": null}, "plain", 3, [1]], "Q": null,'
     ' "n": 12345678901234567890, "c": 12345678901234567890}'),
    (5, '{"user": [{"name": "in an array"}], "items": null, "k y": 7, "n": null, "b": false,'
     ' "c": null}'),
]  # fmt: skip
# Rows whose items Snowflake would print or flatten its own way.
BAD = [
    (6, '{"user": {"name": 1.50}, "items": {"a": 1}, "n": true, "s": "1.5", "c": 1.5, "e": 1e2,'
     ' "z": null}'),
]  # fmt: skip
# Strings and missing items only (no JSON null, which a VARIANT compared as a value raises
# on): grouped, partitioned and compared as strings.
STRINGS = [
    (1, '{"name": "Ann", "tags": ["x", "y", "x"], "ok": true}'),
    (2, '{"name": "Bob", "tags": ["y"], "ok": false}'),
    (3, None),
    (4, '{"name": "Ann", "tags": [], "other": 1}'),
    (5, '{"tags": ["x"]}'),
]


@pytest.fixture(scope="module")
def lake(tmp_path_factory):
    """Each table as a Parquet file written by DuckDB (as a lake's builds write it)."""
    root = tmp_path_factory.mktemp("variant")
    paths = {}
    with duckdb.connect() as con:
        for name, rows in (("good", GOOD), ("bad", BAD), ("strings", STRINGS)):
            path = paths[name] = root / f"{name}.parquet"
            con.execute("CREATE TABLE events (id BIGINT, payload VARCHAR)")
            con.executemany("INSERT INTO events VALUES (?, ?)", rows)
            con.execute(f"COPY events TO '{path}' (FORMAT parquet)")
            con.execute("DROP TABLE events")
    return paths


def _ansi(source: str) -> str:
    return translate(source, "snowflake", catalog=CATALOG).ansi_sql


def _local(ansi_sql: str) -> str:
    return ansi_sql.replace('"raw"."events"', '"events"')


def _on_duckdb(ansi_sql: str, path) -> list[tuple]:
    with duckdb.connect() as con:
        con.execute(f"CREATE VIEW events AS SELECT * FROM read_parquet('{path}')")
        return con.sql(render(_local(ansi_sql), "duckdb")).fetchall()


def _on_spark(spark_engine, ansi_sql: str, path) -> list[tuple]:
    spark = spark_engine.session()
    spark.read.parquet(str(path)).createOrReplaceTempView("events")
    return [tuple(row) for row in spark.sql(render(_local(ansi_sql), "spark")).collect()]


def _sorted(rows: list[tuple]) -> list[tuple]:
    return sorted(rows, key=lambda row: tuple((v is None, str(v)) for v in row))


# One query per shape, each read on both engines (Spark queries are the slow part).
CASES = [
    (
        # strings, JSON null, missing items, a key of an array, keys with case, spaces and
        # quotes, a string with an escaped quote
        "SELECT id, payload:user.name::string AS name, payload:Q::varchar AS q,"
        " payload['k y'][0].Code::string AS code, CAST(payload:\"k y\"[0]:tags[1] AS TEXT) AS tag,"
        " payload['we\"ird']::string AS weird, payload:items[1].sku::string AS sku2"
        " FROM APP.EVENTS",
        [
            (1, "Ann", "upper", "c1", "y", "w", 'B"2'),
            (2, None, None, None, None, None, None),
            (3, None, None, None, None, None, None),
            (4, None, None, None, None, None, None),
            (5, None, None, None, None, None, None),
        ],
    ),
    (
        # FLATTEN over arrays: 0-based index, paths into each element (missing on a
        # string or a number); no rows for an empty array, a NULL, a JSON null, a missing
        # item (row 3: "items" is missing) or a scalar (row 5 in the next case)
        "SELECT e.id, f.index AS i, f.value:sku::string AS sku"
        " FROM APP.EVENTS AS e, LATERAL FLATTEN(input => e.payload:items) AS f",
        [
            (1, 0, "A1"),
            (1, 1, 'B"2'),
            (4, 0, None),
            (4, 1, None),
            (4, 2, None),
            (4, 3, None),
        ],
    ),
    (
        # IS [NOT] NULL: a JSON null is an item (a VARIANT null), a missing one is SQL NULL
        "SELECT e.id, e.payload:user.name IS NOT NULL AS has_name, e.payload:Q IS NULL AS no_q"
        " FROM APP.EVENTS AS e",
        [(1, True, False), (2, True, True), (3, False, True), (4, False, False), (5, False, True)],
    ),
    (
        # a JSON number as the nearest double (-0.0 is zero); a JSON null or none is NULL
        # and a JSON boolean as the BOOLEAN; a path in parentheses is a path
        "SELECT id, payload:n::float AS n, (payload:b)::boolean AS b FROM APP.EVENTS",
        [
            (1, 2.5, None),
            (2, 0.0, True),
            (3, None, None),
            (4, 1.2345678901234567e19, None),
            (5, None, False),
        ],
    ),
    (
        # a JSON integer as NUMBER / NUMBER(p, s) / INT, digit for digit (past BIGINT too); a
        # JSON null or none is NULL
        "SELECT id, payload:c::NUMBER AS c, payload:c::NUMBER(25, 2) AS d,"
        " CAST(payload:c AS INT) AS i FROM APP.EVENTS WHERE id <> 4",
        [
            (1, Decimal("7"), Decimal("7.00"), 7),
            (2, Decimal("-3"), Decimal("-3.00"), -3),
            (3, None, None, None),
            (5, None, None, None),
        ],
    ),
    (
        "SELECT id, TO_NUMBER(payload:c) AS c FROM APP.EVENTS WHERE id = 4",
        [(4, Decimal("12345678901234567890"))],
    ),
    (
        # a path under DISTINCT and in the aggregate's ORDER BY: the same expression twice
        "SELECT LISTAGG(DISTINCT payload:Q::string, ',') WITHIN GROUP"
        " (ORDER BY payload:Q::string) AS q FROM APP.EVENTS",
        [("upper",)],
    ),
    (
        # LIKE reads the string form, in a filter and out of one
        "SELECT id, payload:Q LIKE 'up%' AS q FROM APP.EVENTS"
        " WHERE payload:user.name LIKE 'A%' OR id = 2",
        [(1, True), (2, None)],
    ),
    (
        # string equality as filter conjuncts; GET and GET_PATH are paths too
        "SELECT e.id, g.index AS i FROM APP.EVENTS AS e,"
        ' LATERAL FLATTEN(input => e.payload:"k y") AS f,'
        " LATERAL FLATTEN(input => f.value:tags) AS g"
        " WHERE g.value = 'y' AND f.value:Code = 'c1' AND GET(e.payload, 'Q')::string = 'upper'"
        " AND 'Ann' = GET_PATH(e.payload, 'user.name')",
        [(1, 1)],
    ),
    (
        # a FLATTEN of a FLATTEN's value, and LEFT JOIN keeping rows without elements
        "SELECT e.id, g.value::string AS tag, g.index AS i"
        ' FROM APP.EVENTS AS e LEFT JOIN LATERAL FLATTEN(input => e.payload:"k y") AS f ON TRUE'
        " LEFT JOIN LATERAL FLATTEN(input => f.value:tags) AS g ON TRUE",
        [
            (1, "x", 0),
            (1, "y", 1),
            (2, None, None),
            (3, None, None),
            (4, None, None),
            (5, None, None),
        ],
    ),
    (
        # ARRAY_SIZE counts an array's elements (0 for an empty one, nested arrays one each),
        # and is NULL for an object (the whole payload), a scalar (row 5's "k y"), a JSON
        # null (row 5's items), a missing item and a NULL VARIANT (row 3); an ARRAY_CONSTRUCT
        # of N arguments has N elements, a NULL one too
        "SELECT id, ARRAY_SIZE(payload:items) AS n, ARRAY_SIZE(payload) AS r,"
        ' ARRAY_SIZE(payload:"k y") AS k, ARRAY_SIZE(payload:nope) AS m,'
        " ARRAY_SIZE(ARRAY_CONSTRUCT(id, NULL, id)) AS c FROM APP.EVENTS",
        [
            (1, 2, None, 1, None, 3),
            (2, 0, None, 0, None, 3),
            (3, None, None, None, None, 3),
            (4, 4, None, None, None, 3),
            (5, None, None, None, None, 3),
        ],
    ),
    (
        # ARRAY_SIZE of FLATTEN's value and of a path into it; under COALESCE in a filter
        "SELECT e.id, f.index AS i, ARRAY_SIZE(f.value) AS n, ARRAY_SIZE(f.value:sku) AS s"
        " FROM APP.EVENTS AS e, LATERAL FLATTEN(input => e.payload:items) AS f"
        " WHERE COALESCE(ARRAY_SIZE(e.payload:items), 0) > 1",
        [
            (1, 0, None, None),
            (1, 1, None, None),
            (4, 0, None, None),
            (4, 1, None, None),
            (4, 2, None, None),
            (4, 3, 1, None),
        ],
    ),
    (
        # string functions read a VARIANT's string form, as Snowflake coerces it to VARCHAR:
        # a JSON null (row 4's Q) or a missing item is NULL
        "SELECT e.id, UPPER(e.payload:Q) AS u, SUBSTR(e.payload:user.name, 1, 2) AS s,"
        " REPLACE(e.payload:Q, 'u', 'U') AS r, TRIM(e.payload:Q) AS t,"
        " STARTSWITH(e.payload:Q, 'u') AS sw, e.payload:Q ILIKE 'UP%' AS il"
        " FROM APP.EVENTS AS e",
        [
            (1, "UPPER", "An", "Upper", "upper", True, True),
            (2, None, None, None, None, None, None),
            (3, None, None, None, None, None, None),
            (4, None, None, None, None, None, None),
            (5, None, None, None, None, None, None),
        ],
    ),
    (
        # ... and FLATTEN's value, an element of an array
        "SELECT e.id, LOWER(g.value) AS tag FROM APP.EVENTS AS e,"
        ' LATERAL FLATTEN(input => e.payload:"k y") AS f,'
        " LATERAL FLATTEN(input => f.value:tags) AS g",
        [(1, "x"), (1, "y")],
    ),
    (
        # FLATTEN with its input by position
        "SELECT e.id, f.index AS i, f.value:sku::string AS sku"
        " FROM APP.EVENTS AS e, LATERAL FLATTEN(e.payload:items) AS f WHERE e.id = 1",
        [(1, 0, "A1"), (1, 1, 'B"2')],
    ),
    (
        # ::VARIANT of a VARIANT is the same value, paths read through it
        "SELECT id, payload::variant:Q::string AS q, (payload:user)::variant:name::string AS n"
        " FROM APP.EVENTS WHERE payload:user::variant IS NOT NULL",
        [(1, "upper", "Ann"), (2, None, None), (4, None, None), (5, None, None)],
    ),
    (
        # a path output by a CTE that every reader reads as a string holds its string form
        "WITH c AS (SELECT e.id, e.payload:user.name AS n FROM APP.EVENTS AS e)"
        " SELECT x.id, x.n::string AS s, UPPER(x.n) AS u FROM c AS x"
        " WHERE x.n LIKE 'A%' OR x.id = 2",
        [(1, "Ann", "ANN"), (2, None, None)],
    ),
    (
        # ... FLATTEN's value output by a derived table, and a path passed on by two CTEs
        "WITH a AS (SELECT e.id, e.payload:Q AS q FROM APP.EVENTS AS e),"
        " b AS (SELECT a.id, a.q AS q2 FROM a)"
        " SELECT d.id, LOWER(d.v) AS tag FROM (SELECT e.id, g.value AS v FROM APP.EVENTS AS e,"
        ' LATERAL FLATTEN(input => e.payload:"k y") AS f,'
        " LATERAL FLATTEN(input => f.value:tags) AS g) AS d"
        " JOIN b ON b.id = d.id WHERE b.q2 = 'upper'",
        [(1, "x"), (1, "y")],
    ),
    (
        # grouped by its cast to a string (the alias): the string, a JSON null is NULL there
        "SELECT payload:Q::string AS q, COUNT(*) AS n FROM APP.EVENTS GROUP BY q",
        [("upper", 1), (None, 4)],
    ),
    (
        # FIRST_VALUE of a VARIANT column is one of its values, read by paths after a CTE
        "WITH a AS (SELECT id, FIRST_VALUE(payload) OVER (PARTITION BY id ORDER BY id) AS p"
        " FROM APP.EVENTS) SELECT a.id, a.p:Q::string AS q FROM a",
        [(1, "upper"), (2, None), (3, None), (4, None), (5, None)],
    ),
    (
        # FLATTEN of SPLIT: a row per field, counted from 0; a NULL string gives none
        "SELECT e.id, c.index AS i, c.value::string AS v, UPPER(c.value) AS u"
        " FROM APP.EVENTS AS e, LATERAL FLATTEN(input => SPLIT(e.payload:Q::string, 'p')) AS c",
        [(1, 0, "u", "U"), (1, 1, "", ""), (1, 2, "er", "ER")],
    ),
    (
        # empty fields at both ends and between separators, a separator of two characters,
        # an empty string (one empty field); LEFT JOIN keeps a row without fields
        "SELECT e.id, c.index AS i, c.value::string AS v FROM APP.EVENTS AS e"
        " LEFT JOIN LATERAL FLATTEN(input => SPLIT(CASE e.id WHEN 1 THEN '--a----' WHEN 2"
        " THEN 'a--b-c' WHEN 3 THEN '' END, '--')) AS c ON TRUE WHERE e.id <> 5",
        [
            (1, 0, ""),
            (1, 1, "a"),
            (1, 2, ""),
            (1, 3, ""),
            (2, 0, "a"),
            (2, 1, "b-c"),
            (3, 0, ""),
            (4, None, None),
        ],
    ),
    (
        # SPLIT_TO_TABLE: INDEX counts from 1, VALUE is a VARCHAR (Snowflake's own example)
        "SELECT e.id, t.index AS i, t.value AS v FROM APP.EVENTS AS e, LATERAL SPLIT_TO_TABLE("
        "CASE e.id WHEN 1 THEN 'a.b.c' WHEN 2 THEN 'd' WHEN 3 THEN '' END, '.') AS t",
        [(1, 1, "a"), (1, 2, "b"), (1, 3, "c"), (2, 1, "d"), (3, 1, "")],
    ),
    (
        "SELECT e.id, index AS i, value AS v FROM APP.EVENTS AS e,"
        " LATERAL SPLIT_TO_TABLE(e.payload:Q::string, 'p') AS t",
        [(1, 1, "u"), (1, 2, ""), (1, 3, "er")],
    ),
    (
        # FLATTEN's value of a SPLIT grouped, compared and passed on by a CTE
        "WITH w AS (SELECT e.id, c.value AS v FROM APP.EVENTS AS e,"
        " LATERAL FLATTEN(input => SPLIT('x,y,x', ',')) AS c WHERE e.id IN (1, 2))"
        " SELECT w.v::string AS v, COUNT(*) AS n FROM w WHERE w.v <> 'z' GROUP BY w.v",
        [("x", 4), ("y", 2)],
    ),
    (
        # another query's range named like the FLATTEN keeps its own INDEX column
        "WITH t AS (SELECT id AS index FROM APP.EVENTS WHERE id = 1)"
        " SELECT f.index AS i FROM APP.EVENTS AS e,"
        " LATERAL FLATTEN(input => e.payload:items) AS f WHERE e.id = 1"
        " UNION ALL SELECT f.index FROM t AS f",
        [(0,), (1,), (1,)],
    ),
]


@pytest.mark.parametrize(("source", "expected"), CASES)
def test_variants_read_the_same_rows_on_both_engines(spark_engine, lake, source, expected):
    ansi_sql = _ansi(source)
    assert _sorted(_on_duckdb(ansi_sql, lake["good"])) == _sorted(expected), ansi_sql
    assert _sorted(_on_spark(spark_engine, ansi_sql, lake["good"])) == _sorted(expected), ansi_sql


# A VARIANT compared as a value (grouped, partitioned, ``=`` / ``<>`` outside a filter or
# with another VARIANT) is its strict string form: equal strings are equal VARIANT strings,
# no item is NULL; a JSON null raises (below).
STRICT_CASES = [
    (
        # grouped by the output column's alias, its string form read through a CTE
        "WITH c AS (SELECT e.payload:name AS n, COUNT(*) AS k FROM APP.EVENTS AS e GROUP BY n)"
        " SELECT REPLACE(c.n, 'n', 'N') AS n, c.k AS k FROM c",
        [("ANN", 2), ("Bob", 1), (None, 2)],
    ),
    (
        # FLATTEN's value grouped, and cast to a string in the same SELECT
        "SELECT g.value::string AS t, COUNT(*) AS k FROM APP.EVENTS AS e,"
        " LATERAL FLATTEN(input => e.payload:tags) AS g GROUP BY g.value",
        [("x", 3), ("y", 2)],
    ),
    (
        "SELECT e.id, COUNT(*) OVER (PARTITION BY e.payload:name) AS n FROM APP.EVENTS AS e",
        [(1, 2), (2, 1), (3, 2), (4, 2), (5, 2)],
    ),
    (
        # two VARIANTs compared; a missing item matches nothing
        "SELECT a.id AS a, b.id AS b FROM APP.EVENTS AS a JOIN APP.EVENTS AS b"
        " ON a.payload:name = b.payload:name AND a.id < b.id",
        [(1, 4)],
    ),
    ("SELECT id FROM APP.EVENTS WHERE payload:name <> 'Ann'", [(2,)]),
    (
        "SELECT id, payload:name = 'Ann' AS ann FROM APP.EVENTS",
        [(1, True), (2, False), (3, None), (4, True), (5, None)],
    ),
    # a JSON true or false compared with TRUE / FALSE in a filter; a string-typed operand
    ("SELECT id FROM APP.EVENTS WHERE payload:ok = TRUE", [(1,)]),
    ("SELECT id FROM APP.EVENTS WHERE FALSE = payload:ok", [(2,)]),
    ("SELECT e.id FROM APP.EVENTS AS e WHERE e.payload:name = TRIM(' Bob ')", [(2,)]),
    (
        # COALESCE of VARIANTs passes on the first item found (no item falls through)
        "WITH c AS (SELECT id, COALESCE(payload:nope, payload:name, 'none') AS n"
        " FROM APP.EVENTS) SELECT c.id, UPPER(c.n) AS u FROM c",
        [(1, "ANN"), (2, "BOB"), (3, "NONE"), (4, "ANN"), (5, "NONE")],
    ),
    ("SELECT id FROM APP.EVENTS WHERE COALESCE(payload:nope, payload:name) = 'Ann'", [(1,), (4,)]),
    (
        # passed on by two CTEs, partitioned and ordered (an order nobody sees) on the way
        "WITH a AS (SELECT e.payload:name AS n, e.id FROM APP.EVENTS AS e),"
        " r AS (SELECT a.n, a.id, ROW_NUMBER() OVER (PARTITION BY a.n ORDER BY a.id) AS rn"
        " FROM a ORDER BY a.n)"
        " SELECT UPPER(r.n) AS u, r.id FROM r WHERE r.rn = 1",
        [("ANN", 1), ("BOB", 2), (None, 3)],
    ),
]


@pytest.mark.parametrize(("source", "expected"), STRICT_CASES)
def test_variants_compared_as_values_read_the_same_rows_on_both_engines(
    spark_engine, lake, source, expected
):
    ansi_sql = _ansi(source)
    assert _sorted(_on_duckdb(ansi_sql, lake["strings"])) == _sorted(expected), ansi_sql
    rows = _on_spark(spark_engine, ansi_sql, lake["strings"])
    assert _sorted(rows) == _sorted(expected), ansi_sql


@pytest.mark.parametrize(
    ("source", "message"),
    [
        # Snowflake prints 1.50 and true its own way; the translation fails instead
        ("SELECT payload:user.name::string AS n FROM APP.EVENTS", "JSON_VALUE"),
        ("SELECT payload:n::string AS n FROM APP.EVENTS", "JSON_VALUE"),
        # an object's text, not a string
        ("SELECT payload:items::string AS n FROM APP.EVENTS", "JSON_VALUE"),
        # a number from a string, or a boolean: Snowflake's own conversions
        ("SELECT payload:s::float AS n FROM APP.EVENTS", "JSON_VALUE"),
        ("SELECT payload:n::double AS n FROM APP.EVENTS", "JSON_VALUE"),
        ("SELECT payload:s::boolean AS n FROM APP.EVENTS", "JSON_VALUE"),
        # a string, a boolean, a fraction (Snowflake rounds its decimal; the engines would read
        # a double) or an exponent, cast to an exact number: not read
        ("SELECT payload:s::number AS n FROM APP.EVENTS", "JSON_VALUE"),
        ("SELECT payload:n::number AS n FROM APP.EVENTS", "JSON_VALUE"),
        ("SELECT payload:c::number(10, 1) AS n FROM APP.EVENTS", "JSON_VALUE"),
        ("SELECT payload:e::int AS n FROM APP.EVENTS", "JSON_VALUE"),
        # LIKE of a boolean: Snowflake would match its text 'true'
        ("SELECT id FROM APP.EVENTS WHERE payload:n LIKE 't%'", "JSON_VALUE"),
        # ... and a string function of it would read that text, here through a CTE
        ("SELECT UPPER(payload:n) AS n FROM APP.EVENTS", "JSON_VALUE"),
        (
            "WITH c AS (SELECT e.payload:n AS q FROM APP.EVENTS AS e) SELECT UPPER(c.q) AS u"
            " FROM c",
            "JSON_VALUE",
        ),
        # a JSON null compared as a value: a value of its own in Snowflake, not NULL
        ("SELECT COUNT(*) AS n FROM APP.EVENTS GROUP BY payload:z", "JSON_VALUE"),
        ("SELECT id FROM APP.EVENTS WHERE payload:z <> 'x'", "JSON_VALUE"),
        # ... where COALESCE would stop at it (it is not SQL NULL)
        ("SELECT id FROM APP.EVENTS WHERE COALESCE(payload:z, 'x') = 'x'", "JSON_VALUE"),
        # ... and a number or a string compared with another VARIANT or with TRUE
        ("SELECT id FROM APP.EVENTS WHERE payload:user.name = payload:c", "JSON_VALUE"),
        ("SELECT id FROM APP.EVENTS WHERE payload:s = TRUE", "JSON_VALUE"),
        # FLATTEN of an object gives a row per key in Snowflake: not translated, fails
        (
            "SELECT f.index AS i FROM APP.EVENTS AS e, LATERAL FLATTEN(input => e.payload:items) f",
            "JSON_TABLE",
        ),
    ],
)
def test_what_snowflake_prints_its_own_way_fails_on_both_engines(
    spark_engine, lake, source, message
):
    ansi_sql = _ansi(source)
    with pytest.raises(duckdb.Error, match=message):
        _on_duckdb(ansi_sql, lake["bad"])
    with pytest.raises(Exception, match=message):
        _on_spark(spark_engine, ansi_sql, lake["bad"])


def test_a_negative_zero_is_zero_on_duckdb_as_in_the_standard(lake):
    [(value,)] = _on_duckdb(
        _ansi("SELECT payload:n::float AS n FROM APP.EVENTS WHERE id = 2"), lake["good"]
    )
    assert value == 0.0 and math.copysign(1.0, value) == 1.0


def test_the_flatten_of_the_rule_catalog_counts_from_zero():
    ansi_sql = _ansi(
        "SELECT f.index AS i FROM APP.EVENTS AS e, LATERAL FLATTEN(input => e.payload) AS f"
    )
    one_line = generate(sqlglot.parse_one(ansi_sql, read=Ansi), pretty=False)
    assert '("f"."index" - 1)' in one_line
    assert "'strict $[*]'" in one_line
    assert """JSON_EXISTS("e"."payload", 'strict $ ? (@.type() == "object")')""" in one_line


@pytest.mark.parametrize(
    ("source", "rule", "where"),
    [
        ("SELECT payload:n::date AS n FROM APP.EVENTS", "VARIANT-PATH", "1:8"),
        ("SELECT payload:n AS n FROM APP.EVENTS", "VARIANT-PATH", "1:8"),
        ("SELECT id FROM APP.EVENTS WHERE payload:n > 'x'", "VARIANT-PATH", "1:33"),
        # COALESCE of VARIANTs output as a VARIANT
        ("SELECT COALESCE(payload:Q, 'x') AS q FROM APP.EVENTS", "VARIANT-PATH", "1:17"),
        # compared with a number, ordered where the order is seen, tested as a VARIANT
        ("SELECT payload:n = 1 AS b FROM APP.EVENTS", "VARIANT-PATH", "1:8"),
        ("SELECT id FROM APP.EVENTS ORDER BY payload:Q", "VARIANT-PATH", "1:36"),
        (
            "WITH c AS (SELECT e.payload:Q AS q FROM APP.EVENTS AS e)"
            " SELECT c.q, COUNT(*) AS n FROM c GROUP BY c.q",
            "VARIANT-PATH",
            "1:19",
        ),
        ("SELECT payload[id]::string AS n FROM APP.EVENTS", "VARIANT-PATH", "1:8"),
        ("SELECT id[0] AS n FROM APP.EVENTS", "VARIANT-PATH", "1:8"),
        ("SELECT payload:Q::variant AS q FROM APP.EVENTS", "VARIANT-PATH", "1:8"),
        # Snowflake's JSON reader takes unquoted keys and refuses repeated ones
        ("SELECT PARSE_JSON(payload):Q::string AS q FROM APP.EVENTS", "VARIANT-PARSE-JSON", "1:8"),
        (
            "SELECT id FROM APP.EVENTS WHERE TRY_PARSE_JSON(id::string):a IS NULL",
            "VARIANT-PARSE-JSON",
            "1:33",
        ),
        # a path output by a CTE or derived table and read as a VARIANT: tested for NULL
        # (a JSON null is not NULL), grouped, counted, output, joined by USING
        (
            "SELECT d.id FROM (SELECT e.id, e.payload:Q AS q FROM APP.EVENTS AS e) AS d"
            " WHERE d.q IS NULL",
            "VARIANT-PATH",
            "1:32",
        ),
        (
            "WITH c AS (SELECT e.payload:Q AS q FROM APP.EVENTS AS e)"
            " SELECT COUNT(c.q) AS n FROM c WHERE c.q LIKE 'u%'",
            "VARIANT-PATH",
            "1:19",
        ),
        (
            "WITH c AS (SELECT e.payload:Q AS q FROM APP.EVENTS AS e) SELECT c.q FROM c",
            "VARIANT-PATH",
            "1:19",
        ),
        (
            "WITH c AS (SELECT DISTINCT e.payload:Q AS q FROM APP.EVENTS AS e)"
            " SELECT UPPER(c.q) AS u FROM c",
            "VARIANT-PATH",
            "1:28",
        ),
        (
            "SELECT f.key AS k FROM APP.EVENTS AS e, LATERAL FLATTEN(input => e.payload) AS f",
            "VARIANT-FLATTEN",
            "1:8",
        ),
        (
            "SELECT f.value AS v FROM APP.EVENTS AS e, LATERAL FLATTEN(input => e.payload) AS f",
            "VARIANT-FLATTEN",
            "1:8",
        ),
        (
            "SELECT f.index AS i FROM APP.EVENTS AS e,"
            " LATERAL FLATTEN(input => e.payload, outer => TRUE) AS f",
            "VARIANT-FLATTEN",
            "1:51",
        ),
        (
            "SELECT f.index AS i FROM APP.EVENTS AS e, LATERAL FLATTEN(input => e.id) AS f",
            "VARIANT-FLATTEN",
            "1:68",
        ),
        # FLATTEN of SPLIT: by a literal, non-empty separator (Snowflake's empty one gives
        # the whole string); its value read as a string, not output or read by a path
        (
            "SELECT c.value::string AS v FROM APP.EVENTS AS e,"
            " LATERAL FLATTEN(input => SPLIT('ab', '')) AS c",
            "VARIANT-FLATTEN",
            "1:76",
        ),
        (
            "SELECT c.value AS v FROM APP.EVENTS AS e,"
            " LATERAL FLATTEN(input => SPLIT('a,b', ',')) AS c",
            "VARIANT-FLATTEN",
            "1:8",
        ),
        (
            "SELECT c.value:k::string AS v FROM APP.EVENTS AS e,"
            " LATERAL FLATTEN(input => SPLIT('a,b', ',')) AS c",
            "VARIANT-FLATTEN",
            "1:8",
        ),
        (
            "SELECT t.seq AS s FROM APP.EVENTS AS e, LATERAL SPLIT_TO_TABLE('a,b', ',') AS t",
            "VARIANT-FLATTEN",
            "1:8",
        ),
        (
            "SELECT value AS v FROM APP.EVENTS AS e, LATERAL SPLIT_TO_TABLE('a,b', ',')",
            "FN-SPLIT-TO-TABLE",
            "1:49",
        ),
        # a VARIANT picked by LAST_VALUE is still a VARIANT
        (
            "SELECT LAST_VALUE(payload) OVER (ORDER BY id) || 'x' AS p FROM APP.EVENTS",
            "OPAQUE-TYPE",
            "1:19",
        ),
        # a CTE's VARIANT column that a query reads as it is, or that DISTINCT or UNION
        # compares: not an unread column
        (
            "WITH c AS (SELECT id, payload:user AS u FROM APP.EVENTS) SELECT u FROM c",
            "VARIANT-PATH",
            "1:23",
        ),
        (
            "WITH c AS (SELECT DISTINCT id, payload:user AS u FROM APP.EVENTS) SELECT id FROM c",
            "VARIANT-PATH",
            "1:32",
        ),
        (
            "WITH c AS (SELECT id, '' AS k FROM APP.EVENTS UNION"
            " SELECT id, payload:user FROM APP.EVENTS) SELECT id FROM c",
            "VARIANT-PATH",
            "1:64",
        ),
        (
            "WITH c AS (SELECT id, payload:user AS u FROM APP.EVENTS ORDER BY 2 LIMIT 1)"
            " SELECT id FROM c",
            "VARIANT-PATH",
            "1:23",
        ),
        # ARRAY_SIZE of an array that is not a VARIANT: its elements are VARIANTs
        ("SELECT ARRAY_SIZE(SPLIT('a,b', ',')) AS n FROM APP.EVENTS", "ARRAY-AGG", "1:8"),
        ("SELECT ARRAY_SIZE(ARRAY_CONSTRUCT(id, 'x')) AS n FROM APP.EVENTS", "ARRAY-AGG", "1:19"),
        ("SELECT ARRAY_SIZE(ARRAY_CONSTRUCT()) AS n FROM APP.EVENTS", "ARRAY-AGG", "1:19"),
        # an ARRAY_CONSTRUCT's elements are VARIANTs: read one, or output it, and it is one
        ("SELECT ARRAY_CONSTRUCT(id, id)[0] AS n FROM APP.EVENTS", "ARRAY-AGG", "1:8"),
        ("SELECT ARRAY_CONSTRUCT(id, id) AS a FROM APP.EVENTS", "ARRAY-AGG", "1:8"),
        ("SELECT ARRAY_SIZE(payload[id]) AS n FROM APP.EVENTS", "VARIANT-PATH", "1:19"),
    ],
)
def test_what_has_no_exact_form_is_refused_where_it_is(source, rule, where):
    with pytest.raises(TranslationError) as raised:
        translate(source, "snowflake", catalog=CATALOG)
    assert (rule, where) in {(d.rule, f"{d.line}:{d.col}") for d in raised.value.diagnostics}


def test_a_variant_column_no_query_reads_is_null_and_said_so(spark_engine, lake):
    """Snowflake never fails on a path, MIN / MAX / ANY_VALUE of one, and nothing reads
    the column: written as NULL, the rows are Snowflake's where reading the items as
    strings would fail (an object under "user", numbers among the items)."""
    translation = translate(
        "WITH c AS (SELECT e.id, MAX(f.value:sku) AS top_sku FROM APP.EVENTS AS e,"
        " LATERAL FLATTEN(input => e.payload:items) f GROUP BY e.id),"
        " u AS (SELECT id, '' AS k FROM APP.EVENTS UNION ALL"
        " SELECT id, payload:user AS k FROM APP.EVENTS)"
        " SELECT (SELECT COUNT(*) FROM c) AS g, COUNT(*) AS n FROM u",
        "snowflake",
        catalog=CATALOG,
    )
    # ids 1 and 4 have elements; five rows twice
    assert _on_duckdb(translation.ansi_sql, lake["good"]) == [(2, 10)]
    assert _on_spark(spark_engine, translation.ansi_sql, lake["good"]) == [(2, 10)]
    assert {(d.severity, d.rule, d.message) for d in translation.diagnostics} >= {
        ("warning", "VARIANT-FLATTEN", "column top_sku holds a VARIANT value that no query "
         "reads: written as NULL"),
        ("warning", "VARIANT-PATH", "column k holds a VARIANT value that no query reads: "
         "written as NULL"),
    }  # fmt: skip


@pytest.mark.parametrize(
    ("source", "reason"),
    [
        ("SELECT payload:n + 1 AS x FROM APP.EVENTS", "computes on a VARIANT number"),
        ("SELECT MAX(payload:n) AS x FROM APP.EVENTS", "orders VARIANT values across JSON types"),
        ("SELECT payload:user AS u FROM APP.EVENTS", "a column of VARIANT values has no standard"),
    ],
)
def test_a_refused_variant_says_what_it_is_used_as(source, reason):
    with pytest.raises(TranslationError) as raised:
        translate(source, "snowflake", catalog=CATALOG)
    assert any(reason in d.message for d in raised.value.diagnostics)


@pytest.mark.parametrize(
    ("text", "read"),
    [
        ('{"a": "x", "a": "y"}', "x"),  # Snowflake's PARSE_JSON fails (TRY_: NULL)
        ('{"a": "x", "b": [1, 2,]}', "x"),  # not JSON
        ('{"a": "x", "b": NaN}', "x"),  # not JSON
    ],
)
def test_duckdb_reads_text_snowflakes_parse_json_does_not(text, read):
    """Why VARIANT-PARSE-JSON stays refused: DuckDB reads a value from these texts, which
    no SQL of the engines tells apart from JSON to guard (if this fails, look again)."""
    with duckdb.connect() as con:
        assert con.execute("SELECT json_extract_string(?, '$.a')", [text]).fetchone() == (read,)
    with pytest.raises(TranslationError, match="keeps the first of repeated keys"):
        translate(
            "SELECT TRY_PARSE_JSON(id::string):a::string AS a FROM APP.EVENTS",
            "snowflake",
            catalog=CATALOG,
        )


def test_a_variant_column_of_a_union_all_is_still_a_variant():
    ansi_sql = _ansi(
        "WITH c AS (SELECT id, payload AS p FROM APP.EVENTS UNION ALL"
        " SELECT id, payload FROM APP.EVENTS)"
        " SELECT c.id, f.value:sku::string AS sku FROM c, LATERAL FLATTEN(input => c.p:items) f"
    )
    assert "JSON_TABLE" in ansi_sql


def test_a_variant_column_still_passes_through_unchanged():
    ansi_sql = _ansi("SELECT id, payload FROM APP.EVENTS WHERE payload IS NOT NULL")
    assert '"events"."payload" AS "payload"' in ansi_sql


@pytest.mark.parametrize(
    "path",
    [
        jsonpath.JsonPath(("a", 0, 'q"uo\\te', "sp ace")),
        jsonpath.JsonPath(("items",), each=True),
        jsonpath.JsonPath(("a",), filter=("==", "string")),
        jsonpath.JsonPath((), filter=("<>", "null")),
        jsonpath.JsonPath(("a", 0)).size(),
        jsonpath.JsonPath(("size()",)),
    ],
)
def test_paths_are_read_back_as_written(path):
    assert jsonpath.parse(path.text()) == path


def test_the_sql_json_operators_round_trip_through_the_ansi_dialect():
    ansi_sql = _ansi(
        "SELECT f.value:sku::string AS sku FROM APP.EVENTS AS e,"
        " LATERAL FLATTEN(input => e.payload:items) AS f"
    )
    reparsed = sqlglot.parse_one(ansi_sql, read=Ansi)
    assert generate(reparsed) == ansi_sql


def test_a_path_outside_the_written_subset_is_refused_at_rendering():
    with pytest.raises(TranslationError, match="only strict paths"):
        render('SELECT JSON_EXISTS("t"."j", \'lax $.a\') AS "x" FROM "t" AS "t"', "duckdb")


def test_column_lineage_runs_through_flatten_to_the_variant_column():
    from sql.lineage import column_lineage

    translation = translate(
        "SELECT e.id, f.index AS i, g.value::string AS tag FROM APP.EVENTS AS e,"
        ' LATERAL FLATTEN(input => e.payload:"k y") AS f,'
        " LATERAL FLATTEN(input => f.value:tags) AS g",
        "snowflake",
        catalog=CATALOG,
    )
    lineage = column_lineage(translation, CATALOG)
    assert lineage == {
        "id": [("raw.events", "id")],
        "i": [("raw.events", "payload")],
        "tag": [("raw.events", "payload")],
    }
