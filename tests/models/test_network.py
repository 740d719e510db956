from __future__ import annotations

import pytest
import torch
from torch import nn

from models.config import ModelConfig
from models.network import TabularNet


def _net(config: ModelConfig | None = None) -> TabularNet:
    return TabularNet([3, 5], n_numeric=2, config=config or ModelConfig())


def test_forward_returns_one_logit_per_row():
    torch.manual_seed(0)
    features = torch.tensor([[0.0, 4.0, 0.5, -1.0], [2.0, 1.0, 0.0, 3.0], [1.0, 0.0, 2.0, 2.0]])
    logits = _net()(features)
    assert logits.shape == (3,)
    assert logits.dtype == torch.float32


@pytest.mark.parametrize(
    ("hidden", "dropout", "linear_widths", "dropouts"),
    [
        ((64, 32), 0.0, [(2 * 8 + 2, 64), (64, 32), (32, 1)], 0),
        ((16,), 0.5, [(2 * 8 + 2, 16), (16, 1)], 1),
        ((), 0.0, [(2 * 8 + 2, 1)], 0),
    ],
)
def test_layers_follow_the_config(hidden, dropout, linear_widths, dropouts):
    net = _net(ModelConfig(hidden=hidden, dropout=dropout))
    linears = [m for m in net.modules() if isinstance(m, nn.Linear)]
    assert [(m.in_features, m.out_features) for m in linears] == linear_widths
    assert sum(isinstance(m, nn.Dropout) for m in net.modules()) == dropouts
    assert [e.num_embeddings for e in net.embeddings] == [3, 5]


def test_wrong_feature_count_names_the_expected_layout():
    with pytest.raises(ValueError, match=r"\[n, 4\] \(2 category codes, then 2 numerics\)"):
        _net()(torch.zeros(2, 5))


def test_loss_decreases_on_a_learnable_problem():
    torch.manual_seed(0)
    n = 512
    codes = torch.stack([torch.randint(0, 3, (n,)), torch.randint(0, 5, (n,))], dim=1).float()
    numerics = torch.randn(n, 2)
    features = torch.cat([codes, numerics], dim=1)
    # Late when the numeric slack is low, or for category 2 of the first column.
    labels = ((numerics[:, 0] < 0) | (codes[:, 0] == 2)).float()
    net = _net(ModelConfig(embedding_dim=4, hidden=(16,)))
    optimizer = torch.optim.Adam(net.parameters(), lr=1e-2)
    loss_function = nn.BCEWithLogitsLoss()

    losses = []
    for _ in range(30):
        optimizer.zero_grad()
        loss = loss_function(net(features), labels)
        loss.backward()
        optimizer.step()
        losses.append(loss.item())

    assert losses[-1] < 0.5 * losses[0]
