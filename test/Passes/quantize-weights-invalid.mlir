// RUN: coreai-opt %s --verify-diagnostics --pass-pipeline='builtin.module(quantize-weights{min-elements=0 granularity=per-block block-size=3})'
// RUN: not coreai-opt %s --pass-pipeline='builtin.module(quantize-weights{dtype=int3})' 2>&1 | FileCheck %s --check-prefix=DTYPE
// RUN: not coreai-opt %s --pass-pipeline='builtin.module(quantize-weights{granularity=per-row})' 2>&1 | FileCheck %s --check-prefix=GRANULARITY
// RUN: not coreai-opt %s --pass-pipeline='builtin.module(quantize-weights{dtype=fp8e4m3fn budget-mb=1})' 2>&1 | FileCheck %s --check-prefix=BUDGET
// RUN: not coreai-opt %s --pass-pipeline='builtin.module(quantize-weights{min-elements=0 dtype=int4 budget-mb=0.00001})' 2>&1 | FileCheck %s --check-prefix=TIGHT
// RUN: rm -f %t.missing.npz
// RUN: not coreai-opt %s --pass-pipeline='builtin.module(quantize-weights{calibration=%t.missing.npz})' 2>&1 | FileCheck %s --check-prefix=CALIBRATION

// DTYPE: 'int3' is not one of int8, uint8, int4, uint4, int2, uint2, fp8e4m3fn, fp8e5m2, fp4e2m1fn
// GRANULARITY: 'per-row' is not one of per-tensor, per-channel, per-block
// BUDGET: budget-mb chooses among integer code widths: dtype=int8, int4, int2 or unsigned
// int4 per channel: 8 codes in 4 bytes and 2 f32 scales: 12 bytes > 10.
// TIGHT: error: quantize-weights: budget-mb=0.00001: the 1 weights take 0.000012 MB at 4 bits, over the budget
// A calibration the executor cannot run (here: no @main to run): one error
// naming the file and why, and no weight changes.
// CALIBRATION: error: quantize-weights: calibration with '{{.*}}.missing.npz' failed: no entry point named 'main'; the module defines: linear
// CALIBRATION-NOT: blockwise_shift_scale

// Blocks of 3 input channels do not divide the 4 of this weight: an error at
// the weight, naming the option, never a silently skipped weight.
coreai.graph @linear(%x: tensor<3x4xf32>) -> tensor<3x2xf32> {
  // expected-error @+1 {{block-size=3: 3 does not divide axis 0 (of size 4) of the weight [4, 2]}}
  %w = coreai.constant dense<[[2.0, -4.0], [-1.0, 1.0], [0.5, 2.0], [0.0, 3.0]]> : tensor<4x2xf32>
  %y = coreai.batch_matmul %x, %w : (tensor<3x4xf32>, tensor<4x2xf32>) -> tensor<3x2xf32>
  coreai.output %y : tensor<3x2xf32>
}
