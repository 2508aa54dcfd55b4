// RUN: coreai-opt %s --split-input-file --pass-pipeline='builtin.module(legalize-aten-to-coreai)' | FileCheck %s --enable-var-scope

// A symbolic size is a rank-0 si64 tensor: get_shape, the dim sliced out,
// reshaped to rank 0 and cast; a static dim is a constant. Python operators
// compute in the result dtype: true division in f64, floor division
// flooring, math.ceil = -floor(-x) cast to si64. Scalar results and the
// Python number 3 become rank-0 tensors.
// CHECK-LABEL: coreai.graph @sym_size_arith(
// CHECK-SAME:    %[[X:[^:]*]]: tensor<?x4xf32>) -> (tensor<si64>, tensor<si64>, tensor<f64>, tensor<si64>)
// CHECK-NEXT:    %[[SH:.*]] = coreai.get_shape %[[X]] : tensor<?x4xf32> -> tensor<2xui32>
// CHECK-NEXT:    %[[B:.*]] = coreai.constant dense<0> : tensor<1xsi32>
// CHECK-NEXT:    %[[E:.*]] = coreai.constant dense<1> : tensor<1xsi32>
// CHECK-NEXT:    %[[ST:.*]] = coreai.constant dense<1> : tensor<1xsi32>
// CHECK-NEXT:    %[[D:.*]] = coreai.slice %[[SH]], %[[B]], %[[E]], %[[ST]] : (tensor<2xui32>, tensor<1xsi32>, tensor<1xsi32>, tensor<1xsi32>) -> tensor<1xui32>
// CHECK-NEXT:    %[[R0:.*]] = coreai.constant dense<> : tensor<0xui32>
// CHECK-NEXT:    %[[D0:.*]] = coreai.reshape %[[D]], %[[R0]] : (tensor<1xui32>, tensor<0xui32>) -> tensor<ui32>
// CHECK-NEXT:    %[[N:.*]] = coreai.cast %[[D0]] : tensor<ui32> to tensor<si64>
// CHECK-NEXT:    %[[C4:.*]] = coreai.constant dense<4> : tensor<si64>
// CHECK-NEXT:    %[[C3:.*]] = coreai.constant dense<3> : tensor<si64>
// CHECK-NEXT:    %[[M:.*]] = coreai.decomposable.broadcasting_mul %[[N]], %[[C4]] : (tensor<si64>, tensor<si64>) -> tensor<si64>
// CHECK-NEXT:    %[[FD:.*]] = coreai.decomposable.broadcasting_floor_divide %[[M]], %[[C3]] : (tensor<si64>, tensor<si64>) -> tensor<si64>
// CHECK-NEXT:    %[[NF:.*]] = coreai.cast %[[N]] : tensor<si64> to tensor<f64>
// CHECK-NEXT:    %[[C3F:.*]] = coreai.cast %[[C3]] : tensor<si64> to tensor<f64>
// CHECK-NEXT:    %[[TD:.*]] = coreai.decomposable.broadcasting_divide %[[NF]], %[[C3F]] : (tensor<f64>, tensor<f64>) -> tensor<f64>
// CHECK-NEXT:    %[[ONE:.*]] = coreai.constant dense<1.000000e+00> : tensor<f64>
// CHECK-NEXT:    %[[MONE:.*]] = coreai.constant dense<-1.000000e+00> : tensor<f64>
// CHECK-NEXT:    %[[NEG:.*]] = coreai.decomposable.broadcasting_mul %[[TD]], %[[MONE]] : (tensor<f64>, tensor<f64>) -> tensor<f64>
// CHECK-NEXT:    %[[FL:.*]] = coreai.decomposable.broadcasting_floor_divide %[[NEG]], %[[ONE]] : (tensor<f64>, tensor<f64>) -> tensor<f64>
// CHECK-NEXT:    %[[CE:.*]] = coreai.decomposable.broadcasting_mul %[[FL]], %[[MONE]] : (tensor<f64>, tensor<f64>) -> tensor<f64>
// CHECK-NEXT:    %[[CI:.*]] = coreai.cast %[[CE]] : tensor<f64> to tensor<si64>
// CHECK-NEXT:    coreai.output %[[FD]], %[[C4]], %[[TD]], %[[CI]] : tensor<si64>, tensor<si64>, tensor<f64>, tensor<si64>
func.func @sym_size_arith(%x: tensor<?x4xf32>) -> (i64, i64, f64, i64) {
  %n = aten.sym_size.int %x {dim = 0 : i64} : (tensor<?x4xf32>) -> i64
  %c4 = aten.sym_size.int %x {dim = -1 : i64} : (tensor<?x4xf32>) -> i64
  %c3 = arith.constant 3 : i64
  %0 = aten.mul %n, %c4 : (i64, i64) -> i64
  %1 = aten.floordiv %0, %c3 : (i64, i64) -> i64
  %2 = aten.truediv %n, %c3 : (i64, i64) -> f64
  %3 = aten.ceil %2 : (f64) -> i64
  return %1, %c4, %2, %3 : i64, i64, f64, i64
}

// -----

