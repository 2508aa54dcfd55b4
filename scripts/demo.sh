#!/usr/bin/env bash
# The main job, end to end on the bundled example (examples/small_convnet.py):
# installs what is missing, imports the PyTorch model with torch.export,
# compiles it with coreai-compile to an .aimodel asset (main.mlirb in
# coreai-core's versioned aicode serialization), and loads and runs that
# asset in coreai-core 1.0.0b3's runtime and in coreai-run (which reads the
# aicode program back into coreai IR), both against eager PyTorch's outputs.
# Files go to target/demo/.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
out=target/demo
mkdir -p "$out"
set -x
PYTHONPATH=importer .venv/bin/python -m coreai_export \
  --module-file examples/small_convnet.py:factory --decompositions none \
  -o "$out/small_convnet.aten.mlir" --inputs-out "$out/inputs.npz" --expected-out "$out/expected.npz"
target/debug/coreai-compile "$out/small_convnet.aten.mlir" -o "$out/small_convnet.aimodel" \
  --metadata description="make demo: examples/small_convnet.py"
ls -l "$out/small_convnet.aimodel"
.venv/bin/python scripts/demo-coreai-core.py "$out/small_convnet.aimodel" \
  "$out/inputs.npz" "$out/expected.npz"
target/debug/coreai-run "$out/small_convnet.aimodel" --inputs "$out/inputs.npz" \
  --compare "$out/expected.npz" --atol 1e-5 --rtol 1e-4
