// RUN: coreai-opt %s > %t.a && coreai-opt %t.a > %t.b && diff %t.a %t.b
// RUN: grep -v '^//' %s | sed '/^$/d' > %t.golden && sed '/^$/d' %t.a | diff %t.golden -
// coreai-torch 0.4.3 output for `logical_bitwise`, printed by coreai-core 1.0.0b3.
// Regenerate with tools/coreai-golden/generate.py.

module {
  coreai.graph @main(%arg0: tensor<3x4xsi32> {coreai.name = "args_0"}, %arg1: tensor<3x4xsi32> {coreai.name = "args_1"}, %arg2: tensor<3x4xf32> {coreai.name = "args_2"}) -> (tensor<3x4xi1> {coreai.name = "logical_and"}, tensor<3x4xi1> {coreai.name = "logical_or"}, tensor<3x4xi1> {coreai.name = "logical_xor"}, tensor<3x4xsi32> {coreai.name = "bitwise_not"}, tensor<3x4xsi32> {coreai.name = "bitwise_xor"}) attributes {__coreai_pure__} {
    %0 = coreai.constant dense<-1.000000e+00> : tensor<f32>
    %1 = coreai.constant dense<1.000000e+00> : tensor<f32>
    %2 = coreai.constant dense<0.000000e+00> : tensor<f32>
    %3 = coreai.decomposable.broadcasting_greater %arg2, %2 : (tensor<3x4xf32>, tensor<f32>) -> tensor<3x4xi1>
    %4 = coreai.decomposable.broadcasting_greater %1, %arg2 : (tensor<f32>, tensor<3x4xf32>) -> tensor<3x4xi1>
    %5 = coreai.decomposable.broadcasting_and %3, %4 : (tensor<3x4xi1>, tensor<3x4xi1>) -> tensor<3x4xi1>
    %6 = coreai.decomposable.broadcasting_greater %0, %arg2 : (tensor<f32>, tensor<3x4xf32>) -> tensor<3x4xi1>
    %7 = coreai.decomposable.broadcasting_or %3, %6 : (tensor<3x4xi1>, tensor<3x4xi1>) -> tensor<3x4xi1>
    %8 = coreai.decomposable.broadcasting_xor %3, %4 : (tensor<3x4xi1>, tensor<3x4xi1>) -> tensor<3x4xi1>
    %9 = coreai.cast %arg0 : tensor<3x4xsi32> to tensor<3x4xf32>
    %10 = coreai.decomposable.broadcasting_add %9, %1 : (tensor<3x4xf32>, tensor<f32>) -> tensor<3x4xf32>
    %11 = coreai.decomposable.broadcasting_mul %10, %0 : (tensor<3x4xf32>, tensor<f32>) -> tensor<3x4xf32>
    %12 = coreai.cast %11 : tensor<3x4xf32> to tensor<3x4xsi32>
    %13 = coreai.decomposable.broadcasting_bitwise_xor %arg0, %arg1 : (tensor<3x4xsi32>, tensor<3x4xsi32>) -> tensor<3x4xsi32>
    coreai.output %5, %7, %8, %12, %13 : tensor<3x4xi1>, tensor<3x4xi1>, tensor<3x4xi1>, tensor<3x4xsi32>, tensor<3x4xsi32>
  }
}
