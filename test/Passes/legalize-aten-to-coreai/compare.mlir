// RUN: coreai-opt %s --split-input-file --pass-pipeline='builtin.module(legalize-aten-to-coreai)' | FileCheck %s --enable-var-scope

// ge and le are greater ∨ equal (false for NaN), never ¬(b > a).
// CHECK-LABEL: coreai.graph @ge_le_are_greater_or_equal(
// CHECK-SAME:    %[[A:[^:]*]]: tensor<3x4xf32>, %[[B:[^:]*]]: tensor<4xf32>
// CHECK-NEXT:    %[[G:.*]] = coreai.decomposable.broadcasting_greater %[[A]], %[[B]]
// CHECK-NEXT:    %[[E:.*]] = coreai.decomposable.broadcasting_equal %[[A]], %[[B]]
// CHECK-NEXT:    %[[GE:.*]] = coreai.decomposable.broadcasting_or %[[G]], %[[E]]
// CHECK-NEXT:    %[[L:.*]] = coreai.decomposable.broadcasting_greater %[[B]], %[[A]] : (tensor<4xf32>, tensor<3x4xf32>) -> tensor<3x4xi1>
// CHECK-NEXT:    %[[E2:.*]] = coreai.decomposable.broadcasting_equal %[[A]], %[[B]]
// CHECK-NEXT:    %[[LE:.*]] = coreai.decomposable.broadcasting_or %[[L]], %[[E2]]
// CHECK-NEXT:    coreai.output %[[GE]], %[[LE]]
// CHECK-NOT:     coreai.not
func.func @ge_le_are_greater_or_equal(%a: tensor<3x4xf32>, %b: tensor<4xf32>) -> (tensor<3x4xi1>, tensor<3x4xi1>) {
  %0 = aten.ge.Tensor %a, %b : (tensor<3x4xf32>, tensor<4xf32>) -> tensor<3x4xi1>
  %1 = aten.le.Tensor %a, %b : (tensor<3x4xf32>, tensor<4xf32>) -> tensor<3x4xi1>
  return %0, %1 : tensor<3x4xi1>, tensor<3x4xi1>
}

// -----

// lt swaps the operands of greater; .Scalar numbers become constants of the promoted dtype.
// CHECK-LABEL: coreai.graph @lt_swaps(
// CHECK-SAME:    %[[A:[^:]*]]: tensor<4xf32>
// CHECK-NEXT:    %[[Z:.*]] = coreai.constant dense<0.000000e+00> : tensor<f32>
// CHECK-NEXT:    %[[LT:.*]] = coreai.decomposable.broadcasting_greater %[[Z]], %[[A]]
// CHECK-NEXT:    %[[H:.*]] = coreai.constant dense<5.000000e-01> : tensor<f32>
// CHECK-NEXT:    %[[NE:.*]] = coreai.decomposable.broadcasting_not_equal %[[A]], %[[H]]
// CHECK-NEXT:    coreai.output %[[LT]], %[[NE]]
func.func @lt_swaps(%a: tensor<4xf32>) -> (tensor<4xi1>, tensor<4xi1>) {
  %0 = aten.lt.Scalar %a {other = 0 : i64} : (tensor<4xf32>) -> tensor<4xi1>
  %1 = aten.ne.Scalar %a {other = 0.5 : f64} : (tensor<4xf32>) -> tensor<4xi1>
  return %0, %1 : tensor<4xi1>, tensor<4xi1>
}

// -----

// An int64 tensor against a float number compares in the default float dtype f32.
// CHECK-LABEL: coreai.graph @int_vs_float_number(
// CHECK-SAME:    %[[A:[^:]*]]: tensor<4xsi64>
// CHECK-NEXT:    %[[F:.*]] = coreai.cast %[[A]] : tensor<4xsi64> to tensor<4xf32>
// CHECK-NEXT:    %[[H:.*]] = coreai.constant dense<5.000000e-01> : tensor<f32>
// CHECK-NEXT:    %[[R:.*]] = coreai.decomposable.broadcasting_greater %[[F]], %[[H]]
// CHECK-NEXT:    coreai.output %[[R]]
func.func @int_vs_float_number(%a: tensor<4xi64>) -> tensor<4xi1> {
  %0 = aten.gt.Scalar %a {other = 0.5 : f64} : (tensor<4xi64>) -> tensor<4xi1>
  return %0 : tensor<4xi1>
}

// -----

// int32 against float16 tensors compares in float16 (PyTorch's promotion).
// CHECK-LABEL: coreai.graph @int_vs_float_tensor(
// CHECK-SAME:    %[[A:[^:]*]]: tensor<4xsi32>, %[[B:[^:]*]]: tensor<4xf16>
// CHECK-NEXT:    %[[F:.*]] = coreai.cast %[[A]] : tensor<4xsi32> to tensor<4xf16>
// CHECK-NEXT:    %[[R:.*]] = coreai.decomposable.broadcasting_equal %[[F]], %[[B]] : (tensor<4xf16>, tensor<4xf16>) -> tensor<4xi1>
// CHECK-NEXT:    coreai.output %[[R]]
func.func @int_vs_float_tensor(%a: tensor<4xi32>, %b: tensor<4xf16>) -> tensor<4xi1> {
  %0 = aten.eq.Tensor %a, %b : (tensor<4xi32>, tensor<4xf16>) -> tensor<4xi1>
  return %0 : tensor<4xi1>
}

