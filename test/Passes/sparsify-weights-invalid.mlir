// RUN: not coreai-opt %s --pass-pipeline='builtin.module(sparsify-weights{target-sparsity=1.5})' 2>&1 | FileCheck %s --check-prefix=FRACTION
// RUN: not coreai-opt %s --pass-pipeline='builtin.module(sparsify-weights{n-m=5:4})' 2>&1 | FileCheck %s --check-prefix=NM
// RUN: not coreai-opt %s --pass-pipeline='builtin.module(sparsify-weights{block-size=1})' 2>&1 | FileCheck %s --check-prefix=BLOCK
// RUN: not coreai-opt %s --pass-pipeline='builtin.module(sparsify-weights{target-sparsity=0.5 n-m=2:4})' 2>&1 | FileCheck %s --check-prefix=BOTH
// RUN: not coreai-opt %s --pass-pipeline='builtin.module(sparsify-weights{n-m=2:4 block-size=2})' 2>&1 | FileCheck %s --check-prefix=NMBLOCK

// RUN: not coreai-opt %s --pass-pipeline='builtin.module(sparsify-weights{palettize-nbits=5})' 2>&1 | FileCheck %s --check-prefix=PBITS
// RUN: not coreai-opt %s --pass-pipeline='builtin.module(sparsify-weights{quantize-dtype=int8 palettize-nbits=4})' 2>&1 | FileCheck %s --check-prefix=JOINT

// PBITS: '5' is not one of 1, 2, 3, 4, 6, 8
// JOINT: error: sparsify-weights: quantize-dtype and palettize-nbits cannot both be given
// FRACTION: '1.5' is not a fraction from 0 to 1
// NM: '5:4' is not N:M with 0 <= N <= M and M > 0
// BLOCK: a block size must be greater than 1
// BOTH: error: sparsify-weights: target-sparsity and n-m cannot both be given
// BOTH-NOT: coreai.graph
// NMBLOCK: error: sparsify-weights: block-size applies to target-sparsity, not to n-m

coreai.graph @linear(%x: tensor<3x4xf32>) -> tensor<3x2xf32> {
  %w = coreai.constant dense<[[2.0, -4.0], [-1.0, 1.0], [0.5, 2.0], [0.0, 3.0]]> : tensor<4x2xf32>
  %y = coreai.batch_matmul %x, %w : (tensor<3x4xf32>, tensor<4x2xf32>) -> tensor<3x2xf32>
  coreai.output %y : tensor<3x2xf32>
}
