#!/usr/bin/env bash
# Benchmark (not a test): parse + verify + print of a 100,000-op module,
# coreai-opt against mlir-opt-22 on the same file, same run, interleaved.
#
#   bench/parse-print.sh [OPS] [RUNS]
#
# The module uses only func and arith so both tools read it; a second module
# in the coreai dialects is timed with coreai-opt alone. Prints the median
# wall time of each tool and the ratio coreai-opt / mlir-opt.
set -euo pipefail
cd "$(dirname "$0")/.."
ops=${1:-100000}
runs=${2:-7}
opt=${COREAI_OPT:-target/debug/coreai-opt}
mlir_opt=${MLIR_OPT:-/usr/lib/llvm-22/bin/mlir-opt}
python=.venv/bin/python
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

$python utils/gen-large-module.py --ops "$ops" --dialect upstream -o "$work/upstream.mlir"
$python utils/gen-large-module.py --ops "$ops" --dialect coreai -o "$work/coreai.mlir"

$python - "$opt" "$mlir_opt" "$work" "$runs" <<'PY'
import statistics, subprocess, sys, time
opt, mlir_opt, work, runs = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])

def once(tool, path):
    start = time.perf_counter()
    subprocess.run([tool, path, "-o", f"{work}/out.mlir"], check=True)
    return time.perf_counter() - start

times = {"coreai-opt": [], "mlir-opt": [], "coreai-opt (coreai dialects)": []}
for _ in range(runs):
    times["coreai-opt"].append(once(opt, f"{work}/upstream.mlir"))
    times["mlir-opt"].append(once(mlir_opt, f"{work}/upstream.mlir"))
    times["coreai-opt (coreai dialects)"].append(once(opt, f"{work}/coreai.mlir"))
med = {k: statistics.median(v) for k, v in times.items()}
for k, v in med.items():
    print(f"{k:32s} median {v*1000:8.1f} ms over {runs} runs")
print(f"ratio coreai-opt / mlir-opt-22 (same upstream module): {med['coreai-opt'] / med['mlir-opt']:.3f}")
PY
