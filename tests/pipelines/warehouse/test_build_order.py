"""build_order: each warehouse table after the warehouse tables it reads."""

from __future__ import annotations

import pytest

from pipelines.warehouse.build import WarehouseTable, build_order

RAW = ["raw.orders", "raw.lineitem"]


def test_a_table_comes_after_the_tables_it_reads():
    features = WarehouseTable("features", ("warehouse.lines", "warehouse.late"))
    late = WarehouseTable("late", ("warehouse.lines",))
    lines = WarehouseTable("lines", ("raw.orders", "raw.lineitem"))
    assert [t.name for t in build_order([features, late, lines], RAW)] == [
        "lines",
        "late",
        "features",
    ]


def test_a_table_reading_what_nobody_builds_is_named():
    ok = WarehouseTable("ok", ("raw.orders",))
    orphan = WarehouseTable("orphan", ("warehouse.missing",))
    with pytest.raises(ValueError, match=r"cannot order \['orphan'\]"):
        build_order([ok, orphan], RAW)
