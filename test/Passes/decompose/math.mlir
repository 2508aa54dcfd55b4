// RUN: coreai-opt %s --split-input-file --pass-pipeline='builtin.module(decompose)' | FileCheck %s --enable-var-scope

// softmax.int → _softmax.default; a dtype argument casts first.
// CHECK-LABEL: func.func @softmax(
// CHECK-SAME:    %[[X:[^:]*]]: tensor<4x6xf32>
// CHECK:         %[[S:.*]] = aten._softmax.default %[[X]] {dim = -1 : i64, half_to_float = false} : (tensor<4x6xf32>) -> tensor<4x6xf32>
// CHECK:         %[[L:.*]] = aten._log_softmax.default %[[X]] {dim = 1 : i64, half_to_float = false}
// CHECK:         %[[C:.*]] = aten._to_copy.default %[[X]] {dtype = f64, non_blocking = false} : (tensor<4x6xf32>) -> tensor<4x6xf64>
// CHECK:         %[[D:.*]] = aten._softmax.default %[[C]] {dim = 0 : i64, half_to_float = false} : (tensor<4x6xf64>) -> tensor<4x6xf64>
// CHECK:         return %[[S]], %[[L]], %[[D]]
func.func @softmax(%x: tensor<4x6xf32>) -> (tensor<4x6xf32>, tensor<4x6xf32>, tensor<4x6xf64>) {
  %0 = aten.softmax.int %x {dim = -1 : i64} : (tensor<4x6xf32>) -> tensor<4x6xf32>
  %1 = aten.log_softmax.int %x {dim = 1 : i64} : (tensor<4x6xf32>) -> tensor<4x6xf32>
  %2 = aten.softmax.int %x {dim = 0 : i64, dtype = f64} : (tensor<4x6xf32>) -> tensor<4x6xf64>
  return %0, %1, %2 : tensor<4x6xf32>, tensor<4x6xf32>, tensor<4x6xf64>
}

// -----

// The Python operators are the bitwise ops; all = not(any(not x));
// floor_divide = div with floor rounding.
// CHECK-LABEL: func.func @logical(
// CHECK-SAME:    %[[A:[^:]*]]: tensor<3x4xi1>, %[[B:[^:]*]]: tensor<3x4xi1>, %[[I:[^:]*]]: tensor<8xi32>, %[[J:[^:]*]]: tensor<8xi32>
// CHECK:         %[[AND:.*]] = aten.bitwise_and.Tensor %[[A]], %[[B]]
// CHECK:         %[[OR:.*]] = aten.bitwise_or.Tensor %[[A]], %[[B]]
// CHECK:         %[[XOR:.*]] = aten.bitwise_xor.Tensor %[[I]], %[[J]]
// CHECK:         %[[NA:.*]] = aten.logical_not.default %[[A]] : (tensor<3x4xi1>) -> tensor<3x4xi1>
// CHECK:         %[[ANY:.*]] = aten.any.dim %[[NA]] {dim = 1 : i64, keepdim = false} : (tensor<3x4xi1>) -> tensor<3xi1>
// CHECK:         %[[ALL:.*]] = aten.logical_not.default %[[ANY]] : (tensor<3xi1>) -> tensor<3xi1>
// CHECK:         %[[FD:.*]] = aten.div.Tensor_mode %[[I]], %[[J]] {rounding_mode = "floor"}
// CHECK:         return %[[AND]], %[[OR]], %[[XOR]], %[[ALL]], %[[FD]]
func.func @logical(%a: tensor<3x4xi1>, %b: tensor<3x4xi1>, %i: tensor<8xi32>, %j: tensor<8xi32>) -> (tensor<3x4xi1>, tensor<3x4xi1>, tensor<8xi32>, tensor<3xi1>, tensor<8xi32>) {
  %0 = aten.__and__.Tensor %a, %b : (tensor<3x4xi1>, tensor<3x4xi1>) -> tensor<3x4xi1>
  %1 = aten.__or__.Tensor %a, %b : (tensor<3x4xi1>, tensor<3x4xi1>) -> tensor<3x4xi1>
  %2 = aten.__xor__.Tensor %i, %j : (tensor<8xi32>, tensor<8xi32>) -> tensor<8xi32>
  %3 = aten.all.dim %a {dim = 1 : i64, keepdim = false} : (tensor<3x4xi1>) -> tensor<3xi1>
  %4 = aten.floor_divide.default %i, %j : (tensor<8xi32>, tensor<8xi32>) -> tensor<8xi32>
  return %0, %1, %2, %3, %4 : tensor<3x4xi1>, tensor<3x4xi1>, tensor<8xi32>, tensor<3xi1>, tensor<8xi32>
}

