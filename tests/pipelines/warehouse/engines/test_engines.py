"""Both engines over the same TPC-H lake (scale 0.01): same rows, same content digest."""

from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from pipelines.warehouse.engines.base import EngineError, bind_tables
from pipelines.warehouse.engines.digest import content_digest, table_digests
from pipelines.warehouse.engines.duckdb_engine import DuckDBEngine

REVENUE_BY_PRIORITY = """
SELECT
  "o"."o_orderpriority" AS "priority",
  COUNT(*) AS "orders",
  SUM("o"."o_totalprice") AS "revenue",
  AVG("o"."o_totalprice") AS "average_order",
  MIN("o"."o_orderdate") AS "first_order"
FROM "raw"."orders" AS "o"
JOIN "raw"."customer" AS "c" ON "c"."c_custkey" = "o"."o_custkey"
WHERE "c"."c_mktsegment" <> 'AUTOMOBILE'
GROUP BY "o"."o_orderpriority"
"""


@pytest.fixture(scope="module")
def inputs(raw_lake_root) -> dict[str, Path]:
    raw = raw_lake_root / "raw"
    return {f"raw.{p.name}": p for p in raw.iterdir() if not p.name.startswith(".")}


@pytest.fixture(params=["duckdb", "spark"])
def engine(request):
    if request.param == "duckdb":
        return DuckDBEngine()
    return request.getfixturevalue("spark_engine")


def test_lake_tables_are_bound_to_session_views(inputs):
    sql = bind_tables(REVENUE_BY_PRIORITY, "duckdb", inputs, file="x.sql")
    assert '"raw__orders" AS "o"' in sql and '"raw__customer" AS "c"' in sql


def test_a_cte_is_not_mistaken_for_a_lake_table(inputs):
    ansi = 'WITH "n" AS (SELECT "n_name" FROM "raw"."nation") SELECT "n_name" FROM "n"'
    assert '"raw__nation"' in bind_tables(ansi, "duckdb", inputs, file="x.sql")


def test_a_missing_upstream_table_is_named(inputs):
    with pytest.raises(EngineError, match=r"x\.sql: reads warehouse\.gone, which is not among"):
        bind_tables('SELECT "a" FROM "warehouse"."gone"', "duckdb", inputs, file="x.sql")


def test_a_rendering_that_cannot_be_exact_is_refused(inputs):
    ansi = (
        'SELECT DISTINCT "n_name" FROM "raw"."nation" ORDER BY "n_name" '
        "FETCH FIRST 10 PERCENT ROWS ONLY"
    )
    with pytest.raises(EngineError, match="RENDER"):
        bind_tables(ansi, "spark", inputs, file="x.sql")


def test_build_writes_parquet_with_the_query_result(engine, inputs, tmp_path):
    result = engine.build(REVENUE_BY_PRIORITY, inputs, tmp_path / "out", file="x.sql")
    table = pq.read_table(tmp_path / "out")
    assert result.engine == engine.name
    assert table.num_rows == 5
    assert table.column_names == ["priority", "orders", "revenue", "average_order", "first_order"]
    assert sum(table.column("orders").to_pylist()) == pytest.approx(15_000 * 0.8, rel=0.05)


def test_both_engines_produce_the_same_content_digest(spark_engine, inputs, tmp_path):
    DuckDBEngine().build(REVENUE_BY_PRIORITY, inputs, tmp_path / "duck", file="x.sql")
    spark_engine.build(REVENUE_BY_PRIORITY, inputs, tmp_path / "spark", file="x.sql")
    # The files differ (decimal widths, writers); the content does not.
    assert pq.read_schema(next((tmp_path / "spark").glob("*.parquet"))) != pq.read_schema(
        tmp_path / "duck" / "part-0.parquet"
    )
    assert content_digest(tmp_path / "duck") == content_digest(tmp_path / "spark")


def test_integer_sums_are_written_as_bigint_on_both_engines(engine, inputs, tmp_path):
    # DuckDB sums integers into HUGEINT, which Parquet would store as DOUBLE.
    ansi = (
        'SELECT "r_name" AS "name", SUM("r_regionkey") AS "keys", COUNT(*) AS "rows" '
        'FROM "raw"."region" GROUP BY "r_name"'
    )
    engine.build(ansi, inputs, tmp_path / "out", file="x.sql")
    schema = pq.read_schema(next((tmp_path / "out").glob("*.parquet")))
    assert schema.field("keys").type == pa.int64()
    assert schema.field("rows").type == pa.int64()


def test_an_integer_sum_beyond_bigint_fails_instead_of_losing_digits(inputs, tmp_path):
    ansi = (
        'SELECT SUM(CAST(9223372036854775807 AS BIGINT) + 0 * "r_regionkey") AS "s" '
        'FROM "raw"."region"'
    )
    with pytest.raises(EngineError, match=r"^big\.sql: duckdb: .*out of range.*INT64"):
        DuckDBEngine().build(ansi, inputs, tmp_path / "out", file="big.sql")
    assert not list((tmp_path / "out").glob("*.parquet"))


@pytest.mark.parametrize(
    "ansi",
    [
        'SELECT CAST(\'abc\' AS INTEGER) AS "x" FROM "raw"."region"',
        'SELECT "no_such_column" FROM "raw"."region"',
    ],
)
def test_engine_errors_name_the_file_and_quote_the_engine(engine, inputs, tmp_path, ansi):
    with pytest.raises(EngineError, match=rf"^bad\.sql: {engine.name}: "):
        engine.build(ansi, inputs, tmp_path / "out", file="bad.sql")


