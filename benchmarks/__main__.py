"""`make bench`: every benchmark, quick sizes; results in benchmarks/results/ (gitignored).

Run one with a bigger size directly, e.g. `python -m benchmarks.warehouse_bench --scale 1`.
"""

import sys

from benchmarks import (
    contracts_bench,
    corpus_bench,
    load_bench,
    reconcile_bench,
    training_bench,
    translate_bench,
    warehouse_bench,
)
from pipelines.cluster import gpu_bench

BENCHMARKS = {
    # The code location's load: the repository's tree and 2,000 generated legacy files.
    "load": lambda: load_bench.main([]),
    "translate": lambda: translate_bench.main([]),
    # One long script at three lengths: per-statement time must not grow with the length
    # (target: at most 1.3x at 70,000 statements against 1,000; the 70,000 take ~3 minutes).
    "translate-scaling": lambda: translate_bench.main(["--scaling", "--sizes", "1000,10000,70000"]),
    # Every query of ../shared/corpora ($PLUMBLINE_CORPORA); skipped where it is absent.
    "corpus": lambda: corpus_bench.main([]),
    "warehouse": lambda: warehouse_bench.main(["--scale", "0.1"]),
    # At the scale of the targets (validation / build <= 0.5 for the warehouse, <= 1.0 per
    # table; ~7 minutes, most of it the pandas path it is compared with).
    "contracts": lambda: contracts_bench.main(["--scale", "1"]),
    # delivery_delay_features reconciled by plumbline and by a plain EXCEPT ALL (SF1 for the
    # numbers in docs/benchmarks.md: --scale 1).
    "reconcile": lambda: reconcile_bench.main(["--scale", "0.1", "--repeat", "1"]),
    "training": lambda: training_bench.main(["--scale", "0.1"]),
    # The small configuration on CPU, the large one where GPUs are visible.
    "gpu": lambda: gpu_bench.main([]),
}

selected = sys.argv[1:] or list(BENCHMARKS)
unknown = sorted(set(selected) - set(BENCHMARKS))
if unknown:
    sys.exit(f"unknown benchmark {', '.join(unknown)}; choose from {', '.join(BENCHMARKS)}")
for name in selected:
    print(f"== {name}", flush=True)
    BENCHMARKS[name]()
