// RUN: coreai-opt %s --split-input-file --pass-pipeline='builtin.module(target-ane)' | FileCheck %s --enable-var-scope
// RUN: coreai-opt %s --split-input-file --pass-pipeline='builtin.module(target-ane{remarks=true})' -o /dev/null 2>&1 | FileCheck %s --check-prefix=REMARK

// A causal select of scores and -inf on a constant boolean mask → the scores
// plus an additive constant of 0 and f16's lowest finite value (-65504).
// CHECK-LABEL: coreai.graph @causal(
// CHECK-SAME:    %[[S:.*]]: tensor<1x2x3x3xf16>
// CHECK:         %[[M:.*]] = coreai.constant dense<{{\[\[\[\[}}0.000000e+00, -6.550400e+04, -6.550400e+04], [0.000000e+00, 0.000000e+00, -6.550400e+04], [0.000000e+00, 0.000000e+00, 0.000000e+00]]]]> : tensor<1x1x3x3xf16>
// CHECK:         %[[A:.*]] = coreai.decomposable.broadcasting_add %[[S]], %[[M]] : (tensor<1x2x3x3xf16>, tensor<1x1x3x3xf16>) -> tensor<1x2x3x3xf16>
// CHECK:         coreai.softmax %[[A]]
// REMARK: target-ane: loc({{.*}}): 'coreai.decomposable.broadcasting_where' mask-additive: a boolean mask is a tensor the Neural Engine cannot hold
coreai.graph @causal(%s: tensor<1x2x3x3xf16>) -> tensor<1x2x3x3xf16> {
  %c = coreai.constant dense<[[[[true, false, false], [true, true, false], [true, true, true]]]]> : tensor<1x1x3x3xi1>
  %ninf = coreai.constant dense<0xFC00> : tensor<f16>
  %m = coreai.decomposable.broadcasting_where %c, %s, %ninf : (tensor<1x1x3x3xi1>, tensor<1x2x3x3xf16>, tensor<f16>) -> tensor<1x2x3x3xf16>
  %axis = coreai.constant dense<3> : tensor<si32>
  %p = coreai.softmax %m, %axis : (tensor<1x2x3x3xf16>, tensor<si32>) -> tensor<1x2x3x3xf16>
  coreai.output %p : tensor<1x2x3x3xf16>
}

// -----

// Declined: a row that hides every key (the select gives a row of -inf, a
// sum would give finite values), and a fill other than -inf or the lowest
// finite value.
// CHECK-LABEL: coreai.graph @declined(
// CHECK:         coreai.decomposable.broadcasting_where
// CHECK:         coreai.decomposable.broadcasting_where
coreai.graph @declined(%s: tensor<2x2xf32>) -> (tensor<2x2xf32>, tensor<2x2xf32>) {
  %hidden_row = coreai.constant dense<[[true, false], [false, false]]> : tensor<2x2xi1>
  %causal = coreai.constant dense<[[true, false], [true, true]]> : tensor<2x2xi1>
  %ninf = coreai.constant dense<0xFF800000> : tensor<f32>
  %minus_one = coreai.constant dense<-1.0> : tensor<f32>
  %a = coreai.decomposable.broadcasting_where %hidden_row, %s, %ninf : (tensor<2x2xi1>, tensor<2x2xf32>, tensor<f32>) -> tensor<2x2xf32>
  %b = coreai.decomposable.broadcasting_where %causal, %s, %minus_one : (tensor<2x2xi1>, tensor<2x2xf32>, tensor<f32>) -> tensor<2x2xf32>
  coreai.output %a, %b : tensor<2x2xf32>, tensor<2x2xf32>
}
