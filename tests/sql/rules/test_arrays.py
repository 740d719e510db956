"""BigQuery's typed arrays and structs translate to the standard's arrays and rows, and the
rendered SQL reads the same rows from one Parquet file on DuckDB and on Spark."""

from __future__ import annotations

import duckdb
import pytest
from sqlglot import exp

from sql.ansi import Ansi, generate
from sql.catalog import Catalog
from sql.diagnostics import TranslationError
from sql.render import render
from sql.translate import translate

VARIANT = 'ROW("alt" VARCHAR, "ac" BIGINT, "vep" ROW("symbol" VARCHAR) ARRAY)'
CATALOG = Catalog(
    tables={
        "raw.genomes": {
            "id": "BIGINT",
            "tags": "VARCHAR ARRAY",
            "variants": f"{VARIANT} ARRAY",
            "point": 'ROW("x" DOUBLE PRECISION)',
        }
    },
    legacy={"bigquery": {("p", "g", "genomes"): "raw.genomes"}},
    opaque={},
    sources=("test_arrays.py",),
)
# Row 1 has two tags and two variants, row 2 empty arrays, row 3 NULL ones.
ROWS = """
SELECT * FROM (VALUES
  (1, ['x', 'y'],
   [{'alt': 'T', 'ac': 3, 'vep': [{'symbol': 'BRCA1'}]},
    {'alt': 'C', 'ac': 4, 'vep': []}],
   {'x': 1.5}),
  (2, [], [], NULL),
  (3, NULL, NULL, {'x': 2.0})
) AS v(id, tags, variants, point)
"""
DUCKDB_SCHEMA = (
    "id BIGINT, tags VARCHAR[], "
    "variants STRUCT(alt VARCHAR, ac BIGINT, vep STRUCT(symbol VARCHAR)[])[], "
    "point STRUCT(x DOUBLE)"
)


@pytest.fixture(scope="module")
def genomes(tmp_path_factory):
    """The table as a Parquet file, written once by DuckDB (as a lake's builds write it)."""
    path = tmp_path_factory.mktemp("arrays") / "genomes.parquet"
    with duckdb.connect() as con:
        con.execute(f"CREATE TABLE genomes ({DUCKDB_SCHEMA})")
        con.execute(f"INSERT INTO genomes {ROWS}")
        con.execute(f"COPY genomes TO '{path}' (FORMAT parquet)")
    return path


def _ansi(source: str) -> str:
    return translate(source, "bigquery", catalog=CATALOG).ansi_sql


def _on_duckdb(ansi_sql: str, path) -> list[tuple]:
    with duckdb.connect() as con:
        con.execute(f"CREATE VIEW genomes AS SELECT * FROM read_parquet('{path}')")
        return con.sql(render(_local(ansi_sql), "duckdb")).fetchall()


def _on_spark(spark_engine, ansi_sql: str, path) -> list[tuple]:
    spark = spark_engine.session()
    spark.read.parquet(str(path)).createOrReplaceTempView("genomes")
    return [tuple(row) for row in spark.sql(render(_local(ansi_sql), "spark")).collect()]


def _local(ansi_sql: str) -> str:
    return ansi_sql.replace('"raw"."genomes"', '"genomes"')


def _sorted(rows: list[tuple]) -> list[tuple]:
    return sorted(rows, key=lambda row: tuple((v is None, str(v)) for v in row))


