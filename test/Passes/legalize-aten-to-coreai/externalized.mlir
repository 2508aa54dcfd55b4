// RUN: coreai-opt %s --pass-pipeline='builtin.module(legalize-aten-to-coreai)' | FileCheck %s

// Externalized submodules (coreai_export --externalize): a function marked
// coreai.noinline becomes a noinline coreai.graph, private with its
// composite declaration for a composite op, public without one; its calls
// become coreai.invoke and its body is lowered like any other.

// CHECK-LABEL: coreai.graph private noinline @norm(
// CHECK-SAME:    %[[W:.*]]: tensor<4xf32> {coreai.name = "weight"}, %[[X:.*]]: tensor<2x4xf32> {coreai.name = "x"})
// CHECK-SAME:    attributes {composite_decl = #coreai.composite_declaration<"rms_norm" = {input_names = ["weight", "x"], op_attrs = {eps = 9.99999974E-6 : f32, version = 1 : si64}, output_names = ["output"]}>}
// CHECK:         coreai.decomposable.broadcasting_mul %[[X]], %[[W]]
func.func private @norm(%w: tensor<4xf32> {coreai.name = "weight"}, %x: tensor<2x4xf32> {coreai.name = "x"}) -> (tensor<2x4xf32> {coreai.name = "output"}) attributes {coreai.noinline, coreai.composite_decl = #coreai.composite_declaration<"rms_norm" = {input_names = ["weight", "x"], op_attrs = {eps = 1.0e-05 : f32, version = 1 : si64}, output_names = ["output"]}>} {
  %0 = aten.mul.Tensor %x, %w : (tensor<2x4xf32>, tensor<4xf32>) -> tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}

// CHECK-LABEL: coreai.graph noinline @act(
// CHECK-NOT:     composite_decl
// CHECK:         coreai.tanh
func.func @act(%x: tensor<2x4xf32> {coreai.name = "x"}) -> (tensor<2x4xf32> {coreai.name = "output"}) attributes {coreai.noinline} {
  %0 = aten.tanh.default %x : (tensor<2x4xf32>) -> tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}

// CHECK-LABEL: coreai.graph @main(
// CHECK:         %[[C:.*]] = coreai.constant dense<2.000000e+00> : tensor<4xf32>
// CHECK:         %[[N:.*]] = coreai.invoke @norm(%[[C]], %arg0)
// CHECK:         coreai.invoke @act(%[[N]])
func.func @main(%x: tensor<2x4xf32> {coreai.name = "x"}) -> (tensor<2x4xf32> {coreai.name = "output"}) {
  %w = arith.constant dense<2.0> : tensor<4xf32>
  %0 = func.call @norm(%w, %x) : (tensor<4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
  %1 = func.call @act(%0) : (tensor<2x4xf32>) -> tensor<2x4xf32>
  return %1 : tensor<2x4xf32>
}
