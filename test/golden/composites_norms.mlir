// RUN: coreai-opt %s > %t.a && coreai-opt %t.a > %t.b && diff %t.a %t.b
// RUN: grep -v '^//' %s | sed '/^$/d' > %t.golden && sed '/^$/d' %t.a | diff %t.golden -
// coreai-torch 0.4.3 output for `composites_norms`, printed by coreai-core 1.0.0b3.
// Regenerate with tools/coreai-golden/generate.py.

module {
  coreai.graph private noinline @instance_norm_pumxgobs(%arg0: tensor<1x4x3x4xf32> {coreai.name = "input"}, %arg1: tensor<4x1x1xf32> {coreai.name = "gamma"}, %arg2: tensor<4x1x1xf32> {coreai.name = "beta"}) -> tensor<1x4x3x4xf32> attributes {__coreai_pure__, composite_decl = #coreai.composite_declaration<"instance_norm" = {input_names = ["input", "gamma", "beta"], op_attrs = {eps = 9.99999974E-6 : f32, version = 1 : si64}, output_names = ["output"]}>, template_op = "instance_norm"} {
    %0 = coreai.constant dense<9.99999974E-6> : tensor<f32>
    %1 = coreai.constant dense<[2, 3]> : tensor<2xsi32>
    %2 = coreai.reduce_mean %arg0, %1 : (tensor<1x4x3x4xf32>, tensor<2xsi32>) -> tensor<1x4x1x1xf32>
    %3 = coreai.decomposable.broadcasting_sub %arg0, %2 : (tensor<1x4x3x4xf32>, tensor<1x4x1x1xf32>) -> tensor<1x4x3x4xf32>
    %4 = coreai.decomposable.broadcasting_mul %3, %3 : (tensor<1x4x3x4xf32>, tensor<1x4x3x4xf32>) -> tensor<1x4x3x4xf32>
    %5 = coreai.reduce_mean %4, %1 : (tensor<1x4x3x4xf32>, tensor<2xsi32>) -> tensor<1x4x1x1xf32>
    %6 = coreai.decomposable.broadcasting_add %5, %0 : (tensor<1x4x1x1xf32>, tensor<f32>) -> tensor<1x4x1x1xf32>
    %7 = coreai.rsqrt %6 : tensor<1x4x1x1xf32> -> tensor<1x4x1x1xf32>
    %8 = coreai.decomposable.broadcasting_mul %3, %7 : (tensor<1x4x3x4xf32>, tensor<1x4x1x1xf32>) -> tensor<1x4x3x4xf32>
    %9 = coreai.decomposable.broadcasting_mul %8, %arg1 : (tensor<1x4x3x4xf32>, tensor<4x1x1xf32>) -> tensor<1x4x3x4xf32>
    %10 = coreai.decomposable.broadcasting_add %9, %arg2 : (tensor<1x4x3x4xf32>, tensor<4x1x1xf32>) -> tensor<1x4x3x4xf32>
    coreai.output %10 : tensor<1x4x3x4xf32>
  }
  coreai.graph private noinline @batch_norm_seheiipc(%arg0: tensor<1x4x3x4xf32> {coreai.name = "input"}, %arg1: tensor<4xf32> {coreai.name = "gamma"}, %arg2: tensor<4xf32> {coreai.name = "beta"}, %arg3: tensor<4xf32> {coreai.name = "mean"}, %arg4: tensor<4xf32> {coreai.name = "variance"}) -> tensor<1x4x3x4xf32> attributes {__coreai_pure__, composite_decl = #coreai.composite_declaration<"batch_norm" = {input_names = ["input", "gamma", "beta", "mean", "variance"], op_attrs = {eps = 9.99999974E-6 : f32, version = 1 : si64}, output_names = ["output"]}>, template_op = "batch_norm"} {
    %0 = coreai.constant dense<9.99999974E-6> : tensor<f32>
    %1 = coreai.constant dense<[1, 4, 1, 1]> : tensor<4xui32>
    %2 = coreai.reshape %arg1, %1 : (tensor<4xf32>, tensor<4xui32>) -> tensor<1x4x1x1xf32>
    %3 = coreai.reshape %arg2, %1 : (tensor<4xf32>, tensor<4xui32>) -> tensor<1x4x1x1xf32>
    %4 = coreai.reshape %arg3, %1 : (tensor<4xf32>, tensor<4xui32>) -> tensor<1x4x1x1xf32>
    %5 = coreai.decomposable.broadcasting_add %arg4, %0 : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
    %6 = coreai.reshape %5, %1 : (tensor<4xf32>, tensor<4xui32>) -> tensor<1x4x1x1xf32>
    %7 = coreai.sqrt %6 : tensor<1x4x1x1xf32> -> tensor<1x4x1x1xf32>
    %8 = coreai.decomposable.broadcasting_sub %arg0, %4 : (tensor<1x4x3x4xf32>, tensor<1x4x1x1xf32>) -> tensor<1x4x3x4xf32>
    %9 = coreai.decomposable.broadcasting_divide %8, %7 : (tensor<1x4x3x4xf32>, tensor<1x4x1x1xf32>) -> tensor<1x4x3x4xf32>
    %10 = coreai.decomposable.broadcasting_mul %9, %2 : (tensor<1x4x3x4xf32>, tensor<1x4x1x1xf32>) -> tensor<1x4x3x4xf32>
    %11 = coreai.decomposable.broadcasting_add %10, %3 : (tensor<1x4x3x4xf32>, tensor<1x4x1x1xf32>) -> tensor<1x4x3x4xf32>
    coreai.output %11 : tensor<1x4x3x4xf32>
  }
  coreai.graph private noinline @group_norm_kmhyifkn(%arg0: tensor<1x4x3x4xf32> {coreai.name = "input"}, %arg1: tensor<4xf32> {coreai.name = "weight"}, %arg2: tensor<4xf32> {coreai.name = "bias"}) -> tensor<1x4x3x4xf32> attributes {__coreai_pure__, composite_decl = #coreai.composite_declaration<"group_norm" = {input_names = ["input", "weight", "bias"], op_attrs = {eps = 9.99999974E-6 : f32, num_channels = 4 : si64, num_groups = 2 : si64, version = 1 : si64}, output_names = ["output"]}>, template_op = "group_norm"} {
    %0 = coreai.constant dense<[4, 1, 1]> : tensor<3xui32>
    %1 = coreai.constant dense<[1, 4, 3, 4]> : tensor<4xui32>
    %2 = coreai.constant dense<9.99999974E-6> : tensor<f32>
    %3 = coreai.constant dense<[2, 3]> : tensor<2xsi32>
    %4 = coreai.constant dense<[1, 2, 2, 12]> : tensor<4xui32>
    %5 = coreai.reshape %arg0, %4 : (tensor<1x4x3x4xf32>, tensor<4xui32>) -> tensor<1x2x2x12xf32>
    %6 = coreai.reduce_mean %5, %3 : (tensor<1x2x2x12xf32>, tensor<2xsi32>) -> tensor<1x2x1x1xf32>
    %7 = coreai.decomposable.broadcasting_sub %5, %6 : (tensor<1x2x2x12xf32>, tensor<1x2x1x1xf32>) -> tensor<1x2x2x12xf32>
    %8 = coreai.decomposable.broadcasting_mul %7, %7 : (tensor<1x2x2x12xf32>, tensor<1x2x2x12xf32>) -> tensor<1x2x2x12xf32>
    %9 = coreai.reduce_mean %8, %3 : (tensor<1x2x2x12xf32>, tensor<2xsi32>) -> tensor<1x2x1x1xf32>
    %10 = coreai.decomposable.broadcasting_add %9, %2 : (tensor<1x2x1x1xf32>, tensor<f32>) -> tensor<1x2x1x1xf32>
    %11 = coreai.rsqrt %10 : tensor<1x2x1x1xf32> -> tensor<1x2x1x1xf32>
    %12 = coreai.decomposable.broadcasting_mul %7, %11 : (tensor<1x2x2x12xf32>, tensor<1x2x1x1xf32>) -> tensor<1x2x2x12xf32>
    %13 = coreai.reshape %12, %1 : (tensor<1x2x2x12xf32>, tensor<4xui32>) -> tensor<1x4x3x4xf32>
    %14 = coreai.reshape %arg1, %0 : (tensor<4xf32>, tensor<3xui32>) -> tensor<4x1x1xf32>
    %15 = coreai.decomposable.broadcasting_mul %13, %14 : (tensor<1x4x3x4xf32>, tensor<4x1x1xf32>) -> tensor<1x4x3x4xf32>
    %16 = coreai.reshape %arg2, %0 : (tensor<4xf32>, tensor<3xui32>) -> tensor<4x1x1xf32>
    %17 = coreai.decomposable.broadcasting_add %15, %16 : (tensor<1x4x3x4xf32>, tensor<4x1x1xf32>) -> tensor<1x4x3x4xf32>
    coreai.output %17 : tensor<1x4x3x4xf32>
  }
  coreai.graph private noinline @layer_norm_rxbscmxk(%arg0: tensor<1x4x3x4xf32> {coreai.name = "input"}, %arg1: tensor<4xf32> {coreai.name = "gamma"}, %arg2: tensor<4xf32> {coreai.name = "beta"}) -> tensor<1x4x3x4xf32> attributes {__coreai_pure__, composite_decl = #coreai.composite_declaration<"layer_norm" = {input_names = ["input", "gamma", "beta"], op_attrs = {axes = [3 : si64], eps = 9.99999974E-6 : f32, version = 1 : si64}, output_names = ["output"]}>, template_op = "layer_norm"} {
    %0 = coreai.constant dense<9.99999974E-6> : tensor<f32>
    %1 = coreai.constant dense<3> : tensor<1xsi32>
    %2 = coreai.reduce_mean %arg0, %1 : (tensor<1x4x3x4xf32>, tensor<1xsi32>) -> tensor<1x4x3x1xf32>
    %3 = coreai.decomposable.broadcasting_sub %arg0, %2 : (tensor<1x4x3x4xf32>, tensor<1x4x3x1xf32>) -> tensor<1x4x3x4xf32>
    %4 = coreai.decomposable.broadcasting_mul %3, %3 : (tensor<1x4x3x4xf32>, tensor<1x4x3x4xf32>) -> tensor<1x4x3x4xf32>
    %5 = coreai.reduce_mean %4, %1 : (tensor<1x4x3x4xf32>, tensor<1xsi32>) -> tensor<1x4x3x1xf32>
    %6 = coreai.decomposable.broadcasting_add %5, %0 : (tensor<1x4x3x1xf32>, tensor<f32>) -> tensor<1x4x3x1xf32>
    %7 = coreai.rsqrt %6 : tensor<1x4x3x1xf32> -> tensor<1x4x3x1xf32>
    %8 = coreai.decomposable.broadcasting_mul %3, %7 : (tensor<1x4x3x4xf32>, tensor<1x4x3x1xf32>) -> tensor<1x4x3x4xf32>
    %9 = coreai.decomposable.broadcasting_mul %8, %arg1 : (tensor<1x4x3x4xf32>, tensor<4xf32>) -> tensor<1x4x3x4xf32>
    %10 = coreai.decomposable.broadcasting_add %9, %arg2 : (tensor<1x4x3x4xf32>, tensor<4xf32>) -> tensor<1x4x3x4xf32>
    coreai.output %10 : tensor<1x4x3x4xf32>
  }
  coreai.graph @main(%arg0: tensor<1x4x3x4xf32> {coreai.name = "x"}) -> (tensor<1x4x3x4xf32> {coreai.name = "getitem"}, tensor<1x4x3x4xf32> {coreai.name = "getitem_3"}, tensor<1x4x3x4xf32> {coreai.name = "getitem_6"}, tensor<1x4x3x4xf32> {coreai.name = "instance_norm"}) attributes {__coreai_pure__} {
    %0 = coreai.constant dense<0.000000e+00> : tensor<4x1x1xf32>
    %1 = coreai.constant dense<1.000000e+00> : tensor<4x1x1xf32>
    %2 = coreai.constant dense<1.000000e+00> : tensor<4xf32>
    %3 = coreai.constant dense<0.000000e+00> : tensor<4xf32>
    %4 = coreai.invoke @layer_norm_rxbscmxk(%arg0, %2, %3)  : (tensor<1x4x3x4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<1x4x3x4xf32>
    %5 = coreai.invoke @group_norm_kmhyifkn(%arg0, %2, %3)  : (tensor<1x4x3x4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<1x4x3x4xf32>
    %6 = coreai.invoke @batch_norm_seheiipc(%arg0, %2, %3, %3, %2)  : (tensor<1x4x3x4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<1x4x3x4xf32>
    %7 = coreai.invoke @instance_norm_pumxgobs(%arg0, %1, %0)  : (tensor<1x4x3x4xf32>, tensor<4x1x1xf32>, tensor<4x1x1xf32>) -> tensor<1x4x3x4xf32>
    coreai.output %4, %5, %6, %7 : tensor<1x4x3x4xf32>, tensor<1x4x3x4xf32>, tensor<1x4x3x4xf32>, tensor<1x4x3x4xf32>
  }
}
