"""The GPU node types a training request can ask for.

``product_label`` is the value NVIDIA's GPU feature discovery (part of the GPU operator)
writes to the ``nvidia.com/gpu.product`` node label: the CUDA device name with spaces
replaced by dashes, as ``nvidia-smi --query-gpu=name`` prints it on that node.
"""

from __future__ import annotations

from dataclasses import dataclass

# Set by NVIDIA GPU feature discovery on every GPU node.
PRODUCT_LABEL = "nvidia.com/gpu.product"
# The NVLink partition a GB200 node belongs to; pods sharing an IMEX domain must share it.
CLIQUE_LABEL = "nvidia.com/gpu.clique"
ARCH_LABEL = "kubernetes.io/arch"
GPU_RESOURCE = "nvidia.com/gpu"


@dataclass(frozen=True)
class GpuProduct:
    name: str
    product_label: str
    gpus_per_node: int
    memory_gb: int  # HBM per GPU, as the vendor's datasheet states it
    arch: str  # the node's CPU architecture: the training image must be built for it
    imex: bool
    """Multi-node NVLink (an NVL72 rack): GPUs of different nodes share memory through an
    IMEX channel, which NVIDIA's DRA driver hands out through a ComputeDomain."""
    max_imex_nodes: int = 0  # nodes in one NVLink domain (one rack)


GPU_PRODUCTS: dict[str, GpuProduct] = {
    product.name: product
    for product in (
        # HGX H100 SXM5: 8 GPUs on an x86 host.
        GpuProduct("h100", "NVIDIA-H100-80GB-HBM3", 8, 80, "amd64", imex=False),
        # HGX H200 SXM: 8 GPUs on an x86 host.
        GpuProduct("h200", "NVIDIA-H200", 8, 141, "amd64", imex=False),
        # GB200 NVL72 compute tray: 2 Grace CPUs (arm64) + 4 Blackwell GPUs; 18 trays per rack.
        GpuProduct("gb200", "NVIDIA-GB200", 4, 186, "arm64", imex=True, max_imex_nodes=18),
    )
}


def known_gpus() -> str:
    return ", ".join(GPU_PRODUCTS)
