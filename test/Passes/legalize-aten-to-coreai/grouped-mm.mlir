// RUN: coreai-opt %s --split-input-file --pass-pipeline='builtin.module(legalize-aten-to-coreai)' | FileCheck %s --enable-var-scope

// transformers' fp32 experts product: the expert of each row is the count of
// offsets at or before it, the rows gather their expert's weights and take a
// batch matmul; rows past offs[E-1] (count = E) are zero.
// CHECK-LABEL: coreai.graph @grouped_mm_fallback(
// CHECK-SAME:    %[[X:[^:]*]]: tensor<6x4xf32>, %[[W:[^:]*]]: tensor<3x4x5xf32>, %[[OFFS:[^:]*]]: tensor<3xsi32>
// CHECK:         %[[ROWS:.*]] = coreai.constant dense<[0, 1, 2, 3, 4, 5]> : tensor<6xsi32>
// CHECK:         %[[R:.*]] = coreai.reshape %[[ROWS]], %{{.*}} -> tensor<6x1xsi32>
// CHECK:         %[[O:.*]] = coreai.reshape %[[OFFS]], %{{.*}} -> tensor<1x3xsi32>
// CHECK:         %[[AFTER:.*]] = coreai.decomposable.broadcasting_greater %[[O]], %[[R]] : (tensor<1x3xsi32>, tensor<6x1xsi32>) -> tensor<6x3xi1>
// CHECK:         %[[LE:.*]] = coreai.not %[[AFTER]]
// CHECK:         %[[LEI:.*]] = coreai.cast %[[LE]] : tensor<6x3xi1> to tensor<6x3xsi32>
// CHECK:         %[[AX:.*]] = coreai.constant dense<1> : tensor<1xsi32>
// CHECK:         %[[E:.*]] = coreai.reduce_sum %[[LEI]], %[[AX]] : (tensor<6x3xsi32>, tensor<1xsi32>) -> tensor<6x1xsi32>
// CHECK:         %[[LAST:.*]] = coreai.constant dense<2> : tensor<si32>
// CHECK:         %[[CLAMPED:.*]] = coreai.decomposable.broadcasting_minimum %[[E]], %[[LAST]]
// CHECK:         %[[IDX:.*]] = coreai.reshape %[[CLAMPED]], %{{.*}} -> tensor<6xsi32>
// CHECK:         %[[IDX1:.*]] = coreai.reshape %[[IDX]], %{{.*}} -> tensor<6x1xsi32>
// CHECK:         %[[G:.*]] = coreai.gather_nd %[[W]] at %[[IDX1]] : (tensor<3x4x5xf32>, tensor<6x1xsi32>) to tensor<6x4x5xf32>
// CHECK:         %[[LHS:.*]] = coreai.reshape %[[X]], %{{.*}} -> tensor<6x1x4xf32>
// CHECK:         %[[P:.*]] = coreai.decomposable.broadcasting_batch_matmul %[[LHS]], %[[G]] : (tensor<6x1x4xf32>, tensor<6x4x5xf32>) -> tensor<6x1x5xf32>
// CHECK:         %[[Y:.*]] = coreai.reshape %[[P]], %{{.*}} -> tensor<6x5xf32>
// CHECK:         %[[NE:.*]] = coreai.constant dense<3> : tensor<si32>
// CHECK:         %[[HAS:.*]] = coreai.decomposable.broadcasting_greater %[[NE]], %[[E]] : (tensor<si32>, tensor<6x1xsi32>) -> tensor<6x1xi1>
// CHECK:         %[[ZERO:.*]] = coreai.constant dense<0.000000e+00> : tensor<f32>
// CHECK:         %[[OUT:.*]] = coreai.decomposable.broadcasting_where %[[HAS]], %[[Y]], %[[ZERO]]
// CHECK:         coreai.output %[[OUT]]
func.func @grouped_mm_fallback(%x: tensor<6x4xf32>, %w: tensor<3x4x5xf32>, %offs: tensor<3xi32>) -> tensor<6x5xf32> {
  %0 = aten.operator "transformers::grouped_mm_fallback.default"(%x, %w, %offs) {operand_args = ["input", "weight", "offs"], operand_groups = array<i64: 1, 1, 1>} : (tensor<6x4xf32>, tensor<3x4x5xf32>, tensor<3xi32>) -> tensor<6x5xf32>
  return %0 : tensor<6x5xf32>
}

// -----

