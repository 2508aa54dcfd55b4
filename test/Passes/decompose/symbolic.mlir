// RUN: coreai-opt %s --split-input-file --pass-pipeline='builtin.module(decompose{table=none})' | FileCheck %s --enable-var-scope

// One symbolic size: view infers it (-1); the sym_size and constants go.
// CHECK-LABEL: func.func @one_symbolic(
// CHECK-SAME:    %[[X:[^:]*]]: tensor<?x4xf32>
// CHECK-NOT:     aten.sym_size
// CHECK-NOT:     arith.constant
// CHECK:         %[[V:.*]] = aten.view.default %[[X]] {size = [-1, 2, 2]} : (tensor<?x4xf32>) -> tensor<?x2x2xf32>
// CHECK-NEXT:    return %[[V]]
func.func @one_symbolic(%x: tensor<?x4xf32>) -> tensor<?x2x2xf32> {
  %n = aten.sym_size.int %x {dim = 0 : i64} : (tensor<?x4xf32>) -> i64
  %c1 = arith.constant 2 : i64
  %c2 = arith.constant 2 : i64
  %v = aten.operator "aten::view.default"(%x, %n, %c1, %c2) {operand_args = ["self", "size"], operand_groups = array<i64: 1, 3>} : (tensor<?x4xf32>, i64, i64, i64) -> tensor<?x2x2xf32>
  return %v : tensor<?x2x2xf32>
}

// -----

// Two symbolic sizes: nothing to infer from; kept (the legalizer reports it).
// A sym_size still used elsewhere stays.
// CHECK-LABEL: func.func @two_symbolic(
// CHECK:         %[[N:.*]] = aten.sym_size.int
// CHECK:         %[[M:.*]] = aten.sym_size.int
// CHECK:         aten.operator "aten::view.default"(%{{.*}}, %[[N]], %[[M]])
func.func @two_symbolic(%x: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %n = aten.sym_size.int %x {dim = 0 : i64} : (tensor<?x?xf32>) -> i64
  %m = aten.sym_size.int %x {dim = 1 : i64} : (tensor<?x?xf32>) -> i64
  %v = aten.operator "aten::view.default"(%x, %n, %m) {operand_args = ["self", "size"], operand_groups = array<i64: 1, 2>} : (tensor<?x?xf32>, i64, i64) -> tensor<?x?xf32>
  return %v : tensor<?x?xf32>
}
