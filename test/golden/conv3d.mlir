// RUN: coreai-opt %s > %t.a && coreai-opt %t.a > %t.b && diff %t.a %t.b
// RUN: grep -v '^//' %s | sed '/^$/d' > %t.golden && sed '/^$/d' %t.a | diff %t.golden -
// coreai-torch 0.4.3 output for `conv3d`, printed by coreai-core 1.0.0b3.
// Regenerate with tools/coreai-golden/generate.py.

module {
  coreai.graph @main(%arg0: tensor<1x2x4x4x4xf32> {coreai.name = "args_0"}, %arg1: tensor<3x2x2x2x2xf32> {coreai.name = "args_1"}) -> (tensor<1x3x3x3x3xf32> {coreai.name = "convolution"}) attributes {__coreai_pure__} {
    %0 = coreai.constant dense<1> : tensor<3xui32>
    %1 = coreai.constant dense<1> : tensor<ui32>
    %2 = coreai.conv3d %arg0, %arg1, %0, %0, %1 : (tensor<1x2x4x4x4xf32>, tensor<3x2x2x2x2xf32>, tensor<3xui32>, tensor<3xui32>, tensor<ui32>) -> tensor<1x3x3x3x3xf32>
    coreai.output %2 : tensor<1x3x3x3x3xf32>
  }
}
