// RUN: coreai-opt %s > %t.a && coreai-opt %t.a > %t.b && diff %t.a %t.b
// RUN: grep -v '^//' %s | sed '/^$/d' > %t.golden && sed '/^$/d' %t.a | diff %t.golden -
// coreai-torch 0.4.3 output for `complex_more`, printed by coreai-core 1.0.0b3.
// Regenerate with tools/coreai-golden/generate.py.

module {
  coreai.graph @main(%arg0: tensor<3xf32> {coreai.name = "args_0"}, %arg1: tensor<3xf32> {coreai.name = "args_1"}) -> (tensor<3x2xf32> {coreai.name = "view_as_real"}, tensor<3x2xf32> {coreai.name = "view_as_real_copy"}) attributes {__coreai_pure__} {
    %0 = coreai.constant dense<3> : tensor<1xui32>
    %1 = coreai.constant dense<[3, 1]> : tensor<2xui32>
    %2 = coreai.constant dense<2147483647> : tensor<2xsi32>
    %3 = coreai.constant dense<[0, 1]> : tensor<2xsi32>
    %4 = coreai.constant dense<1> : tensor<2xsi32>
    %5 = coreai.constant dense<[2147483647, 1]> : tensor<2xsi32>
    %6 = coreai.constant dense<0> : tensor<2xsi32>
    %7 = coreai.constant dense<1> : tensor<si32>
    %8 = coreai.create_complex %arg0, %arg1 : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xcomplex<f32>>
    %9 = coreai.abs %arg0 : tensor<3xf32> -> tensor<3xf32>
    %10 = coreai.cos %arg1 : tensor<3xf32> -> tensor<3xf32>
    %11 = coreai.decomposable.broadcasting_mul %9, %10 : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
    %12 = coreai.sin %arg1 : tensor<3xf32> -> tensor<3xf32>
    %13 = coreai.decomposable.broadcasting_mul %9, %12 : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
    %14 = coreai.create_complex %11, %13 : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xcomplex<f32>>
    %15 = coreai.decomposable.broadcasting_mul %8, %14 : (tensor<3xcomplex<f32>>, tensor<3xcomplex<f32>>) -> tensor<3xcomplex<f32>>
    %16 = coreai.real_part %15 : (tensor<3xcomplex<f32>>) -> tensor<3xf32>
    %17 = coreai.imaginary_part %15 : (tensor<3xcomplex<f32>>) -> tensor<3xf32>
    %18 = coreai.reshape %16, %1 : (tensor<3xf32>, tensor<2xui32>) -> tensor<3x1xf32>
    %19 = coreai.reshape %17, %1 : (tensor<3xf32>, tensor<2xui32>) -> tensor<3x1xf32>
    %20 = coreai.concat %7, %18, %19 : (tensor<si32>, tensor<3x1xf32>, tensor<3x1xf32>) -> tensor<3x2xf32>
    %21 = coreai.reshape %arg0, %1 : (tensor<3xf32>, tensor<2xui32>) -> tensor<3x1xf32>
    %22 = coreai.reshape %arg1, %1 : (tensor<3xf32>, tensor<2xui32>) -> tensor<3x1xf32>
    %23 = coreai.concat %7, %21, %22 : (tensor<si32>, tensor<3x1xf32>, tensor<3x1xf32>) -> tensor<3x2xf32>
    %24 = coreai.slice %23, %6, %5, %4 : (tensor<3x2xf32>, tensor<2xsi32>, tensor<2xsi32>, tensor<2xsi32>) -> tensor<3x1xf32>
    %25 = coreai.slice %23, %3, %2, %4 : (tensor<3x2xf32>, tensor<2xsi32>, tensor<2xsi32>, tensor<2xsi32>) -> tensor<3x1xf32>
    %26 = coreai.reshape %24, %0 : (tensor<3x1xf32>, tensor<1xui32>) -> tensor<3xf32>
    %27 = coreai.reshape %25, %0 : (tensor<3x1xf32>, tensor<1xui32>) -> tensor<3xf32>
    %28 = coreai.create_complex %26, %27 : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xcomplex<f32>>
    %29 = coreai.real_part %28 : (tensor<3xcomplex<f32>>) -> tensor<3xf32>
    %30 = coreai.imaginary_part %28 : (tensor<3xcomplex<f32>>) -> tensor<3xf32>
    %31 = coreai.reshape %29, %1 : (tensor<3xf32>, tensor<2xui32>) -> tensor<3x1xf32>
    %32 = coreai.reshape %30, %1 : (tensor<3xf32>, tensor<2xui32>) -> tensor<3x1xf32>
    %33 = coreai.concat %7, %31, %32 : (tensor<si32>, tensor<3x1xf32>, tensor<3x1xf32>) -> tensor<3x2xf32>
    coreai.output %20, %33 : tensor<3x2xf32>, tensor<3x2xf32>
  }
}
