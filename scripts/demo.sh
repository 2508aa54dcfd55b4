#!/usr/bin/env bash
# The main job, end to end on the bundled example (examples/small_convnet.py):
# installs what is missing, imports the PyTorch model with torch.export
# (no decompositions), converts it to coreai with coreai-pipeline, and runs
# both the imported and the converted module in the reference executor
# against eager PyTorch's outputs. Files go to target/demo/.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
out=target/demo
mkdir -p "$out"
set -x
PYTHONPATH=importer .venv/bin/python -m coreai_export \
  --module-file examples/small_convnet.py:factory --decompositions none \
  -o "$out/small_convnet.aten.mlir" --inputs-out "$out/inputs.npz" --expected-out "$out/expected.npz"
target/debug/coreai-opt "$out/small_convnet.aten.mlir" \
  --pass-pipeline='builtin.module(coreai-pipeline)' -o "$out/small_convnet.coreai.mlir"
target/debug/coreai-run "$out/small_convnet.aten.mlir" --inputs "$out/inputs.npz" \
  --compare "$out/expected.npz" --atol 1e-5 --rtol 1e-4
target/debug/coreai-run "$out/small_convnet.coreai.mlir" --inputs "$out/inputs.npz" \
  --compare "$out/expected.npz" --atol 1e-5 --rtol 1e-4
head -n 12 "$out/small_convnet.coreai.mlir"