// -----

// Scalars become rank-0 constants in the tensor's dtype.
// CHECK-LABEL: func.func @scalars(
// CHECK-SAME:    %[[X:[^:]*]]: tensor<5x2xf32>, %[[M:[^:]*]]: tensor<5x2xi1>, %[[N:[^:]*]]: tensor<6x7xi64>
// CHECK:         %[[ONE:.*]] = arith.constant dense<1.000000e+00> : tensor<f32>
// CHECK:         %[[R1:.*]] = aten.sub.Tensor %[[ONE]], %[[X]] {alpha = 1 : i64} : (tensor<f32>, tensor<5x2xf32>) -> tensor<5x2xf32>
// CHECK:         %[[THREE:.*]] = arith.constant dense<3.000000e+00> : tensor<f32>
// CHECK:         %[[AX:.*]] = aten.mul.Tensor %[[X]], %[[THREE]]
// CHECK:         %[[S:.*]] = arith.constant dense<2.500000e+00> : tensor<f32>
// CHECK:         %[[R2:.*]] = aten.sub.Tensor %[[S]], %[[AX]] {alpha = 1 : i64}
// CHECK:         %[[FILL:.*]] = aten.scalar_tensor.default {dtype = f32, s = -1.000000e+04 : f64} : () -> tensor<f32>
// CHECK:         %[[MF:.*]] = aten.where.self %[[M]], %[[FILL]], %[[X]]
// CHECK:         %[[SUM:.*]] = aten.sum.dim_IntList %[[N]] {dim = [], keepdim = false} : (tensor<6x7xi64>) -> tensor<i64>
// CHECK:         %[[CL:.*]] = aten.clamp.default %[[X]] {min = 9.9999999999999998E-13 : f64}
// CHECK:         return %[[R1]], %[[R2]], %[[MF]], %[[SUM]], %[[CL]]
func.func @scalars(%x: tensor<5x2xf32>, %m: tensor<5x2xi1>, %n: tensor<6x7xi64>) -> (tensor<5x2xf32>, tensor<5x2xf32>, tensor<5x2xf32>, tensor<i64>, tensor<5x2xf32>) {
  %0 = aten.rsub.Scalar %x {other = 1 : i64, alpha = 1 : i64} : (tensor<5x2xf32>) -> tensor<5x2xf32>
  %1 = aten.rsub.Scalar %x {other = 2.5 : f64, alpha = 3 : i64} : (tensor<5x2xf32>) -> tensor<5x2xf32>
  %2 = aten.masked_fill.Scalar %x, %m {value = -10000.0 : f64} : (tensor<5x2xf32>, tensor<5x2xi1>) -> tensor<5x2xf32>
  %3 = aten.sum.default %n : (tensor<6x7xi64>) -> tensor<i64>
  %4 = aten.clamp_min.default %x {min = 1.0e-12 : f64} : (tensor<5x2xf32>) -> tensor<5x2xf32>
  return %0, %1, %2, %3, %4 : tensor<5x2xf32>, tensor<5x2xf32>, tensor<5x2xf32>, tensor<i64>, tensor<5x2xf32>
}

// -----

