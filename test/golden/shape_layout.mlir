// RUN: coreai-opt %s > %t.a && coreai-opt %t.a > %t.b && diff %t.a %t.b
// RUN: grep -v '^//' %s | sed '/^$/d' > %t.golden && sed '/^$/d' %t.a | diff %t.golden -
// coreai-torch 0.4.3 output for `shape_layout`, printed by coreai-core 1.0.0b3.
// Regenerate with tools/coreai-golden/generate.py.

module {
  coreai.graph @main(%arg0: tensor<3x4xf32> {coreai.name = "args_0"}) -> (tensor<4x3xf32> {coreai.name = "view"}, tensor<4x3xf32> {coreai.name = "permute"}, tensor<1x3x4xf32> {coreai.name = "unsqueeze"}, tensor<3x4xf32> {coreai.name = "squeeze"}, tensor<2x3x4xf32> {coreai.name = "expand"}, tensor<3x4xf32> {coreai.name = "flip"}, tensor<6x4xf32> {coreai.name = "repeat"}) attributes {__coreai_pure__} {
    %0 = coreai.constant dense<[1, 3, 4]> : tensor<3xui32>
    %1 = coreai.constant dense<[2, 1]> : tensor<2xui32>
    %2 = coreai.constant dense<2> : tensor<1xui32>
    %3 = coreai.constant dense<0> : tensor<1xsi32>
    %4 = coreai.constant dense<[1, 0]> : tensor<2xui32>
    %5 = coreai.constant dense<[4, 3]> : tensor<2xui32>
    %6 = coreai.reshape %arg0, %5 : (tensor<3x4xf32>, tensor<2xui32>) -> tensor<4x3xf32>
    %7 = coreai.transpose %arg0, %4 : (tensor<3x4xf32>, tensor<2xui32>) -> tensor<4x3xf32>
    %8 = coreai.reshape %arg0, %0 : (tensor<3x4xf32>, tensor<3xui32>) -> tensor<1x3x4xf32>
    %9 = coreai.broadcast_in_dims %8, %2, %3 : (tensor<1x3x4xf32>, tensor<1xui32>, tensor<1xsi32>) -> tensor<2x3x4xf32>
    %10 = coreai.reverse %arg0, %3 : (tensor<3x4xf32>, tensor<1xsi32>) -> tensor<3x4xf32>
    %11 = coreai.tile %arg0, %1 : (tensor<3x4xf32>, tensor<2xui32>) -> tensor<6x4xf32>
    coreai.output %6, %7, %8, %arg0, %9, %10, %11 : tensor<4x3xf32>, tensor<4x3xf32>, tensor<1x3x4xf32>, tensor<3x4xf32>, tensor<2x3x4xf32>, tensor<3x4xf32>, tensor<6x4xf32>
  }
}
