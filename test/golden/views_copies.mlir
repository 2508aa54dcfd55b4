// RUN: coreai-opt %s > %t.a && coreai-opt %t.a > %t.b && diff %t.a %t.b
// RUN: grep -v '^//' %s | sed '/^$/d' > %t.golden && sed '/^$/d' %t.a | diff %t.golden -
// coreai-torch 0.4.3 output for `views_copies`, printed by coreai-core 1.0.0b3.
// Regenerate with tools/coreai-golden/generate.py.

module {
  coreai.graph @main(%arg0: tensor<3x4xf32> {coreai.name = "args_0"}, %arg1: tensor<3x4xf32> {coreai.name = "args_1"}) -> (tensor<3x4xf32> {coreai.name = "alias"}, tensor<3x4xf32> {coreai.name = "copy"}, tensor<12xf32> {coreai.name = "view"}, tensor<6x4xf32> {coreai.name = "repeat"}, tensor<3x4xf16> {coreai.name = "_to_copy"}) attributes {__coreai_pure__} {
    %0 = coreai.constant dense<[2, 1]> : tensor<2xui32>
    %1 = coreai.constant dense<12> : tensor<1xui32>
    %2 = coreai.reshape %arg0, %1 : (tensor<3x4xf32>, tensor<1xui32>) -> tensor<12xf32>
    %3 = coreai.tile %arg0, %0 : (tensor<3x4xf32>, tensor<2xui32>) -> tensor<6x4xf32>
    %4 = coreai.cast %arg0 : tensor<3x4xf32> to tensor<3x4xf16>
    coreai.output %arg0, %arg1, %2, %3, %4 : tensor<3x4xf32>, tensor<3x4xf32>, tensor<12xf32>, tensor<6x4xf32>, tensor<3x4xf16>
  }
}
