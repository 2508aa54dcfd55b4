// RUN: coreai-opt %s > %t.a && coreai-opt %t.a > %t.b && diff %t.a %t.b
// RUN: grep -v '^//' %s | sed '/^$/d' > %t.golden && sed '/^$/d' %t.a | diff %t.golden -
// coreai-torch 0.4.3 output for `binary_scalar_forms`, printed by coreai-core 1.0.0b3.
// Regenerate with tools/coreai-golden/generate.py.

module {
  coreai.graph @main(%arg0: tensor<3x4xf32> {coreai.name = "args_0"}, %arg1: tensor<3x4xf32> {coreai.name = "args_1"}) -> (tensor<3x4xf32> {coreai.name = "add"}, tensor<3x4xf32> {coreai.name = "sub"}, tensor<3x4xf32> {coreai.name = "mul"}, tensor<3x4xf32> {coreai.name = "div"}, tensor<3x4xf32> {coreai.name = "pow_1"}, tensor<3x4xf32> {coreai.name = "atan2"}, tensor<3x4xf32> {coreai.name = "fmod"}, tensor<3x4xf32> {coreai.name = "fmod_1"}, tensor<3x4xf32> {coreai.name = "div_1"}, tensor<3x4xf32> {coreai.name = "div_2"}) attributes {__coreai_pure__} {
    %0 = coreai.constant dense<4.000000e+00> : tensor<f32>
    %1 = coreai.constant dense<3.000000e+00> : tensor<f32>
    %2 = coreai.constant dense<0xFF800000> : tensor<f32>
    %3 = coreai.constant dense<0x7F800000> : tensor<f32>
    %4 = coreai.constant dense<0x7FC00000> : tensor<f32>
    %5 = coreai.constant dense<-2.3561945> : tensor<f32>
    %6 = coreai.constant dense<2.3561945> : tensor<f32>
    %7 = coreai.constant dense<-0.785398185> : tensor<f32>
    %8 = coreai.constant dense<0.785398185> : tensor<f32>
    %9 = coreai.constant dense<-1.57079637> : tensor<f32>
    %10 = coreai.constant dense<1.57079637> : tensor<f32>
    %11 = coreai.constant dense<-3.14159274> : tensor<f32>
    %12 = coreai.constant dense<3.14159274> : tensor<f32>
    %13 = coreai.constant dense<1.000000e+00> : tensor<f32>
    %14 = coreai.constant dense<0.000000e+00> : tensor<f32>
    %15 = coreai.constant dense<2.000000e+00> : tensor<f32>
    %16 = coreai.constant dense<1.500000e+00> : tensor<f32>
    %17 = coreai.decomposable.broadcasting_add %arg0, %16 : (tensor<3x4xf32>, tensor<f32>) -> tensor<3x4xf32>
    %18 = coreai.decomposable.broadcasting_sub %arg0, %15 : (tensor<3x4xf32>, tensor<f32>) -> tensor<3x4xf32>
    %19 = coreai.decomposable.broadcasting_mul %arg0, %1 : (tensor<3x4xf32>, tensor<f32>) -> tensor<3x4xf32>
    %20 = coreai.decomposable.broadcasting_divide %arg0, %0 : (tensor<3x4xf32>, tensor<f32>) -> tensor<3x4xf32>
    %21 = coreai.decomposable.broadcasting_pow %15, %arg0 : (tensor<f32>, tensor<3x4xf32>) -> tensor<3x4xf32>
    %22 = coreai.decomposable.broadcasting_equal %arg0, %14 : (tensor<3x4xf32>, tensor<f32>) -> tensor<3x4xi1>
    %23 = coreai.decomposable.broadcasting_equal %arg1, %14 : (tensor<3x4xf32>, tensor<f32>) -> tensor<3x4xi1>
    %24 = coreai.decomposable.broadcasting_greater %14, %arg0 : (tensor<f32>, tensor<3x4xf32>) -> tensor<3x4xi1>
    %25 = coreai.decomposable.broadcasting_divide %13, %arg0 : (tensor<f32>, tensor<3x4xf32>) -> tensor<3x4xf32>
    %26 = coreai.decomposable.broadcasting_greater %14, %25 : (tensor<f32>, tensor<3x4xf32>) -> tensor<3x4xi1>
    %27 = coreai.decomposable.broadcasting_and %22, %26 : (tensor<3x4xi1>, tensor<3x4xi1>) -> tensor<3x4xi1>
    %28 = coreai.decomposable.broadcasting_or %24, %27 : (tensor<3x4xi1>, tensor<3x4xi1>) -> tensor<3x4xi1>
    %29 = coreai.decomposable.broadcasting_greater %14, %arg1 : (tensor<f32>, tensor<3x4xf32>) -> tensor<3x4xi1>
    %30 = coreai.decomposable.broadcasting_divide %13, %arg1 : (tensor<f32>, tensor<3x4xf32>) -> tensor<3x4xf32>
    %31 = coreai.decomposable.broadcasting_greater %14, %30 : (tensor<f32>, tensor<3x4xf32>) -> tensor<3x4xi1>
    %32 = coreai.decomposable.broadcasting_and %23, %31 : (tensor<3x4xi1>, tensor<3x4xi1>) -> tensor<3x4xi1>
    %33 = coreai.decomposable.broadcasting_or %29, %32 : (tensor<3x4xi1>, tensor<3x4xi1>) -> tensor<3x4xi1>
    %34 = coreai.decomposable.broadcasting_not_equal %arg0, %arg0 : (tensor<3x4xf32>, tensor<3x4xf32>) -> tensor<3x4xi1>
    %35 = coreai.decomposable.broadcasting_not_equal %arg1, %arg1 : (tensor<3x4xf32>, tensor<3x4xf32>) -> tensor<3x4xi1>
    %36 = coreai.decomposable.broadcasting_or %34, %35 : (tensor<3x4xi1>, tensor<3x4xi1>) -> tensor<3x4xi1>
    %37 = coreai.decomposable.broadcasting_equal %arg1, %3 : (tensor<3x4xf32>, tensor<f32>) -> tensor<3x4xi1>
    %38 = coreai.decomposable.broadcasting_equal %arg1, %2 : (tensor<3x4xf32>, tensor<f32>) -> tensor<3x4xi1>
    %39 = coreai.decomposable.broadcasting_or %37, %38 : (tensor<3x4xi1>, tensor<3x4xi1>) -> tensor<3x4xi1>
    %40 = coreai.decomposable.broadcasting_equal %arg0, %3 : (tensor<3x4xf32>, tensor<f32>) -> tensor<3x4xi1>
    %41 = coreai.decomposable.broadcasting_equal %arg0, %2 : (tensor<3x4xf32>, tensor<f32>) -> tensor<3x4xi1>
    %42 = coreai.decomposable.broadcasting_or %40, %41 : (tensor<3x4xi1>, tensor<3x4xi1>) -> tensor<3x4xi1>
    %43 = coreai.decomposable.broadcasting_and %39, %42 : (tensor<3x4xi1>, tensor<3x4xi1>) -> tensor<3x4xi1>
    %44 = coreai.decomposable.broadcasting_where %33, %5, %7 : (tensor<3x4xi1>, tensor<f32>, tensor<f32>) -> tensor<3x4xf32>
    %45 = coreai.decomposable.broadcasting_where %33, %6, %8 : (tensor<3x4xi1>, tensor<f32>, tensor<f32>) -> tensor<3x4xf32>
    %46 = coreai.decomposable.broadcasting_where %28, %44, %45 : (tensor<3x4xi1>, tensor<3x4xf32>, tensor<3x4xf32>) -> tensor<3x4xf32>
    %47 = coreai.decomposable.broadcasting_greater %arg0, %14 : (tensor<3x4xf32>, tensor<f32>) -> tensor<3x4xi1>
    %48 = coreai.decomposable.broadcasting_where %24, %9, %14 : (tensor<3x4xi1>, tensor<f32>, tensor<f32>) -> tensor<3x4xf32>
    %49 = coreai.decomposable.broadcasting_where %47, %10, %48 : (tensor<3x4xi1>, tensor<f32>, tensor<3x4xf32>) -> tensor<3x4xf32>
    %50 = coreai.decomposable.broadcasting_where %28, %11, %12 : (tensor<3x4xi1>, tensor<f32>, tensor<f32>) -> tensor<3x4xf32>
    %51 = coreai.decomposable.broadcasting_where %32, %50, %49 : (tensor<3x4xi1>, tensor<3x4xf32>, tensor<3x4xf32>) -> tensor<3x4xf32>
    %52 = coreai.decomposable.broadcasting_where %23, %13, %arg1 : (tensor<3x4xi1>, tensor<f32>, tensor<3x4xf32>) -> tensor<3x4xf32>
    %53 = coreai.decomposable.broadcasting_divide %arg0, %52 : (tensor<3x4xf32>, tensor<3x4xf32>) -> tensor<3x4xf32>
    %54 = coreai.atan %53 : tensor<3x4xf32> -> tensor<3x4xf32>
    %55 = coreai.decomposable.broadcasting_sub %54, %12 : (tensor<3x4xf32>, tensor<f32>) -> tensor<3x4xf32>
    %56 = coreai.decomposable.broadcasting_add %54, %12 : (tensor<3x4xf32>, tensor<f32>) -> tensor<3x4xf32>
    %57 = coreai.decomposable.broadcasting_where %28, %55, %56 : (tensor<3x4xi1>, tensor<3x4xf32>, tensor<3x4xf32>) -> tensor<3x4xf32>
    %58 = coreai.decomposable.broadcasting_where %33, %57, %54 : (tensor<3x4xi1>, tensor<3x4xf32>, tensor<3x4xf32>) -> tensor<3x4xf32>
    %59 = coreai.decomposable.broadcasting_where %23, %51, %58 : (tensor<3x4xi1>, tensor<3x4xf32>, tensor<3x4xf32>) -> tensor<3x4xf32>
    %60 = coreai.decomposable.broadcasting_where %43, %46, %59 : (tensor<3x4xi1>, tensor<3x4xf32>, tensor<3x4xf32>) -> tensor<3x4xf32>
    %61 = coreai.decomposable.broadcasting_where %36, %4, %60 : (tensor<3x4xi1>, tensor<f32>, tensor<3x4xf32>) -> tensor<3x4xf32>
    %62 = coreai.decomposable.broadcasting_modulo %arg0, %arg1 : (tensor<3x4xf32>, tensor<3x4xf32>) -> tensor<3x4xf32>
    %63 = coreai.decomposable.broadcasting_modulo %arg0, %16 : (tensor<3x4xf32>, tensor<f32>) -> tensor<3x4xf32>
    %64 = coreai.decomposable.broadcasting_floor_divide %arg0, %arg1 : (tensor<3x4xf32>, tensor<3x4xf32>) -> tensor<3x4xf32>
    %65 = coreai.decomposable.broadcasting_divide %arg0, %arg1 : (tensor<3x4xf32>, tensor<3x4xf32>) -> tensor<3x4xf32>
    coreai.output %17, %18, %19, %20, %21, %61, %62, %63, %64, %65 : tensor<3x4xf32>, tensor<3x4xf32>, tensor<3x4xf32>, tensor<3x4xf32>, tensor<3x4xf32>, tensor<3x4xf32>, tensor<3x4xf32>, tensor<3x4xf32>, tensor<3x4xf32>, tensor<3x4xf32>
  }
}
