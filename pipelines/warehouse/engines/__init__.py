"""SQL engines that build lake tables from ANSI SQL: DuckDB in-process, Spark local or remote."""
