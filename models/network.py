"""The delivery-delay network: embeddings for categories, an MLP to one logit."""

from __future__ import annotations

from collections.abc import Sequence

import torch
from torch import nn

from models.config import ModelConfig


def check_features(
    model: str, features: torch.Tensor, cardinalities: tuple[int, ...], n_numeric: int
) -> None:
    """The one input layout the delay models take: [n, category codes then numerics]."""
    expected = len(cardinalities) + n_numeric
    if features.ndim != 2 or features.shape[1] != expected:
        raise ValueError(
            f"{model} expects features [n, {expected}] "
            f"({len(cardinalities)} category codes, then {n_numeric} numerics); "
            f"got {tuple(features.shape)}"
        )


class TabularNet(nn.Module):
    """Logit of "this line item arrives late" from one encoded feature row.

    The input is a single float tensor ``[n, n_categorical + n_numeric]`` (category codes
    first, as :meth:`models.data.Preprocessing.encode` lays them out) rather than a pair, so
    that the model has one plain signature that MLflow can record from an input example and
    serve.
    """

    def __init__(self, cardinalities: Sequence[int], n_numeric: int, config: ModelConfig) -> None:
        super().__init__()
        if any(cardinality < 1 for cardinality in cardinalities) or n_numeric < 0:
            raise ValueError(
                f"cardinalities must be >= 1 and n_numeric >= 0; got {list(cardinalities)}, "
                f"{n_numeric}"
            )
        self.cardinalities = tuple(int(cardinality) for cardinality in cardinalities)
        self.n_numeric = n_numeric
        self.config = config
        self.embeddings = nn.ModuleList(
            nn.Embedding(cardinality, config.embedding_dim) for cardinality in self.cardinalities
        )
        layers: list[nn.Module] = []
        width = len(self.cardinalities) * config.embedding_dim + n_numeric
        for hidden in config.hidden:
            layers += [nn.Linear(width, hidden), nn.ReLU()]
            if config.dropout > 0.0:
                layers.append(nn.Dropout(config.dropout))
            width = hidden
        layers.append(nn.Linear(width, 1))
        self.mlp = nn.Sequential(*layers)

    @property
    def n_features(self) -> int:
        return len(self.cardinalities) + self.n_numeric

    def forward(self, features: torch.Tensor) -> torch.Tensor:
        check_features("TabularNet", features, self.cardinalities, self.n_numeric)
        n_categorical = len(self.cardinalities)
        codes = features[:, :n_categorical].long()
        parts = [embedding(codes[:, i]) for i, embedding in enumerate(self.embeddings)]
        parts.append(features[:, n_categorical:])
        return self.mlp(torch.cat(parts, dim=1)).squeeze(-1)
