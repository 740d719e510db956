"""A feature-tokenizer transformer (FT-Transformer) variant of the delivery-delay model.

Gorishniy et al., "Revisiting Deep Learning Models for Tabular Data" (NeurIPS 2021,
https://arxiv.org/abs/2106.11959): every feature becomes a token (a categorical through its
embedding, a numeric through its own linear map), a learned [CLS] token is prepended, and
pre-norm transformer blocks mix the tokens; the logit is read from [CLS]. It takes the same
input as :class:`models.network.TabularNet`, so it trains on the same encoded rows, but it
has enough arithmetic per sample to keep a GPU busy: the benchmark model
(``pipelines/cluster/gpu_bench.py``).

Two departures from the paper, for a plainer FLOP count: the feed-forward layer is a GELU
MLP (the paper uses ReGLU), and the last block transforms every token, not only [CLS].
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import Any

import torch
import torch.nn.functional as F
from torch import nn

from models.config import ConfigError
from models.flops import FORWARD_BACKWARD_FACTOR
from models.network import check_features


def _is_int(value: object) -> bool:
    # bool is an int subclass; `n_layers=True` is a mistake, not 1.
    return isinstance(value, int) and not isinstance(value, bool)


@dataclass(frozen=True)
class FTTransformerConfig:
    """Shape of :class:`FTTransformer`. The defaults are the paper's default size."""

    d_model: int = 192
    """Width of every token (>= 1, a multiple of ``n_heads``)."""

    n_layers: int = 3
    """Transformer blocks (>= 1)."""

    n_heads: int = 8
    """Attention heads per block (>= 1); each head is ``d_model // n_heads`` wide."""

    ffn_dim: int = 256
    """Hidden width of each block's feed-forward layer (>= 1)."""

    dropout: float = 0.0
    """Dropout on attention weights and on both residual branches, in [0, 1)."""

    def __post_init__(self) -> None:
        for name in ("d_model", "n_layers", "n_heads", "ffn_dim"):
            value = getattr(self, name)
            if not _is_int(value) or value < 1:
                raise ConfigError(f"FTTransformerConfig.{name}", "an integer >= 1", value)
        if self.d_model % self.n_heads:
            raise ConfigError(
                "FTTransformerConfig.n_heads", f"a divisor of d_model={self.d_model}", self.n_heads
            )
        if (
            not isinstance(self.dropout, int | float)
            or isinstance(self.dropout, bool)
            or not 0.0 <= self.dropout < 1.0
        ):
            raise ConfigError("FTTransformerConfig.dropout", "a number in [0, 1)", self.dropout)

    @property
    def head_dim(self) -> int:
        return self.d_model // self.n_heads

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


class FeatureTokenizer(nn.Module):
    """``[n, n_categorical + n_numeric]`` rows to ``[n, 1 + n_features, d_model]`` tokens,
    [CLS] first. Numeric ``j`` becomes ``x_j * w_j + b_j``: an elementwise product, not a
    matmul, so it is not part of the FLOP count (``2 * n_numeric * d_model`` per sample)."""

    def __init__(self, cardinalities: Sequence[int], n_numeric: int, d_model: int) -> None:
        super().__init__()
        self.n_categorical = len(cardinalities)
        self.n_numeric = n_numeric
        self.embeddings = nn.ModuleList(nn.Embedding(c, d_model) for c in cardinalities)
        self.category_bias = nn.Parameter(torch.empty(self.n_categorical, d_model))
        self.numeric_weight = nn.Parameter(torch.empty(n_numeric, d_model))
        self.numeric_bias = nn.Parameter(torch.empty(n_numeric, d_model))
        self.cls = nn.Parameter(torch.empty(d_model))
        # The paper's initialization: uniform in +-1/sqrt(d) for every tokenizer parameter.
        bound = 1.0 / math.sqrt(d_model)
        for parameter in self.parameters():
            nn.init.uniform_(parameter, -bound, bound)

    def forward(self, features: torch.Tensor) -> torch.Tensor:
        rows = features.shape[0]
        tokens = [self.cls.expand(rows, 1, -1)]
        if self.n_categorical:
            codes = features[:, : self.n_categorical].long()
            embedded = torch.stack(
                [embedding(codes[:, i]) for i, embedding in enumerate(self.embeddings)], dim=1
            )
            tokens.append(embedded + self.category_bias)
        if self.n_numeric:
            numerics = features[:, self.n_categorical :, None]
            tokens.append(numerics * self.numeric_weight + self.numeric_bias)
        return torch.cat(tokens, dim=1)


