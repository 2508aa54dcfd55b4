// RUN: coreai-opt %s > %t.a && coreai-opt %t.a > %t.b && diff %t.a %t.b
// RUN: grep -v '^//' %s | sed '/^$/d' > %t.golden && sed '/^$/d' %t.a | diff %t.golden -
// coreai-torch 0.4.3 output (no decompositions) for `undecomposed_nonzero_numpy`, printed by coreai-core 1.0.0b3.
// Regenerate with tools/coreai-golden/generate.py.

module {
  coreai.graph @main(%arg0: tensor<3x4xf32> {coreai.name = "args_0"}) -> (tensor<?xsi32> {coreai.name = "getitem_2"}, tensor<?xsi32> {coreai.name = "getitem_1"}) attributes {__coreai_pure__} {
    %0 = coreai.constant dense<[2147483647, 2]> : tensor<2xsi32>
    %1 = coreai.constant dense<[0, 1]> : tensor<2xsi32>
    %2 = coreai.constant dense<1> : tensor<1xsi32>
    %3 = coreai.constant dense<1> : tensor<2xsi32>
    %4 = coreai.constant dense<[2147483647, 1]> : tensor<2xsi32>
    %5 = coreai.constant dense<0> : tensor<2xsi32>
    %6 = coreai.constant dense<1.000000e+00> : tensor<f32>
    %7 = coreai.decomposable.broadcasting_greater %arg0, %6 : (tensor<3x4xf32>, tensor<f32>) -> tensor<3x4xi1>
    %8 = coreai.non_zero %7 : tensor<3x4xi1> -> tensor<?x2xsi32>
    %9 = coreai.slice %8, %5, %4, %3 : (tensor<?x2xsi32>, tensor<2xsi32>, tensor<2xsi32>, tensor<2xsi32>) -> tensor<?x1xsi32>
    %10 = coreai.shrink_dims %9, %2 : (tensor<?x1xsi32>, tensor<1xsi32>) to tensor<?xsi32>
    %11 = coreai.slice %8, %1, %0, %3 : (tensor<?x2xsi32>, tensor<2xsi32>, tensor<2xsi32>, tensor<2xsi32>) -> tensor<?x1xsi32>
    %12 = coreai.shrink_dims %11, %2 : (tensor<?x1xsi32>, tensor<1xsi32>) to tensor<?xsi32>
    coreai.output %10, %12 : tensor<?xsi32>, tensor<?xsi32>
  }
}
