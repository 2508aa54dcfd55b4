// RUN: coreai-opt %s > %t.a && coreai-opt %t.a > %t.b && diff %t.a %t.b
// RUN: grep -v '^//' %s | sed '/^$/d' > %t.golden && sed '/^$/d' %t.a | diff %t.golden -
// coreai-torch 0.4.3 output for `elementwise_binary`, printed by coreai-core 1.0.0b3.
// Regenerate with tools/coreai-golden/generate.py.

module {
  coreai.graph @main(%arg0: tensor<3x4xf32> {coreai.name = "args_0"}, %arg1: tensor<4xf32> {coreai.name = "args_1"}) -> (tensor<3x4xf32> {coreai.name = "add"}, tensor<3x4xf32> {coreai.name = "sub"}, tensor<3x4xf32> {coreai.name = "mul"}, tensor<3x4xf32> {coreai.name = "div"}, tensor<3x4xf32> {coreai.name = "maximum"}, tensor<3x4xf32> {coreai.name = "minimum"}, tensor<3x4xf32> {coreai.name = "pow_1"}, tensor<3x4xf32> {coreai.name = "div_1"}, tensor<3x4xf32> {coreai.name = "remainder"}) attributes {__coreai_pure__} {
    %0 = coreai.decomposable.broadcasting_add %arg0, %arg1 : (tensor<3x4xf32>, tensor<4xf32>) -> tensor<3x4xf32>
    %1 = coreai.decomposable.broadcasting_sub %arg0, %arg1 : (tensor<3x4xf32>, tensor<4xf32>) -> tensor<3x4xf32>
    %2 = coreai.decomposable.broadcasting_mul %arg0, %arg1 : (tensor<3x4xf32>, tensor<4xf32>) -> tensor<3x4xf32>
    %3 = coreai.decomposable.broadcasting_divide %arg0, %arg1 : (tensor<3x4xf32>, tensor<4xf32>) -> tensor<3x4xf32>
    %4 = coreai.decomposable.broadcasting_maximum %arg0, %arg1 : (tensor<3x4xf32>, tensor<4xf32>) -> tensor<3x4xf32>
    %5 = coreai.decomposable.broadcasting_minimum %arg0, %arg1 : (tensor<3x4xf32>, tensor<4xf32>) -> tensor<3x4xf32>
    %6 = coreai.decomposable.broadcasting_pow %arg0, %arg1 : (tensor<3x4xf32>, tensor<4xf32>) -> tensor<3x4xf32>
    %7 = coreai.decomposable.broadcasting_floor_divide %arg0, %arg1 : (tensor<3x4xf32>, tensor<4xf32>) -> tensor<3x4xf32>
    %8 = coreai.decomposable.broadcasting_mul %7, %arg1 : (tensor<3x4xf32>, tensor<4xf32>) -> tensor<3x4xf32>
    %9 = coreai.decomposable.broadcasting_sub %arg0, %8 : (tensor<3x4xf32>, tensor<3x4xf32>) -> tensor<3x4xf32>
    coreai.output %0, %1, %2, %3, %4, %5, %6, %7, %9 : tensor<3x4xf32>, tensor<3x4xf32>, tensor<3x4xf32>, tensor<3x4xf32>, tensor<3x4xf32>, tensor<3x4xf32>, tensor<3x4xf32>, tensor<3x4xf32>, tensor<3x4xf32>
  }
}
