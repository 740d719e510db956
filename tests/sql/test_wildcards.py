"""BigQuery wildcard tables: the UNION ALL of the catalog's matching tables with
_TABLE_SUFFIX, run on DuckDB and Spark against rows written out by hand."""

from __future__ import annotations

import duckdb
import pytest

from sql.assumptions import Assumptions
from sql.catalog import Catalog
from sql.diagnostics import TranslationError
from sql.lineage import column_lineage
from sql.render import render
from sql.translate import translate

# Spark reaches a session's views under one qualified name only: global_temp.
ZONE = "global_temp"
VISITS = {"id": "BIGINT", "page": "VARCHAR"}
ROWS = {
    "visits_20240101": [(1, "home"), (2, None)],
    "visits_20240102": [(3, "cart"), (1, "home")],
    "visits_20240103": [(4, "")],
    # Matched by the prefix too: a wildcard reads every table whose name starts with it.
    "visits_archive": [(9, "old")],
}
# Tables whose schemas drifted: a column added (note), the order changed, a column typed
# otherwise (score). Every one has id and page, of one type each.
DRIFT = {
    "drift_1": ({"id": "BIGINT", "page": "VARCHAR"}, [(1, "a")]),
    "drift_2": ({"id": "BIGINT", "page": "VARCHAR", "note": "VARCHAR"}, [(2, None, "x")]),
    "drift_3": ({"page": "VARCHAR", "id": "BIGINT", "score": "INTEGER"}, [("c", 3, 7)]),
    "drift_4": ({"id": "BIGINT", "page": "VARCHAR", "score": "BIGINT"}, [(4, "", 8)]),
}
OTHER_TABLES = {
    **{name: columns for name, (columns, _) in DRIFT.items()},
    # NOT NULL where another table lacks the column: BigQuery fails every query.
    "strict_1": {"id": "BIGINT", "page": "VARCHAR"},
    "strict_2": {"id": "BIGINT", "page": "VARCHAR", "code": "VARCHAR"},
    # Same names, one type differs.
    "mixed_1": {"id": "BIGINT", "page": "VARCHAR"},
    "mixed_2": {"id": "INTEGER", "page": "VARCHAR"},
    # The prefix is itself a table's name.
    "solo": VISITS,
    "solo_1": VISITS,
}


def _catalog(tables: dict[str, dict[str, str]]) -> Catalog:
    return Catalog(
        tables={f"{ZONE}.{name}": columns for name, columns in tables.items()},
        legacy={"bigquery": {("shop", "web", name): f"{ZONE}.{name}" for name in tables}},
        required={f"{ZONE}.strict_2": frozenset({"code"})} if "strict_2" in tables else {},
    )


CATALOG = _catalog({**dict.fromkeys(ROWS, VISITS), **OTHER_TABLES})
WILD = "`shop.web.visits_*`"
DRIFTED = "`shop.web.drift_*`"


@pytest.fixture(scope="module")
def engines(spark_engine):
    con = duckdb.connect()
    con.execute(f"CREATE SCHEMA {ZONE}")
    spark = spark_engine.session().newSession()
    for name, rows in ROWS.items():
        values = ", ".join(f"({i}, {'NULL' if page is None else repr(page)})" for i, page in rows)
        query = (
            "SELECT CAST(id AS BIGINT) AS id, CAST(page AS VARCHAR(20)) AS page "
            f"FROM (VALUES {values}) AS t(id, page)"
        )
        con.execute(f"CREATE TABLE {ZONE}.{name} AS {query}")
        spark.sql(query.replace("VARCHAR(20)", "STRING")).createOrReplaceGlobalTempView(name)
    for name, (columns, rows) in DRIFT.items():
        values = ", ".join(
            "(" + ", ".join("NULL" if v is None else repr(v) for v in row) + ")" for row in rows
        )
        casts = ", ".join(f"CAST({c} AS {t}) AS {c}" for c, t in columns.items())
        query = f"SELECT {casts} FROM (VALUES {values}) AS t({', '.join(columns)})"
        con.execute(f"CREATE TABLE {ZONE}.{name} AS {query}")
        spark.sql(query.replace("VARCHAR", "STRING")).createOrReplaceGlobalTempView(name)
    yield con, spark
    con.close()


