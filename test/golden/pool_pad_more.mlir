// RUN: coreai-opt %s > %t.a && coreai-opt %t.a > %t.b && diff %t.a %t.b
// RUN: grep -v '^//' %s | sed '/^$/d' > %t.golden && sed '/^$/d' %t.a | diff %t.golden -
// coreai-torch 0.4.3 output for `pool_pad_more`, printed by coreai-core 1.0.0b3.
// Regenerate with tools/coreai-golden/generate.py.

module {
  coreai.graph private noinline @avg_pool3d_composite_qibvgefj(%arg0: tensor<1x2x4x4x4xf32> {coreai.name = "input_tensor"}, %arg1: tensor<3xsi32> {coreai.name = "kernel_size"}, %arg2: tensor<3xsi32> {coreai.name = "stride"}, %arg3: tensor<3xsi32> {coreai.name = "padding"}, %arg4: tensor<i1> {coreai.name = "ceil_mode"}, %arg5: tensor<i1> {coreai.name = "count_include_pad"}, %arg6: tensor<si32> {coreai.name = "divisor_override"}) -> tensor<1x2x2x2x2xf32> attributes {__coreai_pure__, composite_decl = #coreai.composite_declaration<"avg_pool_3d" = {input_names = ["input", "kernel_size", "stride", "padding", "ceil_mode", "count_include_pad", "divisor_override"], op_attrs = {version = 1 : si64}, output_names = ["output"]}>, template_op = "avg_pool3d_composite"} {
    %0 = coreai.constant dense<1> : tensor<3xui32>
    %1 = coreai.constant dense<8.000000e+00> : tensor<f32>
    %2 = coreai.constant dense<0.000000e+00> : tensor<f32>
    %3 = coreai.constant dense<0> : tensor<si32>
    %4 = coreai.constant dense<0> : tensor<4xui32>
    %5 = coreai.constant dense<3> : tensor<1xsi32>
    %6 = coreai.constant dense<2> : tensor<1xsi32>
    %7 = coreai.constant dense<1> : tensor<1xsi32>
    %8 = coreai.constant dense<0> : tensor<1xsi32>
    %9 = coreai.cast %arg3 : tensor<3xsi32> to tensor<3xui32>
    %10 = coreai.slice %9, %8, %7, %7 : (tensor<3xui32>, tensor<1xsi32>, tensor<1xsi32>, tensor<1xsi32>) -> tensor<1xui32>
    %11 = coreai.slice %9, %7, %6, %7 : (tensor<3xui32>, tensor<1xsi32>, tensor<1xsi32>, tensor<1xsi32>) -> tensor<1xui32>
    %12 = coreai.slice %9, %6, %5, %7 : (tensor<3xui32>, tensor<1xsi32>, tensor<1xsi32>, tensor<1xsi32>) -> tensor<1xui32>
    %13 = coreai.concat %3, %4, %10, %10, %11, %11, %12, %12 : (tensor<si32>, tensor<4xui32>, tensor<1xui32>, tensor<1xui32>, tensor<1xui32>, tensor<1xui32>, tensor<1xui32>, tensor<1xui32>) -> tensor<10xui32>
    %14 = coreai.pad %arg0, %13, %2 mode = <constant> : (tensor<1x2x4x4x4xf32>, tensor<10xui32>, tensor<f32>) -> tensor<1x2x?x?x?xf32>
    %15 = coreai.cast %arg1 : tensor<3xsi32> to tensor<3xui32>
    %16 = coreai.cast %arg2 : tensor<3xsi32> to tensor<3xui32>
    %17 = coreai.sum_pool_3d %14, %15, %16, %0 : (tensor<1x2x?x?x?xf32>, tensor<3xui32>, tensor<3xui32>, tensor<3xui32>) -> tensor<1x2x2x2x2xf32>
    %18 = coreai.decomposable.broadcasting_divide %17, %1 : (tensor<1x2x2x2x2xf32>, tensor<f32>) -> tensor<1x2x2x2x2xf32>
    coreai.output %18 : tensor<1x2x2x2x2xf32>
  }
  coreai.graph @main(%arg0: tensor<1x4x6x6xf32> {coreai.name = "args_0"}, %arg1: tensor<1x2x4x4x4xf32> {coreai.name = "args_1"}) -> (tensor<1x4x2x2xf32> {coreai.name = "_adaptive_avg_pool2d"}, tensor<1x2x2x2x2xf32> {coreai.name = "avg_pool3d"}, tensor<1x4x8x8xf32> {coreai.name = "reflection_pad2d"}, tensor<1x2x6x6x6xf32> {coreai.name = "reflection_pad3d"}, tensor<4x6x9xf32> {coreai.name = "replication_pad1d"}, tensor<1x4x10x8xf32> {coreai.name = "replication_pad2d"}, tensor<1x2x6x6x6xf32> {coreai.name = "replication_pad3d"}) attributes {__coreai_pure__} {
    %0 = coreai.constant dense<[4, 6, 6]> : tensor<3xui32>
    %1 = coreai.constant dense<[0, 0, 0, 0, 2, 2, 1, 1]> : tensor<8xui32>
    %2 = coreai.constant dense<[0, 0, 0, 0, 1, 2]> : tensor<6xui32>
    %3 = coreai.constant dense<[0, 0, 0, 0, 1, 1, 1, 1, 1, 1]> : tensor<10xui32>
    %4 = coreai.constant dense<[0, 0, 0, 0, 1, 1, 1, 1]> : tensor<8xui32>
    %5 = coreai.constant dense<0.000000e+00> : tensor<f32>
    %6 = coreai.constant dense<0> : tensor<si32>
    %7 = coreai.constant dense<true> : tensor<i1>
    %8 = coreai.constant dense<false> : tensor<i1>
    %9 = coreai.constant dense<0> : tensor<3xsi32>
    %10 = coreai.constant dense<2> : tensor<3xsi32>
    %11 = coreai.constant dense<9.000000e+00> : tensor<f32>
    %12 = coreai.constant dense<1> : tensor<2xui32>
    %13 = coreai.constant dense<3> : tensor<2xui32>
    %14 = coreai.sum_pool_2d %arg0, %13, %13, %12 : (tensor<1x4x6x6xf32>, tensor<2xui32>, tensor<2xui32>, tensor<2xui32>) -> tensor<1x4x2x2xf32>
    %15 = coreai.decomposable.broadcasting_divide %14, %11 : (tensor<1x4x2x2xf32>, tensor<f32>) -> tensor<1x4x2x2xf32>
    %16 = coreai.invoke @avg_pool3d_composite_qibvgefj(%arg1, %10, %10, %9, %8, %7, %6)  : (tensor<1x2x4x4x4xf32>, tensor<3xsi32>, tensor<3xsi32>, tensor<3xsi32>, tensor<i1>, tensor<i1>, tensor<si32>) -> tensor<1x2x2x2x2xf32>
    %17 = coreai.pad %arg0, %4, %5 mode = <reflect> : (tensor<1x4x6x6xf32>, tensor<8xui32>, tensor<f32>) -> tensor<1x4x8x8xf32>
    %18 = coreai.pad %arg1, %3, %5 mode = <reflect> : (tensor<1x2x4x4x4xf32>, tensor<10xui32>, tensor<f32>) -> tensor<1x2x6x6x6xf32>
    %19 = coreai.reshape %arg0, %0 : (tensor<1x4x6x6xf32>, tensor<3xui32>) -> tensor<4x6x6xf32>
    %20 = coreai.pad %19, %2, %5 mode = <replicate> : (tensor<4x6x6xf32>, tensor<6xui32>, tensor<f32>) -> tensor<4x6x9xf32>
    %21 = coreai.pad %arg0, %1, %5 mode = <replicate> : (tensor<1x4x6x6xf32>, tensor<8xui32>, tensor<f32>) -> tensor<1x4x10x8xf32>
    %22 = coreai.pad %arg1, %3, %5 mode = <replicate> : (tensor<1x2x4x4x4xf32>, tensor<10xui32>, tensor<f32>) -> tensor<1x2x6x6x6xf32>
    coreai.output %15, %16, %17, %18, %20, %21, %22 : tensor<1x4x2x2xf32>, tensor<1x2x2x2x2xf32>, tensor<1x4x8x8xf32>, tensor<1x2x6x6x6xf32>, tensor<4x6x9xf32>, tensor<1x4x10x8xf32>, tensor<1x2x6x6x6xf32>
  }
}
