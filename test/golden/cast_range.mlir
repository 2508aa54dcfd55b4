// RUN: coreai-opt %s > %t.a && coreai-opt %t.a > %t.b && diff %t.a %t.b
// RUN: grep -v '^//' %s | sed '/^$/d' > %t.golden && sed '/^$/d' %t.a | diff %t.golden -
// coreai-torch 0.4.3 output for `cast_range`, printed by coreai-core 1.0.0b3.
// Regenerate with tools/coreai-golden/generate.py.

module {
  coreai.graph @main(%arg0: tensor<3x4xf32> {coreai.name = "args_0"}) -> (tensor<3x4xsi32> {coreai.name = "_to_copy"}, tensor<3x4xf16> {coreai.name = "_to_copy_1"}, tensor<3xsi32> {coreai.name = "arange"}) attributes {__coreai_pure__} {
    %0 = coreai.constant dense<[0, 1, 2]> : tensor<3xsi32>
    %1 = coreai.cast %arg0 : tensor<3x4xf32> to tensor<3x4xsi32>
    %2 = coreai.cast %arg0 : tensor<3x4xf32> to tensor<3x4xf16>
    coreai.output %1, %2, %0 : tensor<3x4xsi32>, tensor<3x4xf16>, tensor<3xsi32>
  }
}
