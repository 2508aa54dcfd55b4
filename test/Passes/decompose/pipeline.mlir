// RUN: coreai-opt %s --pass-pipeline='builtin.module(coreai-pipeline)' | FileCheck %s --enable-var-scope

// coreai-pipeline = decompose, legalize-aten-to-coreai, canonicalize, cse:
// linear is decomposed then lowered; canonicalize hoists the branches'
// constants to the graph and each branch keeps its own value (2 and 1), the
// regression of a ConstantLike coreai.constant without a folder.
// CHECK-LABEL: coreai.graph @main(
// CHECK-NOT:     aten.
// CHECK-DAG:     %[[ONE:.*]] = coreai.constant dense<1.000000e+00> : tensor<f32>
// CHECK-DAG:     %[[TWO:.*]] = coreai.constant dense<2.000000e+00> : tensor<f32>
// CHECK:         coreai.if
// CHECK:           coreai.decomposable.broadcasting_mul %{{.*}}, %[[TWO]]
// CHECK:         } else {
// CHECK:           coreai.decomposable.broadcasting_sub %{{.*}}, %[[ONE]]
// CHECK-NOT:     aten.
func.func @main(%x: tensor<3x4xf32>, %w: tensor<4x4xf32>, %p: tensor<i1>) -> tensor<3x4xf32> {
  %l = aten.linear.default %x, %w : (tensor<3x4xf32>, tensor<4x4xf32>) -> tensor<3x4xf32>
  %0 = aten.cond %p (%l) : tensor<i1>, (tensor<3x4xf32>) -> (tensor<3x4xf32>) {
  ^bb0(%a: tensor<3x4xf32>):
    %1 = aten.sin.default %a : (tensor<3x4xf32>) -> tensor<3x4xf32>
    %c = arith.constant {aten.wrapped_number} dense<2> : tensor<i64>
    %2 = aten.mul.Tensor %1, %c : (tensor<3x4xf32>, tensor<i64>) -> tensor<3x4xf32>
    aten.yield %2 : tensor<3x4xf32>
  }, {
  ^bb0(%a: tensor<3x4xf32>):
    %1 = aten.cos.default %a : (tensor<3x4xf32>) -> tensor<3x4xf32>
    %c = arith.constant {aten.wrapped_number} dense<1> : tensor<i64>
    %2 = aten.sub.Tensor %1, %c {alpha = 1 : i64} : (tensor<3x4xf32>, tensor<i64>) -> tensor<3x4xf32>
    aten.yield %2 : tensor<3x4xf32>
  }
  return %0 : tensor<3x4xf32>
}
