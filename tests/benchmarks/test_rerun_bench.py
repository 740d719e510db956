"""benchmarks/rerun_bench.py: a first run and its reruns timed in one fresh home, each
rerun's share of the first run written out. One small table, so that the suite stays short;
the demo's numbers are `make bench`'s (docs/benchmarks.md)."""

import json

from benchmarks import rerun_bench


def test_a_first_run_and_its_reruns_are_timed_and_compared(tmp_path):
    out = tmp_path / "rerun.json"
    result = rerun_bench.main(
        ["--scale", "0.01", "--reruns", "1", "--select", "key:raw/region", "--out", str(out)]
    )
    assert json.loads(out.read_text()) == result
    first, [rerun] = result["first"], result["reruns"]
    assert first["wall_s"] > 0 and first["cpu_s"] > 0
    assert "SUCCESS" in first["summary"] and "1 materialized" in first["summary"]
    # The generated table is kept: the rerun reuses it.
    assert "1 reused" in rerun["summary"]
    assert rerun["wall_share"] == round(rerun["wall_s"] / first["wall_s"], 4)
    assert result["met"] == (rerun["wall_share"] <= rerun_bench.TARGET)