def _key(row: tuple) -> tuple:
    return tuple((value is None, value) for value in row)


# (query, expected rows in any order, the tables the pruned union still reads)
CASES = [
    # `*` leaves the pseudo-column out.
    (
        f"SELECT * FROM {WILD}",
        [(1, "home"), (2, None), (3, "cart"), (1, "home"), (4, ""), (9, "old")],
        4,
    ),
    (
        f"SELECT id, _TABLE_SUFFIX AS s FROM {WILD} "
        "WHERE _TABLE_SUFFIX BETWEEN '20240101' AND '20240102'",
        [(1, "20240101"), (2, "20240101"), (3, "20240102"), (1, "20240102")],
        2,
    ),
    (
        f"SELECT _TABLE_SUFFIX AS s, COUNT(*) AS n FROM {WILD} GROUP BY _TABLE_SUFFIX",
        [("20240101", 2), ("20240102", 2), ("20240103", 1), ("archive", 1)],
        4,
    ),
    (
        f"SELECT * FROM {WILD} WHERE _TABLE_SUFFIX IN ('20240103', 'archive')",
        [(4, ""), (9, "old")],
        2,
    ),
    (
        f"SELECT id FROM {WILD} WHERE '2024' < _TABLE_SUFFIX AND page IS NULL",
        [(2,)],
        4,  # 'archive' > '2024' too
    ),
    # Not prunable (LIKE): every table is read, the predicate decides.
    (
        f"SELECT id, _TABLE_SUFFIX AS s FROM {WILD} WHERE _TABLE_SUFFIX LIKE '2024%' AND id = 1",
        [(1, "20240101"), (1, "20240102")],
        4,
    ),
    # A subquery's _TABLE_SUFFIX is its own wildcard's; qualified names pick the table.
    (
        f"SELECT id FROM {WILD} WHERE _TABLE_SUFFIX = "
        f"(SELECT MAX(_TABLE_SUFFIX) FROM {WILD} WHERE _TABLE_SUFFIX < 'a')",
        [(4,)],
        4,
    ),
    (
        f"SELECT a.id, b._TABLE_SUFFIX AS s FROM {WILD} AS a JOIN {WILD} AS b ON a.id = b.id "
        "WHERE a._TABLE_SUFFIX = '20240101' AND b._TABLE_SUFFIX <> '20240101'",
        [(1, "20240102")],
        4,  # a: 1 table, b: 3
    ),
    (
        f"SELECT e.*, _TABLE_SUFFIX AS s FROM {WILD} AS e WHERE _TABLE_SUFFIX >= 'archive'",
        [(9, "old", "archive")],
        1,
    ),
    # From a subquery that reads no wildcard, _TABLE_SUFFIX is the enclosing block's.
    (
        f"SELECT w.id FROM {WILD} AS w WHERE EXISTS (SELECT 1 FROM `shop.web.visits_archive` "
        "AS t WHERE t.page = w.page AND _TABLE_SUFFIX = 'archive')",
        [(9,)],
        4,
    ),
    # A named suffix column of a CTE, counted (no `*` reads it).
    (f"WITH v AS (SELECT _TABLE_SUFFIX, id FROM {WILD}) SELECT COUNT(*) AS n FROM v", [(6,)], 4),
    # Aliases compare case-insensitively.
    (f"SELECT E.id FROM {WILD} AS e WHERE E._TABLE_SUFFIX = 'archive'", [(9,)], 1),
    # No table can satisfy the bounds: one is kept, and the predicate rejects its rows.
    (f"SELECT id FROM {WILD} WHERE _TABLE_SUFFIX = '20991231'", [], 1),
    # Drifted schemas: the columns every table has with one type read exactly, whatever
    # the tables' order of columns and whatever else they hold.
    (
        f"SELECT id, page, _TABLE_SUFFIX AS s FROM {DRIFTED}",
        [(1, "a", "1"), (2, None, "2"), (3, "c", "3"), (4, "", "4")],
        4,
    ),
    (f"SELECT COUNT(*) AS n FROM {DRIFTED} WHERE page IS NOT NULL", [(3,)], 4),
    # A column read only by an UNNEST of the same block is read.
    (f"SELECT id FROM {DRIFTED} AS d, UNNEST([d.page]) AS p WHERE p = 'c'", [(3,)], 4),
    (
        f"SELECT d.id FROM {DRIFTED} AS d WHERE EXISTS (SELECT 1 FROM {WILD} AS v "
        "WHERE v.id = d.id AND v.page = 'home')",
        [(1,)],
        8,
    ),
    (
        f"SELECT id FROM {DRIFTED} JOIN `shop.web.drift_3` USING (id, page)",
        [(3,)],
        4,  # drift_3 among them
    ),
]


