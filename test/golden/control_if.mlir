// RUN: coreai-opt %s > %t.a && coreai-opt %t.a > %t.b && diff %t.a %t.b
// RUN: grep -v '^//' %s | sed '/^$/d' > %t.golden && sed '/^$/d' %t.a | diff %t.golden -
// coreai-torch 0.4.3 output for `control_if`, printed by coreai-core 1.0.0b3.
// Regenerate with tools/coreai-golden/generate.py.

module {
  coreai.graph @main(%arg0: tensor<3xf32> {coreai.name = "args_0"}, %arg1: tensor<3xf32> {coreai.name = "args_1"}) -> (tensor<3xf32> {coreai.name = "getitem"}) attributes {__coreai_pure__} {
    %0 = coreai.constant dense<> : tensor<0xui32>
    %1 = coreai.constant dense<0.000000e+00> : tensor<f32>
    %2 = coreai.constant dense<0> : tensor<1xsi32>
    %3 = coreai.reduce_sum %arg0, %2 : (tensor<3xf32>, tensor<1xsi32>) -> tensor<1xf32>
    %4 = coreai.decomposable.broadcasting_greater %3, %1 : (tensor<1xf32>, tensor<f32>) -> tensor<1xi1>
    %5 = coreai.reshape %4, %0 : (tensor<1xi1>, tensor<0xui32>) -> tensor<i1>
    %6 = coreai.if %5 {
      %7 = coreai.sin %arg1 : tensor<3xf32> -> tensor<3xf32>
      coreai.yield %7 : tensor<3xf32>
    } else {
      %7 = coreai.cos %arg1 : tensor<3xf32> -> tensor<3xf32>
      coreai.yield %7 : tensor<3xf32>
    } : tensor<i1> -> tensor<3xf32>
    coreai.output %6 : tensor<3xf32>
  }
}
