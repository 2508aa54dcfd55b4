// RUN: coreai-opt %s > %t.a && coreai-opt %t.a > %t.b && diff %t.a %t.b
// RUN: grep -v '^//' %s | sed '/^$/d' > %t.golden && sed '/^$/d' %t.a | diff %t.golden -
// coreai-torch 0.4.3 output for `gather_scatter`, printed by coreai-core 1.0.0b3.
// Regenerate with tools/coreai-golden/generate.py.

module {
  coreai.graph @main(%arg0: tensor<3x4xf32> {coreai.name = "args_0"}, %arg1: tensor<3x4xsi32> {coreai.name = "args_1"}) -> (tensor<3x4xf32> {coreai.name = "gather"}, tensor<3x4xf32> {coreai.name = "scatter"}, tensor<3x4xf32> {coreai.name = "index"}) attributes {__coreai_pure__} {
    %0 = coreai.constant dense<1> : tensor<2xsi32>
    %1 = coreai.constant dense<[2147483647, 1]> : tensor<2xsi32>
    %2 = coreai.constant dense<0> : tensor<2xsi32>
    %3 = coreai.constant dense<1> : tensor<si32>
    %4 = coreai.gather_along_axis %arg0 at %arg1 along %3 : (tensor<3x4xf32>, tensor<3x4xsi32>, tensor<si32>) to tensor<3x4xf32>
    %5 = coreai.scatter_along_axis %arg0, %arg1, %arg0, %3 : (tensor<3x4xf32>, tensor<3x4xsi32>, tensor<3x4xf32>, tensor<si32>) -> tensor<3x4xf32>
    %6 = coreai.slice %arg1, %2, %1, %0 : (tensor<3x4xsi32>, tensor<2xsi32>, tensor<2xsi32>, tensor<2xsi32>) -> tensor<3x1xsi32>
    %7 = coreai.gather_nd %arg0 at %6 : (tensor<3x4xf32>, tensor<3x1xsi32>) to tensor<3x4xf32>
    coreai.output %4, %5, %7 : tensor<3x4xf32>, tensor<3x4xf32>, tensor<3x4xf32>
  }
}
