"""Spark as the distributed engine: ``local[*]``, a cluster master URL, or Spark Connect."""

from __future__ import annotations

import time
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, ClassVar

from pipelines.warehouse.engines.base import (
    BuildResult,
    Engine,
    EngineError,
    bind_tables,
    table_name,
)

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

# Settings every plumbline session needs whatever the master: UTC so DATE/TIMESTAMP values
# mean the same as on DuckDB; ANSI mode so that what the standard makes an error (a cast of
# bad text, an integer overflow, an array index out of range) is one, as translations assume
# (Spark 4 defaults to it, but a cluster's spark-defaults.conf may not); recursive queries as
# deep and as long as they run (the translator writes row generators and CONNECT BY as
# recursive queries bounded by their source's literals; Spark stops at 100 levels and a
# million rows by default, DuckDB and the standard nowhere); no UI port (several sessions run
# side by side in tests).
SESSION_CONF = {
    "spark.sql.session.timeZone": "UTC",
    "spark.sql.ansi.enabled": "true",
    "spark.sql.cteRecursionLevelLimit": "-1",
    "spark.sql.cteRecursionRowLimit": "-1",
    "spark.ui.enabled": "false",
    "spark.ui.showConsoleProgress": "false",
    "spark.sql.shuffle.partitions": "8",
}


def _message(exc: Exception) -> str:
    """Spark's own message without the JVM stack trace that py4j appends, or that a Spark
    Connect server sends after a ``JVM stacktrace:`` header."""
    text = str(exc)
    if hasattr(exc, "java_exception"):  # an unconverted JVM error (Py4JJavaError)
        text = str(exc.java_exception)
    return text.split("\n\tat ", 1)[0].split("\n\nJVM stacktrace:", 1)[0].strip()


class SparkEngine(Engine):
    name: ClassVar = "spark"

    def __init__(self, master: str = "local[*]", conf: Mapping[str, str] | None = None) -> None:
        self.master = master
        self.conf = {**SESSION_CONF, **(conf or {})}
        self._session: SparkSession | None = None

    def session(self) -> SparkSession:
        """The engine's SparkSession, started on first use (it takes seconds)."""
        if self._session is None:
            from pyspark.sql import SparkSession

            builder = SparkSession.builder.appName("plumbline")
            if self.connect:
                # The server's SparkContext is already running: the settings go to the
                # session instead (the UI ones, which only the server may set, would just
                # raise warnings here).
                self._session = builder.remote(self.master).getOrCreate()
                self._apply_session_settings(self._session)
            else:
                builder = builder.master(self.master)
                for key, value in self.conf.items():
                    builder = builder.config(key, value)
                self._session = builder.getOrCreate()
                self._session.sparkContext.setLogLevel("ERROR")
        return self._session

    @property
    def connect(self) -> bool:
        """Whether the engine is a Spark Connect client (``sc://host:port``)."""
        return self.master.startswith("sc://")

    def _apply_session_settings(self, spark: SparkSession) -> None:
        """Give a Spark Connect session the settings a session may change (the SQL ones).

        A Connect session starts from the server's defaults: unlike a classic one it
        inherits nothing from the session it was made from (pyspark's ``newSession``), so
        without this a build would run in the server's time zone, and without ANSI mode if
        the server's defaults turn it off. The others (the UI) are the server's to set.
        """
        for key, value in self.conf.items():
            if spark.conf.isModifiable(key):
                spark.conf.set(key, value)

    def build(
        self, ansi_sql: str, inputs: Mapping[str, Path], out_dir: Path, *, file: str
    ) -> BuildResult:
        from py4j.protocol import Py4JJavaError
        from pyspark.errors import PySparkException

        sql = bind_tables(ansi_sql, "spark", inputs, file=file)
        started = time.perf_counter()
        # A new session per build: its own temp views over the shared SparkContext, so two
        # builds in one process cannot see each other's inputs.
        spark = self.session().newSession()
        try:
            if self.connect:
                self._apply_session_settings(spark)
            for key, path in inputs.items():
                zone, table = key.split(".", 1)
                spark.read.parquet(str(path)).createOrReplaceTempView(table_name(zone, table))
            spark.sql(sql).write.mode("overwrite").parquet(str(out_dir))
        except (PySparkException, Py4JJavaError) as exc:
            raise EngineError(f"{file}: spark: {_message(exc)}") from exc
        return BuildResult("spark", sql, time.perf_counter() - started)

    def stop(self) -> None:
        if self._session is not None:
            self._session.stop()
            self._session = None
