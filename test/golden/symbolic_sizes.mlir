// RUN: coreai-opt %s > %t.a && coreai-opt %t.a > %t.b && diff %t.a %t.b
// RUN: grep -v '^//' %s | sed '/^$/d' > %t.golden && sed '/^$/d' %t.a | diff %t.golden -
// coreai-torch 0.4.3 output for `symbolic_sizes`, printed by coreai-core 1.0.0b3.
// Regenerate with tools/coreai-golden/generate.py.

module {
  coreai.graph @main(%arg0: tensor<?x4xf32> {coreai.name = "x"}) -> (tensor<?xf32> {coreai.name = "full"}, tensor<?x4xf32> {coreai.name = "slice_1"}, tensor<?x4xf32> {coreai.name = "mul_2"}, tensor<?x4xf32> {coreai.name = "mul_3"}, tensor<?xf32> {coreai.name = "full_1"}, tensor<?xf32> {coreai.name = "full_2"}, tensor<?xf32> {coreai.name = "full_3"}) attributes {__coreai_pure__} {
    %0 = coreai.constant dense<2.000000e+00> : tensor<f32>
    %1 = coreai.constant dense<5.000000e-01> : tensor<f32>
    %2 = coreai.constant dense<-0.333333343> : tensor<f32>
    %3 = coreai.constant dense<3.000000e+00> : tensor<1xf32>
    %4 = coreai.constant dense<2.000000e+00> : tensor<1xf32>
    %5 = coreai.constant dense<1> : tensor<2xsi32>
    %6 = coreai.constant dense<2147483647> : tensor<1xsi32>
    %7 = coreai.constant dense<0> : tensor<si32>
    %8 = coreai.constant dense<0> : tensor<2xsi32>
    %9 = coreai.constant dense<1> : tensor<si32>
    %10 = coreai.constant dense<1.000000e+00> : tensor<1xf32>
    %11 = coreai.constant dense<-1.000000e+00> : tensor<f32>
    %12 = coreai.constant dense<1.000000e+00> : tensor<f32>
    %13 = coreai.constant dense<16> : tensor<si32>
    %14 = coreai.constant dense<2> : tensor<si32>
    %15 = coreai.constant dense<3> : tensor<si32>
    %16 = coreai.constant dense<1> : tensor<1xsi32>
    %17 = coreai.constant dense<0> : tensor<1xsi32>
    %18 = coreai.get_shape %arg0 : tensor<?x4xf32> -> tensor<2xui32>
    %19 = coreai.cast %18 : tensor<2xui32> to tensor<2xsi32>
    %20 = coreai.slice %19, %17, %16, %16 : (tensor<2xsi32>, tensor<1xsi32>, tensor<1xsi32>, tensor<1xsi32>) -> tensor<1xsi32>
    %21 = coreai.decomposable.broadcasting_modulo %20, %15 : (tensor<1xsi32>, tensor<si32>) -> tensor<1xsi32>
    %22 = coreai.decomposable.broadcasting_add %20, %21 : (tensor<1xsi32>, tensor<1xsi32>) -> tensor<1xsi32>
    %23 = coreai.decomposable.broadcasting_pow %20, %14 : (tensor<1xsi32>, tensor<si32>) -> tensor<1xsi32>
    %24 = coreai.decomposable.broadcasting_add %22, %23 : (tensor<1xsi32>, tensor<1xsi32>) -> tensor<1xsi32>
    %25 = coreai.decomposable.broadcasting_minimum %20, %13 : (tensor<1xsi32>, tensor<si32>) -> tensor<1xsi32>
    %26 = coreai.cast %20 : tensor<1xsi32> to tensor<1xf32>
    %27 = coreai.decomposable.broadcasting_mul %26, %2 : (tensor<1xf32>, tensor<f32>) -> tensor<1xf32>
    %28 = coreai.decomposable.broadcasting_floor_divide %27, %12 : (tensor<1xf32>, tensor<f32>) -> tensor<1xf32>
    %29 = coreai.decomposable.broadcasting_mul %28, %11 : (tensor<1xf32>, tensor<f32>) -> tensor<1xf32>
    %30 = coreai.decomposable.broadcasting_mul %26, %1 : (tensor<1xf32>, tensor<f32>) -> tensor<1xf32>
    %31 = coreai.round %30 : tensor<1xf32> -> tensor<1xf32>
    %32 = coreai.decomposable.broadcasting_add %29, %31 : (tensor<1xf32>, tensor<1xf32>) -> tensor<1xf32>
    %33 = coreai.decomposable.broadcasting_floor_divide %20, %14 : (tensor<1xsi32>, tensor<si32>) -> tensor<1xsi32>
    %34 = coreai.cast %33 : tensor<1xsi32> to tensor<1xui32>
    %35 = coreai.broadcast_to %10, %34 : (tensor<1xf32>, tensor<1xui32>) -> tensor<?xf32>
    %36 = coreai.decomposable.broadcasting_sub %20, %9 : (tensor<1xsi32>, tensor<si32>) -> tensor<1xsi32>
    %37 = coreai.concat %7, %36, %6 : (tensor<si32>, tensor<1xsi32>, tensor<1xsi32>) -> tensor<2xsi32>
    %38 = coreai.slice %arg0, %8, %37, %5 : (tensor<?x4xf32>, tensor<2xsi32>, tensor<2xsi32>, tensor<2xsi32>) -> tensor<?x4xf32>
    %39 = coreai.decomposable.broadcasting_mul %arg0, %26 : (tensor<?x4xf32>, tensor<1xf32>) -> tensor<?x4xf32>
    %40 = coreai.decomposable.broadcasting_divide %26, %0 : (tensor<1xf32>, tensor<f32>) -> tensor<1xf32>
    %41 = coreai.decomposable.broadcasting_mul %arg0, %40 : (tensor<?x4xf32>, tensor<1xf32>) -> tensor<?x4xf32>
    %42 = coreai.cast %24 : tensor<1xsi32> to tensor<1xui32>
    %43 = coreai.broadcast_to %10, %42 : (tensor<1xf32>, tensor<1xui32>) -> tensor<?xf32>
    %44 = coreai.cast %25 : tensor<1xsi32> to tensor<1xui32>
    %45 = coreai.broadcast_to %4, %44 : (tensor<1xf32>, tensor<1xui32>) -> tensor<?xf32>
    %46 = coreai.cast %32 : tensor<1xf32> to tensor<1xui32>
    %47 = coreai.broadcast_to %3, %46 : (tensor<1xf32>, tensor<1xui32>) -> tensor<?xf32>
    coreai.output %35, %38, %39, %41, %43, %45, %47 : tensor<?xf32>, tensor<?x4xf32>, tensor<?x4xf32>, tensor<?x4xf32>, tensor<?xf32>, tensor<?xf32>, tensor<?xf32>
  }
}
