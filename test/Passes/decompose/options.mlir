// RUN: coreai-opt %s --pass-pipeline='builtin.module(decompose)' | FileCheck %s --check-prefix=COREAI
// RUN: coreai-opt %s --pass-pipeline='builtin.module(decompose{table=none})' | FileCheck %s --check-prefix=NONE
// RUN: coreai-opt %s --pass-pipeline='builtin.module(decompose{preserve=aten.linear.default,transpose.int})' | FileCheck %s --check-prefix=PRESERVE
// RUN: coreai-opt %s --pass-pipeline='builtin.module(decompose{table=none decompose=linear.default})' | FileCheck %s --check-prefix=ONLY-LINEAR
// RUN: not coreai-opt %s --pass-pipeline='builtin.module(decompose{table=torch})' 2>&1 | FileCheck %s --check-prefix=BAD-TABLE
// RUN: not coreai-opt %s --pass-pipeline='builtin.module(decompose{preserve=linear})' 2>&1 | FileCheck %s --check-prefix=BAD-NAME
// RUN: not coreai-opt %s --pass-pipeline='builtin.module(decompose{decompose=relu.default})' 2>&1 | FileCheck %s --check-prefix=NO-RULE
// RUN: not coreai-opt %s --pass-pipeline='builtin.module(decompose{tabel=coreai})' 2>&1 | FileCheck %s --check-prefix=BAD-OPTION

// COREAI-LABEL: func.func @f(
// COREAI-NOT:     aten.linear
// COREAI-NOT:     aten.transpose
// COREAI:         aten.addmm.default
// COREAI:         aten.permute.default %{{.*}} {dims = [1, 0]}
// COREAI:         aten.silu.default
// NONE-LABEL: func.func @f(
// NONE:         aten.linear.default
// NONE:         aten.transpose.int
// NONE:         aten.silu.default
// PRESERVE-LABEL: func.func @f(
// PRESERVE:         aten.linear.default
// PRESERVE:         aten.transpose.int
// ONLY-LINEAR-LABEL: func.func @f(
// ONLY-LINEAR:         aten.addmm.default
// ONLY-LINEAR:         aten.transpose.int
// BAD-TABLE: unknown table 'torch'; choose coreai, default or none
// BAD-NAME: 'linear' is not an ATen overload; write it like 'aten.linear.default' or 'linear.default'
// NO-RULE: no decomposition for relu.default; decompositions exist for: __and__.Tensor,
// BAD-OPTION: pass 'decompose' has no option 'tabel'; its options are: table, preserve, decompose
func.func @f(%x: tensor<4x8xf32>, %w: tensor<16x8xf32>, %b: tensor<16xf32>) -> (tensor<16x4xf32>, tensor<16x4xf32>) {
  %0 = aten.linear.default %x, %w, %b : (tensor<4x8xf32>, tensor<16x8xf32>, tensor<16xf32>) -> tensor<4x16xf32>
  %1 = aten.transpose.int %0 {dim0 = 0 : i64, dim1 = 1 : i64} : (tensor<4x16xf32>) -> tensor<16x4xf32>
  %2 = aten.silu.default %1 : (tensor<16x4xf32>) -> tensor<16x4xf32>
  return %1, %2 : tensor<16x4xf32>, tensor<16x4xf32>
}
