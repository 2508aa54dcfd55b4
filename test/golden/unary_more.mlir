// RUN: coreai-opt %s > %t.a && coreai-opt %t.a > %t.b && diff %t.a %t.b
// RUN: grep -v '^//' %s | sed '/^$/d' > %t.golden && sed '/^$/d' %t.a | diff %t.golden -
// coreai-torch 0.4.3 output for `unary_more`, printed by coreai-core 1.0.0b3.
// Regenerate with tools/coreai-golden/generate.py.

module {
  coreai.graph @main(%arg0: tensor<3x4xf32> {coreai.name = "args_0"}, %arg1: tensor<3x4xf32> {coreai.name = "args_1"}) -> (tensor<3x4xf32> {coreai.name = "acos"}, tensor<3x4xf32> {coreai.name = "acosh"}, tensor<3x4xf32> {coreai.name = "asin"}, tensor<3x4xf32> {coreai.name = "asinh"}, tensor<3x4xf32> {coreai.name = "atanh"}, tensor<3x4xf32> {coreai.name = "cosh"}, tensor<3x4xf32> {coreai.name = "sinh"}, tensor<3x4xf32> {coreai.name = "tan"}, tensor<3x4xf32> {coreai.name = "log10"}, tensor<3x4xf32> {coreai.name = "log2"}, tensor<3x4xf32> {coreai.name = "round_1"}) attributes {__coreai_pure__} {
    %0 = coreai.constant dense<0.693147182> : tensor<f32>
    %1 = coreai.constant dense<2.30258512> : tensor<f32>
    %2 = coreai.constant dense<1.000000e+00> : tensor<f32>
    %3 = coreai.constant dense<1.000000e+02> : tensor<f32>
    %4 = coreai.acos %arg0 : tensor<3x4xf32> -> tensor<3x4xf32>
    %5 = coreai.decomposable.broadcasting_add %arg1, %2 : (tensor<3x4xf32>, tensor<f32>) -> tensor<3x4xf32>
    %6 = coreai.acosh %5 : tensor<3x4xf32> -> tensor<3x4xf32>
    %7 = coreai.asin %arg0 : tensor<3x4xf32> -> tensor<3x4xf32>
    %8 = coreai.asinh %arg0 : tensor<3x4xf32> -> tensor<3x4xf32>
    %9 = coreai.atanh %arg0 : tensor<3x4xf32> -> tensor<3x4xf32>
    %10 = coreai.cosh %arg0 : tensor<3x4xf32> -> tensor<3x4xf32>
    %11 = coreai.sinh %arg0 : tensor<3x4xf32> -> tensor<3x4xf32>
    %12 = coreai.tan %arg0 : tensor<3x4xf32> -> tensor<3x4xf32>
    %13 = coreai.log %arg1 : tensor<3x4xf32> -> tensor<3x4xf32>
    %14 = coreai.decomposable.broadcasting_divide %13, %1 : (tensor<3x4xf32>, tensor<f32>) -> tensor<3x4xf32>
    %15 = coreai.decomposable.broadcasting_divide %13, %0 : (tensor<3x4xf32>, tensor<f32>) -> tensor<3x4xf32>
    %16 = coreai.decomposable.broadcasting_mul %arg0, %3 : (tensor<3x4xf32>, tensor<f32>) -> tensor<3x4xf32>
    %17 = coreai.round %16 : tensor<3x4xf32> -> tensor<3x4xf32>
    %18 = coreai.decomposable.broadcasting_divide %17, %3 : (tensor<3x4xf32>, tensor<f32>) -> tensor<3x4xf32>
    coreai.output %4, %6, %7, %8, %9, %10, %11, %12, %14, %15, %18 : tensor<3x4xf32>, tensor<3x4xf32>, tensor<3x4xf32>, tensor<3x4xf32>, tensor<3x4xf32>, tensor<3x4xf32>, tensor<3x4xf32>, tensor<3x4xf32>, tensor<3x4xf32>, tensor<3x4xf32>, tensor<3x4xf32>
  }
}
