// RUN: coreai-opt %s > %t.a && coreai-opt %t.a > %t.b && diff %t.a %t.b
// RUN: grep -v '^//' %s | sed '/^$/d' > %t.golden && sed '/^$/d' %t.a | diff %t.golden -
// coreai-torch 0.4.3 output for `symbolic_sizes`, printed by coreai-core 1.0.0b3.
// Regenerate with tools/coreai-golden/generate.py.

module {
  coreai.graph @main(%arg0: tensor<?x4xf32> {coreai.name = "x"}) -> (tensor<?xf32> {coreai.name = "full"}, tensor<?x4xf32> {coreai.name = "slice_1"}, tensor<?x4xf32> {coreai.name = "mul_2"}, tensor<?x4xf32> {coreai.name = "mul_3"}, tensor<?xf32> {coreai.name = "full_1"}, tensor<?xf32> {coreai.name = "full_2"}, tensor<?xf32> {coreai.name = "full_3"}, tensor<?xf32> {coreai.name = "full_4"}, tensor<?xf32> {coreai.name = "full_5"}) attributes {__coreai_pure__} {
    %0 = coreai.constant dense<2.000000e+00> : tensor<f32>
    %1 = coreai.constant dense<5.000000e-01> : tensor<f32>
    %2 = coreai.constant dense<-0.333333343> : tensor<f32>
    %3 = coreai.constant dense<5.000000e+00> : tensor<1xf32>
    %4 = coreai.constant dense<0.000000e+00> : tensor<f32>
    %5 = coreai.constant dense<4.000000e+00> : tensor<1xf32>
    %6 = coreai.constant dense<3.000000e+00> : tensor<1xf32>
    %7 = coreai.constant dense<2.000000e+00> : tensor<1xf32>
    %8 = coreai.constant dense<1> : tensor<2xsi32>
    %9 = coreai.constant dense<2147483647> : tensor<1xsi32>
    %10 = coreai.constant dense<0> : tensor<si32>
    %11 = coreai.constant dense<0> : tensor<2xsi32>
    %12 = coreai.constant dense<1> : tensor<si32>
    %13 = coreai.constant dense<1.000000e+00> : tensor<1xf32>
    %14 = coreai.constant dense<-1.000000e+00> : tensor<f32>
    %15 = coreai.constant dense<1.000000e+00> : tensor<f32>
    %16 = coreai.constant dense<16> : tensor<si32>
    %17 = coreai.constant dense<2> : tensor<si32>
    %18 = coreai.constant dense<3> : tensor<si32>
    %19 = coreai.constant dense<1> : tensor<1xsi32>
    %20 = coreai.constant dense<0> : tensor<1xsi32>
    %21 = coreai.get_shape %arg0 : tensor<?x4xf32> -> tensor<2xui32>
    %22 = coreai.cast %21 : tensor<2xui32> to tensor<2xsi32>
    %23 = coreai.slice %22, %20, %19, %19 : (tensor<2xsi32>, tensor<1xsi32>, tensor<1xsi32>, tensor<1xsi32>) -> tensor<1xsi32>
    %24 = coreai.decomposable.broadcasting_modulo %23, %18 : (tensor<1xsi32>, tensor<si32>) -> tensor<1xsi32>
    %25 = coreai.decomposable.broadcasting_add %23, %24 : (tensor<1xsi32>, tensor<1xsi32>) -> tensor<1xsi32>
    %26 = coreai.decomposable.broadcasting_pow %23, %17 : (tensor<1xsi32>, tensor<si32>) -> tensor<1xsi32>
    %27 = coreai.decomposable.broadcasting_add %25, %26 : (tensor<1xsi32>, tensor<1xsi32>) -> tensor<1xsi32>
    %28 = coreai.decomposable.broadcasting_minimum %23, %16 : (tensor<1xsi32>, tensor<si32>) -> tensor<1xsi32>
    %29 = coreai.cast %23 : tensor<1xsi32> to tensor<1xf32>
    %30 = coreai.decomposable.broadcasting_mul %29, %2 : (tensor<1xf32>, tensor<f32>) -> tensor<1xf32>
    %31 = coreai.decomposable.broadcasting_floor_divide %30, %15 : (tensor<1xf32>, tensor<f32>) -> tensor<1xf32>
    %32 = coreai.decomposable.broadcasting_mul %31, %14 : (tensor<1xf32>, tensor<f32>) -> tensor<1xf32>
    %33 = coreai.decomposable.broadcasting_mul %29, %1 : (tensor<1xf32>, tensor<f32>) -> tensor<1xf32>
    %34 = coreai.round %33 : tensor<1xf32> -> tensor<1xf32>
    %35 = coreai.decomposable.broadcasting_add %32, %34 : (tensor<1xf32>, tensor<1xf32>) -> tensor<1xf32>
    %36 = coreai.decomposable.broadcasting_floor_divide %23, %17 : (tensor<1xsi32>, tensor<si32>) -> tensor<1xsi32>
    %37 = coreai.cast %36 : tensor<1xsi32> to tensor<1xui32>
    %38 = coreai.broadcast_to %13, %37 : (tensor<1xf32>, tensor<1xui32>) -> tensor<?xf32>
    %39 = coreai.decomposable.broadcasting_sub %23, %12 : (tensor<1xsi32>, tensor<si32>) -> tensor<1xsi32>
    %40 = coreai.concat %10, %39, %9 : (tensor<si32>, tensor<1xsi32>, tensor<1xsi32>) -> tensor<2xsi32>
    %41 = coreai.slice %arg0, %11, %40, %8 : (tensor<?x4xf32>, tensor<2xsi32>, tensor<2xsi32>, tensor<2xsi32>) -> tensor<?x4xf32>
    %42 = coreai.decomposable.broadcasting_mul %arg0, %29 : (tensor<?x4xf32>, tensor<1xf32>) -> tensor<?x4xf32>
    %43 = coreai.decomposable.broadcasting_divide %29, %0 : (tensor<1xf32>, tensor<f32>) -> tensor<1xf32>
    %44 = coreai.decomposable.broadcasting_mul %arg0, %43 : (tensor<?x4xf32>, tensor<1xf32>) -> tensor<?x4xf32>
    %45 = coreai.cast %27 : tensor<1xsi32> to tensor<1xui32>
    %46 = coreai.broadcast_to %13, %45 : (tensor<1xf32>, tensor<1xui32>) -> tensor<?xf32>
    %47 = coreai.cast %28 : tensor<1xsi32> to tensor<1xui32>
    %48 = coreai.broadcast_to %7, %47 : (tensor<1xf32>, tensor<1xui32>) -> tensor<?xf32>
    %49 = coreai.cast %35 : tensor<1xf32> to tensor<1xui32>
    %50 = coreai.broadcast_to %6, %49 : (tensor<1xf32>, tensor<1xui32>) -> tensor<?xf32>
    %51 = coreai.cast %39 : tensor<1xsi32> to tensor<1xui32>
    %52 = coreai.broadcast_to %5, %51 : (tensor<1xf32>, tensor<1xui32>) -> tensor<?xf32>
    %53 = coreai.decomposable.broadcasting_greater %33, %4 : (tensor<1xf32>, tensor<f32>) -> tensor<1xi1>
    %54 = coreai.cast %53 : tensor<1xi1> to tensor<1xf32>
    %55 = coreai.decomposable.broadcasting_greater %4, %33 : (tensor<f32>, tensor<1xf32>) -> tensor<1xi1>
    %56 = coreai.cast %55 : tensor<1xi1> to tensor<1xf32>
    %57 = coreai.decomposable.broadcasting_sub %54, %56 : (tensor<1xf32>, tensor<1xf32>) -> tensor<1xf32>
    %58 = coreai.abs %33 : tensor<1xf32> -> tensor<1xf32>
    %59 = coreai.decomposable.broadcasting_floor_divide %58, %15 : (tensor<1xf32>, tensor<f32>) -> tensor<1xf32>
    %60 = coreai.decomposable.broadcasting_mul %57, %59 : (tensor<1xf32>, tensor<1xf32>) -> tensor<1xf32>
    %61 = coreai.cast %60 : tensor<1xf32> to tensor<1xui32>
    %62 = coreai.broadcast_to %3, %61 : (tensor<1xf32>, tensor<1xui32>) -> tensor<?xf32>
    coreai.output %38, %41, %42, %44, %46, %48, %50, %52, %62 : tensor<?xf32>, tensor<?x4xf32>, tensor<?x4xf32>, tensor<?x4xf32>, tensor<?xf32>, tensor<?xf32>, tensor<?xf32>, tensor<?xf32>, tensor<?xf32>
  }
}
