// RUN: coreai-opt %s > %t.a && coreai-opt %t.a > %t.b && diff %t.a %t.b
// RUN: grep -v '^//' %s | sed '/^$/d' > %t.golden && sed '/^$/d' %t.a | diff %t.golden -
// coreai-torch 0.4.3 output for `creation`, printed by coreai-core 1.0.0b3.
// Regenerate with tools/coreai-golden/generate.py.

module {
  coreai.graph @main(%arg0: tensor<3x4xf32> {coreai.name = "args_0"}) -> (tensor<2x3xf32> {coreai.name = "full"}, tensor<3x4xf32> {coreai.name = "full_like"}, tensor<f32> {coreai.name = "scalar_tensor"}, tensor<3x4xf32> {coreai.name = "add"}, tensor<2x3xf32> {coreai.name = "full_like_1"}) attributes {__coreai_pure__} {
    %0 = coreai.constant dense<1.000000e+00> : tensor<2x3xf32>
    %1 = coreai.constant dense<[1.000000e+00, 2.000000e+00, 3.000000e+00, 4.000000e+00]> : tensor<4xf32>
    %2 = coreai.constant dense<1.500000e+00> : tensor<2x3xf32>
    %3 = coreai.constant dense<2.000000e+00> : tensor<3x4xf32>
    %4 = coreai.constant dense<3.000000e+00> : tensor<f32>
    %5 = coreai.decomposable.broadcasting_add %arg0, %1 : (tensor<3x4xf32>, tensor<4xf32>) -> tensor<3x4xf32>
    coreai.output %2, %3, %4, %5, %0 : tensor<2x3xf32>, tensor<3x4xf32>, tensor<f32>, tensor<3x4xf32>, tensor<2x3xf32>
  }
}
