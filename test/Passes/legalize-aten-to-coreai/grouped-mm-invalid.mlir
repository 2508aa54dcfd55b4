// RUN: coreai-opt %s --split-input-file --verify-diagnostics --pass-pipeline='builtin.module(legalize-aten-to-coreai)'

// Grouped matmuls that decline, with the reason.

func.func @jagged_k(%a: tensor<4x8xf32>, %b: tensor<8x6xf32>, %offs: tensor<2xi32>) -> tensor<2x4x6xf32> {
  // expected-error @+1 {{cannot lower 'aten::_grouped_mm.default': _grouped_mm of a rank-2 and a rank-2 operand with offsets is not lowered; lowered forms: [S, K] × [E, K, N] with offs, [E, M, K] × [E, K, N] without}}
  %0 = aten.operator "aten::_grouped_mm.default"(%a, %b, %offs) {operand_args = ["self", "mat2", "offs"], operand_groups = array<i64: 1, 1, 1>} : (tensor<4x8xf32>, tensor<8x6xf32>, tensor<2xi32>) -> tensor<2x4x6xf32>
  return %0 : tensor<2x4x6xf32>
}

// -----

func.func @bias(%x: tensor<6x4xf32>, %w: tensor<3x4x5xf32>, %offs: tensor<3xi32>, %b: tensor<3x5xf32>) -> tensor<6x5xf32> {
  // expected-error @+1 {{cannot lower 'aten::_grouped_mm.default': _grouped_mm with a bias is not lowered (PyTorch's CPU kernel rejects it too); add the bias after the product}}
  %0 = aten.operator "aten::_grouped_mm.default"(%x, %w, %offs, %b) {operand_args = ["self", "mat2", "offs", "bias"], operand_groups = array<i64: 1, 1, 1, 1>} : (tensor<6x4xf32>, tensor<3x4x5xf32>, tensor<3xi32>, tensor<3x5xf32>) -> tensor<6x5xf32>
  return %0 : tensor<6x5xf32>
}

// -----

func.func @out_dtype(%x: tensor<6x4xbf16>, %w: tensor<3x4x5xbf16>, %offs: tensor<3xi32>) -> tensor<6x5xf32> {
  // expected-error @+1 {{cannot lower 'aten::_grouped_mm.default': _grouped_mm from tensor<6x4xbf16> and tensor<3x4x5xbf16> to f32: only an out_dtype equal to the operands' is lowered}}
  %0 = aten.operator "aten::_grouped_mm.default"(%x, %w, %offs) {out_dtype = f32, operand_args = ["self", "mat2", "offs"], operand_groups = array<i64: 1, 1, 1>} : (tensor<6x4xbf16>, tensor<3x4x5xbf16>, tensor<3xi32>) -> tensor<6x5xf32>
  return %0 : tensor<6x5xf32>
}

// -----

func.func @dynamic_experts(%x: tensor<6x4xf32>, %w: tensor<?x4x5xf32>, %offs: tensor<?xi32>) -> tensor<6x5xf32> {
  // expected-error @+1 {{cannot lower 'transformers::grouped_mm_fallback.default': the expert count (dim 0 of tensor<?x4x5xf32>) is dynamic; grouped matmul needs it static}}
  %0 = aten.operator "transformers::grouped_mm_fallback.default"(%x, %w, %offs) {operand_args = ["input", "weight", "offs"], operand_groups = array<i64: 1, 1, 1>} : (tensor<6x4xf32>, tensor<?x4x5xf32>, tensor<?xi32>) -> tensor<6x5xf32>
  return %0 : tensor<6x5xf32>
}

// -----

func.func @mismatched_offsets(%x: tensor<6x4xf32>, %w: tensor<3x4x5xf32>, %offs: tensor<2xi32>) -> tensor<6x5xf32> {
  // expected-error @+1 {{cannot lower 'transformers::grouped_mm_fallback.default': grouped matmul shapes do not agree: x tensor<6x4xf32>, w tensor<3x4x5xf32>, offs tensor<2xsi32>}}
  %0 = aten.operator "transformers::grouped_mm_fallback.default"(%x, %w, %offs) {operand_args = ["input", "weight", "offs"], operand_groups = array<i64: 1, 1, 1>} : (tensor<6x4xf32>, tensor<3x4x5xf32>, tensor<2xi32>) -> tensor<6x5xf32>
  return %0 : tensor<6x5xf32>
}

// -----

func.func @float_offsets(%x: tensor<6x4xf32>, %w: tensor<3x4x5xf32>, %offs: tensor<3xf32>) -> tensor<6x5xf32> {
  // expected-error @+1 {{cannot lower 'transformers::grouped_mm_fallback.default': offs must be an integer tensor, got tensor<3xf32>}}
  %0 = aten.operator "transformers::grouped_mm_fallback.default"(%x, %w, %offs) {operand_args = ["input", "weight", "offs"], operand_groups = array<i64: 1, 1, 1>} : (tensor<6x4xf32>, tensor<3x4x5xf32>, tensor<3xf32>) -> tensor<6x5xf32>
  return %0 : tensor<6x5xf32>
}

// -----

// Another op of the transformers library has no built-in lowering: the
// validation names it.
func.func @other_transformers_op(%x: tensor<6x4xf32>) -> tensor<6x4xf32> {
  // expected-error @+2 {{the module contains unsupported ops: transformers::other_op.default}}
  // expected-note @+1 {{'transformers::other_op.default' has no lowering}}
  %0 = aten.operator "transformers::other_op.default"(%x) {operand_args = ["input"], operand_groups = array<i64: 1>} : (tensor<6x4xf32>) -> tensor<6x4xf32>
  return %0 : tensor<6x4xf32>
}
