"""Models in the MLflow Model Registry: registration, the promotion gate, aliases and
their append-only history (``versions``), and batch scoring with a registered version
(``scoring``).

May import: models, pipelines.lake.
"""
