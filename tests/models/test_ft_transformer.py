from __future__ import annotations

import pyarrow.compute as pc
import pytest
import torch
from torch.nn.attention import SDPBackend, sdpa_kernel
from torch.utils.flop_counter import FlopCounterMode

from models.config import ConfigError
from models.data import NUMERIC, Preprocessing
from models.ft_transformer import (
    FTTransformer,
    FTTransformerConfig,
    estimate_training_memory_bytes,
    forward_flops_per_sample,
    training_flops_per_sample,
)

SMALL = FTTransformerConfig(d_model=16, n_layers=2, n_heads=4, ffn_dim=24)


def _rows(cardinalities: tuple[int, ...], n_numeric: int, n: int = 8) -> torch.Tensor:
    generator = torch.Generator().manual_seed(0)
    codes = [torch.randint(0, c, (n, 1), generator=generator).float() for c in cardinalities]
    return torch.cat([*codes, torch.randn(n, n_numeric, generator=generator)], dim=1)


@pytest.mark.parametrize(
    ("cardinalities", "n_numeric"),
    [((3, 4, 5), 4), ((2,), 0), ((), 3), ((7, 5, 6, 6, 6, 6), 7)],
)
def test_one_logit_per_row(cardinalities, n_numeric):
    model = FTTransformer(cardinalities, n_numeric, SMALL)
    assert model.n_features == len(cardinalities) + n_numeric
    assert model(_rows(cardinalities, n_numeric, n=5)).shape == (5,)


def test_tokens_are_cls_then_one_per_feature():
    model = FTTransformer((3, 4), 3, SMALL)
    assert model.tokenizer(_rows((3, 4), 3, n=5)).shape == (5, 1 + 5, SMALL.d_model)


@pytest.mark.parametrize("shape", [(4, 6), (4, 8), (7,)])
def test_forward_rejects_rows_of_the_wrong_width(shape):
    model = FTTransformer((3, 4), 3, SMALL)
    with pytest.raises(ValueError, match=r"expects features \[n, 5\]"):
        model(torch.zeros(shape))


def test_every_parameter_gets_a_gradient():
    model = FTTransformer((3, 4, 5), 4, SMALL)
    # Every code of every column appears, so that every embedding row is used.
    features = _rows((3, 4, 5), 4, n=64)
    features[:5, :3] = torch.tensor([[i % 3, i % 4, i] for i in range(5)], dtype=torch.float32)
    torch.nn.functional.binary_cross_entropy_with_logits(
        model(features), torch.randint(0, 2, (64,)).float()
    ).backward()
    for name, parameter in model.named_parameters():
        assert parameter.grad is not None, name
        assert torch.isfinite(parameter.grad).all(), name
        assert parameter.grad.abs().sum() > 0, name


def test_learns_the_synthetic_delay_label(make_delay_table):
    table = make_delay_table(600)
    train = table.filter(pc.equal(table["split"], "train"))
    preprocessing = Preprocessing.fit(train)
    features, labels = preprocessing.encode(train)
    torch.manual_seed(0)
    model = FTTransformer(preprocessing.cardinalities, len(NUMERIC), SMALL)
    optimizer = torch.optim.AdamW(model.parameters(), lr=3e-3)

    def loss() -> torch.Tensor:
        return torch.nn.functional.binary_cross_entropy_with_logits(model(features), labels)

    first = loss().item()
    for _ in range(30):
        optimizer.zero_grad()
        loss().backward()
        optimizer.step()
    assert loss().item() < 0.7 * first


@pytest.mark.parametrize(
    ("values", "field"),
    [
        ({"d_model": 0}, "d_model"),
        ({"d_model": 16.0}, "d_model"),
        ({"n_layers": 0}, "n_layers"),
        ({"n_layers": True}, "n_layers"),
        ({"n_heads": 0}, "n_heads"),
        ({"d_model": 18, "n_heads": 4}, "n_heads"),
        ({"ffn_dim": -1}, "ffn_dim"),
        ({"dropout": 1.0}, "dropout"),
        ({"dropout": -0.1}, "dropout"),
        ({"dropout": "0.1"}, "dropout"),
    ],
)
def test_config_rejects(values, field):
    with pytest.raises(ConfigError, match=rf"FTTransformerConfig\.{field} must be") as error:
        FTTransformerConfig(**values)
    assert error.value.field == f"FTTransformerConfig.{field}"


