// RUN: coreai-opt %s > %t.a && coreai-opt %t.a > %t.b && diff %t.a %t.b
// RUN: grep -v '^//' %s | sed '/^$/d' > %t.golden && sed '/^$/d' %t.a | diff %t.golden -
// hand-built module for `handbuilt_target_delegate`, printed by coreai-core 1.0.0b3.
// Regenerate with tools/coreai-golden/generate.py.

module {
  coreai.target_spec{spec = <triple = "arm64-apple-ios", soc = "a17", delegateOptions = {}>, compilation = <partial>}
  coreai.graph @main(%arg0: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
    %0 = coreai.delegate<"ane">(%arg0) {resource = array<i8: 1, 2>} : (tensor<4xf32>) -> tensor<4xf32>
    %1 = coreai.isolated_group<"gpu">(%arg0) : (tensor<4xf32>) -> tensor<4xf32> {
    ^bb0(%arg1: tensor<4xf32>):
      %2 = coreai.exp %arg1 : tensor<4xf32> -> tensor<4xf32>
      coreai.yield %2 : tensor<4xf32>
    }
    coreai.output %0, %1 : tensor<4xf32>, tensor<4xf32>
  }
}
