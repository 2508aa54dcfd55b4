// RUN: coreai-opt %s --split-input-file --verify-diagnostics --pass-pipeline='builtin.module(legalize-aten-to-coreai)'

// An unknown coreai:: op is unsupported; the note lists what the namespace lowers.
func.func @unknown_coreai_op(%x: tensor<2xf32>) -> tensor<2xf32> {
  // expected-error @below {{the module contains unsupported ops: coreai::foo.default; register a lowering}}
  // expected-note @below {{'coreai::foo.default' has no lowering; the coreai namespace lowers (any of the overloads .default, .Tensor, .Scalar, .dim, or none): constexpr_blockwise_shift_scale, dequantize, lut_to_dense, quantize, sparse_to_dense}}
  %0 = aten.operator "coreai::foo.default"(%x) {operand_args = ["x"], operand_groups = array<i64: 1>} : (tensor<2xf32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

// Only .default, .Tensor, .Scalar and .dim are stripped (coreai-torch's rule).
func.func @other_overload(%x: tensor<2xf32>, %s: tensor<f32>) -> tensor<2xui8> {
  // expected-error @below {{the module contains unsupported ops: coreaix::quantize.out}}
  // expected-note @below {{'coreaix::quantize.out' has no lowering; the coreaix namespace lowers}}
  %0 = aten.operator "coreaix::quantize.out"(%x, %s) {output_dtype = ui8, operand_args = ["input", "scale"], operand_groups = array<i64: 1, 1>} : (tensor<2xf32>, tensor<f32>) -> tensor<2xui8>
  return %0 : tensor<2xui8>
}

// -----

func.func @lut_not_power_of_two(%i: tensor<2xui8>, %lut: tensor<1x5x1xf32>) -> tensor<2xf32> {
  // expected-error @below {{cannot lower 'coreai::lut_to_dense.default': a LUT of 5 entries; coreai indices have 1, 2, 3, 4, 6 or 8 bits}}
  %0 = aten.operator "coreai::lut_to_dense.default"(%i, %lut) {axis = 0 : i64, operand_args = ["indices", "lut"], operand_groups = array<i64: 1, 1>} : (tensor<2xui8>, tensor<1x5x1xf32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

func.func @lut_index_out_of_range(%lut: tensor<1x4x1xf32>) -> tensor<2xf32> {
  %i = arith.constant dense<[1, 7]> : tensor<2xui8>
  // expected-error @below {{cannot lower 'coreai::lut_to_dense.default': the value 7 does not fit ui2}}
  %0 = aten.operator "coreai::lut_to_dense.default"(%i, %lut) {axis = 0 : i64, operand_args = ["indices", "lut"], operand_groups = array<i64: 1, 1>} : (tensor<2xui8>, tensor<1x4x1xf32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

func.func @minval_without_input_dtype(%q: tensor<2x2xi8>, %s: tensor<2x2xf32>, %m: tensor<2x2xf32>) -> tensor<2x2xf32> {
  // expected-error @below {{cannot lower 'coreai::constexpr_blockwise_shift_scale.default': minval needs input_dtype}}
  %0 = aten.operator "coreai::constexpr_blockwise_shift_scale.default"(%q, %s, %m) {operand_args = ["input", "scale", "minval"], operand_groups = array<i64: 1, 1, 1>} : (tensor<2x2xi8>, tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
  return %0 : tensor<2x2xf32>
}

// -----

func.func @runtime_mask(%v: tensor<1xf32>, %m: tensor<2xi1>) -> tensor<2xf32> {
  // expected-error @below {{cannot lower 'coreai::sparse_to_dense.default': tensor<2xi1> is computed at run time; coreai needs it as ui1, which coreai.cast cannot produce}}
  %0 = aten.operator "coreai::sparse_to_dense.default"(%v, %m) {operand_args = ["nonzero_data", "mask"], operand_groups = array<i64: 1, 1>} : (tensor<1xf32>, tensor<2xi1>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

func.func @lut_blocks_do_not_divide(%lut: tensor<3x1x4x1xf32>) -> tensor<4x2xf32> {
  %i = arith.constant dense<0> : tensor<4x2xui8>
  // expected-error @below {{cannot lower 'coreai::lut_to_dense.default': the LUT's 3 blocks along dim 0 do not divide the 4 indices there}}
  %0 = aten.operator "coreai::lut_to_dense.default"(%i, %lut) {axis = 0 : i64, operand_args = ["indices", "lut"], operand_groups = array<i64: 1, 1>} : (tensor<4x2xui8>, tensor<3x1x4x1xf32>) -> tensor<4x2xf32>
  return %0 : tensor<4x2xf32>
}

// -----

func.func @sparse_count_mismatch(%v: tensor<2xf32>) -> tensor<2x2xf32> {
  %m = arith.constant dense<[[true, true], [true, false]]> : tensor<2x2xi1>
  // expected-error @below {{cannot lower 'coreai::sparse_to_dense.default': 2 nonzero values for a mask with 3 set entries}}
  %0 = aten.operator "coreai::sparse_to_dense.default"(%v, %m) {operand_args = ["nonzero_data", "mask"], operand_groups = array<i64: 1, 1>} : (tensor<2xf32>, tensor<2x2xi1>) -> tensor<2x2xf32>
  return %0 : tensor<2x2xf32>
}

// -----

// Found by the pipeline fuzz target: a negative operand group size (an
// arithmetic overflow panic before).
func.func @sparse_to_dense_negative_group(%v: tensor<3xf32>, %m: tensor<2x3xi1>) -> tensor<2x3xf32> {
  // expected-error @below {{cannot lower 'coreai::sparse_to_dense.default': operand_groups entry -1 is not an operand count}}
  %0 = aten.operator "coreai::sparse_to_dense.default"(%v, %m) {operand_args = ["nonzeroOdata", "mask"], operand_groups = array<i64: 1, -1>} : (tensor<3xf32>, tensor<2x3xi1>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}
