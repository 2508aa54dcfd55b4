// RUN: coreai-opt %s > %t.a && coreai-opt %t.a > %t.b && diff %t.a %t.b
// RUN: grep -v '^//' %s | sed '/^$/d' > %t.golden && sed '/^$/d' %t.a | diff %t.golden -
// coreai-torch 0.4.3 output for `compare_scalar_forms`, printed by coreai-core 1.0.0b3.
// Regenerate with tools/coreai-golden/generate.py.

module {
  coreai.graph @main(%arg0: tensor<3x4xf32> {coreai.name = "args_0"}, %arg1: tensor<3x4xf32> {coreai.name = "args_1"}) -> (tensor<3x4xi1> {coreai.name = "eq"}, tensor<3x4xi1> {coreai.name = "ne"}, tensor<3x4xi1> {coreai.name = "ge"}, tensor<3x4xi1> {coreai.name = "ge_1"}, tensor<3x4xi1> {coreai.name = "le"}, tensor<3x4xi1> {coreai.name = "le_1"}, tensor<3x4xi1> {coreai.name = "lt"}, tensor<3x4xi1> {coreai.name = "lt_1"}) attributes {__coreai_pure__} {
    %0 = coreai.constant dense<5.000000e-01> : tensor<f32>
    %1 = coreai.decomposable.broadcasting_equal %arg0, %0 : (tensor<3x4xf32>, tensor<f32>) -> tensor<3x4xi1>
    %2 = coreai.decomposable.broadcasting_not_equal %arg0, %0 : (tensor<3x4xf32>, tensor<f32>) -> tensor<3x4xi1>
    %3 = coreai.decomposable.broadcasting_greater %arg1, %arg0 : (tensor<3x4xf32>, tensor<3x4xf32>) -> tensor<3x4xi1>
    %4 = coreai.not %3 : tensor<3x4xi1> -> tensor<3x4xi1>
    %5 = coreai.decomposable.broadcasting_greater %0, %arg0 : (tensor<f32>, tensor<3x4xf32>) -> tensor<3x4xi1>
    %6 = coreai.not %5 : tensor<3x4xi1> -> tensor<3x4xi1>
    %7 = coreai.decomposable.broadcasting_greater %arg0, %arg1 : (tensor<3x4xf32>, tensor<3x4xf32>) -> tensor<3x4xi1>
    %8 = coreai.not %7 : tensor<3x4xi1> -> tensor<3x4xi1>
    %9 = coreai.decomposable.broadcasting_greater %arg0, %0 : (tensor<3x4xf32>, tensor<f32>) -> tensor<3x4xi1>
    %10 = coreai.not %9 : tensor<3x4xi1> -> tensor<3x4xi1>
    coreai.output %1, %2, %4, %6, %8, %10, %3, %5 : tensor<3x4xi1>, tensor<3x4xi1>, tensor<3x4xi1>, tensor<3x4xi1>, tensor<3x4xi1>, tensor<3x4xi1>, tensor<3x4xi1>, tensor<3x4xi1>
  }
}
