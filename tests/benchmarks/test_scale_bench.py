"""The scale benchmark's arithmetic over what the steps measured: the ratios per warehouse
table, the whole warehouse's, and the fixed cost of a small table's step. (The benchmark
itself runs `plumbline run` at TPC-H scale 1 and 10: docs/benchmarks.md.)"""

from __future__ import annotations

from benchmarks.scale_bench import _whole, _worst, fixed_cost, ratios

STEPS = {
    "raw/nation": {"step_s": 1.2, "rows": 25, "peak_rss_mb": 300.0},
    "warehouse/small": {
        "step_s": 2.0,
        "rows": 40,
        "build_s": 0.1,
        "validate_s": 0.05,
        "reconcile_s": 0.2,
        "peak_rss_mb": 320.0,
    },
    "warehouse/large": {
        "step_s": 30.0,
        "rows": 3_000_000,
        "build_s": 10.0,
        "validate_s": 2.0,
        "reconcile_s": 4.0,
        "peak_rss_mb": 2500.0,
    },
    "warehouse/unreconciled": {"step_s": 3.0, "rows": 5_000, "build_s": 1.0, "validate_s": 0.5},
    "ansi/large": {"step_s": 0.4},
}


def test_ratios_per_table_and_for_the_warehouse():
    tables = ratios(STEPS)
    assert set(tables) == {"small", "large", "unreconciled"}
    assert tables["large"]["reconcile_over_build"] == 0.4
    assert tables["large"]["validate_over_build"] == 0.2
    assert tables["unreconciled"]["reconcile_over_build"] is None
    assert _worst(tables, "reconcile_over_build") == {"small": 2.0}
    # Of the tables that have the check: (0.2 + 4.0) / (0.1 + 10.0).
    assert _whole(tables, "reconcile_s") == round(4.2 / 10.1, 3)
    assert _whole(tables, "validate_s") == round(2.55 / 11.1, 3)


def test_the_fixed_cost_is_the_median_step_of_the_small_tables():
    cost = fixed_cost(STEPS)
    assert cost["tables"] == 2  # raw/nation and warehouse/small: at most 1,000 rows
    assert cost["median_step_s"] == 1.6
    assert cost["worst"] == {"warehouse/small": 2.0}
    # Of each warehouse step, what is neither its build nor a check: 1.65, 14.0 and 1.5 s.
    assert cost["median_step_overhead_s"] == 1.65
    assert cost["worst_step_overhead"] == {"warehouse/large": 14.0}
