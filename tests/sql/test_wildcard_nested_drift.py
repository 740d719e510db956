"""BigQuery wildcard tables whose nested columns drifted (a field added to a record of
later tables, as Google Analytics' daily ga_sessions_* tables gained
``hits.product.productCouponCode``): the fields every table has with one type read exactly,
on DuckDB and Spark, against rows written out by hand; the rest refused, naming the field."""

from __future__ import annotations

import duckdb
import pytest

from sql.catalog import Catalog
from sql.diagnostics import TranslationError
from sql.render import render
from sql.translate import translate, translate_script

# Spark reaches a session's views under one qualified name only: global_temp.
ZONE = "global_temp"
OLD = 'ROW("n" BIGINT, "page" ROW("path" VARCHAR, "title" VARCHAR), "product" ROW("sku" VARCHAR, "rev" BIGINT) ARRAY) ARRAY'
NEW = 'ROW("n" BIGINT, "page" ROW("path" VARCHAR, "title" VARCHAR), "product" ROW("sku" VARCHAR, "rev" BIGINT, "coupon" VARCHAR) ARRAY) ARRAY'
DUCKDB_OLD = "STRUCT(n BIGINT, page STRUCT(path VARCHAR, title VARCHAR), product STRUCT(sku VARCHAR, rev BIGINT)[])[]"
DUCKDB_NEW = (
    "STRUCT(n BIGINT, page STRUCT(path VARCHAR, title VARCHAR), "
    "product STRUCT(sku VARCHAR, rev BIGINT, coupon VARCHAR)[])[]"
)
# Sessions of three days: two of the old shape, the last with the coupon field added.
ROWS = {
    "ev_1": (
        "hits",
        OLD,
        DUCKDB_OLD,
        "(1, [{'n': 1, 'page': {'path': '/a', 'title': 'A'}, "
        "'product': [{'sku': 's1', 'rev': 10}, {'sku': 's2', 'rev': NULL}]}, "
        "{'n': 2, 'page': {'path': NULL, 'title': 'B'}, 'product': []}]), (2, [])",
    ),
    "ev_2": (
        "hits",
        OLD,
        DUCKDB_OLD,
        "(3, [{'n': 1, 'page': {'path': '/b', 'title': NULL}, "
        "'product': [{'sku': 's1', 'rev': 5}]}])",
    ),
    "ev_3": (
        "hits",
        NEW,
        DUCKDB_NEW,
        "(4, [{'n': 1, 'page': {'path': '/a', 'title': 'A'}, "
        "'product': [{'sku': 's3', 'rev': 7, 'coupon': 'X'}]}])",
    ),
    # A record (no array) that gained a field.
    "rec_1": ("page", 'ROW("path" VARCHAR)', "STRUCT(path VARCHAR)", "(1, {'path': '/a'})"),
    "rec_2": (
        "page",
        'ROW("path" VARCHAR, "title" VARCHAR)',
        "STRUCT(path VARCHAR, title VARCHAR)",
        "(2, {'path': '/b', 'title': 'B'}), (3, NULL)",
    ),
}
TABLES = {
    **{name: {"id": "BIGINT", column: ansi} for name, (column, ansi, _, _) in ROWS.items()},
    # A leaf field typed otherwise.
    "mix_1": {"id": "BIGINT", "hits": 'ROW("n" BIGINT, "v" BIGINT) ARRAY'},
    "mix_2": {"id": "BIGINT", "hits": 'ROW("n" BIGINT, "v" VARCHAR) ARRAY'},
}
CATALOG = Catalog(
    tables={f"{ZONE}.{name}": columns for name, columns in TABLES.items()},
    legacy={"bigquery": {("shop", "web", name): f"{ZONE}.{name}" for name in TABLES}},
)
EV = "`shop.web.ev_*`"
HITS = f"{EV} AS s, UNNEST(s.hits) AS h"
PRODUCTS = f"{HITS}, UNNEST(h.product) AS p"


