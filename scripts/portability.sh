#!/usr/bin/env bash
# The portability check: runs the tests whose PyTorch oracle could depend on
# the CPU (test/interp and the lowering e2e files) under each of PyTorch's
# CPU kernel sets, ATEN_CPU_CAPABILITY=avx512 (only where PyTorch can use
# it on this CPU), avx2 (likewise) and default, and prints one line per
# capability. Exit status 1 if any run failed.
#
#   scripts/portability.sh            # everything, every capability
#   scripts/portability.sh --quick    # CI: the kernel-path-sensitive interp
#                                     # files, under the capabilities other
#                                     # than this machine's own (the main
#                                     # test run covers that one)
#   scripts/portability.sh -- -k gelu # extra arguments go to pytest
set -uo pipefail
cd "$(dirname "$0")/.."

FULL=(test/interp test/e2e/test_lower_elementwise.py test/e2e/test_lower_nn.py test/e2e/test_lower_reduce.py)
# Elementwise special values, the f32 fast paths (vectorized reductions,
# softmax, gelu at ±inf), batch norm's fused multiply-adds.
QUICK=(test/interp/test_aten_vs_torch.py test/interp/test_fast_paths.py test/interp/test_conv_path.py)

quick=0
extra=()
while [ $# -gt 0 ]; do
  case $1 in
    --quick) quick=1 ;;
    --) shift; extra=("$@"); break ;;
    *) echo "usage: scripts/portability.sh [--quick] [-- PYTEST-ARGS...]" >&2; exit 2 ;;
  esac
  shift
done

python=.venv/bin/python
# What PyTorch runs when asked for a capability: it falls back to a lower
# one when the CPU lacks it, which is not a run of that capability.
reported() { ATEN_CPU_CAPABILITY=$1 "$python" -c 'import torch; print(torch.backends.cpu.get_cpu_capability())'; }
native=$(env -u ATEN_CPU_CAPABILITY "$python" -c 'import torch; print(torch.backends.cpu.get_cpu_capability())')

files=("${FULL[@]}")
[ "$quick" -eq 1 ] && files=("${QUICK[@]}")
status=0
summary=()
for cap in avx512 avx2 default; do
  got=$(reported "$cap")
  want=$(echo "$cap" | tr a-z A-Z)
  if [ "$got" != "$want" ]; then
    summary+=("$cap: not available on this CPU (PyTorch runs $got)")
    continue
  fi
  if [ "$quick" -eq 1 ] && [ "$got" = "$native" ]; then
    summary+=("$cap: this machine's own kernels, run by the main test step")
    continue
  fi
  echo "==> ATEN_CPU_CAPABILITY=$cap: ${files[*]}" >&2
  start=$SECONDS
  out=$(ATEN_CPU_CAPABILITY=$cap "$python" -m pytest -q -n auto -p no:cacheprovider "${files[@]}" "${extra[@]}" 2>&1)
  rc=$?
  echo "$out" | tail -n 30 >&2
  last=$(echo "$out" | grep -E '(passed|failed|error)' | tail -n 1)
  summary+=("$cap: ${last:-no result} ($((SECONDS - start)) s)")
  [ "$rc" -ne 0 ] && status=1
done
echo "==> portability (PyTorch native: $native)" >&2
printf '  %s\n' "${summary[@]}" >&2
exit $status
