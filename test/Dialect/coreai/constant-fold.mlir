// RUN: coreai-opt %s --pass-pipeline='builtin.module(canonicalize,cse)' | FileCheck %s

// Distinct constants stay distinct under canonicalization (constant
// de-duplication keys on the folded value), and equal ones merge.
// CHECK-LABEL: coreai.graph @main
// CHECK-DAG:     %[[TWO:.*]] = coreai.constant dense<2.000000e+00> : tensor<f32>
// CHECK-DAG:     %[[ONE:.*]] = coreai.constant dense<1.000000e+00> : tensor<f32>
// CHECK:         coreai.if
// CHECK:           coreai.decomposable.broadcasting_mul %{{.*}}, %[[TWO]]
// CHECK:           coreai.decomposable.broadcasting_sub %{{.*}}, %[[ONE]]
// CHECK:         coreai.decomposable.broadcasting_add %{{.*}}, %[[TWO]]
module {
  coreai.graph @main(%c: tensor<i1>, %x: tensor<3xf32>) -> tensor<3xf32> {
    %0 = coreai.if %c {
      %two = coreai.constant dense<2.0> : tensor<f32>
      %m = coreai.decomposable.broadcasting_mul %x, %two : (tensor<3xf32>, tensor<f32>) -> tensor<3xf32>
      coreai.yield %m : tensor<3xf32>
    } else {
      %one = coreai.constant dense<1.0> : tensor<f32>
      %s = coreai.decomposable.broadcasting_sub %x, %one : (tensor<3xf32>, tensor<f32>) -> tensor<3xf32>
      coreai.yield %s : tensor<3xf32>
    } : tensor<i1> -> tensor<3xf32>
    %two_again = coreai.constant dense<2.0> : tensor<f32>
    %r = coreai.decomposable.broadcasting_add %0, %two_again : (tensor<3xf32>, tensor<f32>) -> tensor<3xf32>
    coreai.output %r : tensor<3xf32>
  }
}
