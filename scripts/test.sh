#!/usr/bin/env bash
# The whole test suite: installs what is missing, then runs the Rust tests and
# the lit suite (test/).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
echo "==> cargo test" >&2
cargo test --workspace --quiet
echo "==> lit test/" >&2
.venv/bin/lit -sv test
echo "==> pytest: interop with coreai-core" >&2
.venv/bin/python -m pytest -q test/interop
