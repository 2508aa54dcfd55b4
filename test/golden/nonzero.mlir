// RUN: coreai-opt %s > %t.a && coreai-opt %t.a > %t.b && diff %t.a %t.b
// RUN: grep -v '^//' %s | sed '/^$/d' > %t.golden && sed '/^$/d' %t.a | diff %t.golden -
// coreai-torch 0.4.3 output for `nonzero`, printed by coreai-core 1.0.0b3.
// Regenerate with tools/coreai-golden/generate.py.

module {
  coreai.graph @main(%arg0: tensor<3x4xf32> {coreai.name = "args_0"}) -> (tensor<?x2xsi32> {coreai.name = "nonzero"}) attributes {__coreai_pure__} {
    %0 = coreai.constant dense<0.000000e+00> : tensor<f32>
    %1 = coreai.decomposable.broadcasting_greater %arg0, %0 : (tensor<3x4xf32>, tensor<f32>) -> tensor<3x4xi1>
    %2 = coreai.non_zero %1 : tensor<3x4xi1> -> tensor<?x2xsi32>
    coreai.output %2 : tensor<?x2xsi32>
  }
}
