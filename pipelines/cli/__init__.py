"""The ``plumbline`` command: ``main`` (run, ui, query, audit, models, contracts, ...),
``run`` (a job end to end with a progress view), ``preflight`` (what ``run`` checks before
it builds anything), ``errors`` (one line and a documented exit code for every failure),
``translate``, ``catalog``, ``k8s`` and ``gpu`` (``plumbline bench gpu``).

May import: dagster, sql, models, pipelines, pipelines.lake, pipelines.translation,
pipelines.contracts, pipelines.warehouse, pipelines.registry, pipelines.launch,
pipelines.cluster, pipelines.audit, pipelines.pipes.
"""