CASES = [
    # a comma join drops rows whose array is empty or NULL; OFFSET counts from 0
    (
        "SELECT g.id, v.alt, v.ac, o FROM p.g.genomes AS g, UNNEST(g.variants) AS v"
        " WITH OFFSET AS o",
        [(1, "T", 3, 0), (1, "C", 4, 1)],
    ),
    # an UNNEST of a field of the previous one
    (
        "SELECT g.id, v.alt, e.symbol FROM p.g.genomes AS g, UNNEST(g.variants) AS v,"
        " UNNEST(v.vep) AS e",
        [(1, "T", "BRCA1")],
    ),
    # BigQuery reads the fields of an UNNEST of structs by their bare names too
    (
        "SELECT g.id, ac, symbol FROM p.g.genomes AS g, UNNEST(g.variants) AS v, UNNEST(vep) AS e",
        [(1, 3, "BRCA1")],
    ),
    # an UNNEST of structs without a name: each field is a column named as the field
    # ("For input arrays of structs, UNNEST returns a row for each struct, with a separate
    # column for each field"), in its query block and in queries nested in it
    (
        "SELECT g.id, alt, AC FROM p.g.genomes AS g CROSS JOIN UNNEST(g.variants) WHERE ac > 3",
        [(1, "C", 4)],
    ),
    (
        "SELECT id, (SELECT SUM(ac) FROM UNNEST(variants)) AS s,"
        " (SELECT alt FROM UNNEST(variants) WHERE ac = 3) AS a FROM p.g.genomes",
        [(1, 7, "T"), (2, None, None), (3, None, None)],
    ),
    (
        "SELECT g.id, alt FROM p.g.genomes AS g, UNNEST(g.variants)"
        " WHERE EXISTS (SELECT 1 FROM UNNEST(vep) AS e WHERE e.symbol = 'BRCA1')",
        [(1, "T")],
    ),
    # an INNER JOIN UNNEST without ON is a cross join, as the comma is
    (
        "SELECT g.id, t FROM p.g.genomes AS g INNER JOIN UNNEST(g.tags) AS t",
        [(1, "x"), (1, "y")],
    ),
    # LEFT JOIN keeps them, with NULL values
    (
        "SELECT g.id, t FROM p.g.genomes AS g LEFT JOIN UNNEST(g.tags) AS t",
        [(1, "x"), (1, "y"), (2, None), (3, None)],
    ),
    (
        "SELECT g.id, t FROM p.g.genomes AS g LEFT JOIN UNNEST(g.tags) AS t ON t = 'y'",
        [(1, "y"), (2, None), (3, None)],
    ),
    (
        "SELECT g.id, t, o FROM p.g.genomes AS g JOIN UNNEST(g.tags) AS t WITH OFFSET AS o"
        " ON o > 0",
        [(1, "y", 1)],
    ),
    # element access in range, safe access out of range, CARDINALITY, a field of a struct
    (
        "SELECT id, tags[OFFSET(1)] AS a, tags[ORDINAL(1)] AS b, tags[SAFE_OFFSET(2)] AS c,"
        " tags[SAFE_ORDINAL(0)] AS d, tags[SAFE_OFFSET(-1)] AS e, ARRAY_LENGTH(tags) AS n,"
        " point.x AS x FROM p.g.genomes WHERE id = 1",
        [(1, "y", "x", None, None, None, 2, 1.5)],
    ),
    (
        "SELECT id, tags[SAFE_OFFSET(0)] AS a, ARRAY_LENGTH(tags) AS n, point.x AS x"
        " FROM p.g.genomes WHERE id > 1",
        [(2, None, 0, None), (3, None, None, 2.0)],
    ),
    # an index from a column
    (
        "SELECT id, tags[OFFSET(id - 1)] AS a FROM p.g.genomes WHERE id = 1",
        [(1, "x")],
    ),
    # correlated subqueries over an UNNEST
    (
        "SELECT id FROM p.g.genomes AS g WHERE EXISTS (SELECT 1 FROM UNNEST(g.variants) AS v"
        " WHERE v.alt = 'T')",
        [(1,)],
    ),
    (
        "SELECT id, (SELECT MAX(t) FROM UNNEST(tags) AS t) AS m FROM p.g.genomes",
        [(1, "y"), (2, None), (3, None)],
    ),
    (
        "SELECT id, (SELECT SUM(v.ac) FROM UNNEST(variants) AS v) AS s FROM p.g.genomes",
        [(1, 7), (2, None), (3, None)],
    ),
    # IN UNNEST of a column: FALSE for an empty or NULL array
    ("SELECT id FROM p.g.genomes WHERE 'y' IN UNNEST(tags)", [(1,)]),
    ("SELECT id FROM p.g.genomes WHERE 'z' NOT IN UNNEST(tags)", [(1,), (2,), (3,)]),
    # written-out arrays
    (
        "SELECT id, [id, id * 10][OFFSET(1)] AS a, ARRAY_LENGTH([tags, tags]) AS n"
        " FROM p.g.genomes WHERE id = 2",
        [(2, 20, 2)],
    ),
    (
        "SELECT n, o FROM UNNEST(['a', 'b', 'c']) AS n WITH OFFSET AS o",
        [("a", 0), ("b", 1), ("c", 2)],
    ),
    # ARRAY_AGG under a subscript: the arg-max idiom, BigQuery's NULL order (first when
    # ascending, last when descending), NULL elements kept, several keys
    (
        "SELECT id, ARRAY_AGG(t ORDER BY t DESC LIMIT 1)[OFFSET(0)] AS top"
        " FROM p.g.genomes AS g, UNNEST(g.tags) AS t GROUP BY id",
        [(1, "y")],
    ),
    (
        "SELECT ARRAY_AGG(v.alt ORDER BY v.ac DESC)[OFFSET(0)] AS a,"
        " ARRAY_AGG(v.alt ORDER BY v.ac)[ORDINAL(1)] AS b"
        " FROM p.g.genomes AS g, UNNEST(g.variants) AS v",
        [("C", "T")],
    ),
    (
        "SELECT ARRAY_AGG(id ORDER BY point.x)[OFFSET(0)] AS a,"
        " ARRAY_AGG(id ORDER BY point.x DESC)[OFFSET(0)] AS b FROM p.g.genomes",
        [(2, 3)],
    ),
    (
        "SELECT ARRAY_AGG(point.x ORDER BY id)[OFFSET(1)] AS a,"
        " ARRAY_LENGTH(ARRAY_AGG(point.x)) AS n,"
        " ARRAY_AGG(point.x IGNORE NULLS ORDER BY id)[SAFE_OFFSET(1)] AS b FROM p.g.genomes",
        [(None, 3, 2.0)],
    ),
    (
        "SELECT ARRAY_AGG(id ORDER BY ARRAY_LENGTH(tags) DESC, id)[OFFSET(0)] AS a,"
        " ARRAY_AGG(id ORDER BY point.x IS NULL, id DESC)[OFFSET(0)] AS b FROM p.g.genomes",
        [(1, 3)],
    ),
    # a field of the STRUCT element read: the same row's value (names are case-insensitive)
    (
        "SELECT ARRAY_AGG(STRUCT(id, point.x AS px) ORDER BY id DESC LIMIT 1)[OFFSET(0)].px AS a,"
        " ARRAY_AGG(STRUCT(id AS k, point.x AS px) ORDER BY point.x)[SAFE_OFFSET(0)].K AS b"
        " FROM p.g.genomes",
        [(2.0, 2)],
    ),
    (
        "SELECT ARRAY_AGG(id)[SAFE_OFFSET(0)] AS a, ARRAY_LENGTH(ARRAY_AGG(id)) AS n"
        " FROM p.g.genomes WHERE id > 5",
        [(None, None)],
    ),
    # ARRAY_TO_STRING (BigQuery's documentation): the elements in order with the delimiter,
    # a NULL element left out with the delimiter before it or written as null_text, '' for
    # an empty array, NULL for a NULL one
    (
        "SELECT id, ARRAY_TO_STRING(tags, ', ') AS s,"
        " ARRAY_TO_STRING([tags[SAFE_OFFSET(0)], tags[SAFE_OFFSET(5)], tags[SAFE_OFFSET(1)]],"
        " '-') AS n, ARRAY_TO_STRING([tags[SAFE_OFFSET(1)], tags[SAFE_OFFSET(5)]], '-', 'NA')"
        " AS t FROM p.g.genomes",
        [(1, "x, y", "x-y", "y-NA"), (2, "", "", "NA-NA"), (3, None, "", "NA-NA")],
    ),
]


