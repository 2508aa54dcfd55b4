// RUN: coreai-opt %s --split-input-file --verify-diagnostics --pass-pipeline='builtin.module(legalize-aten-to-coreai)'
// RUN: coreai-opt %s --split-input-file --verify-diagnostics --pass-pipeline='builtin.module(legalize-aten-to-coreai{table=coreai})'

// Unsupported ops: one error listing each op once, sorted; one note per
// occurrence at its location.
func.func @unsupported(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  // expected-error @+2 {{the module contains unsupported ops: aten.special_bessel_j0.default, aten.special_i0e.default, my_lib::scaled_add.default; register a lowering}}
  // expected-note @+1 {{'aten.special_i0e.default' has no lowering}}
  %0 = aten.operator "aten::special_i0e.default"(%x) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  // expected-note @+1 {{'aten.special_bessel_j0.default' has no lowering}}
  %1 = aten.operator "aten::special_bessel_j0.default"(%0) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  // expected-note @+1 {{'my_lib::scaled_add.default' has no lowering}}
  %2 = aten.operator "my_lib::scaled_add.default"(%0, %1) : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  // expected-note @+1 {{'aten.special_i0e.default' has no lowering}}
  %3 = aten.operator "aten::special_i0e.default"(%2) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return %3 : tensor<2x3xf32>
}

// -----

// An op the decomposition table would have decomposed is reported as
// non-decomposed, with the fix.
func.func @non_decomposed(%x: tensor<2x4xf32>) -> tensor<2x4xf32> {
  // expected-error @+2 {{the module contains non-decomposed ops: aten.glu.default; run the 'decompose' pass with table=coreai first}}
  // expected-note @+1 {{'aten.glu.default' is decomposed by the 'coreai' table}}
  %0 = aten.operator "aten::glu.default"(%x) : (tensor<2x4xf32>) -> tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}

// -----

// Sibling overloads with a lowering are suggested.
func.func @sibling(%x: tensor<4x3xf32>) -> tensor<4xf32> {
  // expected-error @+2 {{unsupported ops: aten.mean.names_dim}}
  // expected-note @+1 {{'aten.mean.names_dim' has no lowering; did you mean 'aten.mean.default', 'aten.mean.dim'?}}
  %0 = aten.operator "aten::mean.names_dim"(%x) {keepdim = false} : (tensor<4x3xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// A lowering that declines reports why, at the op.
func.func @unranked(%a: tensor<*xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{cannot lower 'aten::add.Tensor': tensor<*xf32> is not a ranked tensor}}
  %0 = aten.operator "aten::add.Tensor"(%a, %b) {alpha = 1 : i64} : (tensor<*xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