def test_digest_ignores_row_order_but_not_content(tmp_path):
    rows = {"k": [1, 2, 3], "v": ["a", None, "c"]}
    pq.write_table(pa.table(rows), tmp_path / "a.parquet")
    pq.write_table(pa.table({"k": [3, 1, 2], "v": ["c", "a", None]}), tmp_path / "b.parquet")
    pq.write_table(pa.table({"k": [3, 1, 2], "v": ["c", "a", ""]}), tmp_path / "c.parquet")
    pq.write_table(
        pa.table({"k": [1, 2, 3, 3], "v": ["a", None, "c", "c"]}), tmp_path / "d.parquet"
    )
    digest = content_digest(tmp_path / "a.parquet")
    assert digest == content_digest(tmp_path / "b.parquet")
    assert digest != content_digest(tmp_path / "c.parquet"), "NULL and '' must differ"
    assert digest != content_digest(tmp_path / "d.parquet"), "a duplicate row must count"


BASE = "SELECT 12345678901.23::DECIMAL(18,2) AS x, 'p' AS s UNION ALL SELECT 1, NULL"


@pytest.mark.parametrize(
    ("other", "same_content", "same_exact"),
    [
        # The same rows in another order: one table.
        ("SELECT 1::DECIMAL(18,2) AS x, NULL AS s UNION ALL SELECT 12345678901.23, 'p'", 1, 1),
        # A cent beyond 12 significant digits: the same to compare engines, not the same table.
        ("SELECT 12345678901.24::DECIMAL(18,2) AS x, 'p' AS s UNION ALL SELECT 1, NULL", 1, 0),
        # The same values as DOUBLE: another type, another table.
        ("SELECT 12345678901.23::DOUBLE AS x, 'p' AS s UNION ALL SELECT 1, NULL", 1, 0),
        # The text \N where there was NULL: the engine comparison writes NULL so, the exact
        # digest does not.
        ("SELECT 12345678901.23::DECIMAL(18,2) AS x, 'p' AS s UNION ALL SELECT 1, '\\N'", 1, 0),
    ],
)
def test_the_exact_digest_identifies_a_table_where_the_content_digest_compares_engines(
    tmp_path, other, same_content, same_exact
):
    import duckdb

    for name, sql in (("base", BASE), ("other", other)):
        duckdb.sql(sql).write_parquet(str(tmp_path / f"{name}.parquet"))
    base, changed = (table_digests(tmp_path / f"{n}.parquet") for n in ("base", "other"))
    assert base.content == content_digest(tmp_path / "base.parquet")
    assert (base.content == changed.content) == bool(same_content)
    assert (base.exact == changed.exact) == bool(same_exact)


def test_spark_sessions_run_in_ansi_mode_whatever_the_cluster_defaults(spark_engine):
    """Translations assume the standard's errors (bad casts, overflow); the engine sets ANSI
    mode on its session rather than relying on Spark's default or spark-defaults.conf."""
    from pipelines.warehouse.engines.spark_engine import SparkEngine

    assert SparkEngine("local[1]").conf["spark.sql.ansi.enabled"] == "true"
    session = spark_engine.session()
    assert session.conf.get("spark.sql.ansi.enabled") == "true"


def test_a_row_generator_deeper_than_sparks_default_recursion_limit_runs(spark_engine):
    """GENERATOR(ROWCOUNT => n) is a recursive query of n levels: Spark stops at 100 by
    default, where the source and DuckDB give every row."""
    from sql.render import render
    from sql.translate import translate

    source = (
        "SELECT ROW_NUMBER() OVER (ORDER BY SEQ4()) AS i FROM TABLE(GENERATOR(ROWCOUNT => 250))"
    )
    spark_sql = render(translate(source, "snowflake").ansi_sql, "spark")
    rows = spark_engine.session().sql(spark_sql).collect()
    assert sorted(row[0] for row in rows) == list(range(1, 251))


# What the digests were before they were streamed: the same sha256 over the same text.
STRING_AGG_SQL = (
    "SELECT sha256(? || coalesce(string_agg(row_hash, '' ORDER BY row_hash), '')) FROM h"
)


@pytest.mark.parametrize("rows", [0, 1, 5, 23])
def test_streamed_digests_are_those_string_agg_gave(tmp_path, monkeypatch, rows):
    """Sorted by DuckDB, hashed batch by batch (3 rows a batch here, so tables span batches):
    the digests every published table's manifest and audit bundle already holds."""
    import duckdb

    from pipelines.warehouse.engines import digest

    monkeypatch.setattr(digest, "BATCH_ROWS", 3)
    path = tmp_path / "t.parquet"
    with duckdb.connect() as con:
        con.sql(
            f"SELECT i % 4 AS k, CASE WHEN i % 3 = 0 THEN NULL ELSE 'v' || i END AS s, "
            f"i / 7 AS d FROM range({rows}) r(i) UNION ALL SELECT * FROM "
            f"(SELECT 1 AS k, 'dup' AS s, 0.5 AS d) WHERE {rows} > 0"
        ).write_parquet(str(path))
    found = digest.table_digests(path)
    with duckdb.connect() as con:
        relation = con.read_parquet(str(path))
        columns, types = relation.columns, [str(t) for t in relation.types]
        relation.create_view("t")
        con.sql(digest.row_hashes_sql(columns, types, "t")).create_view("h")
        [(content,)] = con.execute(STRING_AGG_SQL, ["\x1f".join(columns) + "\n"]).fetchall()
        con.sql(digest.exact_row_hashes_sql(columns, "t")).create_view("h", replace=True)
        header = "\x1f".join(f"{c} {t}" for c, t in zip(columns, types, strict=True))
        [(exact,)] = con.execute(STRING_AGG_SQL, [header + "\n"]).fetchall()
    assert (found.content, found.exact) == (content, exact)
    assert digest.content_digest(path) == content
