// RUN: coreai-opt %s > %t.a && coreai-opt %t.a > %t.b && diff %t.a %t.b
// RUN: grep -v '^//' %s | sed '/^$/d' > %t.golden && sed '/^$/d' %t.a | diff %t.golden -
// coreai-torch 0.4.3 output for `reductions_full`, printed by coreai-core 1.0.0b3.
// Regenerate with tools/coreai-golden/generate.py.

module {
  coreai.graph @main(%arg0: tensor<3x4xf32> {coreai.name = "args_0"}) -> (tensor<f32> {coreai.name = "max_1"}, tensor<f32> {coreai.name = "min_1"}, tensor<3xf32> {coreai.name = "getitem"}, tensor<3xsi32> {coreai.name = "getitem_1"}, tensor<f32> {coreai.name = "mean"}, tensor<f32> {coreai.name = "prod"}, tensor<i1> {coreai.name = "any_1"}, tensor<3xf32> {coreai.name = "pow_2"}) attributes {__coreai_pure__} {
    %0 = coreai.constant dense<2.000000e+00> : tensor<f32>
    %1 = coreai.constant dense<0.000000e+00> : tensor<f32>
    %2 = coreai.constant dense<3> : tensor<1xui32>
    %3 = coreai.constant dense<> : tensor<0xui32>
    %4 = coreai.constant dense<5.000000e-01> : tensor<f32>
    %5 = coreai.constant dense<1> : tensor<si32>
    %6 = coreai.constant dense<-1.000000e+00> : tensor<f32>
    %7 = coreai.constant dense<1> : tensor<1xsi32>
    %8 = coreai.constant dense<[0, 1]> : tensor<2xsi32>
    %9 = coreai.reduce_max %arg0, %8 : (tensor<3x4xf32>, tensor<2xsi32>) -> tensor<1x1xf32>
    %10 = coreai.reshape %9, %3 : (tensor<1x1xf32>, tensor<0xui32>) -> tensor<f32>
    %11 = coreai.reduce_min %arg0, %8 : (tensor<3x4xf32>, tensor<2xsi32>) -> tensor<1x1xf32>
    %12 = coreai.reshape %11, %3 : (tensor<1x1xf32>, tensor<0xui32>) -> tensor<f32>
    %13 = coreai.reduce_min %arg0, %7 : (tensor<3x4xf32>, tensor<1xsi32>) -> tensor<3x1xf32>
    %14 = coreai.decomposable.broadcasting_mul %arg0, %6 : (tensor<3x4xf32>, tensor<f32>) -> tensor<3x4xf32>
    %15 = coreai.argmax %14, %5 : (tensor<3x4xf32>, tensor<si32>) -> tensor<3x1xui32>
    %16 = coreai.cast %15 : tensor<3x1xui32> to tensor<3x1xsi32>
    %17 = coreai.reshape %13, %2 : (tensor<3x1xf32>, tensor<1xui32>) -> tensor<3xf32>
    %18 = coreai.reshape %16, %2 : (tensor<3x1xsi32>, tensor<1xui32>) -> tensor<3xsi32>
    %19 = coreai.reduce_mean %arg0, %8 : (tensor<3x4xf32>, tensor<2xsi32>) -> tensor<1x1xf32>
    %20 = coreai.reshape %19, %3 : (tensor<1x1xf32>, tensor<0xui32>) -> tensor<f32>
    %21 = coreai.reduce_product %arg0, %8 : (tensor<3x4xf32>, tensor<2xsi32>) -> tensor<1x1xf32>
    %22 = coreai.reshape %21, %3 : (tensor<1x1xf32>, tensor<0xui32>) -> tensor<f32>
    %23 = coreai.decomposable.broadcasting_greater %arg0, %1 : (tensor<3x4xf32>, tensor<f32>) -> tensor<3x4xi1>
    %24 = coreai.any %23, %8 : (tensor<3x4xi1>, tensor<2xsi32>) -> tensor<1x1xi1>
    %25 = coreai.reshape %24, %3 : (tensor<1x1xi1>, tensor<0xui32>) -> tensor<i1>
    %26 = coreai.decomposable.broadcasting_pow %arg0, %0 : (tensor<3x4xf32>, tensor<f32>) -> tensor<3x4xf32>
    %27 = coreai.reduce_sum %26, %7 : (tensor<3x4xf32>, tensor<1xsi32>) -> tensor<3x1xf32>
    %28 = coreai.reshape %27, %2 : (tensor<3x1xf32>, tensor<1xui32>) -> tensor<3xf32>
    %29 = coreai.decomposable.broadcasting_pow %28, %4 : (tensor<3xf32>, tensor<f32>) -> tensor<3xf32>
    coreai.output %10, %12, %17, %18, %20, %22, %25, %29 : tensor<f32>, tensor<f32>, tensor<3xf32>, tensor<3xsi32>, tensor<f32>, tensor<f32>, tensor<i1>, tensor<3xf32>
  }
}
