"""Models in the MLflow Model Registry: registration, the promotion gate, aliases and
their append-only history (``versions``), batch scoring with a registered version
(``scoring``), and the sqlite tracking store made atomically, checked and relocated with its
home (``tracking_store``).

May import: models, pipelines.lake.
"""
