"""When to retrain: a weekly schedule, and a sensor that notices new raw data.

``raw_data_digest`` is pure (the lake in, a digest out) so the sensor's decision is
testable without Dagster's daemon.
"""

from __future__ import annotations

import hashlib
import json

from pipelines.lake import Lake
from pipelines.raw import RAW_ZONE
from pipelines.tpch import TPCH_TABLES


def raw_data_digest(lake: Lake) -> str | None:
    """sha256 over the published raw tables' content digests; None until all are there."""
    digests = {}
    for table in TPCH_TABLES:
        version = lake.current(RAW_ZONE, table)
        if version is None:
            return None
        digests[table] = version.digest
    return hashlib.sha256(json.dumps(digests, sort_keys=True).encode()).hexdigest()