@pytest.mark.parametrize(("source", "expected", "tables"), CASES)
def test_wildcard_tables_read_the_matching_tables_on_both_engines(
    engines, source, expected, tables
):
    con, spark = engines
    translation = translate(source, "bigquery", catalog=CATALOG)
    assert len(translation.source_tables) == tables
    ansi_sql = translation.ansi_sql
    on_duckdb = sorted(con.sql(render(ansi_sql, "duckdb")).fetchall(), key=_key)
    on_spark = sorted((tuple(r) for r in spark.sql(render(ansi_sql, "spark")).collect()), key=_key)
    assert on_duckdb == on_spark == sorted(expected, key=_key), ansi_sql


def test_star_leaves_the_suffix_out_and_lineage_names_the_real_tables():
    translation = translate(
        f"SELECT *, _TABLE_SUFFIX AS s FROM {WILD}", "bigquery", catalog=CATALOG
    )
    assert translation.columns == ("id", "page", "s")
    lineage = column_lineage(translation, CATALOG)
    assert lineage["id"] == [(f"{ZONE}.{name}", "id") for name in sorted(ROWS)]
    assert lineage["s"] == []


def test_the_warning_says_the_tables_are_the_catalogs():
    translation = translate(
        f"SELECT id FROM {WILD} WHERE _TABLE_SUFFIX BETWEEN '20240101' AND '20240102'",
        "bigquery",
        catalog=CATALOG,
    )
    [warning] = [d for d in translation.diagnostics if d.rule == "WILDCARD-TABLES"]
    assert warning.severity == "warning"
    assert (warning.line, warning.col) == (1, 16)
    assert "reads 4 tables of the catalog (visits_20240101 .. visits_archive)" in warning.message
    assert "of which 2 can satisfy" in warning.message
    assert "assumes the warehouse holds exactly these tables" in warning.message


def test_a_shorter_name_completes_with_the_default_project():
    translation = translate(
        "SELECT id FROM `web.visits_*`",
        "bigquery",
        catalog=CATALOG,
        assumptions=Assumptions(bigquery_project="shop"),
    )
    assert len(translation.source_tables) == 4
    assert translation.assumed == (("bigquery_project", "shop"),)


REFUSED = [
    (
        "SELECT id FROM `shop.web.mixed_*`",
        "WILDCARD-UNSUPPORTED",
        "column id is BIGINT in mixed_1 and INTEGER in mixed_2",
    ),
    (
        f"SELECT note FROM {DRIFTED}",
        "WILDCARD-UNSUPPORTED",
        "note is in drift_2 but not in drift_1",
    ),
    (
        f"SELECT id FROM {DRIFTED} WHERE score > 7",
        "WILDCARD-UNSUPPORTED",
        "column score is in drift_3 but not in drift_1",
    ),
    (
        f"SELECT id FROM {WILD} AS v WHERE EXISTS (SELECT 1 FROM {DRIFTED} AS d "
        "WHERE d.id = v.id AND d.note = 'x')",
        "WILDCARD-UNSUPPORTED",
        "note is in drift_2",
    ),
    (f"SELECT * FROM {DRIFTED}", "WILDCARD-UNSUPPORTED", "`*` over shop.web.drift_*"),
    (
        f"SELECT x.id FROM (SELECT d.* FROM {DRIFTED} AS d) AS x",
        "WILDCARD-UNSUPPORTED",
        "their order are those of the most recently created table",
    ),
    (
        "SELECT id FROM `shop.web.strict_*`",
        "WILDCARD-UNSUPPORTED",
        "column code is in strict_2 but not in strict_1, where it is NOT NULL",
    ),
    ("SELECT id FROM `shop.web.solo*`", "WILDCARD-UNSUPPORTED", "the prefix itself"),
    ("SELECT id FROM `shop.web.nothing_*`", "NAME-UNKNOWN", "no table name starts with 'nothing_'"),
    ("SELECT id FROM `shop.other.visits_*`", "NAME-UNKNOWN", "matches the wildcard table"),
    (
        f"SELECT a.id FROM {WILD} AS a, {WILD} AS b WHERE _TABLE_SUFFIX = '1'",
        "WILDCARD-UNSUPPORTED",
        "qualify it with the table's alias",
    ),
    (f"SELECT a.id FROM {WILD} AS a WHERE b._TABLE_SUFFIX = '1'", "WILDCARD-UNSUPPORTED", "'b'"),
    (
        f"WITH v AS (SELECT _TABLE_SUFFIX, id FROM {WILD}) SELECT * FROM v",
        "WILDCARD-UNSUPPORTED",
        "outputs a column named _TABLE_SUFFIX",
    ),
    (
        "SELECT id FROM TABLE_DATE_RANGE(web.visits_, TIMESTAMP('2024-01-01'), "
        "TIMESTAMP('2024-01-02'))",
        "WILDCARD-UNSUPPORTED",
        "legacy SQL",
    ),
]


