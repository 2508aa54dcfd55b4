// RUN: coreai-opt %s > %t.a && coreai-opt %t.a > %t.b && diff %t.a %t.b
// RUN: grep -v '^//' %s | sed '/^$/d' > %t.golden && sed '/^$/d' %t.a | diff %t.golden -
// coreai-torch 0.4.3 output for `scan`, printed by coreai-core 1.0.0b3.
// Regenerate with tools/coreai-golden/generate.py.

module {
  coreai.graph @main(%arg0: tensor<3x4xf32> {coreai.name = "args_0"}) -> (tensor<3x4xf32> {coreai.name = "cumsum"}) attributes {__coreai_pure__} {
    %0 = coreai.constant dense<1> : tensor<ui32>
    %1 = coreai.constant dense<false> : tensor<i1>
    %2 = coreai.scan %arg0, %0, %1 combiner = <sum> : (tensor<3x4xf32>, tensor<ui32>, tensor<i1>) -> tensor<3x4xf32>
    coreai.output %2 : tensor<3x4xf32>
  }
}