// A size flows into a tensor op (a Python operator with a tensor operand,
// computed in the tensor's f32) and into a comparison (i1 result).
// CHECK-LABEL: coreai.graph @size_into_tensor(
// CHECK-SAME:    %[[X:[^:]*]]: tensor<?x4xf32>) -> (tensor<?x4xf32>, tensor<i1>)
// CHECK:         %[[N:.*]] = coreai.cast %{{.*}} : tensor<ui32> to tensor<si64>
// CHECK-NEXT:    %[[H:.*]] = coreai.constant dense<5.000000e-01> : tensor<f64>
// CHECK-NEXT:    %[[F:.*]] = coreai.cast %[[N]] : tensor<si64> to tensor<f64>
// CHECK-NEXT:    %[[S:.*]] = coreai.decomposable.broadcasting_mul %[[F]], %[[H]] : (tensor<f64>, tensor<f64>) -> tensor<f64>
// CHECK-NEXT:    %[[S32:.*]] = coreai.cast %[[S]] : tensor<f64> to tensor<f32>
// CHECK-NEXT:    %[[Y:.*]] = coreai.decomposable.broadcasting_mul %[[X]], %[[S32]] : (tensor<?x4xf32>, tensor<f32>) -> tensor<?x4xf32>
// CHECK-NEXT:    %[[NF:.*]] = coreai.cast %[[N]] : tensor<si64> to tensor<f64>
// CHECK-NEXT:    %[[G:.*]] = coreai.decomposable.broadcasting_greater %[[NF]], %[[H]] : (tensor<f64>, tensor<f64>) -> tensor<i1>
// CHECK-NEXT:    coreai.output %[[Y]], %[[G]] : tensor<?x4xf32>, tensor<i1>
func.func @size_into_tensor(%x: tensor<?x4xf32>) -> (tensor<?x4xf32>, i1) {
  %n = aten.sym_size.int %x {dim = 0 : i64} : (tensor<?x4xf32>) -> i64
  %h = arith.constant 0.5 : f64
  %f = aten.sym_float %n : (i64) -> f64
  %s = aten.mul %f, %h : (f64, f64) -> f64
  %0 = aten.mul %x, %s : (tensor<?x4xf32>, f64) -> tensor<?x4xf32>
  %1 = aten.gt %n, %h : (i64, f64) -> i1
  return %0, %1 : tensor<?x4xf32>, i1
}

// -----

// .item() of a rank-0 tensor: the value, in the Python number's dtype.
// CHECK-LABEL: coreai.graph @item(
// CHECK-SAME:    %[[X:[^:]*]]: tensor<f32>) -> tensor<f64>
// CHECK-NEXT:    %[[V:.*]] = coreai.cast %[[X]] : tensor<f32> to tensor<f64>
// CHECK-NEXT:    coreai.output %[[V]] : tensor<f64>
func.func @item(%x: tensor<f32>) -> f64 {
  %0 = aten._local_scalar_dense.default %x : (tensor<f32>) -> f64
  return %0 : f64
}

// -----

// Python's round() as a generic op (`builtins::round`, a Python callable's
// namespace: rung 3 looks up `round`): coreai.round (half to even) and a
// cast to si64. A symbolic scalar in a Tensor slot (the importer's generic
// `aten::mul.Tensor`) is a rank-0 operand cast to the result dtype.
// CHECK-LABEL: coreai.graph @builtins_round(
// CHECK-SAME:    %[[X:[^:]*]]: tensor<?x3xf32>) -> (tensor<si64>, tensor<?x3xf32>)
// CHECK:         %[[H:.*]] = coreai.decomposable.broadcasting_divide %{{.*}}, %{{.*}} : (tensor<f64>, tensor<f64>) -> tensor<f64>
// CHECK:         %[[RD:.*]] = coreai.round %[[H]] : tensor<f64> -> tensor<f64>
// CHECK-NEXT:    %[[R:.*]] = coreai.cast %[[RD]] : tensor<f64> to tensor<si64>
// CHECK-NEXT:    %[[RF:.*]] = coreai.cast %[[R]] : tensor<si64> to tensor<f32>
// CHECK-NEXT:    %[[Y:.*]] = coreai.decomposable.broadcasting_mul %[[X]], %[[RF]] : (tensor<?x3xf32>, tensor<f32>) -> tensor<?x3xf32>
// CHECK-NEXT:    coreai.output %[[R]], %[[Y]] : tensor<si64>, tensor<?x3xf32>
func.func @builtins_round(%x: tensor<?x3xf32>) -> (i64, tensor<?x3xf32>) {
  %n = aten.sym_size.int %x {dim = 0 : i64} : (tensor<?x3xf32>) -> i64
  %c2 = arith.constant 2 : i64
  %h = aten.truediv %n, %c2 : (i64, i64) -> f64
  %r = aten.operator "builtins::round"(%h) {operand_args = ["arg0"], operand_groups = array<i64: 1>} : (f64) -> i64
  %y = aten.operator "aten::mul.Tensor"(%x, %r) {operand_args = ["self", "other"], operand_groups = array<i64: 1, 1>} : (tensor<?x3xf32>, i64) -> tensor<?x3xf32>
  return %r, %y : i64, tensor<?x3xf32>
}