// ord 2: sqrt(Σx²); ord p: (Σ|x|^p)^(1/p); ord ∞: max|x|. var/std with
// unbiased → correction.
// CHECK-LABEL: func.func @norms(
// CHECK-SAME:    %[[X:[^:]*]]: tensor<2x3x4xf32>
// CHECK:         %[[SQ:.*]] = aten.mul.Tensor %[[X]], %[[X]]
// CHECK:         %[[S2:.*]] = aten.sum.dim_IntList %[[SQ]] {dim = [2], keepdim = false} : (tensor<2x3x4xf32>) -> tensor<2x3xf32>
// CHECK:         %[[N2:.*]] = aten.sqrt.default %[[S2]]
// CHECK:         %[[A3:.*]] = aten.abs.default %[[X]]
// CHECK:         %[[P3:.*]] = aten.pow.Tensor_Scalar %[[A3]] {exponent = 3.000000e+00 : f64}
// CHECK:         %[[S3:.*]] = aten.sum.dim_IntList %[[P3]] {dim = [1], keepdim = true} : (tensor<2x3x4xf32>) -> tensor<2x1x4xf32>
// CHECK:         %[[N3:.*]] = aten.pow.Tensor_Scalar %[[S3]] {exponent = 0.33333333333333331 : f64}
// CHECK:         %[[AI:.*]] = aten.abs.default %[[X]]
// CHECK:         %[[NI:.*]] = aten.amax.default %[[AI]] {dim = [0, 1, 2], keepdim = false} : (tensor<2x3x4xf32>) -> tensor<f32>
// CHECK:         %[[V:.*]] = aten.var.correction %[[X]] {correction = 1 : i64, dim = [1], keepdim = false} : (tensor<2x3x4xf32>) -> tensor<2x4xf32>
// CHECK:         %[[V0:.*]] = aten.var.correction %[[X]] {correction = 0 : i64, dim = [2], keepdim = true}
// CHECK:         %[[SD:.*]] = aten.sqrt.default %[[V0]]
// CHECK:         return %[[N2]], %[[N3]], %[[NI]], %[[V]], %[[SD]]
func.func @norms(%x: tensor<2x3x4xf32>) -> (tensor<2x3xf32>, tensor<2x1x4xf32>, tensor<f32>, tensor<2x4xf32>, tensor<2x3x1xf32>) {
  %0 = aten.linalg_vector_norm.default %x {ord = 2 : i64, dim = [-1], keepdim = false} : (tensor<2x3x4xf32>) -> tensor<2x3xf32>
  %1 = aten.linalg_vector_norm.default %x {ord = 3.0 : f64, dim = [1], keepdim = true} : (tensor<2x3x4xf32>) -> tensor<2x1x4xf32>
  %2 = aten.linalg_vector_norm.default %x {ord = 0x7FF0000000000000 : f64, keepdim = false} : (tensor<2x3x4xf32>) -> tensor<f32>
  %3 = aten.var.dim %x {dim = [1], unbiased = true, keepdim = false} : (tensor<2x3x4xf32>) -> tensor<2x4xf32>
  %4 = aten.std.dim %x {dim = [-1], unbiased = false, keepdim = true} : (tensor<2x3x4xf32>) -> tensor<2x3x1xf32>
  return %0, %1, %2, %3, %4 : tensor<2x3xf32>, tensor<2x1x4xf32>, tensor<f32>, tensor<2x4xf32>, tensor<2x3x1xf32>
}

// -----

