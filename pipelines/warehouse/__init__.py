"""Warehouse tables from ANSI SQL: which tables exist and what they read (``build``), the
engines that build them (``engines/``: DuckDB in-process, Spark), write-audit-publish, the
reconciliation against independent reference queries (``reconcile``), the other engine's
verdict (``portability``) and the contracts checked against the SQL (``contract_lint``).

May import: sql, pipelines.lake, pipelines.translation, pipelines.contracts.
"""