// -----

// logical ops work on truth values: bools as they are, other dtypes as x ≠ 0.
// CHECK-LABEL: coreai.graph @logical(
// CHECK-SAME:    %[[P:[^:]*]]: tensor<4xi1>, %[[X:[^:]*]]: tensor<4xf32>
// CHECK-NEXT:    %[[N:.*]] = coreai.not %[[P]] : tensor<4xi1> -> tensor<4xi1>
// CHECK-NEXT:    %[[Z:.*]] = coreai.constant dense<0.000000e+00> : tensor<f32>
// CHECK-NEXT:    %[[NX:.*]] = coreai.decomposable.broadcasting_equal %[[X]], %[[Z]]
// CHECK-NEXT:    %[[Z2:.*]] = coreai.constant dense<0.000000e+00> : tensor<f32>
// CHECK-NEXT:    %[[TX:.*]] = coreai.decomposable.broadcasting_not_equal %[[X]], %[[Z2]]
// CHECK-NEXT:    %[[AND:.*]] = coreai.decomposable.broadcasting_and %[[P]], %[[TX]]
// CHECK-NEXT:    coreai.output %[[N]], %[[NX]], %[[AND]]
func.func @logical(%a: tensor<4xi1>, %b: tensor<4xf32>) -> (tensor<4xi1>, tensor<4xi1>, tensor<4xi1>) {
  %0 = aten.logical_not.default %a : (tensor<4xi1>) -> tensor<4xi1>
  %1 = aten.logical_not.default %b : (tensor<4xf32>) -> tensor<4xi1>
  %2 = aten.logical_and.default %a, %b : (tensor<4xi1>, tensor<4xf32>) -> tensor<4xi1>
  return %0, %1, %2 : tensor<4xi1>, tensor<4xi1>, tensor<4xi1>
}

// -----

// bitwise ops on ints and bools; bitwise_not is an exact xor with all ones (coreai.not on bools).
// CHECK-LABEL: coreai.graph @bitwise(
// CHECK-SAME:    %[[A:[^:]*]]: tensor<4xsi32>, %[[B:[^:]*]]: tensor<4xsi32>, %[[P:[^:]*]]: tensor<4xi1>, %[[Q:[^:]*]]: tensor<4xi1>
// CHECK-NEXT:    %[[AND:.*]] = coreai.decomposable.broadcasting_bitwise_and %[[A]], %[[B]] : (tensor<4xsi32>, tensor<4xsi32>) -> tensor<4xsi32>
// CHECK-NEXT:    %[[ONES:.*]] = coreai.constant dense<-1> : tensor<si32>
// CHECK-NEXT:    %[[NOT:.*]] = coreai.decomposable.broadcasting_bitwise_xor %[[A]], %[[ONES]]
// CHECK-NEXT:    %[[OR:.*]] = coreai.decomposable.broadcasting_bitwise_or %[[P]], %[[Q]] : (tensor<4xi1>, tensor<4xi1>) -> tensor<4xi1>
// CHECK-NEXT:    %[[BNOT:.*]] = coreai.not %[[P]]
// CHECK-NEXT:    coreai.output %[[AND]], %[[NOT]], %[[OR]], %[[BNOT]]
func.func @bitwise(%a: tensor<4xi32>, %b: tensor<4xi32>, %p: tensor<4xi1>, %q: tensor<4xi1>) -> (tensor<4xi32>, tensor<4xi32>, tensor<4xi1>, tensor<4xi1>) {
  %0 = aten.bitwise_and.Tensor %a, %b : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
  %1 = aten.bitwise_not.default %a : (tensor<4xi32>) -> tensor<4xi32>
  %2 = aten.bitwise_or.Tensor %p, %q : (tensor<4xi1>, tensor<4xi1>) -> tensor<4xi1>
  %3 = aten.bitwise_not.default %p : (tensor<4xi1>) -> tensor<4xi1>
  return %0, %1, %2, %3 : tensor<4xi32>, tensor<4xi32>, tensor<4xi1>, tensor<4xi1>
}

// -----

// All ones of an unsigned type is its maximum.
// CHECK-LABEL: coreai.graph @bitwise_not_unsigned(
// CHECK-NEXT:    %[[ONES:.*]] = coreai.constant dense<255> : tensor<ui8>
// CHECK-NEXT:    coreai.decomposable.broadcasting_bitwise_xor %{{.*}}, %[[ONES]]
func.func @bitwise_not_unsigned(%a: tensor<4xui8>) -> tensor<4xui8> {
  %0 = aten.bitwise_not.default %a : (tensor<4xui8>) -> tensor<4xui8>
  return %0 : tensor<4xui8>
}

// -----

