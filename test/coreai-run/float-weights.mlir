// RUN: %python -c "import numpy as np; np.savez('%t.want.npz', result0=np.array([[12, 1, -1, -12], [0.25, -0.25, 0.75, -0.5]], np.float32), result1=np.array([[3, -896], [0.03125, 7]], np.float32))"
// RUN: coreai-run %s --compare %t.want.npz --atol 0 --rtol 0
// RUN: sed -e 's/17F9A2C5"/17F9A2"/' %s > %t.truncated.mlir
// RUN: not coreai-run %t.truncated.mlir 2>&1 | FileCheck %s --check-prefix=TRUNCATED

// Float codes of compressed weights, exactly. f4E2M1FN codes are packed
// two to a byte, low nibble first, like si4: 17 F9 A2 C5 is
// [7, 1, 9, 15, 2, 10, 5, 12] = [6, 0.5, -0.5, -6, 1, -1, 3, -2]; the
// f8E8M0FNU scales 80 7D are 2^(128-127) = 2 and 2^(125-127) = 0.25.
// f8E4M3FN inline: 1.5, -448, 2^-6, 3.5 times 2.
// TRUNCATED: float-weights.mlir{{.*}}:13:8: coreai.constant: a packed f4E2M1FN tensor of 8 elements needs 4 bytes, the blob has 3
coreai.graph @main() -> (tensor<2x4xf32>, tensor<2x2xf32>) {
  %q = coreai.constant dense_resource<codes> : tensor<2x4xf4E2M1FN>
  %s = coreai.constant dense_resource<scales> : tensor<2x1xf8E8M0FNU>
  %z = coreai.constant dense<0.0> : tensor<2x1xf4E2M1FN>
  %o = coreai.constant dense<0.0> : tensor<2x1xf32>
  %w = coreai.blockwise_shift_scale %q, %s, %z, %o : (tensor<2x4xf4E2M1FN>, tensor<2x1xf8E8M0FNU>, tensor<2x1xf4E2M1FN>, tensor<2x1xf32>) -> tensor<2x4xf32>
  %q8 = coreai.constant dense<[[1.5, -448.0], [0.015625, 3.5]]> : tensor<2x2xf8E4M3FN>
  %s8 = coreai.constant dense<2.0> : tensor<1x1xf32>
  %z8 = coreai.constant dense<0.0> : tensor<1x1xf8E4M3FN>
  %o8 = coreai.constant dense<0.0> : tensor<1x1xf32>
  %w8 = coreai.blockwise_shift_scale %q8, %s8, %z8, %o8 : (tensor<2x2xf8E4M3FN>, tensor<1x1xf32>, tensor<1x1xf8E4M3FN>, tensor<1x1xf32>) -> tensor<2x2xf32>
  coreai.output %w, %w8 : tensor<2x4xf32>, tensor<2x2xf32>
}
{-#
  dialect_resources: {
    builtin: {
      codes: "0x1000000017F9A2C5",
      scales: "0x10000000807D"
    }
  }
#-}
