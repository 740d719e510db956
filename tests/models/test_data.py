from __future__ import annotations

import math

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq
import pytest
import torch
from torch.utils.data.distributed import DistributedSampler

from models.data import (
    CATEGORICAL,
    KEY,
    LABEL,
    NUMERIC,
    SPLIT,
    DataError,
    Preprocessing,
    ShardSampler,
    TabularDataset,
    load_splits,
    make_loader,
)


def _split(table: pa.Table, name: str) -> pa.Table:
    return table.filter(pc.equal(table[SPLIT], name))


def test_preprocessing_fits_on_the_training_split_only(make_delay_table):
    table = make_delay_table(400)
    train, validation = _split(table, "train"), _split(table, "validation")
    # A ship mode and numerics that only the validation split has.
    validation = validation.set_column(
        validation.schema.get_field_index("ship_mode"),
        "ship_mode",
        pa.array(["DRONE"] * validation.num_rows),
    )
    validation = validation.set_column(
        validation.schema.get_field_index("quantity"),
        "quantity",
        pa.array([10_000] * validation.num_rows, pa.int32()),
    )

    preprocessing = Preprocessing.fit(train)

    assert preprocessing.vocabularies["ship_mode"] == ["AIR", "MAIL", "SHIP", "TRUCK"]
    quantity = train["quantity"].to_numpy().astype(np.float64)
    assert preprocessing.means["quantity"] == pytest.approx(quantity.mean())
    assert preprocessing.stds["quantity"] == pytest.approx(quantity.std())
    features, labels = preprocessing.encode(validation)
    ship_mode = CATEGORICAL.index("ship_mode")
    assert features[:, ship_mode].eq(0).all()  # unseen: the reserved unknown code
    assert features[:, len(CATEGORICAL) + NUMERIC.index("quantity")].gt(100).all()
    assert labels.tolist() == validation[LABEL].to_pylist()


def test_fit_refuses_rows_of_other_splits(make_delay_table):
    with pytest.raises(DataError, match=r"split\(s\) \['test', 'validation'\]"):
        Preprocessing.fit(make_delay_table(200))


def test_encode_layout_codes_then_standardized_numerics(make_delay_table):
    train = _split(make_delay_table(400), "train")
    preprocessing = Preprocessing.fit(train)

    features, labels = preprocessing.encode(train)

    assert features.dtype == labels.dtype == torch.float32
    assert features.shape == (train.num_rows, len(CATEGORICAL) + len(NUMERIC))
    codes = features[:, : len(CATEGORICAL)]
    assert codes.min() >= 1  # every training value is in the vocabulary
    assert codes.max(dim=0).values.tolist() == [c - 1 for c in preprocessing.cardinalities]
    first_mode = train["ship_mode"][0].as_py()
    assert codes[0, 0] == preprocessing.vocabularies["ship_mode"].index(first_mode) + 1
    numerics = features[:, len(CATEGORICAL) :].double()
    assert numerics.mean(dim=0).abs().max() < 1e-5
    assert (numerics.std(dim=0, correction=0) - 1).abs().max() < 1e-5


def test_constant_numeric_column_encodes_to_zero(make_delay_table):
    train = _split(make_delay_table(200), "train")
    index = train.schema.get_field_index("same_region")
    train = train.set_column(index, "same_region", pa.array([1] * train.num_rows, pa.int32()))
    preprocessing = Preprocessing.fit(train)
    features, _ = preprocessing.encode(train)
    assert preprocessing.stds["same_region"] == 1.0
    assert features[:, len(CATEGORICAL) + NUMERIC.index("same_region")].eq(0).all()


def test_json_round_trip_is_exact_and_stable(make_delay_table):
    preprocessing = Preprocessing.fit(_split(make_delay_table(300), "train"))
    text = preprocessing.to_json()
    restored = Preprocessing.from_json(text)
    assert restored == preprocessing
    assert restored.to_json() == text
    assert restored.cardinalities == preprocessing.cardinalities


def test_from_json_names_a_missing_column():
    text = Preprocessing(
        vocabularies={name: [] for name in CATEGORICAL[1:]},
        means=dict.fromkeys(NUMERIC, 0.0),
        stds=dict.fromkeys(NUMERIC, 1.0),
    ).to_json()
    with pytest.raises(DataError, match=r"vocabularies.*ship_mode"):
        Preprocessing.from_json(text)


def test_encode_refuses_nulls_in_a_numeric_column(make_delay_table):
    train = _split(make_delay_table(200), "train")
    preprocessing = Preprocessing.fit(train)
    index = train.schema.get_field_index("slack_days")
    with_null = train.set_column(index, "slack_days", pa.array([None] * train.num_rows, pa.int64()))
    with pytest.raises(DataError, match="slack_days"):
        preprocessing.encode(with_null)


