// RUN: coreai-opt %s --split-input-file --pass-pipeline='builtin.module(legalize-aten-to-coreai)' | FileCheck %s --enable-var-scope

// add.Tensor with alpha = 1 is one broadcasting add.
// CHECK-LABEL: coreai.graph @add_alpha_one(
// CHECK-SAME:    %[[A:[^:]*]]: tensor<2x3xf32>, %[[B:[^:]*]]: tensor<3xf32>
// CHECK-NEXT:    %[[R:.*]] = coreai.decomposable.broadcasting_add %[[A]], %[[B]] : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT:    coreai.output %[[R]]
func.func @add_alpha_one(%a: tensor<2x3xf32>, %b: tensor<3xf32>) -> tensor<2x3xf32> {
  %0 = aten.add.Tensor %a, %b {alpha = 1 : i64} : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// A wrapped Python int added to an f32 tensor becomes an f32 constant (no cast of the i64 constant).
// CHECK-LABEL: coreai.graph @add_wrapped_int(
// CHECK-SAME:    %[[A:[^:]*]]: tensor<4xf32>
// CHECK-NEXT:    %[[K:.*]] = coreai.constant dense<1.000000e+00> : tensor<f32>
// CHECK-NEXT:    %[[R:.*]] = coreai.decomposable.broadcasting_add %[[A]], %[[K]] : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
// CHECK-NEXT:    coreai.output %[[R]]
// CHECK-NOT:     si64
func.func @add_wrapped_int(%a: tensor<4xf32>) -> tensor<4xf32> {
  %s = arith.constant {aten.wrapped_number} dense<1> : tensor<i64>
  %0 = aten.add.Tensor %a, %s {alpha = 1 : i64} : (tensor<4xf32>, tensor<i64>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// add.Tensor with alpha ≠ 1 on f32: other · alpha, then add.
// CHECK-LABEL: coreai.graph @add_alpha_f32(
// CHECK-SAME:    %[[A:[^:]*]]: tensor<4xf32>, %[[B:[^:]*]]: tensor<4xf32>
// CHECK-NEXT:    %[[K:.*]] = coreai.constant dense<-2.500000e+00> : tensor<f32>
// CHECK-NEXT:    %[[M:.*]] = coreai.decomposable.broadcasting_mul %[[B]], %[[K]] : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
// CHECK-NEXT:    %[[R:.*]] = coreai.decomposable.broadcasting_add %[[A]], %[[M]]
// CHECK-NEXT:    coreai.output %[[R]]
func.func @add_alpha_f32(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
  %0 = aten.add.Tensor %a, %b {alpha = -2.5 : f64} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// alpha ≠ 1 on f16: PyTorch computes a + alpha·b in f32 and rounds once.
// CHECK-LABEL: coreai.graph @add_alpha_f16(
// CHECK-SAME:    %[[A:[^:]*]]: tensor<4xf16>, %[[B:[^:]*]]: tensor<4xf16>
// CHECK-NEXT:    %[[A32:.*]] = coreai.cast %[[A]] : tensor<4xf16> to tensor<4xf32>
// CHECK-NEXT:    %[[B32:.*]] = coreai.cast %[[B]] : tensor<4xf16> to tensor<4xf32>
// CHECK-NEXT:    %[[K:.*]] = coreai.constant dense<-2.500000e+00> : tensor<f32>
// CHECK-NEXT:    %[[M:.*]] = coreai.decomposable.broadcasting_mul %[[B32]], %[[K]]
// CHECK-NEXT:    %[[S:.*]] = coreai.decomposable.broadcasting_add %[[A32]], %[[M]]
// CHECK-NEXT:    %[[R:.*]] = coreai.cast %[[S]] : tensor<4xf32> to tensor<4xf16>
// CHECK-NEXT:    coreai.output %[[R]]
func.func @add_alpha_f16(%a: tensor<4xf16>, %b: tensor<4xf16>) -> tensor<4xf16> {
  %0 = aten.add.Tensor %a, %b {alpha = -2.5 : f64} : (tensor<4xf16>, tensor<4xf16>) -> tensor<4xf16>
  return %0 : tensor<4xf16>
}

// -----

// Integer alpha on integer tensors stays an integer constant of the result's (signed) type.
// CHECK-LABEL: coreai.graph @add_int_alpha(
// CHECK-SAME:    %[[A:[^:]*]]: tensor<4xsi64>, %[[B:[^:]*]]: tensor<4xsi64>
// CHECK-NEXT:    %[[K:.*]] = coreai.constant dense<3> : tensor<si64>
// CHECK-NEXT:    %[[M:.*]] = coreai.decomposable.broadcasting_mul %[[B]], %[[K]] : (tensor<4xsi64>, tensor<si64>) -> tensor<4xsi64>
// CHECK-NEXT:    coreai.decomposable.broadcasting_add %[[A]], %[[M]]
func.func @add_int_alpha(%a: tensor<4xi64>, %b: tensor<4xi64>) -> tensor<4xi64> {
  %0 = aten.add.Tensor %a, %b {alpha = 3 : i64} : (tensor<4xi64>, tensor<4xi64>) -> tensor<4xi64>
  return %0 : tensor<4xi64>
}

// -----

// sub.Scalar takes `other` from its attribute; rsub.Scalar swaps the operands.
// CHECK-LABEL: coreai.graph @sub_rsub_scalar(
// CHECK-SAME:    %[[A:[^:]*]]: tensor<4xf32>
// CHECK-NEXT:    %[[TWO:.*]] = coreai.constant dense<2.000000e+00> : tensor<f32>
// CHECK-NEXT:    %[[S:.*]] = coreai.decomposable.broadcasting_sub %[[A]], %[[TWO]]
// CHECK-NEXT:    %[[ONE:.*]] = coreai.constant dense<1.000000e+00> : tensor<f32>
// CHECK-NEXT:    %[[R:.*]] = coreai.decomposable.broadcasting_sub %[[ONE]], %[[A]] : (tensor<f32>, tensor<4xf32>) -> tensor<4xf32>
// CHECK-NEXT:    coreai.output %[[S]], %[[R]]
func.func @sub_rsub_scalar(%a: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %0 = aten.sub.Scalar %a {other = 2 : i64, alpha = 1 : i64} : (tensor<4xf32>) -> tensor<4xf32>
  %1 = aten.rsub.Scalar %a {other = 1 : i64, alpha = 1 : i64} : (tensor<4xf32>) -> tensor<4xf32>
  return %0, %1 : tensor<4xf32>, tensor<4xf32>
}

// -----

// Mixed dtypes: the i64 operand is cast to the f32 result dtype first.
// CHECK-LABEL: coreai.graph @mul_promotes(
// CHECK-SAME:    %[[A:[^:]*]]: tensor<4xf32>, %[[B:[^:]*]]: tensor<4xsi64>
// CHECK-NEXT:    %[[C:.*]] = coreai.cast %[[B]] : tensor<4xsi64> to tensor<4xf32>
// CHECK-NEXT:    coreai.decomposable.broadcasting_mul %[[A]], %[[C]] : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
func.func @mul_promotes(%a: tensor<4xf32>, %b: tensor<4xi64>) -> tensor<4xf32> {
  %0 = aten.mul.Tensor %a, %b : (tensor<4xf32>, tensor<4xi64>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// An f64 Python number in an f32 graph is rounded to f32, as PyTorch does.
// CHECK-LABEL: coreai.graph @mul_inexact_f32(
// CHECK-NEXT:    %[[K:.*]] = coreai.constant dense<1.000000e-01> : tensor<f32>
// CHECK-NEXT:    coreai.decomposable.broadcasting_mul %{{.*}}, %[[K]]
func.func @mul_inexact_f32(%a: tensor<4xf32>) -> tensor<4xf32> {
  %s = arith.constant {aten.wrapped_number} dense<0.1> : tensor<f64>
  %0 = aten.mul.Tensor %a, %s : (tensor<4xf32>, tensor<f64>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// Integer true division casts both operands to the float result BEFORE dividing.
// CHECK-LABEL: coreai.graph @div_int_true(
// CHECK-SAME:    %[[A:[^:]*]]: tensor<4xsi64>, %[[B:[^:]*]]: tensor<4xsi64>
// CHECK-NEXT:    %[[FA:.*]] = coreai.cast %[[A]] : tensor<4xsi64> to tensor<4xf32>
// CHECK-NEXT:    %[[FB:.*]] = coreai.cast %[[B]] : tensor<4xsi64> to tensor<4xf32>
// CHECK-NEXT:    %[[R:.*]] = coreai.decomposable.broadcasting_divide %[[FA]], %[[FB]] : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
// CHECK-NEXT:    coreai.output %[[R]]
func.func @div_int_true(%a: tensor<4xi64>, %b: tensor<4xi64>) -> tensor<4xf32> {
  %0 = aten.div.Tensor %a, %b : (tensor<4xi64>, tensor<4xi64>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// rounding_mode = "trunc" on integers is coreai's (truncating) integer divide.
// CHECK-LABEL: coreai.graph @div_trunc_int(
// CHECK-SAME:    %[[A:[^:]*]]: tensor<4xsi32>, %[[B:[^:]*]]: tensor<4xsi32>
// CHECK-NEXT:    %[[R:.*]] = coreai.decomposable.broadcasting_divide %[[A]], %[[B]] : (tensor<4xsi32>, tensor<4xsi32>) -> tensor<4xsi32>
// CHECK-NEXT:    coreai.output %[[R]]
func.func @div_trunc_int(%a: tensor<4xi32>, %b: tensor<4xi32>) -> tensor<4xi32> {
  %0 = aten.div.Tensor_mode %a, %b {rounding_mode = "trunc"} : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
  return %0 : tensor<4xi32>
}

// -----

// rounding_mode = "floor" on integers is coreai's (flooring) floor_divide.
// CHECK-LABEL: coreai.graph @div_floor_int(
// CHECK-SAME:    %[[A:[^:]*]]: tensor<4xsi32>, %[[B:[^:]*]]: tensor<4xsi32>
// CHECK-NEXT:    %[[R:.*]] = coreai.decomposable.broadcasting_floor_divide %[[A]], %[[B]] : (tensor<4xsi32>, tensor<4xsi32>) -> tensor<4xsi32>
// CHECK-NEXT:    coreai.output %[[R]]
func.func @div_floor_int(%a: tensor<4xi32>, %b: tensor<4xi32>) -> tensor<4xi32> {
  %0 = aten.div.Tensor_mode %a, %b {rounding_mode = "floor"} : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
  return %0 : tensor<4xi32>
}

// -----

// Float floor division follows PyTorch's kernel: fmod, then (a - m) / b, then a floor.
// CHECK-LABEL: coreai.graph @floor_divide_float(
// CHECK-SAME:    %[[A:[^:]*]]: tensor<4xf32>, %[[B:[^:]*]]: tensor<4xf32>
// CHECK:         %[[Q:.*]] = coreai.decomposable.broadcasting_divide %[[A]], %[[B]]
// CHECK-NEXT:    %[[M:.*]] = coreai.decomposable.broadcasting_modulo %[[A]], %[[B]]
// CHECK-NEXT:    %[[D:.*]] = coreai.decomposable.broadcasting_sub %[[A]], %[[M]]
// CHECK-NEXT:    %{{.*}} = coreai.decomposable.broadcasting_divide %[[D]], %[[B]]
// CHECK:         coreai.decomposable.broadcasting_floor_divide
// CHECK:         %[[BZ:.*]] = coreai.decomposable.broadcasting_equal %[[B]], %{{.*}}
// CHECK-NEXT:    %[[R:.*]] = coreai.decomposable.broadcasting_where %[[BZ]], %[[Q]], %{{.*}}
// CHECK-NEXT:    coreai.output %[[R]]
func.func @floor_divide_float(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
  %0 = aten.floor_divide.default %a, %b : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// remainder is fmod plus the divisor when the signs differ (PyTorch's kernel).
// CHECK-LABEL: coreai.graph @remainder(
// CHECK-SAME:    %[[A:[^:]*]]: tensor<2x3xf32>, %[[B:[^:]*]]: tensor<3xf32>
// CHECK-NEXT:    %[[Z:.*]] = coreai.constant dense<0.000000e+00> : tensor<f32>
// CHECK-NEXT:    %[[M:.*]] = coreai.decomposable.broadcasting_modulo %[[A]], %[[B]] : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT:    %[[NZ:.*]] = coreai.decomposable.broadcasting_not_equal %[[M]], %[[Z]]
// CHECK-NEXT:    %[[MN:.*]] = coreai.decomposable.broadcasting_greater %[[Z]], %[[M]]
// CHECK-NEXT:    %[[BN:.*]] = coreai.decomposable.broadcasting_greater %[[Z]], %[[B]]
// CHECK-NEXT:    %[[X:.*]] = coreai.decomposable.broadcasting_xor %[[MN]], %[[BN]]
// CHECK-NEXT:    %[[FIX:.*]] = coreai.decomposable.broadcasting_and %[[NZ]], %[[X]]
// CHECK-NEXT:    %[[SH:.*]] = coreai.decomposable.broadcasting_add %[[M]], %[[B]]
// CHECK-NEXT:    %[[R:.*]] = coreai.decomposable.broadcasting_where %[[FIX]], %[[SH]], %[[M]]
// CHECK-NEXT:    coreai.output %[[R]]
func.func @remainder(%a: tensor<2x3xf32>, %b: tensor<3xf32>) -> tensor<2x3xf32> {
  %0 = aten.remainder.Tensor %a, %b : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// fmod is coreai's modulo; pow.Scalar puts the number first; a general exponent is one
// broadcasting_pow, exponent 3 is x·x·x and an integer square one multiply (PyTorch's special cases).
// CHECK-LABEL: coreai.graph @fmod_pow(
// CHECK-SAME:    %[[A:[^:]*]]: tensor<4xf32>, %[[I:[^:]*]]: tensor<4xsi32>
// CHECK-NEXT:    %[[K:.*]] = coreai.constant dense<1.500000e+00> : tensor<f32>
// CHECK-NEXT:    %[[F:.*]] = coreai.decomposable.broadcasting_modulo %[[A]], %[[K]]
// CHECK-NEXT:    %[[TWO:.*]] = coreai.constant dense<2.000000e+00> : tensor<f32>
// CHECK-NEXT:    %[[P:.*]] = coreai.decomposable.broadcasting_pow %[[TWO]], %[[A]] : (tensor<f32>, tensor<4xf32>) -> tensor<4xf32>
// CHECK-NEXT:    %[[SQ:.*]] = coreai.decomposable.broadcasting_mul %[[A]], %[[A]]
// CHECK-NEXT:    %[[CUBE:.*]] = coreai.decomposable.broadcasting_mul %[[SQ]], %[[A]]
// CHECK-NEXT:    %[[E:.*]] = coreai.constant dense<2.500000e+00> : tensor<f32>
// CHECK-NEXT:    %[[G:.*]] = coreai.decomposable.broadcasting_pow %[[A]], %[[E]] : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
// CHECK-NEXT:    %[[ISQ:.*]] = coreai.decomposable.broadcasting_mul %[[I]], %[[I]] : (tensor<4xsi32>, tensor<4xsi32>) -> tensor<4xsi32>
// CHECK-NEXT:    coreai.output %[[F]], %[[P]], %[[CUBE]], %[[G]], %[[ISQ]]
func.func @fmod_pow(%a: tensor<4xf32>, %i: tensor<4xi32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xi32>) {
  %0 = aten.fmod.Scalar %a {other = 1.5 : f64} : (tensor<4xf32>) -> tensor<4xf32>
  %1 = aten.pow.Scalar %a {self_arg = 2 : i64} : (tensor<4xf32>) -> tensor<4xf32>
  %2 = aten.pow.Tensor_Scalar %a {exponent = 3 : i64} : (tensor<4xf32>) -> tensor<4xf32>
  %3 = aten.pow.Tensor_Scalar %a {exponent = 2.5 : f64} : (tensor<4xf32>) -> tensor<4xf32>
  %4 = aten.pow.Tensor_Scalar %i {exponent = 2 : i64} : (tensor<4xi32>) -> tensor<4xi32>
  return %0, %1, %2, %3, %4 : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xi32>
}

// -----

// Unary math on an integer tensor casts it to the float result first.
// CHECK-LABEL: coreai.graph @exp_of_int(
// CHECK-SAME:    %[[A:[^:]*]]: tensor<4xsi64>
// CHECK-NEXT:    %[[C:.*]] = coreai.cast %[[A]] : tensor<4xsi64> to tensor<4xf32>
// CHECK-NEXT:    %[[R:.*]] = coreai.exp %[[C]] : tensor<4xf32> -> tensor<4xf32>
// CHECK-NEXT:    coreai.output %[[R]]
func.func @exp_of_int(%a: tensor<4xi64>) -> tensor<4xf32> {
  %0 = aten.exp.default %a : (tensor<4xi64>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// neg multiplies by -1 (exact, keeps -0.0); reciprocal divides 1.
// CHECK-LABEL: coreai.graph @neg_reciprocal(
// CHECK-SAME:    %[[A:[^:]*]]: tensor<4xf32>
// CHECK-NEXT:    %[[M1:.*]] = coreai.constant dense<-1.000000e+00> : tensor<f32>
// CHECK-NEXT:    %[[N:.*]] = coreai.decomposable.broadcasting_mul %[[A]], %[[M1]]
// CHECK-NEXT:    %[[ONE:.*]] = coreai.constant dense<1.000000e+00> : tensor<f32>
// CHECK-NEXT:    %[[R:.*]] = coreai.decomposable.broadcasting_divide %[[ONE]], %[[A]]
// CHECK-NEXT:    coreai.output %[[N]], %[[R]]
func.func @neg_reciprocal(%a: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %0 = aten.neg.default %a : (tensor<4xf32>) -> tensor<4xf32>
  %1 = aten.reciprocal.default %a : (tensor<4xf32>) -> tensor<4xf32>
  return %0, %1 : tensor<4xf32>, tensor<4xf32>
}

// -----

// floor is floor_divide by 1, keeping ±inf (coreai gives NaN there).
// CHECK-LABEL: coreai.graph @floor(
// CHECK-SAME:    %[[A:[^:]*]]: tensor<4xf32>
// CHECK-NEXT:    %[[ONE:.*]] = coreai.constant dense<1.000000e+00> : tensor<f32>
// CHECK-NEXT:    %[[F:.*]] = coreai.decomposable.broadcasting_floor_divide %[[A]], %[[ONE]]
// CHECK-NEXT:    %[[NAN:.*]] = coreai.decomposable.broadcasting_not_equal %[[F]], %[[F]]
// CHECK-NEXT:    %[[R:.*]] = coreai.decomposable.broadcasting_where %[[NAN]], %[[A]], %[[F]]
// CHECK-NEXT:    coreai.output %[[R]]
func.func @floor(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = aten.floor.default %a : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// Rounding an integer tensor is the identity: no op is emitted.
// CHECK-LABEL: coreai.graph @round_int(
// CHECK-SAME:    %[[A:[^:]*]]: tensor<4xsi32>
// CHECK-NEXT:    coreai.output %[[A]], %[[A]]
func.func @round_int(%a: tensor<4xi32>) -> (tensor<4xi32>, tensor<4xi32>) {
  %0 = aten.round.default %a : (tensor<4xi32>) -> tensor<4xi32>
  %1 = aten.ceil.default %a : (tensor<4xi32>) -> tensor<4xi32>
  return %0, %1 : tensor<4xi32>, tensor<4xi32>
}

// -----

// round is coreai.round (half to even); round.decimals scales around it.
// CHECK-LABEL: coreai.graph @round(
// CHECK-SAME:    %[[A:[^:]*]]: tensor<4xf32>
// CHECK-NEXT:    %[[R0:.*]] = coreai.round %[[A]] : tensor<4xf32> -> tensor<4xf32>
// CHECK-NEXT:    %[[K:.*]] = coreai.constant dense<1.000000e+02> : tensor<f32>
// CHECK-NEXT:    %[[M:.*]] = coreai.decomposable.broadcasting_mul %[[A]], %[[K]]
// CHECK-NEXT:    %[[RM:.*]] = coreai.round %[[M]]
// CHECK-NEXT:    %[[R1:.*]] = coreai.decomposable.broadcasting_divide %[[RM]], %[[K]]
// CHECK-NEXT:    coreai.output %[[R0]], %[[R1]]
func.func @round(%a: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %0 = aten.round.default %a : (tensor<4xf32>) -> tensor<4xf32>
  %1 = aten.round.decimals %a {decimals = 2 : i64} : (tensor<4xf32>) -> tensor<4xf32>
  return %0, %1 : tensor<4xf32>, tensor<4xf32>
}

// -----

// log2 divides the natural log by ln 2.
// CHECK-LABEL: coreai.graph @log2(
// CHECK-SAME:    %[[A:[^:]*]]: tensor<4xf32>
// CHECK-NEXT:    %[[LN2:.*]] = coreai.constant dense<0.693147182> : tensor<f32>
// CHECK-NEXT:    %[[L:.*]] = coreai.log %[[A]]
// CHECK-NEXT:    %[[R:.*]] = coreai.decomposable.broadcasting_divide %[[L]], %[[LN2]]
// CHECK-NEXT:    coreai.output %[[R]]
func.func @log2(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = aten.log2.default %a : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// expm1 uses Kahan's formula around exp and log.
// CHECK-LABEL: coreai.graph @expm1(
// CHECK-SAME:    %[[X:[^:]*]]: tensor<4xf32>
// CHECK-NEXT:    %[[ONE:.*]] = coreai.constant dense<1.000000e+00> : tensor<f32>
// CHECK-NEXT:    %[[U:.*]] = coreai.exp %[[X]]
// CHECK-NEXT:    %[[UM1:.*]] = coreai.decomposable.broadcasting_sub %[[U]], %[[ONE]]
// CHECK-NEXT:    %[[P:.*]] = coreai.decomposable.broadcasting_mul %[[UM1]], %[[X]]
// CHECK-NEXT:    %[[L:.*]] = coreai.log %[[U]]
// CHECK-NEXT:    %[[Q:.*]] = coreai.decomposable.broadcasting_divide %[[P]], %[[L]]
// CHECK-NEXT:    %[[ISONE:.*]] = coreai.decomposable.broadcasting_equal %[[U]], %[[ONE]]
// CHECK-NEXT:    coreai.decomposable.broadcasting_where %[[ISONE]], %[[X]], %[[Q]]
func.func @expm1(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = aten.expm1.default %a : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// sign is (x > 0) - (0 > x) in the result dtype.
// CHECK-LABEL: coreai.graph @sign(
// CHECK-SAME:    %[[A:[^:]*]]: tensor<4xf32>
// CHECK-NEXT:    %[[Z:.*]] = coreai.constant dense<0.000000e+00> : tensor<f32>
// CHECK-NEXT:    %[[GT:.*]] = coreai.decomposable.broadcasting_greater %[[A]], %[[Z]]
// CHECK-NEXT:    %[[P:.*]] = coreai.cast %[[GT]] : tensor<4xi1> to tensor<4xf32>
// CHECK-NEXT:    %[[LT:.*]] = coreai.decomposable.broadcasting_greater %[[Z]], %[[A]]
// CHECK-NEXT:    %[[N:.*]] = coreai.cast %[[LT]] : tensor<4xi1> to tensor<4xf32>
// CHECK-NEXT:    %[[R:.*]] = coreai.decomposable.broadcasting_sub %[[P]], %[[N]]
// CHECK-NEXT:    coreai.output %[[R]]
func.func @sign(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = aten.sign.default %a : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// maximum of an i64 and an f32 tensor computes in f32.
// CHECK-LABEL: coreai.graph @maximum_mixed(
// CHECK-SAME:    %[[A:[^:]*]]: tensor<4xsi64>, %[[B:[^:]*]]: tensor<4xf32>
// CHECK-NEXT:    %[[C:.*]] = coreai.cast %[[A]] : tensor<4xsi64> to tensor<4xf32>
// CHECK-NEXT:    %[[R:.*]] = coreai.decomposable.broadcasting_maximum %[[C]], %[[B]]
// CHECK-NEXT:    coreai.output %[[R]]
func.func @maximum_mixed(%a: tensor<4xi64>, %b: tensor<4xf32>) -> tensor<4xf32> {
  %0 = aten.maximum.default %a, %b : (tensor<4xi64>, tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// atan2 starts from atan(y / x).
// CHECK-LABEL: coreai.graph @atan2(
// CHECK-SAME:    %[[Y:[^:]*]]: tensor<4xf32>, %[[X:[^:]*]]: tensor<4xf32>
// CHECK:         %[[Q:.*]] = coreai.decomposable.broadcasting_divide %[[Y]], %[[X]]
// CHECK-NEXT:    %{{.*}} = coreai.atan %[[Q]]
// CHECK:         coreai.constant dense<0.785398185> : tensor<f32>
// CHECK:         coreai.output
func.func @atan2(%y: tensor<4xf32>, %x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = aten.atan2.default %y, %x : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