@pytest.fixture(scope="module")
def engines(spark_engine, tmp_path_factory):
    """Each day's table as a Parquet file written by DuckDB, read by both engines."""
    folder = tmp_path_factory.mktemp("nested_drift")
    con = duckdb.connect()
    con.execute(f"CREATE SCHEMA {ZONE}")
    spark = spark_engine.session().newSession()
    for name, (column, _, duckdb_type, values) in ROWS.items():
        path = folder / f"{name}.parquet"
        con.execute(f"CREATE TABLE {ZONE}.{name} (id BIGINT, {column} {duckdb_type})")
        con.execute(f"INSERT INTO {ZONE}.{name} VALUES {values}")
        con.execute(f"COPY {ZONE}.{name} TO '{path}' (FORMAT parquet)")
        spark.read.parquet(str(path)).createOrReplaceGlobalTempView(name)
    yield con, spark
    con.close()


def _key(row: tuple) -> tuple:
    return tuple((value is None, value) for value in row)


# (query, expected rows in any order, the tables the pruned union reads)
CASES = [
    # Fields every table has with one type, from tables of the old shape.
    (
        f"SELECT s.id, h.page.path, p.sku, p.rev FROM {PRODUCTS} WHERE _TABLE_SUFFIX < '3'",
        [(1, "/a", "s1", 10), (1, "/a", "s2", None), (3, "/b", "s1", 5)],
        2,
    ),
    # ... and from the one of the new shape: the same fields, not the added one.
    (f"SELECT s.id, p.sku, p.rev FROM {PRODUCTS} WHERE _TABLE_SUFFIX = '3'", [(4, "s3", 7)], 1),
    # BigQuery's habit: the UNNEST named like the column, its fields read unqualified.
    (
        f"SELECT id, hits.n, hits.page.title FROM {EV}, UNNEST(hits) AS hits "
        "WHERE _TABLE_SUFFIX BETWEEN '1' AND '2'",
        [(1, 1, "A"), (1, 2, "B"), (3, 1, None)],
        2,
    ),
    (
        f"SELECT sku, rev FROM {PRODUCTS} WHERE _TABLE_SUFFIX = '2'",
        [("s1", 5)],
        1,
    ),
    # A record that did not drift is read whole; positions; a count of the elements.
    (
        f"SELECT s.id, o FROM {HITS} WITH OFFSET AS o "
        "WHERE _TABLE_SUFFIX <= '2' AND h.page.path IS NULL",
        [(1, 1)],
        2,
    ),
    (
        f"SELECT s.id, (SELECT COUNT(*) FROM UNNEST(s.hits)) AS n FROM {EV} AS s "
        "WHERE _TABLE_SUFFIX IN ('1', '2')",
        [(1, 2), (2, 0), (3, 1)],
        2,
    ),
    # Tables of both shapes: each UNNEST moves into every branch of the union, which
    # projects the values read of the elements (one type in every table).
    (
        f"SELECT s.id, h.page.path, p.sku, p.rev FROM {PRODUCTS}",
        [(1, "/a", "s1", 10), (1, "/a", "s2", None), (3, "/b", "s1", 5), (4, "/a", "s3", 7)],
        3,
    ),
    (
        f"SELECT h.n, COUNT(*) AS c FROM {HITS} WITH OFFSET AS o WHERE o >= 1 GROUP BY h.n",
        [(2, 1)],
        3,
    ),
    (
        f"SELECT _TABLE_SUFFIX AS d, COUNT(*) AS n FROM {PRODUCTS} "
        "WHERE p.rev IS NOT NULL GROUP BY _TABLE_SUFFIX",
        [("1", 1), ("2", 1), ("3", 1)],
        3,
    ),
    (
        f"SELECT s.id, h.n FROM {HITS} JOIN `shop.web.ev_2` AS e ON e.id = s.id + 2 "
        "WHERE h.page.title = 'A'",
        [(1, 1)],
        3,
    ),
    (f"SELECT COUNT(*) AS n FROM {PRODUCTS}", [(4,)], 3),
    # A drifted record's field that every table has: each branch projects it.
    (
        "SELECT id, page.path FROM `shop.web.rec_*` WHERE page.path IS NOT NULL OR id = 3",
        [(1, "/a"), (2, "/b"), (3, None)],
        2,
    ),
    # Tables of other shapes are matched but not read: the column itself is not read.
    (f"SELECT id FROM {EV}", [(1,), (2,), (3,), (4,)], 3),
]


