"""Translation of legacy warehouse SQL to ANSI SQL:2016, and everything it needs: the source
dialects, the rule catalog (``rules/``), the ANSI dialect and its feature catalog, the user's
catalog, column lineage, the engines' renderings of ANSI SQL, and the paths of the repository's
own SQL (``paths``). Pure sqlglot: a translation runs without an engine, Dagster or a lake.

May import: nothing of this repository (sqlglot, PyYAML, Jinja2 for templated SQL and the
standard library).
"""
