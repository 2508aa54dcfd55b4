// RUN: coreai-opt %s > %t.a && coreai-opt %t.a > %t.b && diff %t.a %t.b
// RUN: grep -v '^//' %s | sed '/^$/d' > %t.golden && sed '/^$/d' %t.a | diff %t.golden -
// coreai-torch 0.4.3 output for `misc_activations`, printed by coreai-core 1.0.0b3.
// Regenerate with tools/coreai-golden/generate.py.

module {
  coreai.graph private noinline @hard_sigmoid_fkrwohpr(%arg0: tensor<3x4xf32> {coreai.name = "input"}) -> tensor<3x4xf32> attributes {__coreai_pure__, composite_decl = #coreai.composite_declaration<"hard_sigmoid" = {input_names = ["input"], op_attrs = {version = 1 : si64}, output_names = ["output"]}>, template_op = "hard_sigmoid"} {
    %0 = coreai.constant dense<3.000000e+00> : tensor<f32>
    %1 = coreai.constant dense<0.000000e+00> : tensor<f32>
    %2 = coreai.constant dense<6.000000e+00> : tensor<f32>
    %3 = coreai.decomposable.broadcasting_add %arg0, %0 : (tensor<3x4xf32>, tensor<f32>) -> tensor<3x4xf32>
    %4 = coreai.decomposable.broadcasting_maximum %3, %1 : (tensor<3x4xf32>, tensor<f32>) -> tensor<3x4xf32>
    %5 = coreai.decomposable.broadcasting_minimum %4, %2 : (tensor<3x4xf32>, tensor<f32>) -> tensor<3x4xf32>
    %6 = coreai.decomposable.broadcasting_divide %5, %2 : (tensor<3x4xf32>, tensor<f32>) -> tensor<3x4xf32>
    coreai.output %6 : tensor<3x4xf32>
  }
  coreai.graph @main(%arg0: tensor<3x4xf32> {coreai.name = "args_0"}) -> (tensor<3x4xf32> {coreai.name = "hardswish"}, tensor<3x4xf32> {coreai.name = "leaky_relu"}, tensor<3x4xf32> {coreai.name = "hardtanh"}, tensor<3x4xf32> {coreai.name = "clamp"}, tensor<3x4xf32> {coreai.name = "sign"}, tensor<3x4xf32> {coreai.name = "neg"}, tensor<3x4xf32> {coreai.name = "reciprocal"}, tensor<3x4xf32> {coreai.name = "log1p"}, tensor<3x4xf32> {coreai.name = "expm1"}, tensor<3x4xf32> {coreai.name = "exp2"}, tensor<3x4xf32> {coreai.name = "floor"}, tensor<3x4xf32> {coreai.name = "ceil"}, tensor<3x4xf32> {coreai.name = "trunc"}, tensor<3x4xi1> {coreai.name = "isinf"}) attributes {__coreai_pure__} {
    %0 = coreai.constant dense<0xFF800000> : tensor<f32>
    %1 = coreai.constant dense<0x7F800000> : tensor<f32>
    %2 = coreai.constant dense<2.000000e+00> : tensor<f32>
    %3 = coreai.constant dense<1.000000e+00> : tensor<f32>
    %4 = coreai.constant dense<-1.000000e+00> : tensor<f32>
    %5 = coreai.constant dense<0.00999999977> : tensor<f32>
    %6 = coreai.constant dense<0.000000e+00> : tensor<f32>
    %7 = coreai.invoke @hard_sigmoid_fkrwohpr(%arg0)  : (tensor<3x4xf32>) -> tensor<3x4xf32>
    %8 = coreai.decomposable.broadcasting_mul %arg0, %7 : (tensor<3x4xf32>, tensor<3x4xf32>) -> tensor<3x4xf32>
    %9 = coreai.decomposable.broadcasting_maximum %arg0, %6 : (tensor<3x4xf32>, tensor<f32>) -> tensor<3x4xf32>
    %10 = coreai.decomposable.broadcasting_minimum %arg0, %6 : (tensor<3x4xf32>, tensor<f32>) -> tensor<3x4xf32>
    %11 = coreai.decomposable.broadcasting_mul %10, %5 : (tensor<3x4xf32>, tensor<f32>) -> tensor<3x4xf32>
    %12 = coreai.decomposable.broadcasting_add %9, %11 : (tensor<3x4xf32>, tensor<3x4xf32>) -> tensor<3x4xf32>
    %13 = coreai.decomposable.broadcasting_maximum %arg0, %4 : (tensor<3x4xf32>, tensor<f32>) -> tensor<3x4xf32>
    %14 = coreai.decomposable.broadcasting_minimum %13, %3 : (tensor<3x4xf32>, tensor<f32>) -> tensor<3x4xf32>
    %15 = coreai.decomposable.broadcasting_greater %arg0, %6 : (tensor<3x4xf32>, tensor<f32>) -> tensor<3x4xi1>
    %16 = coreai.cast %15 : tensor<3x4xi1> to tensor<3x4xf32>
    %17 = coreai.decomposable.broadcasting_greater %6, %arg0 : (tensor<f32>, tensor<3x4xf32>) -> tensor<3x4xi1>
    %18 = coreai.cast %17 : tensor<3x4xi1> to tensor<3x4xf32>
    %19 = coreai.decomposable.broadcasting_sub %16, %18 : (tensor<3x4xf32>, tensor<3x4xf32>) -> tensor<3x4xf32>
    %20 = coreai.decomposable.broadcasting_mul %arg0, %4 : (tensor<3x4xf32>, tensor<f32>) -> tensor<3x4xf32>
    %21 = coreai.decomposable.broadcasting_divide %3, %arg0 : (tensor<f32>, tensor<3x4xf32>) -> tensor<3x4xf32>
    %22 = coreai.abs %arg0 : tensor<3x4xf32> -> tensor<3x4xf32>
    %23 = coreai.decomposable.broadcasting_add %22, %3 : (tensor<3x4xf32>, tensor<f32>) -> tensor<3x4xf32>
    %24 = coreai.log %23 : tensor<3x4xf32> -> tensor<3x4xf32>
    %25 = coreai.exp %arg0 : tensor<3x4xf32> -> tensor<3x4xf32>
    %26 = coreai.decomposable.broadcasting_sub %25, %3 : (tensor<3x4xf32>, tensor<f32>) -> tensor<3x4xf32>
    %27 = coreai.decomposable.broadcasting_pow %2, %arg0 : (tensor<f32>, tensor<3x4xf32>) -> tensor<3x4xf32>
    %28 = coreai.decomposable.broadcasting_floor_divide %arg0, %3 : (tensor<3x4xf32>, tensor<f32>) -> tensor<3x4xf32>
    %29 = coreai.decomposable.broadcasting_floor_divide %20, %3 : (tensor<3x4xf32>, tensor<f32>) -> tensor<3x4xf32>
    %30 = coreai.decomposable.broadcasting_mul %29, %4 : (tensor<3x4xf32>, tensor<f32>) -> tensor<3x4xf32>
    %31 = coreai.decomposable.broadcasting_floor_divide %22, %3 : (tensor<3x4xf32>, tensor<f32>) -> tensor<3x4xf32>
    %32 = coreai.decomposable.broadcasting_mul %19, %31 : (tensor<3x4xf32>, tensor<3x4xf32>) -> tensor<3x4xf32>
    %33 = coreai.decomposable.broadcasting_equal %arg0, %1 : (tensor<3x4xf32>, tensor<f32>) -> tensor<3x4xi1>
    %34 = coreai.decomposable.broadcasting_equal %arg0, %0 : (tensor<3x4xf32>, tensor<f32>) -> tensor<3x4xi1>
    %35 = coreai.decomposable.broadcasting_or %33, %34 : (tensor<3x4xi1>, tensor<3x4xi1>) -> tensor<3x4xi1>
    coreai.output %8, %12, %14, %14, %19, %20, %21, %24, %26, %27, %28, %30, %32, %35 : tensor<3x4xf32>, tensor<3x4xf32>, tensor<3x4xf32>, tensor<3x4xf32>, tensor<3x4xf32>, tensor<3x4xf32>, tensor<3x4xf32>, tensor<3x4xf32>, tensor<3x4xf32>, tensor<3x4xf32>, tensor<3x4xf32>, tensor<3x4xf32>, tensor<3x4xf32>, tensor<3x4xi1>
  }
}
