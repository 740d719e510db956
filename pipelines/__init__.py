"""The plumbline code location. This package's own modules are the Dagster wiring:
``definitions`` (the one ``Definitions``), ``resources`` (and ``resources_for``, the one place
settings become resources), ``automation`` (the retrain job, schedule and sensor),
``settings`` (the environment, read once) and ``instance`` (what the audit reads back from the
Dagster instance). Its sub-packages hold the domain, one concern each, without Dagster:
``lake``, ``translation``, ``warehouse``, ``contracts``, ``registry``, ``launch``,
``cluster`` and ``audit``; plus ``pipes`` (the Dagster Pipes clients that start training) and
``cli`` (the ``plumbline`` command).

May import: dagster, dagster_pipes, dagster_k8s, sql, models, assets, pipelines.lake,
pipelines.translation, pipelines.contracts, pipelines.warehouse, pipelines.registry,
pipelines.launch, pipelines.cluster, pipelines.audit, pipelines.pipes.
"""