class SelfAttention(nn.Module):
    def __init__(self, config: FTTransformerConfig) -> None:
        super().__init__()
        self.n_heads = config.n_heads
        self.dropout = config.dropout
        self.qkv = nn.Linear(config.d_model, 3 * config.d_model)
        self.out = nn.Linear(config.d_model, config.d_model)

    def forward(self, tokens: torch.Tensor) -> torch.Tensor:
        rows, length, width = tokens.shape
        # [3, rows, heads, length, head_dim]: the head dimension stays last and contiguous,
        # which the fused attention kernels require.
        qkv = self.qkv(tokens).view(rows, length, 3, self.n_heads, width // self.n_heads)
        query, key, value = qkv.permute(2, 0, 3, 1, 4).unbind(0)
        attended = F.scaled_dot_product_attention(
            query, key, value, dropout_p=self.dropout if self.training else 0.0
        )
        return self.out(attended.transpose(1, 2).reshape(rows, length, width))


class TransformerBlock(nn.Module):
    """Pre-norm: ``x + attention(norm(x))``, then ``x + ffn(norm(x))``."""

    def __init__(self, config: FTTransformerConfig) -> None:
        super().__init__()
        self.attention_norm = nn.LayerNorm(config.d_model)
        self.attention = SelfAttention(config)
        self.ffn_norm = nn.LayerNorm(config.d_model)
        self.ffn = nn.Sequential(
            nn.Linear(config.d_model, config.ffn_dim),
            nn.GELU(),
            nn.Linear(config.ffn_dim, config.d_model),
        )
        # No module at all without dropout: a zero-probability dropout still launches kernels.
        self.residual_dropout: nn.Module = (
            nn.Dropout(config.dropout) if config.dropout > 0.0 else nn.Identity()
        )

    def forward(self, tokens: torch.Tensor) -> torch.Tensor:
        tokens = tokens + self.residual_dropout(self.attention(self.attention_norm(tokens)))
        return tokens + self.residual_dropout(self.ffn(self.ffn_norm(tokens)))


class FTTransformer(nn.Module):
    """Logit of "this line item arrives late" from one encoded feature row, as
    :class:`models.network.TabularNet`: input ``[n, n_categorical + n_numeric]`` float
    (category codes first), output ``[n]``."""

    def __init__(
        self, cardinalities: Sequence[int], n_numeric: int, config: FTTransformerConfig
    ) -> None:
        super().__init__()
        if any(not _is_int(c) or c < 1 for c in cardinalities):
            raise ConfigError("FTTransformer cardinalities", "integers >= 1", list(cardinalities))
        if not _is_int(n_numeric) or n_numeric < 0:
            raise ConfigError("FTTransformer n_numeric", "an integer >= 0", n_numeric)
        if len(cardinalities) + n_numeric == 0:
            raise ConfigError(
                "FTTransformer features", "at least one categorical or numeric feature", 0
            )
        self.cardinalities = tuple(cardinalities)
        self.n_numeric = n_numeric
        self.config = config
        self.tokenizer = FeatureTokenizer(self.cardinalities, n_numeric, config.d_model)
        self.blocks = nn.ModuleList(TransformerBlock(config) for _ in range(config.n_layers))
        self.head_norm = nn.LayerNorm(config.d_model)
        self.head = nn.Linear(config.d_model, 1)

    @property
    def n_features(self) -> int:
        return len(self.cardinalities) + self.n_numeric

    def forward(self, features: torch.Tensor) -> torch.Tensor:
        check_features("FTTransformer", features, self.cardinalities, self.n_numeric)
        tokens = self.tokenizer(features)
        for block in self.blocks:
            tokens = block(tokens)
        return self.head(self.head_norm(tokens[:, 0])).squeeze(-1)

    def training_flops_per_sample(self) -> float:
        return training_flops_per_sample(self.config, self.n_features)


def forward_flops_per_sample(config: FTTransformerConfig, n_features: int) -> int:
    """Matmul FLOPs (``2*m*n*k`` per product) of one sample's forward pass, attention included.

    With ``T = n_features + 1`` tokens, ``d = d_model`` and ``f = ffn_dim``, each block runs
    the QKV projection ``2*T*d*3d``, ``Q @ K^T`` and ``softmax @ V`` ``2*T*T*d`` each (summed
    over heads), the output projection ``2*T*d*d`` and the feed-forward ``2*T*d*f`` twice;
    the head adds ``2*d``. Embedding lookups, the numeric tokens, LayerNorm, GELU, softmax and
    the loss are left out, as in :func:`models.flops.flops_per_sample`: they are
    memory-bound and small beside the matmuls.
    """
    if not _is_int(n_features) or n_features < 1:
        raise ConfigError("n_features", "an integer >= 1", n_features)
    tokens, d, f = n_features + 1, config.d_model, config.ffn_dim
    per_block = (
        2 * tokens * d * 3 * d  # QKV projection
        + 2 * 2 * tokens * tokens * d  # Q @ K^T and attention @ V
        + 2 * tokens * d * d  # output projection
        + 2 * 2 * tokens * d * f  # feed-forward, in and out
    )
    return config.n_layers * per_block + 2 * d


def training_flops_per_sample(config: FTTransformerConfig, n_features: int) -> float:
    """Forward plus backward: three times the forward matmuls (the backward computes the
    input and the weight gradient of each). This is the model-FLOP convention of MFU (PaLM,
    https://arxiv.org/abs/2204.02311, appendix B): a fused attention backward that recomputes
    ``Q @ K^T`` does more work on the hardware, which is not counted."""
    return float(FORWARD_BACKWARD_FACTOR * forward_flops_per_sample(config, n_features))


# Bytes per parameter while training with AdamW: float32 weight, gradient and the two
# moment estimates.
_STATE_BYTES_PER_PARAMETER = 4 + 4 + 8


def estimate_training_memory_bytes(
    model: FTTransformer, batch_size: int, *, autocast_bytes: int, distributed: bool
) -> int:
    """A lower bound on the device memory one rank needs to train ``model`` on batches of
    ``batch_size`` rows: optimizer state plus the activations autograd keeps for backward.

    ``autocast_bytes`` is the width of the matmul inputs and outputs (2 under bf16 autocast,
    4 in float32); LayerNorm and the residual stream stay float32 either way. Per token and
    block that is the residual stream twice (``2*4*d``), the two normalized inputs, Q, K, V,
    the attention output and its re-laid-out copy (``7*a*d``) and the feed-forward hidden
    layer before and after GELU (``2*a*f``). Attention probabilities are not kept: the
    fused kernels recompute them. Not counted: the allocator's fragmentation, the backward
    pass's transient buffers, CUDA and NCCL workspaces, dropout masks. Expect the measured
    peak some 10-30 % above this.
    """
    config = model.config
    parameters = sum(parameter.numel() for parameter in model.parameters())
    per_parameter = _STATE_BYTES_PER_PARAMETER
    if autocast_bytes < 4:
        per_parameter += autocast_bytes  # autocast caches a low-precision copy of each weight
    if distributed:
        per_parameter += 4  # DDP's gradient buckets
    d, f, a = config.d_model, config.ffn_dim, autocast_bytes
    per_token_per_block = 2 * 4 * d + 7 * a * d + 2 * a * f
    tokens = batch_size * (model.n_features + 1)
    return parameters * per_parameter + config.n_layers * tokens * per_token_per_block
