"""The Dagster assets, one module per asset group: ``raw`` (TPC-H), ``ansi`` (translated
SQL), ``warehouse`` (tables, their checks), ``training`` (the model and its cluster checks),
``registry`` (registration), ``scoring`` and ``audit``. Each asset is a thin shell: it reads
resources, calls one domain function and turns the result into metadata.

May import: dagster, sql, models, pipelines (the resources, settings and the instance reader),
pipelines.lake, pipelines.translation, pipelines.contracts, pipelines.warehouse,
pipelines.registry, pipelines.launch, pipelines.cluster, pipelines.audit, pipelines.training.
"""