def test_load_splits_reads_a_folder_and_sorts_each_split_by_key(make_delay_table, tmp_path):
    table = make_delay_table(500)
    # Two files, rows out of key order: the result must not depend on the layout.
    pq.write_table(table.slice(250), tmp_path / "part-0.parquet")
    pq.write_table(table.slice(0, 250), tmp_path / "part-1.parquet")
    (tmp_path / "_plumbline.json").write_text("{}")

    splits = load_splits(tmp_path)

    assert sorted(splits) == ["test", "train", "validation"]
    assert sum(split.num_rows for split in splits.values()) == table.num_rows
    for name, split in splits.items():
        assert set(split[SPLIT].to_pylist()) == {name}
        keys = list(zip(*(split[column].to_pylist() for column in KEY), strict=True))
        assert keys == sorted(keys)


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda t: t.drop_columns(["slack_days"]), r"missing column\(s\) \['slack_days'\]"),
        (lambda t: t.drop_columns([SPLIT]), r"missing column\(s\) \['split'\]"),
        (lambda t: t.filter(pc.not_equal(t[SPLIT], "test")), r"split 'test' .* no rows"),
        (
            lambda t: t.set_column(
                t.schema.get_field_index(SPLIT), SPLIT, pa.array(["holdout"] * t.num_rows)
            ),
            r"values \['holdout'\]",
        ),
    ],
)
def test_load_splits_errors_name_the_path_and_column(make_delay_table, tmp_path, change, message):
    pq.write_table(change(make_delay_table(200)), tmp_path / "part-0.parquet")
    with pytest.raises(DataError, match=message) as raised:
        load_splits(tmp_path)
    assert str(tmp_path) in str(raised.value)


def test_load_splits_names_a_missing_path(tmp_path):
    with pytest.raises(DataError, match="absent"):
        load_splits(tmp_path / "absent")


def test_dataset_fetches_whole_batches():
    features = torch.arange(20, dtype=torch.float32).reshape(10, 2)
    labels = torch.arange(10, dtype=torch.float32)
    dataset = TabularDataset(features, labels)

    batch_features, batch_labels = dataset.batch(torch.tensor([7, 2, 5]))

    assert len(dataset) == 10
    assert batch_labels.tolist() == [7.0, 2.0, 5.0]
    assert batch_features.tolist() == [[14.0, 15.0], [4.0, 5.0], [10.0, 11.0]]
    loader = make_loader(dataset, 4, rank=0, world_size=1, seed=0, shuffle=False)
    assert [batch[1].tolist() for batch in loader] == [[0, 1, 2, 3], [4, 5, 6, 7], [8, 9]]


def test_dataset_rejects_mismatched_lengths():
    with pytest.raises(DataError, match=r"\(4, 2\) and \(3,\)"):
        TabularDataset(torch.zeros(4, 2), torch.zeros(3))


@pytest.mark.parametrize("shuffle", [False, True])
def test_two_ranks_partition_the_indices(shuffle):
    n = 10
    dataset = TabularDataset(torch.zeros(n, 1), torch.arange(n, dtype=torch.float32))
    shards = []
    for rank in (0, 1):
        loader = make_loader(dataset, 3, rank=rank, world_size=2, seed=5, shuffle=shuffle)
        loader.sampler.set_epoch(1)
        shards.append([int(label) for _, labels in loader for label in labels])

    assert len(shards[0]) == len(shards[1]) == n // 2
    assert sorted(shards[0] + shards[1]) == list(range(n))


def test_uneven_shards_are_padded_to_equal_steps():
    dataset = TabularDataset(torch.zeros(7, 1), torch.zeros(7))
    loaders = [
        make_loader(dataset, 2, rank=rank, world_size=2, seed=0, shuffle=True) for rank in (0, 1)
    ]
    # Equal step counts: otherwise one rank would wait forever in the gradient all-reduce.
    assert [len(loader) for loader in loaders] == [2, 2]


@pytest.mark.parametrize(
    ("n", "world_size", "batch_size", "shuffle"),
    [(10, 1, 4, False), (10, 2, 3, True), (7, 2, 2, True), (23, 3, 5, True), (2, 4, 1, True)],
)
def test_shards_follow_distributed_sampler(n, world_size, batch_size, shuffle):
    # The order DistributedSampler gave before: same seed, same weights as earlier runs.
    for rank in range(world_size):
        reference = DistributedSampler(
            range(n), num_replicas=world_size, rank=rank, shuffle=shuffle, seed=5
        )
        sampler = ShardSampler(
            n, batch_size, rank=rank, world_size=world_size, seed=5, shuffle=shuffle
        )
        for epoch in (0, 3):
            reference.set_epoch(epoch)
            sampler.set_epoch(epoch)
            batches = [batch.tolist() for batch in sampler]
            assert [i for batch in batches for i in batch] == list(reference)
            assert len(batches) == len(sampler) == math.ceil(len(reference) / batch_size)
