// RUN: coreai-opt %s > %t.a && coreai-opt %t.a > %t.b && diff %t.a %t.b
// RUN: grep -v '^//' %s | sed '/^$/d' > %t.golden && sed '/^$/d' %t.a | diff %t.golden -
// coreai-torch 0.4.3 output for `slice_concat_split`, printed by coreai-core 1.0.0b3.
// Regenerate with tools/coreai-golden/generate.py.

module {
  coreai.graph @main(%arg0: tensor<3x4xf32> {coreai.name = "args_0"}) -> (tensor<2x2xf32> {coreai.name = "slice_2"}, tensor<6x4xf32> {coreai.name = "cat"}, tensor<3x1xf32> {coreai.name = "getitem"}, tensor<3x3xf32> {coreai.name = "getitem_1"}) attributes {__coreai_pure__} {
    %0 = coreai.constant dense<1> : tensor<si32>
    %1 = coreai.constant dense<[1, 3]> : tensor<2xui32>
    %2 = coreai.constant dense<0> : tensor<si32>
    %3 = coreai.constant dense<[1, 2]> : tensor<2xsi32>
    %4 = coreai.constant dense<0> : tensor<2xsi32>
    %5 = coreai.constant dense<[1, 0]> : tensor<2xsi32>
    %6 = coreai.constant dense<2147483647> : tensor<2xsi32>
    %7 = coreai.constant dense<1> : tensor<2xsi32>
    %8 = coreai.slice %arg0, %5, %6, %7 : (tensor<3x4xf32>, tensor<2xsi32>, tensor<2xsi32>, tensor<2xsi32>) -> tensor<2x4xf32>
    %9 = coreai.slice %8, %4, %6, %3 : (tensor<2x4xf32>, tensor<2xsi32>, tensor<2xsi32>, tensor<2xsi32>) -> tensor<2x2xf32>
    %10 = coreai.concat %2, %arg0, %arg0 : (tensor<si32>, tensor<3x4xf32>, tensor<3x4xf32>) -> tensor<6x4xf32>
    %11:2 = coreai.split %arg0, %1, %0 : (tensor<3x4xf32>, tensor<2xui32>, tensor<si32>) -> (tensor<3x1xf32>, tensor<3x3xf32>)
    coreai.output %9, %10, %11#0, %11#1 : tensor<2x2xf32>, tensor<6x4xf32>, tensor<3x1xf32>, tensor<3x3xf32>
  }
}
