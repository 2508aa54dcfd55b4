// RUN: coreai-opt %s > %t.a && coreai-opt %t.a > %t.b && diff %t.a %t.b
// RUN: grep -v '^//' %s | sed '/^$/d' > %t.golden && sed '/^$/d' %t.a | diff %t.golden -
// coreai-torch 0.4.3 output for `conv_pool`, printed by coreai-core 1.0.0b3.
// Regenerate with tools/coreai-golden/generate.py.

module {
  coreai.graph private noinline @avg_pool2d_composite_vwkxviiv(%arg0: tensor<1x4x6x6xf32> {coreai.name = "input_tensor"}, %arg1: tensor<2xsi32> {coreai.name = "kernel_size"}, %arg2: tensor<2xsi32> {coreai.name = "stride"}, %arg3: tensor<2xsi32> {coreai.name = "padding"}, %arg4: tensor<i1> {coreai.name = "ceil_mode"}, %arg5: tensor<i1> {coreai.name = "count_include_pad"}, %arg6: tensor<si32> {coreai.name = "divisor_override"}) -> tensor<1x4x3x3xf32> attributes {__coreai_pure__, composite_decl = #coreai.composite_declaration<"avg_pool_2d" = {input_names = ["input", "kernel_size", "stride", "padding", "ceil_mode", "count_include_pad", "divisor_override"], op_attrs = {version = 1 : si64}, output_names = ["output"]}>, template_op = "avg_pool2d_composite"} {
    %0 = coreai.constant dense<1> : tensor<2xui32>
    %1 = coreai.constant dense<4.000000e+00> : tensor<f32>
    %2 = coreai.constant dense<0.000000e+00> : tensor<f32>
    %3 = coreai.constant dense<0> : tensor<si32>
    %4 = coreai.constant dense<0> : tensor<4xui32>
    %5 = coreai.constant dense<2> : tensor<1xsi32>
    %6 = coreai.constant dense<1> : tensor<1xsi32>
    %7 = coreai.constant dense<0> : tensor<1xsi32>
    %8 = coreai.cast %arg3 : tensor<2xsi32> to tensor<2xui32>
    %9 = coreai.slice %8, %7, %6, %6 : (tensor<2xui32>, tensor<1xsi32>, tensor<1xsi32>, tensor<1xsi32>) -> tensor<1xui32>
    %10 = coreai.slice %8, %6, %5, %6 : (tensor<2xui32>, tensor<1xsi32>, tensor<1xsi32>, tensor<1xsi32>) -> tensor<1xui32>
    %11 = coreai.concat %3, %4, %9, %9, %10, %10 : (tensor<si32>, tensor<4xui32>, tensor<1xui32>, tensor<1xui32>, tensor<1xui32>, tensor<1xui32>) -> tensor<8xui32>
    %12 = coreai.pad %arg0, %11, %2 mode = <constant> : (tensor<1x4x6x6xf32>, tensor<8xui32>, tensor<f32>) -> tensor<1x4x?x?xf32>
    %13 = coreai.cast %arg1 : tensor<2xsi32> to tensor<2xui32>
    %14 = coreai.cast %arg2 : tensor<2xsi32> to tensor<2xui32>
    %15 = coreai.sum_pool_2d %12, %13, %14, %0 : (tensor<1x4x?x?xf32>, tensor<2xui32>, tensor<2xui32>, tensor<2xui32>) -> tensor<1x4x3x3xf32>
    %16 = coreai.decomposable.broadcasting_divide %15, %1 : (tensor<1x4x3x3xf32>, tensor<f32>) -> tensor<1x4x3x3xf32>
    coreai.output %16 : tensor<1x4x3x3xf32>
  }
  coreai.graph @main(%arg0: tensor<1x4x6x6xf32> {coreai.name = "args_0"}, %arg1: tensor<2x4x3x3xf32> {coreai.name = "args_1"}, %arg2: tensor<4x2x2x2xf32> {coreai.name = "args_2"}) -> (tensor<1x2x6x6xf32> {coreai.name = "convolution"}, tensor<1x2x7x7xf32> {coreai.name = "convolution_1"}, tensor<1x4x3x3xf32> {coreai.name = "getitem"}, tensor<1x4x3x3xf32> {coreai.name = "avg_pool2d"}) attributes {__coreai_pure__} {
    %0 = coreai.constant dense<0> : tensor<si32>
    %1 = coreai.constant dense<true> : tensor<i1>
    %2 = coreai.constant dense<0> : tensor<2xsi32>
    %3 = coreai.constant dense<2> : tensor<2xsi32>
    %4 = coreai.constant dense<false> : tensor<i1>
    %5 = coreai.constant dense<2> : tensor<2xui32>
    %6 = coreai.constant dense<0> : tensor<2xui32>
    %7 = coreai.constant dense<1> : tensor<ui32>
    %8 = coreai.constant dense<1> : tensor<2xui32>
    %9 = coreai.constant dense<0.000000e+00> : tensor<f32>
    %10 = coreai.constant dense<[0, 0, 0, 0, 1, 1, 1, 1]> : tensor<8xui32>
    %11 = coreai.pad %arg0, %10, %9 mode = <constant> : (tensor<1x4x6x6xf32>, tensor<8xui32>, tensor<f32>) -> tensor<1x4x8x8xf32>
    %12 = coreai.conv2d %11, %arg1, %8, %8, %7 : (tensor<1x4x8x8xf32>, tensor<2x4x3x3xf32>, tensor<2xui32>, tensor<2xui32>, tensor<ui32>) -> tensor<1x2x6x6xf32>
    %13 = coreai.conv_transpose2d %arg0, %arg2, %8, %6, %8, %6, %7 : (tensor<1x4x6x6xf32>, tensor<4x2x2x2xf32>, tensor<2xui32>, tensor<2xui32>, tensor<2xui32>, tensor<2xui32>, tensor<ui32>) -> tensor<1x2x7x7xf32>
    %14 = coreai.max_pool_2d %arg0, %5, %5, %8, %4 : (tensor<1x4x6x6xf32>, tensor<2xui32>, tensor<2xui32>, tensor<2xui32>, tensor<i1>) -> tensor<1x4x3x3xf32>
    %15 = coreai.invoke @avg_pool2d_composite_vwkxviiv(%arg0, %3, %3, %2, %4, %1, %0)  : (tensor<1x4x6x6xf32>, tensor<2xsi32>, tensor<2xsi32>, tensor<2xsi32>, tensor<i1>, tensor<i1>, tensor<si32>) -> tensor<1x4x3x3xf32>
    coreai.output %12, %13, %14, %15 : tensor<1x2x6x6xf32>, tensor<1x2x7x7xf32>, tensor<1x4x3x3xf32>, tensor<1x4x3x3xf32>
  }
}
