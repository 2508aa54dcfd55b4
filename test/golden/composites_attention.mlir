// RUN: coreai-opt %s > %t.a && coreai-opt %t.a > %t.b && diff %t.a %t.b
// RUN: grep -v '^//' %s | sed '/^$/d' > %t.golden && sed '/^$/d' %t.a | diff %t.golden -
// coreai-torch 0.4.3 output for `composites_attention`, printed by coreai-core 1.0.0b3.
// Regenerate with tools/coreai-golden/generate.py.

module {
  coreai.graph private noinline @sdpa_maskless_fpkofffd(%arg0: tensor<1x2x3x4xf32> {coreai.name = "q"}, %arg1: tensor<1x2x3x4xf32> {coreai.name = "k"}, %arg2: tensor<1x2x3x4xf32> {coreai.name = "v"}) -> tensor<1x2x3x4xf32> attributes {__coreai_pure__, composite_decl = #coreai.composite_declaration<"scaled_dot_product_attention" = {input_names = ["query", "key", "value"], op_attrs = {is_causal = false, version = 1 : si64, window_size = 0 : si64}, output_names = ["output"]}>, template_op = "sdpa_maskless"} {
    %0 = coreai.constant dense<3> : tensor<si32>
    %1 = coreai.constant dense<[0, 1, 3, 2]> : tensor<4xui32>
    %2 = coreai.constant dense<5.000000e-01> : tensor<f32>
    %3 = coreai.decomposable.broadcasting_mul %arg0, %2 : (tensor<1x2x3x4xf32>, tensor<f32>) -> tensor<1x2x3x4xf32>
    %4 = coreai.transpose %arg1, %1 : (tensor<1x2x3x4xf32>, tensor<4xui32>) -> tensor<1x2x4x3xf32>
    %5 = coreai.decomposable.broadcasting_batch_matmul %3, %4 : (tensor<1x2x3x4xf32>, tensor<1x2x4x3xf32>) -> tensor<1x2x3x3xf32>
    %6 = coreai.softmax %5, %0 : (tensor<1x2x3x3xf32>, tensor<si32>) -> tensor<1x2x3x3xf32>
    %7 = coreai.decomposable.broadcasting_batch_matmul %6, %arg2 : (tensor<1x2x3x3xf32>, tensor<1x2x3x4xf32>) -> tensor<1x2x3x4xf32>
    coreai.output %7 : tensor<1x2x3x4xf32>
  }
  coreai.graph @main(%arg0: tensor<1x2x3x4xf32> {coreai.name = "args_0"}, %arg1: tensor<1x2x3x4xf32> {coreai.name = "args_1"}, %arg2: tensor<1x2x3x4xf32> {coreai.name = "args_2"}) -> (tensor<1x2x3x4xf32> {coreai.name = "scaled_dot_product_attention"}) attributes {__coreai_pure__} {
    %0 = coreai.invoke @sdpa_maskless_fpkofffd(%arg0, %arg1, %arg2)  : (tensor<1x2x3x4xf32>, tensor<1x2x3x4xf32>, tensor<1x2x3x4xf32>) -> tensor<1x2x3x4xf32>
    coreai.output %0 : tensor<1x2x3x4xf32>
  }
}
