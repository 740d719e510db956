"""A gradient-boosted trees baseline on the same encoded features as the network.

If the network cannot come close to this, the problem is the network or its training, not
the features.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike
from sklearn.ensemble import HistGradientBoostingClassifier

from models.data import CATEGORICAL
from models.metrics import binary_metrics


def fit_baseline(
    train_x: np.ndarray,
    train_y: ArrayLike,
    val_x: np.ndarray,
    val_y: ArrayLike,
    seed: int = 0,
) -> tuple[HistGradientBoostingClassifier, dict[str, float]]:
    """Fit on ``Preprocessing.encode`` output (as numpy) and return the model and its
    validation :func:`models.metrics.binary_metrics`.

    The first ``len(CATEGORICAL)`` columns are category codes; the trees split them as
    categories rather than as ordered numbers.
    """
    n_features = train_x.shape[1]
    categorical = np.arange(n_features) < len(CATEGORICAL)
    model = HistGradientBoostingClassifier(categorical_features=categorical, random_state=seed)
    model.fit(train_x, np.asarray(train_y))
    probabilities = model.predict_proba(val_x)[:, 1]
    return model, binary_metrics(val_y, probabilities)