// x << k multiplies by 2^k (wrapping; 2^31 is INT32_MIN), and by 0 for k ≥ 32, as PyTorch.
// CHECK-LABEL: coreai.graph @lshift(
// CHECK-SAME:    %[[A:[^:]*]]: tensor<4xsi32>
// CHECK-NEXT:    %[[K8:.*]] = coreai.constant dense<8> : tensor<si32>
// CHECK-NEXT:    %[[R0:.*]] = coreai.decomposable.broadcasting_mul %[[A]], %[[K8]]
// CHECK-NEXT:    %[[KMIN:.*]] = coreai.constant dense<-2147483648> : tensor<si32>
// CHECK-NEXT:    %[[R1:.*]] = coreai.decomposable.broadcasting_mul %[[A]], %[[KMIN]]
// CHECK-NEXT:    %[[K0:.*]] = coreai.constant dense<0> : tensor<si32>
// CHECK-NEXT:    %[[R2:.*]] = coreai.decomposable.broadcasting_mul %[[A]], %[[K0]]
// CHECK-NEXT:    coreai.output %[[R0]], %[[R1]], %[[R2]]
func.func @lshift(%a: tensor<4xi32>) -> (tensor<4xi32>, tensor<4xi32>, tensor<4xi32>) {
  %0 = aten.__lshift__.Scalar %a {other = 3 : i64} : (tensor<4xi32>) -> tensor<4xi32>
  %1 = aten.__lshift__.Scalar %a {other = 31 : i64} : (tensor<4xi32>) -> tensor<4xi32>
  %2 = aten.__lshift__.Scalar %a {other = 40 : i64} : (tensor<4xi32>) -> tensor<4xi32>
  return %0, %1, %2 : tensor<4xi32>, tensor<4xi32>, tensor<4xi32>
}

// -----

// isnan is x ≠ x; isinf is |x| = inf.
// CHECK-LABEL: coreai.graph @isnan_isinf(
// CHECK-SAME:    %[[A:[^:]*]]: tensor<4xf32>
// CHECK-NEXT:    %[[NAN:.*]] = coreai.decomposable.broadcasting_not_equal %[[A]], %[[A]]
// CHECK-NEXT:    %[[INF:.*]] = coreai.constant dense<0x7F800000> : tensor<f32>
// CHECK-NEXT:    %[[ABS:.*]] = coreai.abs %[[A]]
// CHECK-NEXT:    %[[ISINF:.*]] = coreai.decomposable.broadcasting_equal %[[ABS]], %[[INF]]
// CHECK-NEXT:    coreai.output %[[NAN]], %[[ISINF]]
func.func @isnan_isinf(%a: tensor<4xf32>) -> (tensor<4xi1>, tensor<4xi1>) {
  %0 = aten.isnan.default %a : (tensor<4xf32>) -> tensor<4xi1>
  %1 = aten.isinf.default %a : (tensor<4xf32>) -> tensor<4xi1>
  return %0, %1 : tensor<4xi1>, tensor<4xi1>
}

// -----

// A wrapped number in where becomes a constant of the result dtype.
// CHECK-LABEL: coreai.graph @where_number(
// CHECK-SAME:    %[[C:[^:]*]]: tensor<2x5xi1>, %[[X:[^:]*]]: tensor<2x5xf32>
// CHECK-NEXT:    %[[H:.*]] = coreai.constant dense<5.000000e-01> : tensor<f32>
// CHECK-NEXT:    %[[R:.*]] = coreai.decomposable.broadcasting_where %[[C]], %[[H]], %[[X]] : (tensor<2x5xi1>, tensor<f32>, tensor<2x5xf32>) -> tensor<2x5xf32>
// CHECK-NEXT:    coreai.output %[[R]]
func.func @where_number(%c: tensor<2x5xi1>, %x: tensor<2x5xf32>) -> tensor<2x5xf32> {
  %s = arith.constant {aten.wrapped_number} dense<0.5> : tensor<f64>
  %0 = aten.where.self %c, %s, %x : (tensor<2x5xi1>, tensor<f64>, tensor<2x5xf32>) -> tensor<2x5xf32>
  return %0 : tensor<2x5xf32>
}

// -----

// where casts its branches to the result dtype.
// CHECK-LABEL: coreai.graph @where_promotes(
// CHECK-SAME:    %[[C:[^:]*]]: tensor<4xi1>, %[[X:[^:]*]]: tensor<4xsi64>, %[[Y:[^:]*]]: tensor<4xf32>
// CHECK-NEXT:    %[[F:.*]] = coreai.cast %[[X]] : tensor<4xsi64> to tensor<4xf32>
// CHECK-NEXT:    %[[R:.*]] = coreai.decomposable.broadcasting_where %[[C]], %[[F]], %[[Y]]
// CHECK-NEXT:    coreai.output %[[R]]
func.func @where_promotes(%c: tensor<4xi1>, %x: tensor<4xi64>, %y: tensor<4xf32>) -> tensor<4xf32> {
  %0 = aten.where.self %c, %x, %y : (tensor<4xi1>, tensor<4xi64>, tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
