// RUN: coreai-opt %s > %t.a && coreai-opt %t.a > %t.b && diff %t.a %t.b
// RUN: grep -v '^//' %s | sed '/^$/d' > %t.golden && sed '/^$/d' %t.a | diff %t.golden -
// coreai-torch 0.4.3 output for `addmm`, printed by coreai-core 1.0.0b3.
// Regenerate with tools/coreai-golden/generate.py.

module {
  coreai.graph @main(%arg0: tensor<5xf32> {coreai.name = "args_0"}, %arg1: tensor<3x4xf32> {coreai.name = "args_1"}, %arg2: tensor<4x5xf32> {coreai.name = "args_2"}) -> (tensor<3x5xf32> {coreai.name = "addmm"}) attributes {__coreai_pure__} {
    %0 = coreai.decomposable.broadcasting_batch_matmul %arg1, %arg2 : (tensor<3x4xf32>, tensor<4x5xf32>) -> tensor<3x5xf32>
    %1 = coreai.decomposable.broadcasting_add %0, %arg0 : (tensor<3x5xf32>, tensor<5xf32>) -> tensor<3x5xf32>
    coreai.output %1 : tensor<3x5xf32>
  }
}
