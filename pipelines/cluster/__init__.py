"""Cluster health and cost of a training run, judged against files kept in ``deploy/``.

Plain functions, no Dagster: the ``delay_model`` asset feeds them what rank 0 reported
(throughput, the environment fingerprint) and turns their verdicts into asset checks,
metadata and a chargeback row.

- :mod:`~pipelines.cluster.hardware`: which hardware type a fingerprint describes.
- :mod:`~pipelines.cluster.profiles`: reference throughput, and the throughput-gap verdict.
- :mod:`~pipelines.cluster.baseline`: pinned environment versions, and the drift verdict.
- :mod:`~pipelines.cluster.cost`: the price table, and cost per step, epoch and run.
- :mod:`~pipelines.cluster.chargeback`: the append-only chargeback table in the lake.

May import: models, pipelines.lake, pipelines.launch.
"""
