// RUN: coreai-opt %s > %t.a && coreai-opt %t.a > %t.b && diff %t.a %t.b
// RUN: grep -v '^//' %s | sed '/^$/d' > %t.golden && sed '/^$/d' %t.a | diff %t.golden -
// coreai-torch 0.4.3 output for `matmul`, printed by coreai-core 1.0.0b3.
// Regenerate with tools/coreai-golden/generate.py.

module {
  coreai.graph @main(%arg0: tensor<3x4xf32> {coreai.name = "args_0"}, %arg1: tensor<4x5xf32> {coreai.name = "args_1"}) -> (tensor<3x5xf32> {coreai.name = "mm"}, tensor<1x3x5xf32> {coreai.name = "bmm"}) attributes {__coreai_pure__} {
    %0 = coreai.constant dense<[1, 3, 5]> : tensor<3xui32>
    %1 = coreai.decomposable.broadcasting_batch_matmul %arg0, %arg1 : (tensor<3x4xf32>, tensor<4x5xf32>) -> tensor<3x5xf32>
    %2 = coreai.reshape %1, %0 : (tensor<3x5xf32>, tensor<3xui32>) -> tensor<1x3x5xf32>
    coreai.output %1, %2 : tensor<3x5xf32>, tensor<1x3x5xf32>
  }
}
