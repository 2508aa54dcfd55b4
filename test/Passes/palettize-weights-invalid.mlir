// RUN: coreai-opt %s --verify-diagnostics --pass-pipeline='builtin.module(palettize-weights{min-elements=0 granularity=per-grouped-channel group-size=3})'
// RUN: not coreai-opt %s --pass-pipeline='builtin.module(palettize-weights{n-bits=5})' 2>&1 | FileCheck %s --check-prefix=BITS

// BITS: '5' is not one of 1, 2, 3, 4, 6, 8

// Groups of 3 output channels do not divide the 2 of this weight.
coreai.graph @linear(%x: tensor<3x4xf32>) -> tensor<3x2xf32> {
  // expected-error @+1 {{group-size=3: 3 does not divide axis 1 (of size 2) of the weight [4, 2]}}
  %w = coreai.constant dense<[[2.0, -4.0], [-1.0, 1.0], [0.5, 2.0], [0.0, 3.0]]> : tensor<4x2xf32>
  %y = coreai.batch_matmul %x, %w : (tensor<3x4xf32>, tensor<4x2xf32>) -> tensor<3x2xf32>
  coreai.output %y : tensor<3x2xf32>
}