// int64 offsets (the fallback's fake accepts them): the rows are compared in
// int64.
// CHECK-LABEL: coreai.graph @grouped_mm_fallback$int64_offsets(
// CHECK:         %[[ROWS:.*]] = coreai.cast %{{.*}} : tensor<6xsi32> to tensor<6xsi64>
// CHECK:         coreai.decomposable.broadcasting_greater %{{.*}}, %{{.*}} : (tensor<1x3xsi64>, tensor<6x1xsi64>) -> tensor<6x3xi1>
func.func @"grouped_mm_fallback$int64_offsets"(%x: tensor<6x4xf32>, %w: tensor<3x4x5xf32>, %offs: tensor<3xi64>) -> tensor<6x5xf32> {
  %0 = aten.operator "transformers::grouped_mm_fallback.default"(%x, %w, %offs) {operand_args = ["input", "weight", "offs"], operand_groups = array<i64: 1, 1, 1>} : (tensor<6x4xf32>, tensor<3x4x5xf32>, tensor<3xi64>) -> tensor<6x5xf32>
  return %0 : tensor<6x5xf32>
}

// -----

// aten._grouped_mm (bf16 experts) with a row count known at run time: the
// row positions are a coreai.range to dim 0 of x.
// CHECK-LABEL: coreai.graph @_grouped_mm$dynamic_rows(
// CHECK-SAME:    %[[X:[^:]*]]: tensor<?x4xbf16>, %[[W:[^:]*]]: tensor<3x4x5xbf16>
// CHECK:         %[[SHAPE:.*]] = coreai.get_shape %[[X]]
// CHECK:         %[[ROWS:.*]] = coreai.range %{{.*}}, %{{.*}}, %{{.*}} : (tensor<si32>, tensor<si32>, tensor<si32>) -> tensor<?xsi32>
// CHECK:         %[[G:.*]] = coreai.gather_nd %[[W]] at %{{.*}} : (tensor<3x4x5xbf16>, tensor<?x1xsi32>) to tensor<?x4x5xbf16>
// CHECK:         coreai.decomposable.broadcasting_batch_matmul %{{.*}}, %[[G]] : (tensor<?x1x4xbf16>, tensor<?x4x5xbf16>) -> tensor<?x1x5xbf16>
// CHECK:         %[[OUT:.*]] = coreai.decomposable.broadcasting_where {{.*}} -> tensor<?x5xbf16>
// CHECK:         coreai.output %[[OUT]]
func.func @"_grouped_mm$dynamic_rows"(%x: tensor<?x4xbf16>, %w: tensor<3x4x5xbf16>, %offs: tensor<3xi32>) -> tensor<?x5xbf16> {
  %0 = aten.operator "aten::_grouped_mm.default"(%x, %w, %offs) {operand_args = ["self", "mat2", "offs"], operand_groups = array<i64: 1, 1, 1>} : (tensor<?x4xbf16>, tensor<3x4x5xbf16>, tensor<3xi32>) -> tensor<?x5xbf16>
  return %0 : tensor<?x5xbf16>
}

// -----

// 3-D × 3-D without offsets is a batch matmul.
// CHECK-LABEL: coreai.graph @_grouped_mm$batched(
// CHECK-SAME:    %[[A:[^:]*]]: tensor<3x2x4xf32>, %[[B:[^:]*]]: tensor<3x4x5xf32>
// CHECK-NEXT:    %[[R:.*]] = coreai.decomposable.broadcasting_batch_matmul %[[A]], %[[B]] : (tensor<3x2x4xf32>, tensor<3x4x5xf32>) -> tensor<3x2x5xf32>
// CHECK-NEXT:    coreai.output %[[R]]
func.func @"_grouped_mm$batched"(%a: tensor<3x2x4xf32>, %b: tensor<3x4x5xf32>) -> tensor<3x2x5xf32> {
  %0 = aten.operator "aten::_grouped_mm.default"(%a, %b) {operand_args = ["self", "mat2"], operand_groups = array<i64: 1, 1>} : (tensor<3x2x4xf32>, tensor<3x4x5xf32>) -> tensor<3x2x5xf32>
  return %0 : tensor<3x2x5xf32>
}

// -----

// Does not fire: another library's op of the same name has no lowering
// (grouped-mm-invalid.mlir), and a plain mm stays a plain batch matmul.
// CHECK-LABEL: coreai.graph @mm$no_gather(
// CHECK-NOT:     coreai.gather_nd
// CHECK:         coreai.decomposable.broadcasting_batch_matmul
func.func @"mm$no_gather"(%a: tensor<3x4xf32>, %b: tensor<4x5xf32>) -> tensor<3x5xf32> {
  %0 = aten.mm.default %a, %b : (tensor<3x4xf32>, tensor<4x5xf32>) -> tensor<3x5xf32>
  return %0 : tensor<3x5xf32>
}
