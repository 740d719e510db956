from __future__ import annotations

import pytest

from models.config import ConfigError, ModelConfig, TrainConfig


@pytest.mark.parametrize(
    ("config", "values", "field", "accepted"),
    [
        (ModelConfig, {"embedding_dim": 0}, "ModelConfig.embedding_dim", ">= 1"),
        (ModelConfig, {"embedding_dim": 2.5}, "ModelConfig.embedding_dim", "integer"),
        (ModelConfig, {"hidden": (64, 0)}, "ModelConfig.hidden", "each >= 1"),
        (ModelConfig, {"hidden": 64}, "ModelConfig.hidden", "sequence"),
        (ModelConfig, {"dropout": 1.0}, "ModelConfig.dropout", "[0, 1)"),
        (ModelConfig, {"dropout": -0.1}, "ModelConfig.dropout", "[0, 1)"),
        (TrainConfig, {"epochs": 0}, "TrainConfig.epochs", ">= 1"),
        (TrainConfig, {"epochs": True}, "TrainConfig.epochs", "integer"),
        (TrainConfig, {"batch_size": -1}, "TrainConfig.batch_size", ">= 1"),
        (TrainConfig, {"learning_rate": 0.0}, "TrainConfig.learning_rate", "> 0"),
        (TrainConfig, {"learning_rate": float("nan")}, "TrainConfig.learning_rate", "> 0"),
        (TrainConfig, {"weight_decay": -1e-5}, "TrainConfig.weight_decay", ">= 0"),
        (TrainConfig, {"seed": 2**32}, "TrainConfig.seed", "[0, 2**32)"),
        (TrainConfig, {"num_threads": 0}, "TrainConfig.num_threads", ">= 1"),
    ],
)
def test_invalid_values_name_the_field_and_range(config, values, field, accepted):
    with pytest.raises(ConfigError, match=r"must be") as raised:
        config(**values)
    assert isinstance(raised.value, ValueError)
    assert raised.value.field == field
    message = str(raised.value)
    assert message.startswith(field) and accepted in message


@pytest.mark.parametrize(
    "config",
    [
        ModelConfig(),
        ModelConfig(embedding_dim=4, hidden=(), dropout=0.25),
        TrainConfig(),
        TrainConfig(epochs=2, batch_size=64, learning_rate=0.1, seed=7, num_threads=1),
    ],
)
def test_dict_round_trip(config):
    values = config.to_dict()
    assert type(config).from_dict(values) == config
    assert all(isinstance(value, int | float | list | type(None)) for value in values.values())


def test_hidden_from_json_list_becomes_a_tuple():
    config = ModelConfig.from_dict({"hidden": [16, 8]})
    assert config.hidden == (16, 8)
    assert hash(config) == hash(ModelConfig(hidden=(16, 8)))


@pytest.mark.parametrize("config", [ModelConfig, TrainConfig])
def test_from_dict_rejects_unknown_keys_by_name(config):
    with pytest.raises(ConfigError, match=r"unknown keys \['hiden'\]"):
        config.from_dict({"hiden": [8]})


@pytest.mark.parametrize(
    ("batch_size", "rows", "world_size", "expected"),
    [
        (None, 468_644, 2, 32768),  # make run's scale 0.1: 8 steps per epoch and rank
        (None, 468_644, 1, 32768),  # the maximum
        (None, 4_686_440, 2, 32768),
        (None, 47_057, 2, 4096),  # scale 0.01: 6 steps, not one
        (None, 47_057, 1, 8192),
        (None, 1_000, 2, 1024),  # the minimum
        (64, 468_644, 2, 64),  # an explicit batch is kept
    ],
)
def test_a_batch_is_sized_to_the_data_unless_given(batch_size, rows, world_size, expected):
    assert TrainConfig(batch_size=batch_size).batch_for(rows, world_size) == expected
