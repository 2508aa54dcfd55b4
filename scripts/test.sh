#!/usr/bin/env bash
# The whole test suite: installs what is missing, then runs the Rust tests and
# the lit suite (test/), then the end-to-end import tests (test/e2e; add
# -m "not slow" to skip the whole-model cases).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
echo "==> cargo fmt --check" >&2
cargo fmt --all --check
echo "==> cargo test" >&2
cargo test --workspace --quiet
echo "==> lit test/" >&2
.venv/bin/lit -sv test
echo "==> pytest: interop with coreai-core, executor vs PyTorch and coreai-core, importer corpus" >&2
# One pytest run per suite: each has its own conftest.py. One worker per
# core (pytest-xdist): the tests are independent, each in its own tmp_path,
# and PyTorch runs one thread in each.
for suite in test/interop test/interp test/e2e; do
  .venv/bin/python -m pytest -q -n auto "$suite"
done
