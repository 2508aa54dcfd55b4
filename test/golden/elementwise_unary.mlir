// RUN: coreai-opt %s > %t.a && coreai-opt %t.a > %t.b && diff %t.a %t.b
// RUN: grep -v '^//' %s | sed '/^$/d' > %t.golden && sed '/^$/d' %t.a | diff %t.golden -
// coreai-torch 0.4.3 output for `elementwise_unary`, printed by coreai-core 1.0.0b3.
// Regenerate with tools/coreai-golden/generate.py.

module {
  coreai.graph @main(%arg0: tensor<3x4xf32> {coreai.name = "args_0"}) -> (tensor<3x4xf32> {coreai.name = "abs_1"}, tensor<3x4xf32> {coreai.name = "exp"}, tensor<3x4xf32> {coreai.name = "log"}, tensor<3x4xf32> {coreai.name = "sin"}, tensor<3x4xf32> {coreai.name = "cos"}, tensor<3x4xf32> {coreai.name = "tanh"}, tensor<3x4xf32> {coreai.name = "sqrt"}, tensor<3x4xf32> {coreai.name = "rsqrt"}, tensor<3x4xf32> {coreai.name = "erf"}, tensor<3x4xf32> {coreai.name = "round_1"}, tensor<3x4xf32> {coreai.name = "atan"}) attributes {__coreai_pure__} {
    %0 = coreai.abs %arg0 : tensor<3x4xf32> -> tensor<3x4xf32>
    %1 = coreai.exp %arg0 : tensor<3x4xf32> -> tensor<3x4xf32>
    %2 = coreai.log %arg0 : tensor<3x4xf32> -> tensor<3x4xf32>
    %3 = coreai.sin %arg0 : tensor<3x4xf32> -> tensor<3x4xf32>
    %4 = coreai.cos %arg0 : tensor<3x4xf32> -> tensor<3x4xf32>
    %5 = coreai.tanh %arg0 : tensor<3x4xf32> -> tensor<3x4xf32>
    %6 = coreai.sqrt %arg0 : tensor<3x4xf32> -> tensor<3x4xf32>
    %7 = coreai.rsqrt %arg0 : tensor<3x4xf32> -> tensor<3x4xf32>
    %8 = coreai.erf %arg0 : tensor<3x4xf32> -> tensor<3x4xf32>
    %9 = coreai.round %arg0 : tensor<3x4xf32> -> tensor<3x4xf32>
    %10 = coreai.atan %arg0 : tensor<3x4xf32> -> tensor<3x4xf32>
    coreai.output %0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10 : tensor<3x4xf32>, tensor<3x4xf32>, tensor<3x4xf32>, tensor<3x4xf32>, tensor<3x4xf32>, tensor<3x4xf32>, tensor<3x4xf32>, tensor<3x4xf32>, tensor<3x4xf32>, tensor<3x4xf32>, tensor<3x4xf32>
  }
}
