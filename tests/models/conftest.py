"""Fixtures for the model tests: small synthetic training-set tables with real structure.

The label follows TPC-H's own rule: a line item is late when its receipt lag (1 to 30 days
after shipping) exceeds the slack between commit and ship dates, so the network and the
baseline have something to learn from a few thousand rows.
"""

from __future__ import annotations

from collections.abc import Callable
from decimal import Decimal

import numpy as np
import pyarrow as pa
import pytest

VOCABULARIES = {
    "ship_mode": ["AIR", "MAIL", "SHIP", "TRUCK"],
    "ship_instruct": ["COLLECT COD", "NONE", "TAKE BACK RETURN"],
    "order_priority": ["1-URGENT", "3-MEDIUM", "5-LOW"],
    "customer_segment": ["AUTOMOBILE", "BUILDING"],
    "customer_region": ["AMERICA", "ASIA", "EUROPE"],
    "supplier_region": ["AMERICA", "ASIA", "EUROPE"],
}
SPLIT_SHARES = {"train": 0.7, "validation": 0.15, "test": 0.15}

DelayTable = Callable[..., pa.Table]


def delay_table(n_rows: int = 2000, seed: int = 0) -> pa.Table:
    """A training-set table: the columns ``load_splits`` expects, a learnable label, splits."""
    rng = np.random.default_rng(seed)
    ship_lag = rng.integers(1, 60, n_rows)
    commit_lag = rng.integers(30, 60, n_rows)
    slack = commit_lag - ship_lag
    is_late = rng.integers(1, 31, n_rows) > slack
    customer_region = rng.choice(VOCABULARIES["customer_region"], n_rows)
    supplier_region = rng.choice(VOCABULARIES["supplier_region"], n_rows)
    columns = {
        "order_key": pa.array(np.arange(n_rows) // 4 + 1, pa.int64()),
        "line_number": pa.array(np.arange(n_rows) % 4 + 1, pa.int32()),
        **{
            name: pa.array(rng.choice(values, n_rows))
            for name, values in VOCABULARIES.items()
            if name not in ("customer_region", "supplier_region")
        },
        "customer_region": pa.array(customer_region),
        "supplier_region": pa.array(supplier_region),
        "same_region": pa.array((customer_region == supplier_region).astype(np.int32)),
        "quantity": pa.array(rng.integers(1, 51, n_rows), pa.int32()),
        "discount": pa.array(
            [Decimal(int(cents)).scaleb(-2) for cents in rng.integers(0, 11, n_rows)],
            pa.decimal128(15, 2),
        ),
        "ship_lag_days": pa.array(ship_lag, pa.int64()),
        "commit_lag_days": pa.array(commit_lag, pa.int64()),
        "slack_days": pa.array(slack, pa.int64()),
        "ship_iso_weekday": pa.array(rng.integers(1, 8, n_rows), pa.int64()),
        "is_late": pa.array(is_late.astype(np.int32)),
        "split": pa.array(rng.choice(list(SPLIT_SHARES), n_rows, p=list(SPLIT_SHARES.values()))),
    }
    return pa.table(columns)


@pytest.fixture
def make_delay_table() -> DelayTable:
    """``make_delay_table(n_rows=2000, seed=0)`` builds a synthetic training-set table."""
    return delay_table
