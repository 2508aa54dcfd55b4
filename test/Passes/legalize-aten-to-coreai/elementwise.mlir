// RUN: coreai-opt %s --split-input-file --pass-pipeline='builtin.module(legalize-aten-to-coreai)' | FileCheck %s --enable-var-scope

// add.Tensor with alpha = 1 is one broadcasting add.
// CHECK-LABEL: coreai.graph @add_alpha_one(
// CHECK-SAME:    %[[A:[^:]*]]: tensor<2x3xf32>, %[[B:[^:]*]]: tensor<3xf32>
// CHECK-NEXT:    %[[R:.*]] = coreai.decomposable.broadcasting_add %[[A]], %[[B]] : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT:    coreai.output %[[R]]
func.func @add_alpha_one(%a: tensor<2x3xf32>, %b: tensor<3xf32>) -> tensor<2x3xf32> {
  %0 = aten.add.Tensor %a, %b {alpha = 1 : i64} : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// add.Tensor with alpha ≠ 1 scales `other` by an exact constant of the
// result's element type first.
// CHECK-LABEL: coreai.graph @add_alpha(
// CHECK-SAME:    %[[A:[^:]*]]: tensor<4xf16>, %[[B:[^:]*]]: tensor<4xf16>
// CHECK-NEXT:    %[[K:.*]] = coreai.constant dense<-2.500000e+00> : tensor<f16>
// CHECK-NEXT:    %[[M:.*]] = coreai.decomposable.broadcasting_mul %[[B]], %[[K]] : (tensor<4xf16>, tensor<f16>) -> tensor<4xf16>
// CHECK-NEXT:    %[[R:.*]] = coreai.decomposable.broadcasting_add %[[A]], %[[M]]
func.func @add_alpha(%a: tensor<4xf16>, %b: tensor<4xf16>) -> tensor<4xf16> {
  %0 = aten.add.Tensor %a, %b {alpha = -2.5 : f64} : (tensor<4xf16>, tensor<4xf16>) -> tensor<4xf16>
  return %0 : tensor<4xf16>
}

// -----

// Integer alpha on integer tensors stays an integer constant.
// CHECK-LABEL: coreai.graph @add_int_alpha(
// CHECK:         coreai.constant dense<3> : tensor<si64>
// CHECK:         coreai.decomposable.broadcasting_mul
// CHECK:         coreai.decomposable.broadcasting_add
func.func @add_int_alpha(%a: tensor<4xi64>, %b: tensor<4xi64>) -> tensor<4xi64> {
  %0 = aten.add.Tensor %a, %b {alpha = 3 : i64} : (tensor<4xi64>, tensor<4xi64>) -> tensor<4xi64>
  return %0 : tensor<4xi64>
}
