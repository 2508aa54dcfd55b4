// RUN: coreai-opt %s > %t.a && coreai-opt %t.a > %t.b && diff %t.a %t.b
// RUN: grep -v '^//' %s | sed '/^$/d' > %t.golden && sed '/^$/d' %t.a | diff %t.golden -
// coreai-torch 0.4.3 output for `pad_interpolate`, printed by coreai-core 1.0.0b3.
// Regenerate with tools/coreai-golden/generate.py.

module {
  coreai.graph @main(%arg0: tensor<3x4xf32> {coreai.name = "args_0"}) -> (tensor<3x7xf32> {coreai.name = "reflection_pad1d"}, tensor<3x6xf32> {coreai.name = "constant_pad_nd"}, tensor<1x1x6x8xf32> {coreai.name = "upsample_bilinear2d"}, tensor<1x1x6x8xf32> {coreai.name = "upsample_nearest2d"}) attributes {__coreai_pure__} {
    %0 = coreai.constant dense<[1, 1, 3, 4]> : tensor<4xui32>
    %1 = coreai.constant dense<0.000000e+00> : tensor<4xf32>
    %2 = coreai.constant dense<[1.000000e+00, 1.000000e+00, 2.000000e+00, 2.000000e+00]> : tensor<4xf32>
    %3 = coreai.constant dense<[1, 1, 6, 8]> : tensor<4xsi32>
    %4 = coreai.constant dense<[0, 0, 1, 1]> : tensor<4xui32>
    %5 = coreai.constant dense<0.000000e+00> : tensor<f32>
    %6 = coreai.constant dense<[0, 0, 1, 2]> : tensor<4xui32>
    %7 = coreai.pad %arg0, %6, %5 mode = <reflect> : (tensor<3x4xf32>, tensor<4xui32>, tensor<f32>) -> tensor<3x7xf32>
    %8 = coreai.pad %arg0, %4, %5 mode = <constant> : (tensor<3x4xf32>, tensor<4xui32>, tensor<f32>) -> tensor<3x6xf32>
    %9 = coreai.reshape %arg0, %0 : (tensor<3x4xf32>, tensor<4xui32>) -> tensor<1x1x3x4xf32>
    %10 = coreai.interpolate %9, %3, %2, %1 {interpolation_mode = #coreai.interpolation_mode<linear>} : (tensor<1x1x3x4xf32>, tensor<4xsi32>, tensor<4xf32>, tensor<4xf32>) -> tensor<1x1x6x8xf32>
    %11 = coreai.interpolate %9, %3, %2, %1 {interpolation_mode = #coreai.interpolation_mode<nearest_neighbor>} : (tensor<1x1x3x4xf32>, tensor<4xsi32>, tensor<4xf32>, tensor<4xf32>) -> tensor<1x1x6x8xf32>
    coreai.output %7, %8, %10, %11 : tensor<3x7xf32>, tensor<3x6xf32>, tensor<1x1x6x8xf32>, tensor<1x1x6x8xf32>
  }
}
