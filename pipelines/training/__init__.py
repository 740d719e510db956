"""One training of the delay model, as plain Python: which published training set it reads
(only one held to its contract), whether an earlier training of the same inputs can be
reused instead, the MLflow run a new one is tracked in and the job its processes are given
(``run``). How the processes start (Dagster Pipes, torchrun, Kubernetes) is the
``delay_model`` asset's and the launcher's business.

May import: models, pipelines.lake, pipelines.registry.
"""
