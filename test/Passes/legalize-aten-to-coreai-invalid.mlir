// RUN: coreai-opt %s --split-input-file --verify-diagnostics --pass-pipeline='builtin.module(legalize-aten-to-coreai)'
// RUN: coreai-opt %s --split-input-file --verify-diagnostics --pass-pipeline='builtin.module(legalize-aten-to-coreai{table=coreai})'

// Unsupported ops: one error listing each op once, sorted; one note per
// occurrence at its location.
func.func @unsupported(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  // expected-error @+2 {{the module contains unsupported ops: aten.mean.dim, aten.relu.default, my_lib::scaled_add.default; register a lowering}}
  // expected-note @+1 {{'aten.relu.default' has no lowering}}
  %0 = aten.relu.default %x : (tensor<2x3xf32>) -> tensor<2x3xf32>
  // expected-note @+1 {{'aten.mean.dim' has no lowering}}
  %1 = aten.mean.dim %0 {dim = [1], keepdim = true} : (tensor<2x3xf32>) -> tensor<2x1xf32>
  // expected-note @+1 {{'my_lib::scaled_add.default' has no lowering}}
  %2 = aten.operator "my_lib::scaled_add.default"(%0, %0) : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  // expected-note @+1 {{'aten.relu.default' has no lowering}}
  %3 = aten.relu.default %2 : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return %3 : tensor<2x3xf32>
}

// -----

// An op the decomposition table would have decomposed is reported as
// non-decomposed, with the fix.
func.func @non_decomposed(%x: tensor<2x3xf32>, %w: tensor<4x3xf32>) -> tensor<2x4xf32> {
  // expected-error @+2 {{the module contains non-decomposed ops: aten.linear.default; run the 'decompose' pass with table=coreai first}}
  // expected-note @+1 {{'aten.linear.default' is decomposed by the 'coreai' table}}
  %0 = aten.operator "aten::linear.default"(%x, %w) : (tensor<2x3xf32>, tensor<4x3xf32>) -> tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}

// -----

// A sibling overload with a lowering is suggested.
func.func @sibling(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+2 {{unsupported ops: aten.add.Scalar}}
  // expected-note @+1 {{'aten.add.Scalar' has no lowering; did you mean 'aten.add.Tensor'?}}
  %0 = aten.operator "aten::add.Scalar"(%x) {other = 1.0 : f64, alpha = 1 : i64} : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// A lowering that declines reports why, at the op.
func.func @mixed_dtypes(%a: tensor<4xf32>, %b: tensor<4xi32>) -> tensor<4xf32> {
  // expected-error @+1 {{cannot lower 'aten::add.Tensor': operand #1 is i32 but the result is f32: the type promotion needs an explicit cast}}
  %0 = aten.add.Tensor %a, %b {alpha = 1 : i64} : (tensor<4xf32>, tensor<4xi32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// A Python float that fp16 cannot hold exactly is not silently rounded.
func.func @inexact_alpha(%a: tensor<4xf16>, %b: tensor<4xf16>) -> tensor<4xf16> {
  // expected-error @+1 {{cannot lower 'aten::add.Tensor': 0.1 is not exactly representable in f16}}
  %0 = aten.add.Tensor %a, %b {alpha = 0.1 : f64} : (tensor<4xf16>, tensor<4xf16>) -> tensor<4xf16>
  return %0 : tensor<4xf16>
}
