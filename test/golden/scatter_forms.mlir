// RUN: coreai-opt %s > %t.a && coreai-opt %t.a > %t.b && diff %t.a %t.b
// RUN: grep -v '^//' %s | sed '/^$/d' > %t.golden && sed '/^$/d' %t.a | diff %t.golden -
// coreai-torch 0.4.3 output for `scatter_forms`, printed by coreai-core 1.0.0b3.
// Regenerate with tools/coreai-golden/generate.py.

module {
  coreai.graph @main(%arg0: tensor<3x4xf32> {coreai.name = "args_0"}, %arg1: tensor<3x4xsi32> {coreai.name = "args_1"}, %arg2: tensor<3x4xf32> {coreai.name = "args_2"}, %arg3: tensor<3x4xi1> {coreai.name = "args_3"}) -> (tensor<3x4xf32> {coreai.name = "scatter"}, tensor<3x4xf32> {coreai.name = "scatter_1"}, tensor<3x4xf32> {coreai.name = "scatter_2"}, tensor<3x4xf32> {coreai.name = "slice_scatter"}, tensor<3x4xf32> {coreai.name = "masked_scatter"}) attributes {__coreai_pure__} {
    %0 = coreai.constant dense<[3, 4]> : tensor<2xui32>
    %1 = coreai.constant dense<12> : tensor<1xui32>
    %2 = coreai.constant dense<0> : tensor<si32>
    %3 = coreai.constant dense<false> : tensor<i1>
    %4 = coreai.constant dense<0> : tensor<ui32>
    %5 = coreai.constant dense<1> : tensor<2xsi32>
    %6 = coreai.constant dense<[2147483647, 2]> : tensor<2xsi32>
    %7 = coreai.constant dense<0> : tensor<2xsi32>
    %8 = coreai.constant dense<1> : tensor<si32>
    %9 = coreai.constant dense<2.000000e+00> : tensor<3x4xf32>
    %10 = coreai.scatter_along_axis %arg0, %arg1, %9, %8 : (tensor<3x4xf32>, tensor<3x4xsi32>, tensor<3x4xf32>, tensor<si32>) -> tensor<3x4xf32>
    %11 = coreai.scatter_along_axis %arg0, %arg1, %arg2, %8 scatter_mode = <add> : (tensor<3x4xf32>, tensor<3x4xsi32>, tensor<3x4xf32>, tensor<si32>) -> tensor<3x4xf32>
    %12 = coreai.scatter_along_axis %arg0, %arg1, %9, %8 scatter_mode = <mul> : (tensor<3x4xf32>, tensor<3x4xsi32>, tensor<3x4xf32>, tensor<si32>) -> tensor<3x4xf32>
    %13 = coreai.slice %arg2, %7, %6, %5 : (tensor<3x4xf32>, tensor<2xsi32>, tensor<2xsi32>, tensor<2xsi32>) -> tensor<3x2xf32>
    %14 = coreai.slice_update %arg0 with %13 at (%7, %6, %5) : (tensor<3x4xf32>, tensor<3x2xf32>, tensor<2xsi32>, tensor<2xsi32>, tensor<2xsi32>) to tensor<3x4xf32>
    %15 = coreai.reshape %arg0, %1 : (tensor<3x4xf32>, tensor<1xui32>) -> tensor<12xf32>
    %16 = coreai.reshape %arg3, %1 : (tensor<3x4xi1>, tensor<1xui32>) -> tensor<12xi1>
    %17 = coreai.reshape %arg2, %1 : (tensor<3x4xf32>, tensor<1xui32>) -> tensor<12xf32>
    %18 = coreai.cast %16 : tensor<12xi1> to tensor<12xsi32>
    %19 = coreai.scan %18, %4, %3 combiner = <sum> : (tensor<12xsi32>, tensor<ui32>, tensor<i1>) -> tensor<12xsi32>
    %20 = coreai.decomposable.broadcasting_sub %19, %8 : (tensor<12xsi32>, tensor<si32>) -> tensor<12xsi32>
    %21 = coreai.gather_along_axis %17 at %20 along %2 : (tensor<12xf32>, tensor<12xsi32>, tensor<si32>) to tensor<12xf32>
    %22 = coreai.decomposable.broadcasting_where %16, %21, %15 : (tensor<12xi1>, tensor<12xf32>, tensor<12xf32>) -> tensor<12xf32>
    %23 = coreai.reshape %22, %0 : (tensor<12xf32>, tensor<2xui32>) -> tensor<3x4xf32>
    coreai.output %10, %11, %12, %14, %23 : tensor<3x4xf32>, tensor<3x4xf32>, tensor<3x4xf32>, tensor<3x4xf32>, tensor<3x4xf32>
  }
}
