#!/usr/bin/env bash
# The whole test suite: installs what is missing, then runs every step below
# in order, each to its end even when an earlier one failed, prints a
# summary of the failed steps and exits 1 if there was any.
#
# A step is one line: `step NAME COMMAND...`. The pytest suites run one
# worker per core (pytest-xdist): the tests are independent, each in its own
# tmp_path, and PyTorch runs one thread in each; add -m "not slow" by hand to
# skip the whole-model cases.
#
# The pytest suites run in a shuffled order (pytest-randomly) from one seed
# per run, printed first: COREAI_TEST_SEED=N replays that order.
set -uo pipefail
cd "$(dirname "$0")/.."
setup_start=$SECONDS
scripts/setup.sh --tests || { echo "==> set-up failed: no test ran" >&2; exit 1; }
echo "==> set-up: $((SECONDS - setup_start)) s" >&2
tests_start=$SECONDS
seed=${COREAI_TEST_SEED:-$(od -An -N4 -tu4 /dev/urandom | tr -d ' ')}
echo "==> test order seed: $seed (COREAI_TEST_SEED=$seed make test replays it)" >&2

failed=()
step() {
  local name=$1 start=$SECONDS status
  shift
  echo "==> $name" >&2
  "$@"
  status=$?
  if [ "$status" -ne 0 ]; then
    failed+=("$name (exit status $status, $((SECONDS - start)) s)")
  fi
  echo "==> $name: $([ "$status" -eq 0 ] && echo ok || echo FAILED) in $((SECONDS - start)) s" >&2
}

step "cargo fmt --check" cargo fmt --all --check
step "cargo clippy" cargo clippy --workspace --all-targets -- -D warnings
step "cargo test" cargo test --workspace --quiet --no-fail-fast
# fuzz/ is a workspace of its own (nightly flags); its mutator has no
# dependencies, so its unit tests build with plain rustc.
step "fuzz mutator unit tests" bash -c 'rustc --edition 2021 --test fuzz/src/mutator.rs -o target/fuzz-mutator-test && target/fuzz-mutator-test -q'
step "lit test/" .venv/bin/lit -sv test
step "pytest test/interop (coreai-core parity)" .venv/bin/python -m pytest -q -n auto --randomly-seed="$seed" test/interop
step "pytest test/interp (executor vs PyTorch and coreai-core)" .venv/bin/python -m pytest -q -n auto --randomly-seed="$seed" test/interp
step "pytest test/e2e (importer, corpus, lowerings)" .venv/bin/python -m pytest -q -n auto --randomly-seed="$seed" test/e2e
step "pytest test/zoo (transformers and timm models)" .venv/bin/python -m pytest -q -n auto --randomly-seed="$seed" test/zoo
step "portability: kernel-path-sensitive interp tests under other ATEN_CPU_CAPABILITY" scripts/portability.sh --quick

echo >&2
echo "==> test steps: $((SECONDS - tests_start)) s (seed $seed)" >&2
if [ ${#failed[@]} -eq 0 ]; then
  echo "==> all steps passed" >&2
  exit 0
fi
echo "==> ${#failed[@]} step(s) failed:" >&2
printf '  - %s\n' "${failed[@]}" >&2
exit 1
