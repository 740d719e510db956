"""Hand-written rows on both engines, for the semantic tests of translation rules."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

import duckdb

from sql.catalog import Catalog, load_catalog
from sql.catalog_import import import_ddl
from sql.render import render

if TYPE_CHECKING:
    from pyspark.sql import SparkSession


@contextmanager
def engine_tables(
    spark_engine, **tables: str
) -> Iterator[tuple[duckdb.DuckDBPyConnection, SparkSession]]:
    """A DuckDB connection and a Spark session (a new one of the session-scoped
    ``spark_engine``: its temporary views stay its own) holding each of ``tables``: a name
    and the query of its rows (``SELECT * FROM (VALUES ...) AS t(a, b)``), read by both."""
    spark = spark_engine.session().newSession()
    con = duckdb.connect()
    try:
        for name, rows in tables.items():
            spark.sql(rows).createOrReplaceTempView(name)
            con.execute(f"CREATE TABLE {name} AS {rows}")
        yield con, spark
    finally:
        con.close()


def over_one_text(ansi_sql: str, text: str | None, column: str = "o_clerk") -> str:
    """``ansi_sql`` with its table ``"raw"."orders"`` replaced by one row whose ``column``
    is ``text`` (NULL for None)."""
    value = "CAST(NULL AS VARCHAR)" if text is None else "'" + text + "'"
    rows = f"(SELECT * FROM (VALUES ({value})) AS t({column})) AS orders"
    return ansi_sql.replace('"raw"."orders" AS "orders"', rows)


def first_values(ansi_sql: str, spark: SparkSession) -> tuple[object, object]:
    """The first value ``ansi_sql`` gives on DuckDB and on Spark, or the exception each
    raised (some cases expect the raise)."""
    results: list[object] = []
    for engine in ("duckdb", "spark"):
        sql = render(ansi_sql, engine)
        try:
            if engine == "duckdb":
                results.append(duckdb.connect().sql(sql).fetchall()[0][0])
            else:
                results.append(spark.sql(sql).collect()[0][0])
        except Exception as error:
            results.append(error)
    return results[0], results[1]


def rows_on_engines(spark: SparkSession, ansi_sql: str, **tables: str) -> tuple[list, list]:
    """The rows ``ansi_sql`` gives on DuckDB and on Spark, each sorted, where every catalog
    table it reads (``"raw"."name" AS "name"``) is replaced by ``tables[name]``: the ANSI
    query of its rows (``SELECT * FROM (VALUES ...) AS t(a, b)``), rendered with it. One
    query per engine, so a test batches its cases as columns."""
    for name, rows in tables.items():
        ansi_sql = ansi_sql.replace(f'"raw"."{name}" AS "{name}"', f'({rows}) AS "{name}"')
    on_duckdb = duckdb.connect().sql(render(ansi_sql, "duckdb")).fetchall()
    on_spark = [tuple(row) for row in spark.sql(render(ansi_sql, "spark")).collect()]
    return sorted(on_duckdb, key=repr), sorted(on_spark, key=repr)


def imported_catalog(folder: Path, dialect: str, ddl: str) -> Catalog:
    """The catalog ``plumbline catalog import --from DIALECT`` writes for ``ddl``, read back
    as translation reads it (in ``folder``)."""
    path = folder / f"{dialect}.yaml"
    path.write_text(import_ddl([(f"{dialect}.sql", ddl)], dialect).yaml(), encoding="utf-8")
    return load_catalog(path)
