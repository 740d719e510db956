"""The Dagster Pipes side of training: the message reader for ``torchrun``'s workers
(``messages``) and the Kubernetes launch through ``PipesK8sClient`` (``kubernetes``).

May import: dagster, dagster_pipes, dagster_k8s, models, pipelines.launch.
"""