@pytest.mark.parametrize(("source", "expected"), CASES)
def test_arrays_read_the_same_rows_on_both_engines(spark_engine, genomes, source, expected):
    ansi_sql = _ansi(source)
    assert _sorted(_on_duckdb(ansi_sql, genomes)) == _sorted(expected), ansi_sql
    assert _sorted(_on_spark(spark_engine, ansi_sql, genomes)) == _sorted(expected), ansi_sql


@pytest.mark.parametrize(
    "source",
    [
        # BigQuery fails on an index outside the array; so does the translation, on each
        # engine (DuckDB would give NULL, and both engines count a negative index from the end)
        "SELECT tags[OFFSET(0)] AS a FROM p.g.genomes WHERE id = 2",
        "SELECT tags[OFFSET(2)] AS a FROM p.g.genomes WHERE id = 1",
        "SELECT tags[OFFSET(-1)] AS a FROM p.g.genomes WHERE id = 1",
        "SELECT tags[ORDINAL(0)] AS a FROM p.g.genomes WHERE id = 1",
    ],
)
def test_an_index_out_of_range_fails_on_both_engines(spark_engine, genomes, source):
    ansi_sql = _ansi(source)
    with pytest.raises(duckdb.Error, match="array element error"):
        _on_duckdb(ansi_sql, genomes)
    with pytest.raises(Exception, match=r"array element error|INVALID_ARRAY_INDEX"):
        _on_spark(spark_engine, ansi_sql, genomes)


