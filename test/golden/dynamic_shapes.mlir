// RUN: coreai-opt %s > %t.a && coreai-opt %t.a > %t.b && diff %t.a %t.b
// RUN: grep -v '^//' %s | sed '/^$/d' > %t.golden && sed '/^$/d' %t.a | diff %t.golden -
// coreai-torch 0.4.3 output for `dynamic_shapes`, printed by coreai-core 1.0.0b3.
// Regenerate with tools/coreai-golden/generate.py.

module {
  coreai.graph @main(%arg0: tensor<?x4xf32> {coreai.name = "x"}) -> (tensor<4xf32> {coreai.name = "sum_1"}) attributes {__coreai_pure__} {
    %0 = coreai.constant dense<4> : tensor<1xui32>
    %1 = coreai.constant dense<0> : tensor<1xsi32>
    %2 = coreai.constant dense<2.000000e+00> : tensor<f32>
    %3 = coreai.decomposable.broadcasting_mul %arg0, %2 : (tensor<?x4xf32>, tensor<f32>) -> tensor<?x4xf32>
    %4 = coreai.reduce_sum %3, %1 : (tensor<?x4xf32>, tensor<1xsi32>) -> tensor<1x4xf32>
    %5 = coreai.reshape %4, %0 : (tensor<1x4xf32>, tensor<1xui32>) -> tensor<4xf32>
    coreai.output %5 : tensor<4xf32>
  }
}
