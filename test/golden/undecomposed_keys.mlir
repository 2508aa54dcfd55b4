// RUN: coreai-opt %s > %t.a && coreai-opt %t.a > %t.b && diff %t.a %t.b
// RUN: grep -v '^//' %s | sed '/^$/d' > %t.golden && sed '/^$/d' %t.a | diff %t.golden -
// coreai-torch 0.4.3 output (no decompositions) for `undecomposed_keys`, printed by coreai-core 1.0.0b3.
// Regenerate with tools/coreai-golden/generate.py.

module {
  coreai.graph private noinline @linalg_vector_norm_bqsfmpni(%arg0: tensor<3x4xf32> {coreai.name = "input"}) -> tensor<3xf32> attributes {__coreai_pure__, composite_decl = #coreai.composite_declaration<"linalg_vector_norm" = {input_names = ["input"], op_attrs = {axes = [1 : si64], keep_dim = false, ord = 2 : si64, version = 1 : si64}, output_names = ["output"]}>, template_op = "linalg_vector_norm"} {
    %0 = coreai.constant dense<3> : tensor<1xui32>
    %1 = coreai.constant dense<1> : tensor<1xsi32>
    %2 = coreai.decomposable.broadcasting_mul %arg0, %arg0 : (tensor<3x4xf32>, tensor<3x4xf32>) -> tensor<3x4xf32>
    %3 = coreai.reduce_sum %2, %1 : (tensor<3x4xf32>, tensor<1xsi32>) -> tensor<3x1xf32>
    %4 = coreai.sqrt %3 : tensor<3x1xf32> -> tensor<3x1xf32>
    %5 = coreai.reshape %4, %0 : (tensor<3x1xf32>, tensor<1xui32>) -> tensor<3xf32>
    coreai.output %5 : tensor<3xf32>
  }
  coreai.graph @main(%arg0: tensor<3x4xf32> {coreai.name = "args_0"}) -> (tensor<6x4xf32> {coreai.name = "tile"}, tensor<3x4xf16> {coreai.name = "_to_copy"}, tensor<12xf32> {coreai.name = "_unsafe_view"}, tensor<3x4xf32> {coreai.name = "true_divide"}, tensor<3x4xf32> {coreai.name = "floor_divide"}, tensor<3xf32> {coreai.name = "linalg_vector_norm"}, tensor<3x4xf32> {coreai.name = "add"}) attributes {__coreai_pure__} {
    %0 = coreai.constant dense<12> : tensor<1xui32>
    %1 = coreai.constant dense<[1.000000e+00, 2.000000e+00, 3.000000e+00, 4.000000e+00]> : tensor<4xf32>
    %2 = coreai.constant dense<[2, 1]> : tensor<2xui32>
    %3 = coreai.tile %arg0, %2 : (tensor<3x4xf32>, tensor<2xui32>) -> tensor<6x4xf32>
    %4 = coreai.cast %arg0 : tensor<3x4xf32> to tensor<3x4xf16>
    %5 = coreai.reshape %arg0, %0 : (tensor<3x4xf32>, tensor<1xui32>) -> tensor<12xf32>
    %6 = coreai.decomposable.broadcasting_divide %arg0, %arg0 : (tensor<3x4xf32>, tensor<3x4xf32>) -> tensor<3x4xf32>
    %7 = coreai.decomposable.broadcasting_floor_divide %arg0, %arg0 : (tensor<3x4xf32>, tensor<3x4xf32>) -> tensor<3x4xf32>
    %8 = coreai.invoke @linalg_vector_norm_bqsfmpni(%arg0)  : (tensor<3x4xf32>) -> tensor<3xf32>
    %9 = coreai.decomposable.broadcasting_add %arg0, %1 : (tensor<3x4xf32>, tensor<4xf32>) -> tensor<3x4xf32>
    coreai.output %3, %4, %5, %6, %7, %8, %9 : tensor<6x4xf32>, tensor<3x4xf16>, tensor<12xf32>, tensor<3x4xf32>, tensor<3x4xf32>, tensor<3xf32>, tensor<3x4xf32>
  }
}
