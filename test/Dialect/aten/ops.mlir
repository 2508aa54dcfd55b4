// RUN: coreai-opt %s --split-input-file | coreai-opt --split-input-file | FileCheck %s --enable-var-scope
// RUN: coreai-opt %s --split-input-file --mlir-print-op-generic | coreai-opt --split-input-file | FileCheck %s --enable-var-scope

// CHECK-LABEL: func.func @relu(
// CHECK-SAME:    %[[X:.*]]: tensor<2x3xf32>
// CHECK:         %[[R:.*]] = aten.relu.default %[[X]] : (tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK:         return %[[R]]
func.func @relu(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = aten.relu.default %x : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// CHECK-LABEL: func.func @add_broadcast(
// CHECK:         aten.add.Tensor %{{.*}}, %{{.*}} {alpha = 2.500000e+00 : f64} : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
func.func @add_broadcast(%a: tensor<2x3xf32>, %b: tensor<3xf32>) -> tensor<2x3xf32> {
  %0 = aten.add.Tensor %a, %b {alpha = 2.5 : f64} : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// CHECK-LABEL: func.func @mean_dim(
// CHECK:         aten.mean.dim %{{.*}} {dim = [-1], keepdim = true} : (tensor<2x3xf32>) -> tensor<2x1xf32>
func.func @mean_dim(%x: tensor<2x3xf32>) -> tensor<2x1xf32> {
  %0 = aten.mean.dim %x {dim = [-1], keepdim = true} : (tensor<2x3xf32>) -> tensor<2x1xf32>
  return %0 : tensor<2x1xf32>
}

// -----

// CHECK-LABEL: func.func @unknown_overload(
// CHECK:         aten.operator "my_lib::scaled_add.default"(%{{.*}}, %{{.*}}) {scale = 2.000000e+00 : f64} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
func.func @unknown_overload(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
  %0 = aten.operator "my_lib::scaled_add.default"(%a, %b) {scale = 2.0 : f64} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