def test_array_to_string_stops_where_a_leading_null_precedes_an_element(spark_engine, genomes):
    # BigQuery leaves a NULL element out "with its preceding delimiter": after a leading NULL
    # the next element's delimiter is not documented ('-y' or 'y'), so the query stops.
    ansi_sql = _ansi(
        "SELECT ARRAY_TO_STRING([tags[SAFE_OFFSET(5)], tags[SAFE_OFFSET(1)]], '-') AS s"
        " FROM p.g.genomes WHERE id = 1"
    )
    with pytest.raises(duckdb.Error, match="FN-ARRAY-TO-STRING"):
        _on_duckdb(ansi_sql, genomes)
    with pytest.raises(Exception, match="FN-ARRAY-TO-STRING"):
        _on_spark(spark_engine, ansi_sql, genomes)


def test_a_null_array_or_index_gives_null_not_an_error(spark_engine, genomes):
    ansi_sql = _ansi(
        "SELECT id, tags[OFFSET(0)] AS a, tags[OFFSET(NULL)] AS b FROM p.g.genomes WHERE id = 3"
    )
    assert _on_duckdb(ansi_sql, genomes) == [(3, None, None)]
    assert _on_spark(spark_engine, ansi_sql, genomes) == [(3, None, None)]


@pytest.mark.parametrize(
    ("source", "rule", "where"),
    [
        # BigQuery's SELECT * over an UNNEST of structs is not sqlglot's expansion
        ("SELECT * FROM p.g.genomes AS g, UNNEST(g.variants) AS v", "ARRAY-UNNEST", "1:40"),
        # `*` over an unnamed UNNEST of structs (BigQuery's has the fields), of scalars
        ("SELECT * FROM p.g.genomes AS g, UNNEST(g.variants)", "ARRAY-UNNEST", "1:40"),
        ("SELECT g.id FROM p.g.genomes AS g, UNNEST(g.tags)", "ARRAY-UNNEST", "1:43"),
        # a field name that is also a column of another source (ambiguous in BigQuery)
        (
            "SELECT alt FROM p.g.genomes AS g, (SELECT 'a' AS alt) AS o, UNNEST(g.variants)",
            "COLUMN-UNKNOWN",
            "1:8",
        ),
        # a subscript of a value that is not an array
        ("SELECT point[OFFSET(0)] AS a FROM p.g.genomes", "ARRAY-ELEMENT", "1:8"),
        # mixed element types: BigQuery's supertype is not the standard's
        ("SELECT [id, 2.5][OFFSET(0)] AS a FROM p.g.genomes", "ARRAY-CONSTRUCTOR", "1:9"),
        ("SELECT ARRAY_LENGTH([]) AS n FROM p.g.genomes", "ARRAY-CONSTRUCTOR", "1:8"),
        # BigQuery writes a NULL array out as [] and fails on a NULL element: no array leaves
        ("SELECT tags FROM p.g.genomes", "ARRAY-OUTPUT", "1:8"),
        ("SELECT g.id, v FROM p.g.genomes AS g, UNNEST(g.variants) AS v", "ARRAY-OUTPUT", "1:14"),
        # ARRAY_AGG itself as an output, DISTINCT, a LIMIT that could cut the element
        ("SELECT ARRAY_AGG(id) AS ids FROM p.g.genomes", "ARRAY-AGG-ELEMENT", "1:8"),
        (
            "SELECT ARRAY_AGG(DISTINCT id)[OFFSET(0)] AS a FROM p.g.genomes",
            "ARRAY-AGG-ELEMENT",
            "1:8",
        ),
        (
            "SELECT ARRAY_AGG(id LIMIT 1)[OFFSET(1)] AS a FROM p.g.genomes",
            "ARRAY-AGG-ELEMENT",
            "1:8",
        ),
        # IGNORE NULLS over only NULLs: BigQuery's empty array and the standard's NULL differ
        (
            "SELECT ARRAY_AGG(id IGNORE NULLS)[OFFSET(0)] AS a FROM p.g.genomes",
            "ARRAY-AGG-ELEMENT",
            "1:8",
        ),
        # `.*` over an expression's STRUCT (a table alias read as its row): fields undeclared
        ("SELECT IF(id > 1, g, g).* FROM p.g.genomes AS g", "ROW-STAR", "1:11"),
        # ARRAY_TO_STRING of a delimiter that is not a literal, of a value not an array
        (
            "SELECT ARRAY_TO_STRING(tags, tags[OFFSET(0)]) AS s FROM p.g.genomes",
            "FN-ARRAY-TO-STRING",
            "1:30",
        ),
        ("SELECT ARRAY_TO_STRING(point, ',') AS s FROM p.g.genomes", "FN-ARRAY-TO-STRING", "1:8"),
        # a LIMIT inside any other aggregate bounds its values: not a FETCH
        (
            "SELECT STRING_AGG(t, ',' LIMIT 1) AS s FROM p.g.genomes, UNNEST(tags) AS t",
            "LIMIT",
            "1:19",
        ),
    ],
)
def test_what_has_no_exact_form_is_refused_where_it_is(source, rule, where):
    with pytest.raises(TranslationError) as caught:
        _ansi(source)
    errors = [d for d in caught.value.diagnostics if d.severity == "error"]
    assert errors[0].rule == rule, caught.value
    assert f"{errors[0].line}:{errors[0].col}" == where, caught.value


