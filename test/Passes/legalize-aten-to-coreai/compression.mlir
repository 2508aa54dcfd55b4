// RUN: coreai-opt %s --split-input-file --pass-pipeline='builtin.module(legalize-aten-to-coreai)' | FileCheck %s --enable-var-scope

// coreai-torch's compression custom ops (torch.ops.coreai.*), as the importer
// writes them, lower by rung 4 of the dispatch ladder, matched variantless.

// A 4-entry LUT takes 2-bit indices: the uint8 constant is re-emitted as ui2
// (coreai-torch's inject_subbyte_tensors); axis is a si16 constant.
// CHECK-LABEL: coreai.graph @lut_to_dense_2bit(
// CHECK-SAME:    %[[LUT:[^:]*]]: tensor<1x1x4x1xf32>
// CHECK-NEXT:    %[[I:.*]] = coreai.constant dense<{{\[\[}}0, 3, 1], [2, 2, 0]]> : tensor<2x3xui2>
// CHECK-NEXT:    %[[A:.*]] = coreai.constant dense<0> : tensor<si16>
// CHECK-NEXT:    %[[R:.*]] = coreai.lut_to_dense %[[I]], %[[LUT]], %[[A]] : (tensor<2x3xui2>, tensor<1x1x4x1xf32>, tensor<si16>) -> tensor<2x3xf32>
// CHECK-NEXT:    coreai.output %[[R]]
func.func @lut_to_dense_2bit(%lut: tensor<1x1x4x1xf32>) -> tensor<2x3xf32> {
  %i = arith.constant dense<[[0, 3, 1], [2, 2, 0]]> : tensor<2x3xui8>
  %0 = aten.operator "coreai::lut_to_dense.default"(%i, %lut) {axis = 0 : i64, operand_args = ["indices", "lut"], operand_groups = array<i64: 1, 1>} : (tensor<2x3xui8>, tensor<1x1x4x1xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}


// -----

// No overload suffix (variantless match); run-time indices are cast to ui4
// for a 16-entry LUT; a negative axis is normalized.
// CHECK-LABEL: coreai.graph @lut_to_dense_vector(
// CHECK-SAME:    %[[IDX:[^:]*]]: tensor<2x3xui8>, %[[LUT:[^:]*]]: tensor<2x1x16x2xf16>
// CHECK-NEXT:    %[[I:.*]] = coreai.cast %[[IDX]] : tensor<2x3xui8> to tensor<2x3xui4>
// CHECK-NEXT:    %[[A:.*]] = coreai.constant dense<1> : tensor<si16>
// CHECK-NEXT:    %[[R:.*]] = coreai.lut_to_dense %[[I]], %[[LUT]], %[[A]] : (tensor<2x3xui4>, tensor<2x1x16x2xf16>, tensor<si16>) -> tensor<2x6xf16>
func.func @lut_to_dense_vector(%i: tensor<2x3xui8>, %lut: tensor<2x1x16x2xf16>) -> tensor<2x6xf16> {
  %0 = aten.operator "coreai::lut_to_dense"(%i, %lut) {axis = -1 : i64, operand_args = ["indices", "lut"], operand_groups = array<i64: 1, 1>} : (tensor<2x3xui8>, tensor<2x1x16x2xf16>) -> tensor<2x6xf16>
  return %0 : tensor<2x6xf16>
}


// -----

// Zero-point mode: offset1 = zero_point, offset2 = 0 in the output dtype.
// CHECK-LABEL: coreai.graph @blockwise_zero_point(
// CHECK-SAME:    %[[Q:[^:]*]]: tensor<4x6xsi8>, %[[S:[^:]*]]: tensor<2x3xf32>, %[[ZP:[^:]*]]: tensor<2x3xsi8>
// CHECK-NEXT:    %[[Z:.*]] = coreai.constant dense<0.000000e+00> : tensor<2x3xf32>
// CHECK-NEXT:    %[[R:.*]] = coreai.blockwise_shift_scale %[[Q]], %[[S]], %[[ZP]], %[[Z]] : (tensor<4x6xsi8>, tensor<2x3xf32>, tensor<2x3xsi8>, tensor<2x3xf32>) -> tensor<4x6xf32>
func.func @blockwise_zero_point(%q: tensor<4x6xi8>, %s: tensor<2x3xf32>, %zp: tensor<2x3xi8>) -> tensor<4x6xf32> {
  %0 = aten.operator "coreai::constexpr_blockwise_shift_scale.default"(%q, %s, %zp) {operand_args = ["input", "scale", "zero_point"], operand_groups = array<i64: 1, 1, 1>} : (tensor<4x6xi8>, tensor<2x3xf32>, tensor<2x3xi8>) -> tensor<4x6xf32>
  return %0 : tensor<4x6xf32>
}


// -----

// Minval mode: offset1 = q_min of input_dtype (int4: -8) in the storage
// dtype, offset2 = minval.
// CHECK-LABEL: coreai.graph @blockwise_minval(
// CHECK-SAME:    %[[Q:[^:]*]]: tensor<4x6xsi8>, %[[S:[^:]*]]: tensor<4x1xf16>, %[[M:[^:]*]]: tensor<4x1xf16>
// CHECK-NEXT:    %[[QMIN:.*]] = coreai.constant dense<-8> : tensor<4x1xsi8>
// CHECK-NEXT:    %[[R:.*]] = coreai.blockwise_shift_scale %[[Q]], %[[S]], %[[QMIN]], %[[M]] : (tensor<4x6xsi8>, tensor<4x1xf16>, tensor<4x1xsi8>, tensor<4x1xf16>) -> tensor<4x6xf16>
func.func @blockwise_minval(%q: tensor<4x6xi8>, %s: tensor<4x1xf16>, %m: tensor<4x1xf16>) -> tensor<4x6xf16> {
  %0 = aten.operator "coreai::constexpr_blockwise_shift_scale.default"(%q, %s, %m) {input_dtype = i4, operand_args = ["input", "scale", "minval"], operand_groups = array<i64: 1, 1, 1>} : (tensor<4x6xi8>, tensor<4x1xf16>, tensor<4x1xf16>) -> tensor<4x6xf16>
  return %0 : tensor<4x6xf16>
}


// -----

// Constant int4 weights held in int8 (input_dtype = si4) and their zero
// points are stored as si4; a run-time input keeps its storage (above).
// CHECK-LABEL: coreai.graph @blockwise_int4_constant(
// CHECK-SAME:    %[[S:[^:]*]]: tensor<1x2xf32>
// CHECK-DAG:     %[[Z:.*]] = coreai.constant dense<0.000000e+00> : tensor<1x2xf32>
// CHECK-DAG:     %[[ZP:.*]] = coreai.constant dense<{{\[\[}}-1, 2]]> : tensor<1x2xsi4>
// CHECK-DAG:     %[[Q:.*]] = coreai.constant dense<{{\[\[}}-8, 7, 0, -1]]> : tensor<1x4xsi4>
// CHECK:         coreai.blockwise_shift_scale %[[Q]], %[[S]], %[[ZP]], %[[Z]] : (tensor<1x4xsi4>, tensor<1x2xf32>, tensor<1x2xsi4>, tensor<1x2xf32>) -> tensor<1x4xf32>
func.func @blockwise_int4_constant(%s: tensor<1x2xf32>) -> tensor<1x4xf32> {
  %q = arith.constant dense<[[-8, 7, 0, -1]]> : tensor<1x4xi8>
  %zp = arith.constant dense<[[-1, 2]]> : tensor<1x2xi8>
  %0 = aten.operator "coreai::constexpr_blockwise_shift_scale.default"(%q, %s, %zp) {input_dtype = si4, operand_args = ["input", "scale", "zero_point"], operand_groups = array<i64: 1, 1, 1>} : (tensor<1x4xi8>, tensor<1x2xf32>, tensor<1x2xi8>) -> tensor<1x4xf32>
  return %0 : tensor<1x4xf32>
}

// -----

// Per-channel along axis 1: scale and offsets are [3], axis a si32 constant.
// CHECK-LABEL: coreai.graph @quantize_per_channel(
// CHECK-SAME:    %[[X:[^:]*]]: tensor<2x3xf32>, %[[S:[^:]*]]: tensor<3xf32>, %[[ZP:[^:]*]]: tensor<3xui8>
// CHECK-NEXT:    %[[Z:.*]] = coreai.constant dense<0.000000e+00> : tensor<3xf32>
// CHECK-NEXT:    %[[A:.*]] = coreai.constant dense<1> : tensor<si32>
// CHECK-NEXT:    %[[R:.*]] = coreai.quantize %[[X]], %[[S]], %[[ZP]], %[[Z]], %[[A]] : (tensor<2x3xf32>, tensor<3xf32>, tensor<3xui8>, tensor<3xf32>, tensor<si32>) -> tensor<2x3xui8>
func.func @quantize_per_channel(%x: tensor<2x3xf32>, %s: tensor<3xf32>, %zp: tensor<3xui8>) -> tensor<2x3xui8> {
  %0 = aten.operator "coreai::quantize.default"(%x, %s, %zp) {axis = 1 : i64, output_dtype = ui8, operand_args = ["input", "scale", "zero_point"], operand_groups = array<i64: 1, 1, 1>} : (tensor<2x3xf32>, tensor<3xf32>, tensor<3xui8>) -> tensor<2x3xui8>
  return %0 : tensor<2x3xui8>
}


// -----

// f16 input: (x - minval) / scale in f16 by elementwise ops (PyTorch rounds
// there; coreai-core's quantize would divide in f32), then quantize with
// scale 1 and offset2 0.
// CHECK-LABEL: coreai.graph @quantize_half_minval(
// CHECK-SAME:    %[[X:[^:]*]]: tensor<2x3xf16>, %[[S:[^:]*]]: tensor<f16>, %[[M:[^:]*]]: tensor<f16>
// CHECK-NEXT:    %[[QMIN:.*]] = coreai.constant dense<0> : tensor<ui8>
// CHECK-NEXT:    %[[SH:.*]] = coreai.decomposable.broadcasting_sub %[[X]], %[[M]] : (tensor<2x3xf16>, tensor<f16>) -> tensor<2x3xf16>
// CHECK-NEXT:    %[[QT:.*]] = coreai.decomposable.broadcasting_divide %[[SH]], %[[S]] : (tensor<2x3xf16>, tensor<f16>) -> tensor<2x3xf16>
// CHECK-NEXT:    %[[ONE:.*]] = coreai.constant dense<1.000000e+00> : tensor<f16>
// CHECK-NEXT:    %[[ZERO:.*]] = coreai.constant dense<0.000000e+00> : tensor<f16>
// CHECK-NEXT:    %[[A:.*]] = coreai.constant dense<0> : tensor<si32>
// CHECK-NEXT:    coreai.quantize %[[QT]], %[[ONE]], %[[QMIN]], %[[ZERO]], %[[A]] : (tensor<2x3xf16>, tensor<f16>, tensor<ui8>, tensor<f16>, tensor<si32>) -> tensor<2x3xui8>
func.func @quantize_half_minval(%x: tensor<2x3xf16>, %s: tensor<f16>, %m: tensor<f16>) -> tensor<2x3xui8> {
  %0 = aten.operator "coreai::quantize.default"(%x, %s, %m) {output_dtype = ui8, operand_args = ["input", "scale", "minval"], operand_groups = array<i64: 1, 1, 1>} : (tensor<2x3xf16>, tensor<f16>, tensor<f16>) -> tensor<2x3xui8>
  return %0 : tensor<2x3xui8>
}

// -----

// The coreaix namespace and a .Tensor variant match too; no offsets: both 0.
// CHECK-LABEL: coreai.graph @dequantize_per_tensor(
// CHECK-SAME:    %[[Q:[^:]*]]: tensor<2x3xsi8>, %[[S:[^:]*]]: tensor<f32>
// CHECK-NEXT:    %[[O1:.*]] = coreai.constant dense<0> : tensor<si8>
// CHECK-NEXT:    %[[O2:.*]] = coreai.constant dense<0.000000e+00> : tensor<f32>
// CHECK-NEXT:    %[[A:.*]] = coreai.constant dense<0> : tensor<si32>
// CHECK-NEXT:    %[[R:.*]] = coreai.dequantize %[[Q]], %[[S]], %[[O1]], %[[O2]], %[[A]] : (tensor<2x3xsi8>, tensor<f32>, tensor<si8>, tensor<f32>, tensor<si32>) -> tensor<2x3xf32>
func.func @dequantize_per_tensor(%q: tensor<2x3xi8>, %s: tensor<f32>) -> tensor<2x3xf32> {
  %0 = aten.operator "coreaix::dequantize.Tensor"(%q, %s) {operand_args = ["input", "scale"], operand_groups = array<i64: 1, 1>} : (tensor<2x3xi8>, tensor<f32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}


// -----

// The bool mask becomes a ui1 constant; the values build a bitmask-sparse
// tensor, which is densified.
// CHECK-LABEL: coreai.graph @sparse_to_dense(
// CHECK-SAME:    %[[V:[^:]*]]: tensor<3xf32>
// CHECK-NEXT:    %[[M:.*]] = coreai.constant dense<{{\[\[}}true, false, true], [false, true, false]]> : tensor<2x3xui1>
// CHECK-NEXT:    %[[SP:.*]] = coreai.build_sparse_with_bitmask %[[V]], %[[M]] : (tensor<3xf32>, tensor<2x3xui1>) -> tensor<2x3xf32, #coreai.sparse_tensor_encoding<bitmask, numNonZero = 3, posWidth = 1, crdWidth = 1>>
// CHECK-NEXT:    %[[R:.*]] = coreai.sparse_with_bitmask_to_dense %[[SP]] : tensor<2x3xf32, #coreai.sparse_tensor_encoding<bitmask, numNonZero = 3, posWidth = 1, crdWidth = 1>> -> tensor<2x3xf32>
// CHECK-NEXT:    coreai.output %[[R]]
func.func @sparse_to_dense(%v: tensor<3xf32>) -> tensor<2x3xf32> {
  %m = arith.constant dense<[[true, false, true], [false, true, false]]> : tensor<2x3xi1>
  %0 = aten.operator "coreai::sparse_to_dense.default"(%v, %m) {operand_args = ["nonzero_data", "mask"], operand_groups = array<i64: 1, 1>} : (tensor<3xf32>, tensor<2x3xi1>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}
