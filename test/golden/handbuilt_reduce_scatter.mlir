// RUN: coreai-opt %s > %t.a && coreai-opt %t.a > %t.b && diff %t.a %t.b
// RUN: grep -v '^//' %s | sed '/^$/d' > %t.golden && sed '/^$/d' %t.a | diff %t.golden -
// hand-built module for `handbuilt_reduce_scatter`, printed by coreai-core 1.0.0b3.
// Regenerate with tools/coreai-golden/generate.py.

module {
  coreai.graph @main(%arg0: tensor<2x3xf32>, %arg1: tensor<2x1xsi32>, %arg2: tensor<2x3xf32>) -> (tensor<2x1xf32>, tensor<4x3xf32>, tensor<2x3xf32>) {
    %0 = coreai.constant dense<1> : tensor<1xsi32>
    %1 = coreai.constant dense<0.000000e+00> : tensor<f32>
    %2 = coreai.reduce %arg0, %0, init %1 {
    ^bb0(%arg3: tensor<f32>, %arg4: tensor<f32>):
      %8 = coreai.add %arg3, %arg4 : (tensor<f32>, tensor<f32>) -> tensor<f32>
      coreai.yield %8 : tensor<f32>
    } : (tensor<2x3xf32>, tensor<1xsi32>, tensor<f32>) -> tensor<2x1xf32>
    %3 = coreai.constant dense<0.000000e+00> : tensor<4x3xf32>
    %4 = coreai.scatter_nd %3 with %arg2 at %arg1 {
    ^bb0(%arg3: tensor<f32>, %arg4: tensor<f32>):
      coreai.yield %arg4 : tensor<f32>
    } : (tensor<4x3xf32>, tensor<2x3xf32>, tensor<2x1xsi32>) to tensor<4x3xf32>
    %5 = coreai.constant dense<1> : tensor<si32>
    %6 = coreai.constant dense<0> : tensor<2x3xsi32>
    %7 = coreai.scatter_along_axis %arg0, %6, %arg2, %5 scatter_mode = <add> : (tensor<2x3xf32>, tensor<2x3xsi32>, tensor<2x3xf32>, tensor<si32>) -> tensor<2x3xf32>
    coreai.output %2, %4, %7 : tensor<2x1xf32>, tensor<4x3xf32>, tensor<2x3xf32>
  }
}