def test_elements_and_fields_keep_their_declared_type_with_no_portability_warning():
    translation = translate(
        "SELECT t, v.ac, point.x FROM p.g.genomes AS g, UNNEST(g.tags) AS t,"
        " UNNEST(g.variants) AS v",
        "bigquery",
        catalog=CATALOG,
    )
    assert translation.diagnostics == ()


def test_a_row_without_arrays_may_be_an_output_column():
    assert '"genomes"."point" AS "point"' in _ansi("SELECT id, point FROM p.g.genomes")


@pytest.mark.parametrize(
    ("text", "standard"),
    [
        ("BIGINT ARRAY", "BIGINT ARRAY"),
        ("BIGINT ARRAY ARRAY", "BIGINT ARRAY ARRAY"),
        ("ARRAY<BIGINT>", "BIGINT ARRAY"),
        ('ROW("a" BIGINT, b VARCHAR(3) ARRAY)', 'ROW("a" BIGINT, "b" VARCHAR(3) ARRAY)'),
        (f"{VARIANT} ARRAY", f"{VARIANT} ARRAY"),
        # a row field that is a row (and one named like a keyword)
        ('ROW("array" ROW("element" VARCHAR) ARRAY)', 'ROW("array" ROW("element" VARCHAR) ARRAY)'),
        ('ROW("a" ROW("b" ROW("c" BIGINT)))', 'ROW("a" ROW("b" ROW("c" BIGINT)))'),
    ],
)
def test_array_and_row_types_are_read_and_written_in_the_standards_syntax(text, standard):
    kind = exp.DataType.build(text, dialect=Ansi)
    assert generate(kind) == standard
    assert generate(exp.DataType.build(standard, dialect=Ansi)) == standard
    cast = f'SELECT CAST("c" AS {standard}) AS "c" FROM "t"'
    assert generate(exp.maybe_parse(cast, dialect=Ansi), pretty=False) == cast


def test_a_row_value_constructor_is_not_read_as_a_row_type():
    # ROW( starts a type only when a field name and a type follow
    tree = exp.maybe_parse('SELECT ROW(1, "x") = ROW(1, "y") AS "z" FROM "t"', dialect=Ansi)
    assert tree.find(exp.DataType) is None
    assert tree.sql("duckdb") == 'SELECT ROW(1, "x") = ROW(1, "y") AS "z" FROM "t"'


def _as_python(value):
    """A Spark Row (a struct) as the dict DuckDB gives for a struct."""
    return value.asDict(recursive=True) if hasattr(value, "asDict") else value


