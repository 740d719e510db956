"""The Parquet lake: versioned tables published atomically (``store.Lake`` owns the layout
``<zone>/<table>`` -> ``.versions/<version>`` and every path in it), pins, the manifests'
lineage walk (``lineage``), a lake's schemas as a catalog (``catalog``), the TPC-H generator
(``tpch``) and the raw tables it publishes (``raw``), a project's own raw sources (``sources``,
declared; ``ingest``, read from files or a database), the one atomic file writer
(``files``) every other package writes through, and DuckDB's names for the lake's column types
(``duckdb_types``).

May import: sql.
"""
