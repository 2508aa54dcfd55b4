// RUN: coreai-opt %s --split-input-file --pass-pipeline='builtin.module(legalize-aten-to-coreai{composites=inline})' | FileCheck %s --enable-var-scope

// A slice whose start and end are run-time values (an `.item()`, a symbolic
// size): each is clamped to ±(2^31-1) in si64, cast to si32 and joined with
// the constant bounds of the other dims; coreai.slice wraps a negative bound
// once and clamps to the dim, as PyTorch does.
// CHECK-LABEL: coreai.graph @slice_item_bounds(
// CHECK-SAME:    %[[X:[^:]*]]: tensor<?x6xf32>, %[[C:[^:]*]]: tensor<si64>)
// CHECK:         %[[LO:.*]] = coreai.constant dense<-2147483647> : tensor<si64>
// CHECK:         %[[HI:.*]] = coreai.constant dense<2147483647> : tensor<si64>
// CHECK:         %[[M:.*]] = coreai.decomposable.broadcasting_maximum %[[C]], %[[LO]]
// CHECK:         %[[B:.*]] = coreai.decomposable.broadcasting_minimum %[[M]], %[[HI]]
// CHECK:         %[[B1:.*]] = coreai.reshape %[[B]], %{{.*}} : (tensor<si64>, tensor<1xui32>) -> tensor<1xsi64>
// CHECK:         %[[B2:.*]] = coreai.cast %[[B1]] : tensor<1xsi64> to tensor<1xsi32>
// CHECK:         %[[S:.*]] = coreai.concat %{{.*}}, %{{.*}}, %[[B2]] : (tensor<si32>, tensor<1xsi32>, tensor<1xsi32>) -> tensor<2xsi32>
// CHECK:         %[[E:.*]] = coreai.concat %{{.*}} -> tensor<2xsi32>
// CHECK:         %[[ST:.*]] = coreai.constant dense<1> : tensor<2xsi32>
// CHECK:         %[[R:.*]] = coreai.slice %[[X]], %[[S]], %[[E]], %[[ST]] : (tensor<?x6xf32>, tensor<2xsi32>, tensor<2xsi32>, tensor<2xsi32>) -> tensor<?x?xf32>
// CHECK:         coreai.output %[[R]]
func.func @slice_item_bounds(%x: tensor<?x6xf32>, %col: tensor<i64>) -> tensor<?x?xf32> {
  %c = aten._local_scalar_dense.default %col : (tensor<i64>) -> i64
  %two = arith.constant 2 : i64
  %end = aten.add %c, %two : (i64, i64) -> i64
  %0 = aten.operator "aten::slice.Tensor"(%x, %c, %end) {dim = 1 : i64, step = 1 : i64, operand_args = ["self", "start", "end"], operand_groups = array<i64: 1, 1, 1>} : (tensor<?x6xf32>, i64, i64) -> tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}

// -----

// Only the end is symbolic: the start stays the constant attribute.
// CHECK-LABEL: coreai.graph @slice_symbolic_end(
// CHECK:         %[[S:.*]] = coreai.constant dense<[1, 0]> : tensor<2xsi32>
// CHECK:         %[[E:.*]] = coreai.concat {{.*}} -> tensor<2xsi32>
// CHECK:         %[[ST:.*]] = coreai.constant dense<[2, 1]> : tensor<2xsi32>
// CHECK:         coreai.slice %{{.*}}, %[[S]], %[[E]], %[[ST]] : (tensor<?x8xf32>, tensor<2xsi32>, tensor<2xsi32>, tensor<2xsi32>) -> tensor<?x8xf32>
func.func @slice_symbolic_end(%x: tensor<?x8xf32>) -> tensor<?x8xf32> {
  %n = aten.sym_size.int %x {dim = 0 : i64} : (tensor<?x8xf32>) -> i64
  %one = arith.constant 1 : i64
  %end = aten.sub %n, %one : (i64, i64) -> i64
  %0 = aten.operator "aten::slice.Tensor"(%x, %end) {dim = 0 : i64, start = 1 : i64, step = 2 : i64, operand_args = ["self", "end"], operand_groups = array<i64: 1, 1>} : (tensor<?x8xf32>, i64) -> tensor<?x8xf32>
  return %0 : tensor<?x8xf32>
}

