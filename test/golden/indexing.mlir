// RUN: coreai-opt %s > %t.a && coreai-opt %t.a > %t.b && diff %t.a %t.b
// RUN: grep -v '^//' %s | sed '/^$/d' > %t.golden && sed '/^$/d' %t.a | diff %t.golden -
// coreai-torch 0.4.3 output for `indexing`, printed by coreai-core 1.0.0b3.
// Regenerate with tools/coreai-golden/generate.py.

module {
  coreai.graph private noinline @pixel_shuffle_ozyzznzi(%arg0: tensor<1x4x1x3xf32> {coreai.name = "input"}) -> tensor<1x1x2x6xf32> attributes {__coreai_pure__, composite_decl = #coreai.composite_declaration<"pixel_shuffle" = {input_names = ["input"], op_attrs = {upscale_factor = 2 : si64, version = 1 : si64}, output_names = ["output"]}>, template_op = "pixel_shuffle"} {
    %0 = coreai.constant dense<[1, 1, 2, 6]> : tensor<4xui32>
    %1 = coreai.constant dense<[2, 0, 3, 1]> : tensor<4xui32>
    %2 = coreai.constant dense<[2, 2, 1, 3]> : tensor<4xui32>
    %3 = coreai.reshape %arg0, %2 : (tensor<1x4x1x3xf32>, tensor<4xui32>) -> tensor<2x2x1x3xf32>
    %4 = coreai.transpose %3, %1 : (tensor<2x2x1x3xf32>, tensor<4xui32>) -> tensor<1x2x3x2xf32>
    %5 = coreai.reshape %4, %0 : (tensor<1x2x3x2xf32>, tensor<4xui32>) -> tensor<1x1x2x6xf32>
    coreai.output %5 : tensor<1x1x2x6xf32>
  }
  coreai.graph @main(%arg0: tensor<3x4xf32> {coreai.name = "args_0"}, %arg1: tensor<3x2xsi32> {coreai.name = "args_1"}) -> (tensor<3x2x4xf32> {coreai.name = "embedding"}, tensor<3x4xf32> {coreai.name = "index_select"}, tensor<4xf32> {coreai.name = "select_1"}, tensor<3x2xf32> {coreai.name = "getitem"}, tensor<3x2xsi32> {coreai.name = "getitem_1"}, tensor<1x1x2x6xf32> {coreai.name = "pixel_shuffle"}) attributes {__coreai_pure__} {
    %0 = coreai.constant dense<[1, 4, 1, 3]> : tensor<4xui32>
    %1 = coreai.constant dense<[2147483647, 2]> : tensor<2xsi32>
    %2 = coreai.constant dense<true> : tensor<i1>
    %3 = coreai.constant dense<1> : tensor<si32>
    %4 = coreai.constant dense<[2, 2147483647]> : tensor<2xsi32>
    %5 = coreai.constant dense<[1, 0]> : tensor<2xsi32>
    %6 = coreai.constant dense<0> : tensor<si32>
    %7 = coreai.constant dense<4> : tensor<1xui32>
    %8 = coreai.constant dense<1> : tensor<1xsi32>
    %9 = coreai.constant dense<1> : tensor<2xsi32>
    %10 = coreai.constant dense<[2147483647, 1]> : tensor<2xsi32>
    %11 = coreai.constant dense<0> : tensor<2xsi32>
    %12 = coreai.constant dense<[3, 2, 1]> : tensor<3xui32>
    %13 = coreai.reshape %arg1, %12 : (tensor<3x2xsi32>, tensor<3xui32>) -> tensor<3x2x1xsi32>
    %14 = coreai.gather_nd %arg0 at %13 : (tensor<3x4xf32>, tensor<3x2x1xsi32>) to tensor<3x2x4xf32>
    %15 = coreai.slice %arg1, %11, %10, %9 : (tensor<3x2xsi32>, tensor<2xsi32>, tensor<2xsi32>, tensor<2xsi32>) -> tensor<3x1xsi32>
    %16 = coreai.broadcast_in_dims %15, %7, %8 : (tensor<3x1xsi32>, tensor<1xui32>, tensor<1xsi32>) -> tensor<3x4xsi32>
    %17 = coreai.gather_along_axis %arg0 at %16 along %6 : (tensor<3x4xf32>, tensor<3x4xsi32>, tensor<si32>) to tensor<3x4xf32>
    %18 = coreai.slice %arg0, %5, %4, %9 : (tensor<3x4xf32>, tensor<2xsi32>, tensor<2xsi32>, tensor<2xsi32>) -> tensor<1x4xf32>
    %19 = coreai.reshape %18, %7 : (tensor<1x4xf32>, tensor<1xui32>) -> tensor<4xf32>
    %20 = coreai.sort %arg0, %3, %2, %2 : (tensor<3x4xf32>, tensor<si32>, tensor<i1>, tensor<i1>) -> tensor<3x4xf32>
    %21 = coreai.argsort %arg0, %3, %2, %2 : (tensor<3x4xf32>, tensor<si32>, tensor<i1>, tensor<i1>) -> tensor<3x4xsi32>
    %22 = coreai.slice %20, %11, %1, %9 : (tensor<3x4xf32>, tensor<2xsi32>, tensor<2xsi32>, tensor<2xsi32>) -> tensor<3x2xf32>
    %23 = coreai.slice %21, %11, %1, %9 : (tensor<3x4xsi32>, tensor<2xsi32>, tensor<2xsi32>, tensor<2xsi32>) -> tensor<3x2xsi32>
    %24 = coreai.reshape %arg0, %0 : (tensor<3x4xf32>, tensor<4xui32>) -> tensor<1x4x1x3xf32>
    %25 = coreai.invoke @pixel_shuffle_ozyzznzi(%24)  : (tensor<1x4x1x3xf32>) -> tensor<1x1x2x6xf32>
    coreai.output %14, %17, %19, %22, %23, %25 : tensor<3x2x4xf32>, tensor<3x4xf32>, tensor<4xf32>, tensor<3x2xf32>, tensor<3x2xsi32>, tensor<1x1x2x6xf32>
  }
}