// log Σ exp(x − m) + m with m = max x, and m = 0 where it is infinite.
// CHECK-LABEL: func.func @logsumexp(
// CHECK-SAME:    %[[X:[^:]*]]: tensor<3x6xf32>
// CHECK:         %[[M:.*]] = aten.amax.default %[[X]] {dim = [1], keepdim = true} : (tensor<3x6xf32>) -> tensor<3x1xf32>
// CHECK:         %[[A:.*]] = aten.abs.default %[[M]]
// CHECK:         %[[INF:.*]] = aten.eq.Scalar %[[A]] {other = 0x7FF0000000000000 : f64} : (tensor<3x1xf32>) -> tensor<3x1xi1>
// CHECK:         %[[ZERO:.*]] = arith.constant dense<0.000000e+00> : tensor<f32>
// CHECK:         %[[SAFE:.*]] = aten.where.self %[[INF]], %[[ZERO]], %[[M]]
// CHECK:         %[[D:.*]] = aten.sub.Tensor %[[X]], %[[SAFE]] {alpha = 1 : i64} : (tensor<3x6xf32>, tensor<3x1xf32>) -> tensor<3x6xf32>
// CHECK:         %[[E:.*]] = aten.exp.default %[[D]]
// CHECK:         %[[S:.*]] = aten.sum.dim_IntList %[[E]] {dim = [1], keepdim = false} : (tensor<3x6xf32>) -> tensor<3xf32>
// CHECK:         %[[L:.*]] = aten.log.default %[[S]]
// CHECK:         %[[SQ:.*]] = aten.squeeze.dims %[[SAFE]] {dim = [1]} : (tensor<3x1xf32>) -> tensor<3xf32>
// CHECK:         %[[R:.*]] = aten.add.Tensor %[[L]], %[[SQ]] {alpha = 1 : i64}
// CHECK:         return %[[R]]
func.func @logsumexp(%x: tensor<3x6xf32>) -> tensor<3xf32> {
  %0 = aten.logsumexp.default %x {dim = [1], keepdim = false} : (tensor<3x6xf32>) -> tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

// softplus = where(βx > t, x, log1p(exp(βx))/β); mish = x·tanh(softplus(x)).
// CHECK-LABEL: func.func @activations(
// CHECK-SAME:    %[[X:[^:]*]]: tensor<4x6xf32>
// CHECK:         %[[BETA:.*]] = arith.constant dense<2.000000e+00> : tensor<f32>
// CHECK:         %[[BX:.*]] = aten.mul.Tensor %[[X]], %[[BETA]]
// CHECK:         %[[E:.*]] = aten.exp.default %[[BX]]
// CHECK:         %[[L:.*]] = aten.log1p.default %[[E]]
// CHECK:         %[[BETA2:.*]] = arith.constant dense<2.000000e+00> : tensor<f32>
// CHECK:         %[[SOFT:.*]] = aten.div.Tensor %[[L]], %[[BETA2]]
// CHECK:         %[[BIG:.*]] = aten.gt.Scalar %[[BX]] {other = 3.000000e+00 : f64}
// CHECK:         %[[SP:.*]] = aten.where.self %[[BIG]], %[[X]], %[[SOFT]]
// CHECK:         %[[E1:.*]] = aten.exp.default %[[X]]
// CHECK:         %[[L1:.*]] = aten.log1p.default %[[E1]]
// CHECK:         %[[BIG1:.*]] = aten.gt.Scalar %[[X]] {other = 2.000000e+01 : f64}
// CHECK:         %[[SP1:.*]] = aten.where.self %[[BIG1]], %[[X]], %[[L1]]
// CHECK:         %[[T:.*]] = aten.tanh.default %[[SP1]]
// CHECK:         %[[MISH:.*]] = aten.mul.Tensor %[[X]], %[[T]]
// CHECK:         return %[[SP]], %[[MISH]]
func.func @activations(%x: tensor<4x6xf32>) -> (tensor<4x6xf32>, tensor<4x6xf32>) {
  %0 = aten.softplus.default %x {beta = 2 : i64, threshold = 3 : i64} : (tensor<4x6xf32>) -> tensor<4x6xf32>
  %1 = aten.mish.default %x : (tensor<4x6xf32>) -> tensor<4x6xf32>
  return %0, %1 : tensor<4x6xf32>, tensor<4x6xf32>
}

// -----

// type_as of the same dtype is the input itself.
// CHECK-LABEL: func.func @type_as(
// CHECK-SAME:    %[[X:[^:]*]]: tensor<2x3xf32>
// CHECK:         %[[H:.*]] = aten._to_copy.default %[[X]] {dtype = f16, non_blocking = false} : (tensor<2x3xf32>) -> tensor<2x3xf16>
// CHECK:         return %[[X]], %[[H]]
func.func @type_as(%x: tensor<2x3xf32>, %y: tensor<2x3xf32>, %h: tensor<3xf16>) -> (tensor<2x3xf32>, tensor<2x3xf16>) {
  %0 = aten.type_as.default %x, %y : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %1 = aten.type_as.default %x, %h : (tensor<2x3xf32>, tensor<3xf16>) -> tensor<2x3xf16>
  return %0, %1 : tensor<2x3xf32>, tensor<2x3xf16>
}
