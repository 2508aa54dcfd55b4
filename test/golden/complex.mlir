// RUN: coreai-opt %s > %t.a && coreai-opt %t.a > %t.b && diff %t.a %t.b
// RUN: grep -v '^//' %s | sed '/^$/d' > %t.golden && sed '/^$/d' %t.a | diff %t.golden -
// coreai-torch 0.4.3 output for `complex`, printed by coreai-core 1.0.0b3.
// Regenerate with tools/coreai-golden/generate.py.

module {
  coreai.graph @main(%arg0: tensor<3x2xf32> {coreai.name = "args_0"}) -> (tensor<3x2xf32> {coreai.name = "view_as_real"}) attributes {__coreai_pure__} {
    %0 = coreai.constant dense<[3, 1]> : tensor<2xui32>
    %1 = coreai.constant dense<3> : tensor<1xui32>
    %2 = coreai.constant dense<1> : tensor<si32>
    %3 = coreai.constant dense<2147483647> : tensor<2xsi32>
    %4 = coreai.constant dense<[0, 1]> : tensor<2xsi32>
    %5 = coreai.constant dense<0> : tensor<2xsi32>
    %6 = coreai.constant dense<[2147483647, 1]> : tensor<2xsi32>
    %7 = coreai.constant dense<1> : tensor<2xsi32>
    %8 = coreai.slice %arg0, %5, %6, %7 : (tensor<3x2xf32>, tensor<2xsi32>, tensor<2xsi32>, tensor<2xsi32>) -> tensor<3x1xf32>
    %9 = coreai.slice %arg0, %4, %3, %7 : (tensor<3x2xf32>, tensor<2xsi32>, tensor<2xsi32>, tensor<2xsi32>) -> tensor<3x1xf32>
    %10 = coreai.reshape %8, %1 : (tensor<3x1xf32>, tensor<1xui32>) -> tensor<3xf32>
    %11 = coreai.reshape %9, %1 : (tensor<3x1xf32>, tensor<1xui32>) -> tensor<3xf32>
    %12 = coreai.create_complex %10, %11 : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xcomplex<f32>>
    %13 = coreai.decomposable.broadcasting_mul %12, %12 : (tensor<3xcomplex<f32>>, tensor<3xcomplex<f32>>) -> tensor<3xcomplex<f32>>
    %14 = coreai.real_part %13 : (tensor<3xcomplex<f32>>) -> tensor<3xf32>
    %15 = coreai.imaginary_part %13 : (tensor<3xcomplex<f32>>) -> tensor<3xf32>
    %16 = coreai.reshape %14, %0 : (tensor<3xf32>, tensor<2xui32>) -> tensor<3x1xf32>
    %17 = coreai.reshape %15, %0 : (tensor<3xf32>, tensor<2xui32>) -> tensor<3x1xf32>
    %18 = coreai.concat %2, %16, %17 : (tensor<si32>, tensor<3x1xf32>, tensor<3x1xf32>) -> tensor<3x2xf32>
    coreai.output %18 : tensor<3x2xf32>
  }
}