@pytest.mark.parametrize(
    ("cardinalities", "n_numeric", "message"),
    [
        ((3, 0), 2, "cardinalities must be integers >= 1"),
        ((3,), -1, "n_numeric must be an integer >= 0"),
        ((), 0, "at least one categorical or numeric feature"),
    ],
)
def test_model_rejects(cardinalities, n_numeric, message):
    with pytest.raises(ConfigError, match=message):
        FTTransformer(cardinalities, n_numeric, SMALL)


def test_flop_count_by_hand():
    config = FTTransformerConfig(d_model=4, n_layers=1, n_heads=2, ffn_dim=8)
    # One feature: 2 tokens. QKV 2*2*4*12, scores and mixing 2*2*(2*2*4), output projection
    # 2*2*4*4, feed-forward 2*(2*2*4*8), head 2*4.
    forward = 192 + 64 + 64 + 256 + 8
    assert forward_flops_per_sample(config, n_features=1) == forward
    assert training_flops_per_sample(config, n_features=1) == 3 * forward


def _counted_flops(model: FTTransformer, features: torch.Tensor) -> tuple[int, int]:
    """(forward, forward + backward) FLOPs per sample, as torch's FlopCounterMode counts."""
    with FlopCounterMode(display=False) as counter:
        logits = model(features)
        forward = counter.get_total_flops()
        logits.sum().backward()
    rows = features.shape[0]
    return forward // rows, counter.get_total_flops() // rows


@pytest.mark.parametrize(
    ("cardinalities", "n_numeric", "config"),
    [
        ((3, 4, 5), 4, SMALL),
        ((7, 5, 6, 6, 6, 6), 7, FTTransformerConfig(d_model=64, n_layers=3, n_heads=8, ffn_dim=96)),
        ((), 2, FTTransformerConfig(d_model=8, n_layers=1, n_heads=1, ffn_dim=8)),
    ],
)
def test_flop_count_matches_torch_flop_counter(cardinalities, n_numeric, config):
    model = FTTransformer(cardinalities, n_numeric, config)
    features = _rows(cardinalities, n_numeric, n=6)
    # The math backend runs attention as two bmm per head group (four more in backward),
    # which FlopCounterMode counts like any matmul.
    with sdpa_kernel(SDPBackend.MATH):
        forward, total = _counted_flops(model, features)
    assert forward == forward_flops_per_sample(config, model.n_features)
    assert total == model.training_flops_per_sample()


def test_flop_counter_misses_cpu_fused_attention():
    """The known difference: torch 2.13's FlopCounterMode has no formula for the CPU
    flash-attention kernel that scaled_dot_product_attention picks by default, so it counts
    the linear layers only. (On CUDA it counts the fused backward's recomputation of Q @ K^T
    too: 5 instead of 4 attention matmuls.) The analytic count is the model-FLOP one."""
    model = FTTransformer((3, 4, 5), 4, SMALL)
    _, counted = _counted_flops(model, _rows((3, 4, 5), 4))
    tokens = model.n_features + 1
    attention = 3 * SMALL.n_layers * 4 * tokens * tokens * SMALL.d_model
    assert counted == model.training_flops_per_sample() - attention


def test_memory_estimate_is_optimizer_state_plus_activations_linear_in_batch():
    model = FTTransformer((3, 4, 5), 4, SMALL)
    parameters = sum(parameter.numel() for parameter in model.parameters())

    def estimate(batch: int, autocast_bytes: int, distributed: bool) -> int:
        return estimate_training_memory_bytes(
            model, batch, autocast_bytes=autocast_bytes, distributed=distributed
        )

    assert estimate(0, 4, False) == 16 * parameters
    assert estimate(0, 2, False) == 18 * parameters
    assert estimate(0, 2, True) == 22 * parameters
    tokens, d, f = 8, SMALL.d_model, SMALL.ffn_dim
    per_row = SMALL.n_layers * tokens * (8 * d + 7 * 2 * d + 2 * 2 * f)
    assert estimate(100, 2, True) - estimate(0, 2, True) == 100 * per_row
