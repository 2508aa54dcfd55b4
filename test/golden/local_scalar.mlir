// RUN: coreai-opt %s > %t.a && coreai-opt %t.a > %t.b && diff %t.a %t.b
// RUN: grep -v '^//' %s | sed '/^$/d' > %t.golden && sed '/^$/d' %t.a | diff %t.golden -
// coreai-torch 0.4.3 output for `local_scalar`, printed by coreai-core 1.0.0b3.
// Regenerate with tools/coreai-golden/generate.py.

module {
  coreai.graph @main(%arg0: tensor<3x4xf32> {coreai.name = "args_0"}) -> (tensor<3x4xf32> {coreai.name = "mul"}) attributes {__coreai_pure__} {
    %0 = coreai.constant dense<[0, 1]> : tensor<2xsi32>
    %1 = coreai.reduce_sum %arg0, %0 : (tensor<3x4xf32>, tensor<2xsi32>) -> tensor<1x1xf32>
    %2 = coreai.decomposable.broadcasting_mul %arg0, %1 : (tensor<3x4xf32>, tensor<1x1xf32>) -> tensor<3x4xf32>
    coreai.output %2 : tensor<3x4xf32>
  }
}
