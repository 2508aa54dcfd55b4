// RUN: coreai-opt %s > %t.a && coreai-opt %t.a > %t.b && diff %t.a %t.b
// RUN: grep -v '^//' %s | sed '/^$/d' > %t.golden && sed '/^$/d' %t.a | diff %t.golden -
// coreai-torch 0.4.3 output for `slice_update`, printed by coreai-core 1.0.0b3.
// Regenerate with tools/coreai-golden/generate.py.

module {
  coreai.graph @main(%arg0: tensor<3x4xf32> {coreai.name = "args_0"}, %arg1: tensor<2x4xf32> {coreai.name = "args_1"}) -> (tensor<3x4xf32> {coreai.name = "index_put"}) attributes {__coreai_pure__} {
    %0 = coreai.constant dense<[[0], [2]]> : tensor<2x1xsi32>
    %1 = coreai.cast %0 : tensor<2x1xsi32> to tensor<?x1xsi32>
    %2 = coreai.scatter_nd %arg0 with %arg1 at %1 {
    ^bb0(%arg2: tensor<f32>, %arg3: tensor<f32>):
      coreai.yield %arg3 : tensor<f32>
    } : (tensor<3x4xf32>, tensor<2x4xf32>, tensor<?x1xsi32>) to tensor<3x4xf32>
    coreai.output %2 : tensor<3x4xf32>
  }
}
