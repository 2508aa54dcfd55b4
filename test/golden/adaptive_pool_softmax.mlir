// RUN: coreai-opt %s > %t.a && coreai-opt %t.a > %t.b && diff %t.a %t.b
// RUN: grep -v '^//' %s | sed '/^$/d' > %t.golden && sed '/^$/d' %t.a | diff %t.golden -
// coreai-torch 0.4.3 output for `adaptive_pool_softmax`, printed by coreai-core 1.0.0b3.
// Regenerate with tools/coreai-golden/generate.py.

module {
  coreai.graph private noinline @log_softmax_mcqsxchc(%arg0: tensor<1x4x6x6xf32> {coreai.name = "input"}) -> tensor<1x4x6x6xf32> attributes {__coreai_pure__, composite_decl = #coreai.composite_declaration<"log_softmax" = {input_names = ["input"], op_attrs = {axis = 1 : si64, version = 1 : si64}, output_names = ["output"]}>, template_op = "log_softmax"} {
    %0 = coreai.constant dense<1> : tensor<1xsi32>
    %1 = coreai.reduce_max %arg0, %0 : (tensor<1x4x6x6xf32>, tensor<1xsi32>) -> tensor<1x1x6x6xf32>
    %2 = coreai.decomposable.broadcasting_sub %arg0, %1 : (tensor<1x4x6x6xf32>, tensor<1x1x6x6xf32>) -> tensor<1x4x6x6xf32>
    %3 = coreai.exp %2 : tensor<1x4x6x6xf32> -> tensor<1x4x6x6xf32>
    %4 = coreai.reduce_sum %3, %0 : (tensor<1x4x6x6xf32>, tensor<1xsi32>) -> tensor<1x1x6x6xf32>
    %5 = coreai.log %4 : tensor<1x1x6x6xf32> -> tensor<1x1x6x6xf32>
    %6 = coreai.decomposable.broadcasting_sub %2, %5 : (tensor<1x4x6x6xf32>, tensor<1x1x6x6xf32>) -> tensor<1x4x6x6xf32>
    coreai.output %6 : tensor<1x4x6x6xf32>
  }
  coreai.graph @main(%arg0: tensor<1x4x6x6xf32> {coreai.name = "args_0"}) -> (tensor<1x4x1x1xf32> {coreai.name = "mean"}, tensor<1x4x6x6xf32> {coreai.name = "_log_softmax"}, tensor<1x6x6xf32> {coreai.name = "pow_2"}) attributes {__coreai_pure__} {
    %0 = coreai.constant dense<[1, 6, 6]> : tensor<3xui32>
    %1 = coreai.constant dense<2.000000e+00> : tensor<f32>
    %2 = coreai.constant dense<5.000000e-01> : tensor<f32>
    %3 = coreai.constant dense<1> : tensor<1xsi32>
    %4 = coreai.constant dense<[3, 2]> : tensor<2xsi32>
    %5 = coreai.reduce_mean %arg0, %4 : (tensor<1x4x6x6xf32>, tensor<2xsi32>) -> tensor<1x4x1x1xf32>
    %6 = coreai.invoke @log_softmax_mcqsxchc(%arg0)  : (tensor<1x4x6x6xf32>) -> tensor<1x4x6x6xf32>
    %7 = coreai.decomposable.broadcasting_pow %arg0, %1 : (tensor<1x4x6x6xf32>, tensor<f32>) -> tensor<1x4x6x6xf32>
    %8 = coreai.reduce_sum %7, %3 : (tensor<1x4x6x6xf32>, tensor<1xsi32>) -> tensor<1x1x6x6xf32>
    %9 = coreai.decomposable.broadcasting_pow %8, %2 : (tensor<1x1x6x6xf32>, tensor<f32>) -> tensor<1x1x6x6xf32>
    %10 = coreai.reshape %9, %0 : (tensor<1x1x6x6xf32>, tensor<3xui32>) -> tensor<1x6x6xf32>
    coreai.output %5, %6, %10 : tensor<1x4x1x1xf32>, tensor<1x4x6x6xf32>, tensor<1x6x6xf32>
  }
}
