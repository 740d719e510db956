"""Hand-written rows on both engines, for the semantic tests of translation rules."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING

import duckdb

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
