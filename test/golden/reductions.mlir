// RUN: coreai-opt %s > %t.a && coreai-opt %t.a > %t.b && diff %t.a %t.b
// RUN: grep -v '^//' %s | sed '/^$/d' > %t.golden && sed '/^$/d' %t.a | diff %t.golden -
// coreai-torch 0.4.3 output for `reductions`, printed by coreai-core 1.0.0b3.
// Regenerate with tools/coreai-golden/generate.py.

module {
  coreai.graph @main(%arg0: tensor<3x4xf32> {coreai.name = "args_0"}) -> (tensor<3xf32> {coreai.name = "sum_1"}, tensor<4xf32> {coreai.name = "mean"}, tensor<3xf32> {coreai.name = "amax"}, tensor<3xf32> {coreai.name = "amin"}, tensor<3xf32> {coreai.name = "prod"}, tensor<3xsi32> {coreai.name = "argmax"}, tensor<3xf32> {coreai.name = "getitem"}, tensor<3xsi32> {coreai.name = "getitem_1"}, tensor<3xi1> {coreai.name = "any_1"}, tensor<i1> {coreai.name = "logical_not_1"}) attributes {__coreai_pure__} {
    %0 = coreai.constant dense<> : tensor<0xui32>
    %1 = coreai.constant dense<0.000000e+00> : tensor<f32>
    %2 = coreai.constant dense<4> : tensor<1xui32>
    %3 = coreai.constant dense<3> : tensor<1xui32>
    %4 = coreai.constant dense<[0, 1]> : tensor<2xsi32>
    %5 = coreai.constant dense<1> : tensor<si32>
    %6 = coreai.constant dense<0> : tensor<1xsi32>
    %7 = coreai.constant dense<1> : tensor<1xsi32>
    %8 = coreai.reduce_sum %arg0, %7 : (tensor<3x4xf32>, tensor<1xsi32>) -> tensor<3x1xf32>
    %9 = coreai.reshape %8, %3 : (tensor<3x1xf32>, tensor<1xui32>) -> tensor<3xf32>
    %10 = coreai.reduce_mean %arg0, %6 : (tensor<3x4xf32>, tensor<1xsi32>) -> tensor<1x4xf32>
    %11 = coreai.reshape %10, %2 : (tensor<1x4xf32>, tensor<1xui32>) -> tensor<4xf32>
    %12 = coreai.reduce_max %arg0, %7 : (tensor<3x4xf32>, tensor<1xsi32>) -> tensor<3x1xf32>
    %13 = coreai.reshape %12, %3 : (tensor<3x1xf32>, tensor<1xui32>) -> tensor<3xf32>
    %14 = coreai.reduce_min %arg0, %7 : (tensor<3x4xf32>, tensor<1xsi32>) -> tensor<3x1xf32>
    %15 = coreai.reshape %14, %3 : (tensor<3x1xf32>, tensor<1xui32>) -> tensor<3xf32>
    %16 = coreai.reduce_product %arg0, %7 : (tensor<3x4xf32>, tensor<1xsi32>) -> tensor<3x1xf32>
    %17 = coreai.reshape %16, %3 : (tensor<3x1xf32>, tensor<1xui32>) -> tensor<3xf32>
    %18 = coreai.argmax %arg0, %5 : (tensor<3x4xf32>, tensor<si32>) -> tensor<3x1xui32>
    %19 = coreai.cast %18 : tensor<3x1xui32> to tensor<3x1xsi32>
    %20 = coreai.reshape %19, %3 : (tensor<3x1xsi32>, tensor<1xui32>) -> tensor<3xsi32>
    %21 = coreai.decomposable.broadcasting_greater %arg0, %1 : (tensor<3x4xf32>, tensor<f32>) -> tensor<3x4xi1>
    %22 = coreai.any %21, %7 : (tensor<3x4xi1>, tensor<1xsi32>) -> tensor<3x1xi1>
    %23 = coreai.reshape %22, %3 : (tensor<3x1xi1>, tensor<1xui32>) -> tensor<3xi1>
    %24 = coreai.not %21 : tensor<3x4xi1> -> tensor<3x4xi1>
    %25 = coreai.any %24, %4 : (tensor<3x4xi1>, tensor<2xsi32>) -> tensor<1x1xi1>
    %26 = coreai.reshape %25, %0 : (tensor<1x1xi1>, tensor<0xui32>) -> tensor<i1>
    %27 = coreai.not %26 : tensor<i1> -> tensor<i1>
    coreai.output %9, %11, %13, %15, %17, %20, %13, %20, %23, %27 : tensor<3xf32>, tensor<4xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xsi32>, tensor<3xf32>, tensor<3xsi32>, tensor<3xi1>, tensor<i1>
  }
}
