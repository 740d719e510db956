"""The ``plumbline`` command: ``main`` (the parser, dispatching to one module per command
group under ``commands``: run, query, translate, contracts, catalog, models, audit, ui and
mlflow-ui), ``environment`` (the settings and Dagster instance folder every command starts
from), ``run`` (a job end to end with a progress view), ``preflight`` (what ``run`` checks
before it builds anything), ``errors`` (one line and a documented exit code for every
failure), ``translate`` and ``catalog`` (their work), ``k8s``, ``init`` and ``gpu``
(``plumbline bench gpu``).

May import: dagster, sql, models, pipelines, pipelines.lake, pipelines.translation,
pipelines.contracts, pipelines.warehouse, pipelines.registry, pipelines.launch,
pipelines.cluster, pipelines.audit, pipelines.pipes.
"""
