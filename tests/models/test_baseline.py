from __future__ import annotations

import pyarrow.compute as pc

from models.baseline import fit_baseline
from models.data import SPLIT, Preprocessing


def test_baseline_learns_from_the_encoded_features(make_delay_table):
    table = make_delay_table(3000)
    train = table.filter(pc.equal(table[SPLIT], "train"))
    validation = table.filter(pc.equal(table[SPLIT], "validation"))
    preprocessing = Preprocessing.fit(train)
    train_x, train_y = preprocessing.encode(train)
    val_x, val_y = preprocessing.encode(validation)

    model, metrics = fit_baseline(
        train_x.numpy(), train_y.numpy(), val_x.numpy(), val_y.numpy(), seed=0
    )

    assert sorted(metrics) == ["accuracy", "auc", "log_loss", "positive_rate"]
    assert metrics["auc"] > 0.9
    assert model.is_categorical_.tolist() == [True] * 6 + [False] * 7
