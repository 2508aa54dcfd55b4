// RUN: coreai-opt %s --split-input-file --pass-pipeline='builtin.module(fold-idempotent-unary)' | FileCheck %s --enable-var-scope
// RUN: coreai-opt %s --split-input-file --pass-pipeline='builtin.module(fold-idempotent-unary{ops=aten.relu.default})' | FileCheck %s --check-prefix=RELU-ONLY --enable-var-scope
// RUN: coreai-opt %s --split-input-file --pass-pipeline='builtin.module(coreai.graph(fold-idempotent-unary),func.func(fold-idempotent-unary))' | FileCheck %s --enable-var-scope

// abs(abs(x)) == abs(x) for every x, NaN and -0.0 included.
// CHECK-LABEL: coreai.graph @abs_abs(
// CHECK-SAME:    %[[X:.*]]: tensor<4xf32>
// CHECK:         %[[A:.*]] = coreai.abs %[[X]]
// CHECK-NOT:     coreai.abs
// CHECK:         coreai.output %[[A]]
// RELU-ONLY-LABEL: coreai.graph @abs_abs(
// RELU-ONLY-COUNT-2: coreai.abs
coreai.graph @abs_abs(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = coreai.abs %x : tensor<4xf32> -> tensor<4xf32>
  %1 = coreai.abs %0 : tensor<4xf32> -> tensor<4xf32>
  coreai.output %1 : tensor<4xf32>
}

// -----

// A chain folds to one op; every use of the chain's end moves to it.
// CHECK-LABEL: func.func @relu_chain(
// CHECK-SAME:    %[[X:.*]]: tensor<2x3xf32>
// CHECK:         %[[R:.*]] = aten.relu.default %[[X]]
// CHECK-NOT:     aten.relu.default
// CHECK:         %[[S:.*]] = aten.add.Tensor %[[R]], %[[R]]
// CHECK:         return %[[S]], %[[R]]
// RELU-ONLY-LABEL: func.func @relu_chain(
// RELU-ONLY-COUNT-1: aten.relu.default
func.func @relu_chain(%x: tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<2x3xf32>) {
  %0 = aten.relu.default %x : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %1 = aten.relu.default %0 : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %2 = aten.relu.default %1 : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %3 = aten.add.Tensor %2, %2 {alpha = 1 : i64} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  return %3, %1 : tensor<2x3xf32>, tensor<2x3xf32>
}

// -----

// Does not fire: different ops, and a single op.
// CHECK-LABEL: func.func @relu_of_other(
// CHECK:         coreai.abs
// CHECK:         aten.relu.default
// CHECK:         aten.relu.default
func.func @relu_of_other(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %0 = "coreai.abs"(%x) : (tensor<4xf32>) -> tensor<4xf32>
  %1 = aten.relu.default %0 : (tensor<4xf32>) -> tensor<4xf32>
  %2 = aten.relu.default %x : (tensor<4xf32>) -> tensor<4xf32>
  return %1, %2 : tensor<4xf32>, tensor<4xf32>
}

// -----

// Does not fire when the outer op changes the type (the result type of the
// inner op differs): folding would drop a shape change.
// CHECK-LABEL: func.func @relu_type_change(
// CHECK-COUNT-2: aten.relu.default
func.func @relu_type_change(%x: tensor<4xf32>) -> tensor<?xf32> {
  %0 = aten.relu.default %x : (tensor<4xf32>) -> tensor<4xf32>
  %1 = aten.relu.default %0 : (tensor<4xf32>) -> tensor<?xf32>
  return %1 : tensor<?xf32>
}
