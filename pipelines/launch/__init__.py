"""How training processes start, as plain data: single-node ``torchrun`` commands on this
machine (``torchrun``), and multi-node Kubernetes requests and the objects they render to
(``k8s/``). The Dagster Pipes clients that run them are in ``pipelines.pipes``.

May import: models.
"""
