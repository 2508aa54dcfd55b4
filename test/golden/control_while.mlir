// RUN: coreai-opt %s > %t.a && coreai-opt %t.a > %t.b && diff %t.a %t.b
// RUN: grep -v '^//' %s | sed '/^$/d' > %t.golden && sed '/^$/d' %t.a | diff %t.golden -
// coreai-torch 0.4.3 output for `control_while`, printed by coreai-core 1.0.0b3.
// Regenerate with tools/coreai-golden/generate.py.

module {
  coreai.graph @main(%arg0: tensor<si32> {coreai.name = "args_0"}, %arg1: tensor<3xf32> {coreai.name = "args_1"}) -> (tensor<si32> {coreai.name = "getitem"}, tensor<3xf32> {coreai.name = "getitem_1"}) attributes {__coreai_pure__} {
    %0 = coreai.constant dense<2.000000e+00> : tensor<f32>
    %1 = coreai.constant dense<1> : tensor<si32>
    %2 = coreai.constant dense<3> : tensor<si32>
    %3:2 = coreai.while %arg0, %arg1 {
    ^bb0(%arg2: tensor<si32>, %arg3: tensor<3xf32>):
      %4 = coreai.decomposable.broadcasting_greater %2, %arg2 : (tensor<si32>, tensor<si32>) -> tensor<i1>
      coreai.condition %4, %arg2, %arg3 : (tensor<i1>, tensor<si32>, tensor<3xf32>)
    } do {
    ^bb0(%arg2: tensor<si32>, %arg3: tensor<3xf32>):
      %4 = coreai.decomposable.broadcasting_add %arg2, %1 : (tensor<si32>, tensor<si32>) -> tensor<si32>
      %5 = coreai.decomposable.broadcasting_mul %arg3, %0 : (tensor<3xf32>, tensor<f32>) -> tensor<3xf32>
      coreai.yield %4, %5 : tensor<si32>, tensor<3xf32>
    } : (tensor<si32>, tensor<3xf32>) -> (tensor<si32>, tensor<3xf32>)
    coreai.output %3#0, %3#1 : tensor<si32>, tensor<3xf32>
  }
}
