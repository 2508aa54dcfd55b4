// RUN: coreai-opt %s > %t.a && coreai-opt %t.a > %t.b && diff %t.a %t.b
// RUN: grep -v '^//' %s | sed '/^$/d' > %t.golden && sed '/^$/d' %t.a | diff %t.golden -
// coreai-torch 0.4.3 output for `activations`, printed by coreai-core 1.0.0b3.
// Regenerate with tools/coreai-golden/generate.py.

module {
  coreai.graph private noinline @hard_sigmoid_wxsztzdm(%arg0: tensor<3x4xf32> {coreai.name = "input"}) -> tensor<3x4xf32> attributes {__coreai_pure__, composite_decl = #coreai.composite_declaration<"hard_sigmoid" = {input_names = ["input"], op_attrs = {version = 1 : si64}, output_names = ["output"]}>, template_op = "hard_sigmoid"} {
    %0 = coreai.constant dense<3.000000e+00> : tensor<f32>
    %1 = coreai.constant dense<0.000000e+00> : tensor<f32>
    %2 = coreai.constant dense<6.000000e+00> : tensor<f32>
    %3 = coreai.decomposable.broadcasting_add %arg0, %0 : (tensor<3x4xf32>, tensor<f32>) -> tensor<3x4xf32>
    %4 = coreai.decomposable.broadcasting_maximum %3, %1 : (tensor<3x4xf32>, tensor<f32>) -> tensor<3x4xf32>
    %5 = coreai.decomposable.broadcasting_minimum %4, %2 : (tensor<3x4xf32>, tensor<f32>) -> tensor<3x4xf32>
    %6 = coreai.decomposable.broadcasting_divide %5, %2 : (tensor<3x4xf32>, tensor<f32>) -> tensor<3x4xf32>
    coreai.output %6 : tensor<3x4xf32>
  }
  coreai.graph @main(%arg0: tensor<3x4xf32> {coreai.name = "args_0"}) -> (tensor<3x4xf32> {coreai.name = "relu"}, tensor<3x4xf32> {coreai.name = "sigmoid"}, tensor<3x4xf32> {coreai.name = "silu"}, tensor<3x4xf32> {coreai.name = "gelu"}, tensor<3x4xf32> {coreai.name = "gelu_1"}, tensor<3x4xf32> {coreai.name = "_softmax"}, tensor<3x4xf32> {coreai.name = "hardsigmoid"}) attributes {__coreai_pure__} {
    %0 = coreai.constant dense<1> : tensor<si32>
    %1 = coreai.relu %arg0 : (tensor<3x4xf32>) -> tensor<3x4xf32>
    %2 = coreai.sigmoid %arg0 : (tensor<3x4xf32>) -> tensor<3x4xf32>
    %3 = coreai.silu %arg0 : (tensor<3x4xf32>) -> tensor<3x4xf32>
    %4 = coreai.gelu %arg0 : tensor<3x4xf32> -> tensor<3x4xf32>
    %5 = coreai.gelu %arg0 approximate = <tanh> : tensor<3x4xf32> -> tensor<3x4xf32>
    %6 = coreai.softmax %arg0, %0 : (tensor<3x4xf32>, tensor<si32>) -> tensor<3x4xf32>
    %7 = coreai.invoke @hard_sigmoid_wxsztzdm(%arg0)  : (tensor<3x4xf32>) -> tensor<3x4xf32>
    coreai.output %1, %2, %3, %4, %5, %6, %7 : tensor<3x4xf32>, tensor<3x4xf32>, tensor<3x4xf32>, tensor<3x4xf32>, tensor<3x4xf32>, tensor<3x4xf32>, tensor<3x4xf32>
  }
}
