// RUN: coreai-opt %s --split-input-file --pass-pipeline='builtin.module(legalize-aten-to-coreai)' | FileCheck %s --enable-var-scope

// Functions become graphs with the same name, signature and coreai.name
// attributes; arith.constant tensors become coreai.constant.
// CHECK-LABEL: coreai.graph @main(
// CHECK-SAME:    %[[X:.*]]: tensor<2x3xf32> {coreai.name = "x"}, %[[Y:.*]]: tensor<3xf32> {coreai.name = "y"}) -> (tensor<2x3xf32> {coreai.name = "out"}) {
// CHECK:         %[[C:.*]] = coreai.constant dense<1.500000e+00> : tensor<3xf32>
// CHECK:         %[[S:.*]] = coreai.decomposable.broadcasting_add %[[X]], %[[Y]] : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
// CHECK:         %[[T:.*]] = coreai.decomposable.broadcasting_add %[[S]], %[[C]]
// CHECK:         coreai.output %[[T]] : tensor<2x3xf32>
// CHECK-NOT:     func.
// CHECK-NOT:     aten.
func.func @main(%x: tensor<2x3xf32> {coreai.name = "x"}, %y: tensor<3xf32> {coreai.name = "y"}) -> (tensor<2x3xf32> {coreai.name = "out"}) {
  %c = arith.constant dense<1.5> : tensor<3xf32>
  %0 = aten.add.Tensor %x, %y {alpha = 1 : i64} : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %1 = aten.add.Tensor %0, %c {alpha = 1.0 : f64} : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  return %1 : tensor<2x3xf32>
}

// -----

// A private function becomes a private graph.
// CHECK-LABEL: coreai.graph private @helper(
// CHECK:         coreai.output
func.func private @helper(%x: tensor<4xi32>) -> tensor<4xi32> {
  return %x : tensor<4xi32>
}

// -----

// Does not fire on IR that is already coreai.
// CHECK-LABEL: coreai.graph @already(
// CHECK-NEXT:    coreai.abs
coreai.graph @already(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = coreai.abs %x : tensor<4xf32> -> tensor<4xf32>
  coreai.output %0 : tensor<4xf32>
}
