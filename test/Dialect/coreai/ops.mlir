// RUN: coreai-opt %s --split-input-file | coreai-opt --split-input-file | FileCheck %s --enable-var-scope
// RUN: coreai-opt %s --split-input-file --mlir-print-op-generic | FileCheck %s --check-prefix=GENERIC

// The form coreai-torch 0.4.3 prints for `abs(x) + y * 2.0`.
// CHECK-LABEL: coreai.graph @main(
// CHECK-SAME:    %[[X:.*]]: tensor<2x3xf32> {coreai.name = "x"}, %[[Y:.*]]: tensor<2x3xf32> {coreai.name = "y"}) -> (tensor<2x3xf32> {coreai.name = "add"}) attributes {__coreai_pure__} {
// CHECK:         %[[C:.*]] = coreai.constant dense<2.000000e+00> : tensor<f32>
// CHECK:         %[[A:.*]] = coreai.abs %[[X]] : tensor<2x3xf32> -> tensor<2x3xf32>
// CHECK:         %[[M:.*]] = coreai.decomposable.broadcasting_mul %[[Y]], %[[C]] : (tensor<2x3xf32>, tensor<f32>) -> tensor<2x3xf32>
// CHECK:         %[[S:.*]] = coreai.decomposable.broadcasting_add %[[A]], %[[M]] : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK:         coreai.output %[[S]] : tensor<2x3xf32>
// GENERIC:       "coreai.graph"() <{arg_attrs = [{coreai.name = "x"}, {coreai.name = "y"}], function_type = (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>, param_decls = #param.decl.array<[]>, res_attrs = [{coreai.name = "add"}], sym_name = "main"}>
coreai.graph @main(%arg0: tensor<2x3xf32> {coreai.name = "x"}, %arg1: tensor<2x3xf32> {coreai.name = "y"}) -> (tensor<2x3xf32> {coreai.name = "add"}) attributes {__coreai_pure__} {
  %0 = coreai.constant dense<2.000000e+00> : tensor<f32>
  %1 = coreai.abs %arg0 : tensor<2x3xf32> -> tensor<2x3xf32>
  %2 = coreai.decomposable.broadcasting_mul %arg1, %0 : (tensor<2x3xf32>, tensor<f32>) -> tensor<2x3xf32>
  %3 = coreai.decomposable.broadcasting_add %1, %2 : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  coreai.output %3 : tensor<2x3xf32>
}

// -----

// CHECK-LABEL: coreai.graph private noinline @helper(
// CHECK:         coreai.output
// GENERIC:       "coreai.graph"() <{function_type = () -> (), no_inline, param_decls = #param.decl.array<[]>, priv, sym_name = "helper"}>
coreai.graph noinline private @helper() {
  coreai.output
}

// -----

// CHECK-LABEL: coreai.graph externalize @ext(
// CHECK:         coreai.output %{{.*}} : tensor<4xi32>
coreai.graph externalize @ext(%x: tensor<4xi32>) -> tensor<4xi32> {
  coreai.output %x : tensor<4xi32>
}
