// RUN: coreai-opt %s > %t.a && coreai-opt %t.a > %t.b && diff %t.a %t.b
// RUN: grep -v '^//' %s | sed '/^$/d' > %t.golden && sed '/^$/d' %t.a | diff %t.golden -
// coreai-torch 0.4.3 output for `compare_where`, printed by coreai-core 1.0.0b3.
// Regenerate with tools/coreai-golden/generate.py.

module {
  coreai.graph @main(%arg0: tensor<3x4xf32> {coreai.name = "args_0"}, %arg1: tensor<4xf32> {coreai.name = "args_1"}) -> (tensor<3x4xi1> {coreai.name = "gt"}, tensor<3x4xi1> {coreai.name = "eq"}, tensor<3x4xi1> {coreai.name = "ne"}, tensor<3x4xf32> {coreai.name = "where"}, tensor<3x4xi1> {coreai.name = "bitwise_or"}, tensor<3x4xi1> {coreai.name = "bitwise_and"}) attributes {__coreai_pure__} {
    %0 = coreai.constant dense<0.000000e+00> : tensor<f32>
    %1 = coreai.decomposable.broadcasting_greater %arg0, %arg1 : (tensor<3x4xf32>, tensor<4xf32>) -> tensor<3x4xi1>
    %2 = coreai.decomposable.broadcasting_equal %arg0, %arg1 : (tensor<3x4xf32>, tensor<4xf32>) -> tensor<3x4xi1>
    %3 = coreai.decomposable.broadcasting_not_equal %arg0, %arg1 : (tensor<3x4xf32>, tensor<4xf32>) -> tensor<3x4xi1>
    %4 = coreai.decomposable.broadcasting_greater %arg0, %0 : (tensor<3x4xf32>, tensor<f32>) -> tensor<3x4xi1>
    %5 = coreai.decomposable.broadcasting_where %4, %arg0, %arg1 : (tensor<3x4xi1>, tensor<3x4xf32>, tensor<4xf32>) -> tensor<3x4xf32>
    %6 = coreai.decomposable.broadcasting_greater %arg1, %0 : (tensor<4xf32>, tensor<f32>) -> tensor<4xi1>
    %7 = coreai.decomposable.broadcasting_bitwise_or %4, %6 : (tensor<3x4xi1>, tensor<4xi1>) -> tensor<3x4xi1>
    %8 = coreai.decomposable.broadcasting_bitwise_and %4, %6 : (tensor<3x4xi1>, tensor<4xi1>) -> tensor<3x4xi1>
    coreai.output %1, %2, %3, %5, %7, %8 : tensor<3x4xi1>, tensor<3x4xi1>, tensor<3x4xi1>, tensor<3x4xf32>, tensor<3x4xi1>, tensor<3x4xi1>
  }
}
