"""The Dagster Pipes side of training: the local launch of ``torchrun`` through
``PipesSubprocessClient`` (``local``), the message reader for its workers (``messages``) and
the Kubernetes launch through ``PipesK8sClient`` (``kubernetes``).

May import: dagster, dagster_pipes, dagster_k8s, models, pipelines.launch.
"""
