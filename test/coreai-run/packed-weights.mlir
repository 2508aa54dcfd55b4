// RUN: %python -c "import numpy as np; np.savez('%t.want.npz', result0=np.array([[1, -2, 3, -4], [5, -6, 7, -8]], np.float32))"
// RUN: coreai-run %s --compare %t.want.npz --atol 0 --rtol 0
// RUN: sed -e 's/E1C3A587"/E1C3A5"/' %s > %t.truncated.mlir
// RUN: not coreai-run %t.truncated.mlir 2>&1 | FileCheck %s --check-prefix=TRUNCATED

// Sub-byte codes in a dense_resource blob are packed LSB first, two si4
// to a byte: E1 C3 A5 87 is [1, -2, 3, -4, 5, -6, 7, -8] (how coreai-core's
// runtime reads the same bytes). A blob one byte short is one error at the
// constant, exit 1: never zeros in its place (coreai-core's runtime reads a
// missing tail as zeros).
// TRUNCATED: packed-weights.mlir{{.*}}:13:8: coreai.constant: a packed si4 tensor of 8 elements needs 4 bytes, the blob has 3
coreai.graph @main() -> tensor<2x4xf32> {
  %q = coreai.constant dense_resource<codes> : tensor<2x4xsi4>
  %s = coreai.constant dense<1.0> : tensor<2x1xf32>
  %z = coreai.constant dense<0> : tensor<2x1xsi4>
  %o = coreai.constant dense<0.0> : tensor<2x1xf32>
  %w = coreai.blockwise_shift_scale %q, %s, %z, %o : (tensor<2x4xsi4>, tensor<2x1xf32>, tensor<2x1xsi4>, tensor<2x1xf32>) -> tensor<2x4xf32>
  coreai.output %w : tensor<2x4xf32>
}
{-#
  dialect_resources: {
    builtin: {
      codes: "0x10000000E1C3A587"
    }
  }
#-}
