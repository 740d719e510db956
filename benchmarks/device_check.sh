#!/usr/bin/env bash
# The GPU benchmark's device check, for a machine with NVIDIA GPUs: records nvidia-smi and the
# software environment, then runs the `large` config (DDP training throughput and MFU, then
# the all_reduce sweep from 1 MiB to 1 GiB) on every visible GPU. Everything goes under $OUT;
# the whole check takes a few minutes at most (the benchmark itself is capped at 270 s).
#
#   OUT=/tmp/gpu-check bash benchmarks/device_check.sh
#
# PYTHON picks the interpreter (default: .venv/bin/python when present, else python3); it
# needs the project's dependencies with a CUDA build of torch. Exits non-zero, saying why,
# on a machine without a GPU or driver, or with a CPU-only torch or missing packages.
set -euo pipefail

fail() {
    echo "device_check: error: $*" >&2
    exit 1
}

[[ -n "${OUT:-}" ]] || fail "set OUT to the folder the results should go to"
mkdir -p "$OUT"
cd "$(dirname "${BASH_SOURCE[0]}")/.."

command -v nvidia-smi >/dev/null \
    || fail "nvidia-smi not found: this check needs a machine with NVIDIA GPUs and their driver"
nvidia-smi >"$OUT/nvidia-smi.txt" 2>&1 \
    || fail "nvidia-smi failed, no usable GPU or driver: $(tail -n 3 "$OUT/nvidia-smi.txt")"
gpus=$(nvidia-smi --query-gpu=name --format=csv,noheader | grep -c . || true)
((gpus > 0)) || fail "nvidia-smi lists no GPUs"
echo "device_check: $gpus GPU(s): $(nvidia-smi --query-gpu=name --format=csv,noheader | sort | uniq -c | xargs)"
# Detail for the record (clocks, ECC, VBIOS; the NVLink/PCIe topology behind the bus
# bandwidth); not every driver or container supports both, which is no reason to stop.
nvidia-smi -q >"$OUT/nvidia-smi-q.txt" 2>&1 || echo "device_check: nvidia-smi -q failed" >&2
nvidia-smi topo -m >"$OUT/nvidia-smi-topo.txt" 2>&1 || echo "device_check: nvidia-smi topo -m failed" >&2

if [[ -z "${PYTHON:-}" ]]; then
    if [[ -x .venv/bin/python ]]; then PYTHON=.venv/bin/python; else PYTHON=python3; fi
fi
"$PYTHON" - >"$OUT/environment.json" <<'EOF' || fail "the Python environment cannot run the benchmark (see above)"
import json
import sys

import torch

if not torch.cuda.is_available():
    sys.exit(
        f"torch {torch.__version__} sees no CUDA GPU; install the CUDA build of the pinned "
        "torch (pyproject.toml shows the command)"
    )
# Every module the benchmark imports, so that a missing package shows here and now.
import pipelines.cluster.gpu_bench  # noqa: F401
from models.environment import fingerprint

print(json.dumps(fingerprint(), indent=2))
EOF

timeout --kill-after=20 270 "$PYTHON" -m pipelines.cluster.gpu_bench --config large \
    --out "$OUT/gpu-large.json" 2>&1 | tee "$OUT/gpu-large.log"
echo "device_check: results in $OUT"