# BigQuery STRUCT constructors: a row value with the fields BigQuery names (an alias, a
# column's name, the typed syntax's names) and types, on both engines.
STRUCTS = (
    "SELECT id, STRUCT(id, point.x AS px, STRUCT(id AS k, 7 AS one) AS inner_row) AS s,"
    " STRUCT<n INT64, t STRING>(1, 'a') AS typed FROM p.g.genomes",
    "SELECT ARRAY_AGG(STRUCT(id AS k, point.x AS px) ORDER BY id DESC LIMIT 1)[OFFSET(0)]"
    " AS latest FROM p.g.genomes",
)
STRUCT_ROWS = (
    [
        (1, {"id": 1, "px": 1.5, "inner_row": {"k": 1, "one": 7}}, {"n": 1, "t": "a"}),
        (2, {"id": 2, "px": None, "inner_row": {"k": 2, "one": 7}}, {"n": 1, "t": "a"}),
        (3, {"id": 3, "px": 2.0, "inner_row": {"k": 3, "one": 7}}, {"n": 1, "t": "a"}),
    ],
    [({"k": 3, "px": 2.0},)],
)
STRUCT_TYPES = (
    [
        ("id", "BIGINT", "bigint"),
        (
            "s",
            "STRUCT(id BIGINT, px DOUBLE, inner_row STRUCT(k BIGINT, one BIGINT))",
            "struct<id:bigint,px:double,inner_row:struct<k:bigint,one:bigint>>",
        ),
        ("typed", "STRUCT(n BIGINT, t VARCHAR)", "struct<n:bigint,t:string>"),
    ],
    [("latest", "STRUCT(k BIGINT, px DOUBLE)", "struct<k:bigint,px:double>")],
)


@pytest.mark.parametrize(
    ("source", "expected", "types"), list(zip(STRUCTS, STRUCT_ROWS, STRUCT_TYPES, strict=True))
)
def test_struct_constructors_give_the_same_rows_and_types_on_both_engines(
    spark_engine, genomes, source, expected, types
):
    ansi_sql = _local(_ansi(source))
    with duckdb.connect() as con:
        con.execute(f"CREATE VIEW genomes AS SELECT * FROM read_parquet('{genomes}')")
        result = con.sql(render(ansi_sql, "duckdb"))
        duckdb_types = [
            (name, str(kind)) for name, kind in zip(result.columns, result.types, strict=True)
        ]
        on_duckdb = result.fetchall()
    spark = spark_engine.session()
    spark.read.parquet(str(genomes)).createOrReplaceTempView("genomes")
    frame = spark.sql(render(ansi_sql, "spark"))
    spark_types = [(f.name, f.dataType.simpleString()) for f in frame.schema.fields]
    on_spark = [tuple(_as_python(v) for v in row) for row in frame.collect()]
    assert sorted(on_duckdb, key=repr) == sorted(on_spark, key=repr) == expected, ansi_sql
    assert duckdb_types == [(name, kind) for name, kind, _ in types]
    assert spark_types == [(name, kind) for name, _, kind in types]


@pytest.mark.parametrize(
    ("source", "words"),
    [
        ("SELECT STRUCT(id + 1) AS s FROM p.g.genomes", "without a name"),
        ("SELECT STRUCT(id, id AS ID) AS s FROM p.g.genomes", "second STRUCT field"),
        ("SELECT STRUCT<x FLOAT64>(id) AS s FROM p.g.genomes", "coercion"),
        (
            "SELECT STRUCT(CAST(id AS NUMERIC) * 2 AS n) AS s FROM p.g.genomes",
            "computed NUMERIC",
        ),
    ],
)
def test_struct_constructors_without_a_standard_form_are_refused(source, words):
    with pytest.raises(TranslationError) as raised:
        _ansi(source)
    errors = [d for d in raised.value.diagnostics if d.rule == "ROW-CONSTRUCTOR"]
    assert errors and words in errors[0].message


def test_row_star_leaves_the_star_of_a_declared_struct_alone():
    # ROW-STAR is about a table alias read as a row value; an element of ARRAY<STRUCT> of a
    # declared type keeps what it translated to before.
    ansi_sql = _ansi("SELECT ARRAY_AGG(point ORDER BY id)[OFFSET(0)].* FROM p.g.genomes")
    assert ansi_sql.rstrip().endswith('FROM "raw"."genomes" AS "genomes"')