@pytest.mark.parametrize(("source", "rule_id", "says"), REFUSED)
def test_wildcards_without_an_exact_translation_are_refused(source, rule_id, says):
    with pytest.raises(TranslationError) as raised:
        translate(source, "bigquery", catalog=CATALOG)
    found = [d for d in raised.value.diagnostics if d.rule == rule_id]
    assert found and says in found[0].message, raised.value


def test_a_union_beyond_the_column_bound_is_refused_naming_its_size():
    wide = {f"c{i}": "BIGINT" for i in range(99)}
    catalog = _catalog({f"day_{i:03d}": wide for i in range(101)})
    with pytest.raises(TranslationError) as raised:
        translate("SELECT * FROM `shop.web.day_*`", "bigquery", catalog=catalog)
    [error] = raised.value.diagnostics
    assert error.rule == "WILDCARD-UNSUPPORTED"
    assert "reads 101 tables of 99 columns" in error.message
    # Naming two columns, it reads only those of each table.
    two = translate("SELECT c1, c2 FROM `shop.web.day_*`", "bigquery", catalog=catalog)
    assert len(two.source_tables) == 101
    assert two.ansi_sql.count('AS "c1"') == 102
    # Pruned to a few tables, the same wildcard translates.
    pruned = translate(
        "SELECT c1 FROM `shop.web.day_*` WHERE _TABLE_SUFFIX BETWEEN '000' AND '009'",
        "bigquery",
        catalog=catalog,
    )
    assert len(pruned.source_tables) == 10


def test_a_correlated_unnest_of_a_wildcard_column_is_refused_saying_why():
    # sqlglot finds an UNNEST's element type through a table or a SELECT, not through the
    # union a wildcard becomes: the names read from it stay unresolved, and the message says
    # so rather than sqlglot's "missing source schemas" (the catalog has them). Reading the
    # union through a SELECT resolves them, but Spark 4 then fails to run a correlated
    # subquery over the UNNEST of a union's column (NoSuchElementException in
    # PushProjectionThroughUnion), so the refusal stays.
    params = 'ROW("key" VARCHAR, "v" BIGINT) ARRAY'
    catalog = _catalog({f"events_{day}": {"id": "BIGINT", "params": params} for day in (1, 2)})
    source = (
        "SELECT id, (SELECT v FROM UNNEST(params) WHERE key = 'a') AS v FROM `shop.web.events_*`"
    )
    with pytest.raises(TranslationError) as raised:
        translate(source, "bigquery", catalog=catalog)
    errors = [d for d in raised.value.diagnostics if d.severity == "error"]
    assert [(d.rule, d.line, d.col) for d in errors] == [("COLUMN-UNKNOWN", 1, 20)]
    assert "an UNNEST whose element type was not found" in errors[0].message
    assert "missing source schemas" not in errors[0].message