@pytest.mark.parametrize(("source", "expected", "tables"), CASES)
def test_fields_of_a_drifted_nested_column_read_on_both_engines(engines, source, expected, tables):
    con, spark = engines
    translation = translate(source, "bigquery", catalog=CATALOG)
    assert len(translation.source_tables) == tables
    ansi_sql = translation.ansi_sql
    on_duckdb = sorted(con.sql(render(ansi_sql, "duckdb")).fetchall(), key=_key)
    on_spark = sorted((tuple(r) for r in spark.sql(render(ansi_sql, "spark")).collect()), key=_key)
    assert on_duckdb == on_spark == sorted(expected, key=_key), ansi_sql


def test_a_script_variables_bounds_prune_the_union(engines):
    con, spark = engines
    script = translate_script(
        f"DECLARE first_day STRING DEFAULT '3';\nSELECT p.sku FROM {PRODUCTS} "
        "WHERE _TABLE_SUFFIX >= first_day",
        "bigquery",
        name="skus",
        catalog=CATALOG,
    )
    [translation] = script.tables
    assert translation.source_tables == (f"{ZONE}.ev_3",)
    assert con.sql(render(translation.ansi_sql, "duckdb")).fetchall() == [("s3",)]
    assert [tuple(r) for r in spark.sql(render(translation.ansi_sql, "spark")).collect()] == [
        ("s3",)
    ]


REFUSED = [
    # BigQuery documents NULL for a column a table lacks, not for a nested field.
    (
        f"SELECT p.coupon FROM {PRODUCTS} WHERE _TABLE_SUFFIX = '3'",
        "field hits.product.coupon is in ev_3 but not in ev_1",
    ),
    ("SELECT page.title FROM `shop.web.rec_*`", "field page.title is in rec_2 but not in rec_1"),
    # A bare name is a field of the UNNEST's element, as BigQuery reads a value table.
    (
        f"SELECT coupon FROM {PRODUCTS} WHERE _TABLE_SUFFIX = '3'",
        "field hits.product.coupon is in ev_3 but not in ev_1",
    ),
    # Read whole, a drifted record's value would be the most recent table's shape.
    (
        f"SELECT ARRAY_LENGTH(h.product) AS n FROM {HITS} WHERE _TABLE_SUFFIX = '1'",
        "hits.product is read as a whole, and its fields differ between ev_1 and ev_3",
    ),
    (
        f"SELECT s.id FROM {PRODUCTS} WHERE p IS NULL AND _TABLE_SUFFIX = '1'",
        "an element of hits.product is read as a whole",
    ),
    (f"SELECT id, hits FROM {EV} WHERE _TABLE_SUFFIX = '1'", "hits is read as a whole"),
    # The tables it reads hold two shapes of the column, and it is read otherwise than by
    # an UNNEST joined to the wildcard with inner joins only: no union of them.
    (
        f"SELECT s.id FROM {HITS} WHERE EXISTS (SELECT 1 FROM UNNEST(h.product) AS q "
        "WHERE q.rev > 6)",
        "the tables it reads hold column hits with other fields in ev_1 than in ev_3",
    ),
    (
        f"SELECT s.id, h.n FROM {EV} AS s LEFT JOIN UNNEST(s.hits) AS h",
        "the tables it reads hold column hits with other fields in ev_1 than in ev_3",
    ),
    (
        "SELECT h.v FROM `shop.web.mix_*`, UNNEST(hits) AS h",
        "field hits.v has one type in mix_1 and another in mix_2",
    ),
]


@pytest.mark.parametrize(("source", "says"), REFUSED)
def test_reads_without_an_exact_translation_are_refused(source, says):
    with pytest.raises(TranslationError) as raised:
        translate(source, "bigquery", catalog=CATALOG)
    found = [d for d in raised.value.diagnostics if d.rule == "WILDCARD-UNSUPPORTED"]
    assert found and says in found[0].message, raised.value
