"""`make bench`: every benchmark, quick sizes; results in benchmarks/results/ (gitignored).

`python -m benchmarks NAME...` runs the named ones; one name followed by options runs it with
those options instead of its quick ones, e.g. `python -m benchmarks scale --scale 10`.
Run one directly with a bigger size, e.g. `python -m benchmarks.warehouse_bench --scale 1`.
"""

import sys
from collections.abc import Callable

from benchmarks import (
    contracts_bench,
    corpus_bench,
    load_bench,
    reconcile_bench,
    rerun_bench,
    scale_bench,
    training_bench,
    translate_bench,
    warehouse_bench,
)
from pipelines.cluster import gpu_bench

# name -> (the benchmark's main, the options `make bench` gives it)
BENCHMARKS: dict[str, tuple[Callable[[list[str]], object], list[str]]] = {
    # The code location's load: the repository's tree and 2,000 generated legacy files.
    "load": (load_bench.main, []),
    "translate": (translate_bench.main, []),
    # One long script at three lengths: per-statement time must not grow with the length
    # (target: at most 1.3x at 70,000 statements against 1,000; the 70,000 take ~3 minutes).
    "translate-scaling": (translate_bench.main, ["--scaling", "--sizes", "1000,10000,70000"]),
    # Every query of ../shared/corpora ($PLUMBLINE_CORPORA); skipped where it is absent.
    "corpus": (corpus_bench.main, []),
    "warehouse": (warehouse_bench.main, ["--scale", "0.1"]),
    # At the scale of the targets (validation / build <= 0.5 for the warehouse, <= 1.0 per
    # table; ~7 minutes, most of it the pandas path it is compared with).
    "contracts": (contracts_bench.main, ["--scale", "1"]),
    # delivery_delay_features reconciled by plumbline and by a plain EXCEPT ALL (SF1 for the
    # numbers in docs/benchmarks.md: --scale 1).
    "reconcile": (reconcile_bench.main, ["--scale", "0.1", "--repeat", "1"]),
    # The demo's data path (raw -> ansi -> warehouse, every check) in a fresh home, step by
    # step; `--scale 1` and `--scale 10` are the sizes docs/benchmarks.md records.
    "scale": (scale_bench.main, ["--scale", "0.1"]),
    "training": (training_bench.main, ["--scale", "0.1"]),
    # The demo's first run and two reruns with nothing changed in a fresh home (issue 41,
    # item 7: a rerun at most 20 % of the first run's wall time).
    "rerun": (rerun_bench.main, ["--scale", "0.1", "--reruns", "2"]),
    # The small configuration on CPU, the large one where GPUs are visible.
    "gpu": (gpu_bench.main, []),
}

arguments = sys.argv[1:]
options_at = next((i for i, a in enumerate(arguments) if a.startswith("-")), len(arguments))
selected, options = arguments[:options_at] or list(BENCHMARKS), arguments[options_at:]
unknown = sorted(set(selected) - set(BENCHMARKS))
if unknown:
    sys.exit(f"unknown benchmark {', '.join(unknown)}; choose from {', '.join(BENCHMARKS)}")
if options and len(selected) != 1:
    sys.exit("options go to one benchmark: python -m benchmarks NAME --option ...")
for name in selected:
    print(f"== {name}", flush=True)
    main, defaults = BENCHMARKS[name]
    main(options or defaults)
