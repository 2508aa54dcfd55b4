// RUN: coreai-opt %s --pass-pipeline='builtin.module(decompose)' | FileCheck %s --enable-var-scope

// The builders of passes/decompose/build.rs: scalars with exponents become
// constants of the tensor's dtype that parse back (1e-05 was once spelled in
// a form MLIR rejects); a number beyond f32's range is inf, as PyTorch casts
// it; result types are computed from the operands.
// CHECK-LABEL: func.func @tiny_scalars(
// CHECK-SAME:    %[[X:[^:]*]]: tensor<5x2xf32>
// CHECK:         %[[A:.*]] = arith.constant dense<9.99999974E-6> : tensor<f32>
// CHECK:         %[[S:.*]] = aten.sub.Tensor %[[A]], %[[X]] {alpha = 1 : i64} : (tensor<f32>, tensor<5x2xf32>) -> tensor<5x2xf32>
// CHECK:         %[[B:.*]] = arith.constant dense<2.500000e-07> : tensor<f32>
// CHECK:         %[[M:.*]] = aten.mul.Tensor %[[X]], %[[B]] : (tensor<5x2xf32>, tensor<f32>) -> tensor<5x2xf32>
// CHECK:         %[[INF:.*]] = arith.constant dense<0x7F800000> : tensor<f32>
// CHECK:         %[[T:.*]] = aten.sub.Tensor %[[INF]], %[[M]]
// CHECK:         return %[[S]], %[[T]]
func.func @tiny_scalars(%x: tensor<5x2xf32>) -> (tensor<5x2xf32>, tensor<5x2xf32>) {
  %0 = aten.rsub.Scalar %x {other = 1.0e-05 : f64, alpha = 1 : i64} : (tensor<5x2xf32>) -> tensor<5x2xf32>
  %1 = aten.rsub.Scalar %x {other = 1.5e+300 : f64, alpha = 2.5e-07 : f64} : (tensor<5x2xf32>) -> tensor<5x2xf32>
  return %0, %1 : tensor<5x2xf32>, tensor<5x2xf32>
}
