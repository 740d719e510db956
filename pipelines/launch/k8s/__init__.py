"""Multi-node GPU training on Kubernetes.

``gpus`` (the node types), ``request`` (what a run asks for, validated) and ``render`` (the
objects to submit) are plain Python; ``pipelines.pipes.kubernetes`` submits them with the
Kubernetes client and Dagster Pipes; ``pipelines.cli.k8s`` is ``plumbline k8s render``.
"""

from pipelines.launch.k8s.gpus import GPU_PRODUCTS, GpuProduct
from pipelines.launch.k8s.render import render, to_yaml
from pipelines.launch.k8s.request import K8sRenderError, K8sTrainingRequest

__all__ = [
    "GPU_PRODUCTS",
    "GpuProduct",
    "K8sRenderError",
    "K8sTrainingRequest",
    "render",
    "to_yaml",
]