// -----

// select at a run-time index: wrapped into [0, n) (i - n * floor(i / n)),
// sliced [i, i + 1), the dim dropped.
// CHECK-LABEL: coreai.graph @select_item_index(
// CHECK:         %[[N:.*]] = coreai.constant dense<6> : tensor<si64>
// CHECK:         coreai.decomposable.broadcasting_floor_divide
// CHECK:         %[[W:.*]] = coreai.decomposable.broadcasting_sub
// CHECK:         %[[W1:.*]] = coreai.decomposable.broadcasting_add %[[W]]
// CHECK:         %[[R:.*]] = coreai.slice {{.*}} -> tensor<?x1xf32>
// CHECK:         coreai.shrink_dims %[[R]]
func.func @select_item_index(%x: tensor<?x6xf32>, %col: tensor<i64>) -> tensor<?xf32> {
  %c = aten._local_scalar_dense.default %col : (tensor<i64>) -> i64
  %0 = aten.operator "aten::select.int"(%x, %c) {dim = 1 : i64, operand_args = ["self", "index"], operand_groups = array<i64: 1, 1>} : (tensor<?x6xf32>, i64) -> tensor<?xf32>
  return %0 : tensor<?xf32>
}

// -----

// slice_scatter at run-time bounds: coreai.slice_update with the same bounds.
// CHECK-LABEL: coreai.graph @slice_scatter_item(
// CHECK:         %[[S:.*]] = coreai.concat {{.*}} -> tensor<2xsi32>
// CHECK:         %[[E:.*]] = coreai.concat {{.*}} -> tensor<2xsi32>
// CHECK:         coreai.slice_update %arg0 with %arg1 at (%[[S]], %[[E]], %{{.*}}) : (tensor<4x6xf32>, tensor<4x2xf32>, tensor<2xsi32>, tensor<2xsi32>, tensor<2xsi32>) to tensor<4x6xf32>
func.func @slice_scatter_item(%x: tensor<4x6xf32>, %src: tensor<4x2xf32>, %col: tensor<i64>) -> tensor<4x6xf32> {
  %c = aten._local_scalar_dense.default %col : (tensor<i64>) -> i64
  %two = arith.constant 2 : i64
  %end = aten.add %c, %two : (i64, i64) -> i64
  %0 = aten.operator "aten::slice_scatter.default"(%x, %src, %c, %end) {dim = 1 : i64, step = 1 : i64, operand_args = ["self", "src", "start", "end"], operand_groups = array<i64: 1, 1, 1, 1>} : (tensor<4x6xf32>, tensor<4x2xf32>, i64, i64) -> tensor<4x6xf32>
  return %0 : tensor<4x6xf32>
}

// -----

// narrow with an `.item()` start decomposes to a slice whose end is
// torch.sym_ite(...) arithmetic: sym_ite is a select on rank-0 tensors,
// operator.and_ a logical and.
// CHECK-LABEL: coreai.graph @sym_ite_and(
// CHECK:         coreai.decomposable.broadcasting_and
// CHECK:         %[[R:.*]] = coreai.decomposable.broadcasting_where %{{.*}}, %{{.*}}, %{{.*}} : (tensor<i1>, tensor<si64>, tensor<si64>) -> tensor<si64>
// CHECK:         coreai.output %[[R]]
func.func @sym_ite_and(%col: tensor<i64>) -> i64 {
  %c = aten._local_scalar_dense.default %col : (tensor<i64>) -> i64
  %zero = arith.constant 0 : i64
  %lt = aten.lt %c, %zero : (i64, i64) -> i1
  %eq = aten.eq %c, %zero : (i64, i64) -> i1
  %both = aten.operator "operator::and_"(%lt, %eq) {operand_args = ["arg0", "arg1"], operand_groups = array<i64: 1, 1>} : (i1, i1) -> i1
  %0 = aten.operator "torch::sym_ite"(%both) {arg1 = 1 : i64, arg2 = 0 : i64, operand_args = ["arg0"], operand_groups = array<i64: 1>} : (i1) -> i64
  return %0 : i64
}
