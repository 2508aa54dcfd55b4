#!/usr/bin/env bash
# The main job, end to end on the bundled example: installs what is missing,
# then parses, verifies, transforms and prints examples/abs-add.mlir through a
# pipeline that mixes a coreai pass with upstream MLIR passes.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
set -x
target/debug/coreai-opt examples/abs-add.mlir \
  --pass-pipeline='builtin.module(coreai.graph(fold-idempotent-unary),func.func(coreai-cleanup),symbol-dce)'
