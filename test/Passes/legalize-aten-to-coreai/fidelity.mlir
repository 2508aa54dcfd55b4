// RUN: coreai-opt %s --split-input-file --pass-pipeline='builtin.module(legalize-aten-to-coreai)' | FileCheck %s --enable-var-scope

// Fidelity regressions (conversion-guide §9; test/e2e/test_fidelity.py checks the numbers).

// (a) Integer true division casts to the float result before dividing (7 / 2 = 3.5, not 3).
// CHECK-LABEL: coreai.graph @int_div_scalar(
// CHECK-SAME:    %[[A:[^:]*]]: tensor<4xsi64>
// CHECK-NEXT:    %[[F:.*]] = coreai.cast %[[A]] : tensor<4xsi64> to tensor<4xf32>
// CHECK-NEXT:    %[[TWO:.*]] = coreai.constant dense<2.000000e+00> : tensor<f32>
// CHECK-NEXT:    %[[R:.*]] = coreai.decomposable.broadcasting_divide %[[F]], %[[TWO]] : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
// CHECK-NEXT:    coreai.output %[[R]]
func.func @int_div_scalar(%a: tensor<4xi64>) -> tensor<4xf32> {
  %0 = aten.div.Scalar %a {other = 2 : i64} : (tensor<4xi64>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// (a) true_divide and div.Tensor_mode without a rounding mode promote first too.
// CHECK-LABEL: coreai.graph @int_true_divide_and_mode_none(
// CHECK-SAME:    %[[A:[^:]*]]: tensor<4xsi32>, %[[B:[^:]*]]: tensor<4xsi32>
// CHECK-NEXT:    %[[FA:.*]] = coreai.cast %[[A]] : tensor<4xsi32> to tensor<4xf32>
// CHECK-NEXT:    %[[FB:.*]] = coreai.cast %[[B]] : tensor<4xsi32> to tensor<4xf32>
// CHECK-NEXT:    %[[R0:.*]] = coreai.decomposable.broadcasting_divide %[[FA]], %[[FB]] : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
// CHECK-NEXT:    %[[GA:.*]] = coreai.cast %[[A]] : tensor<4xsi32> to tensor<4xf32>
// CHECK-NEXT:    %[[GB:.*]] = coreai.cast %[[B]] : tensor<4xsi32> to tensor<4xf32>
// CHECK-NEXT:    %[[R1:.*]] = coreai.decomposable.broadcasting_divide %[[GA]], %[[GB]] : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
// CHECK-NEXT:    coreai.output %[[R0]], %[[R1]]
// CHECK-NOT:     broadcasting_divide {{.*}}xsi32
func.func @int_true_divide_and_mode_none(%a: tensor<4xi32>, %b: tensor<4xi32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %0 = aten.true_divide.Tensor %a, %b : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xf32>
  %1 = aten.div.Tensor_mode %a, %b : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xf32>
  return %0, %1 : tensor<4xf32>, tensor<4xf32>
}

// -----

// (b) float → int → float: the truncation is explicit before the int cast, so that coreai-core's
// folding of the int → float round trip still sees trunc(x).
// CHECK-LABEL: coreai.graph @float_int_float(
// CHECK-SAME:    %[[X:[^:]*]]: tensor<4xf32>
// CHECK:         %[[ABS:.*]] = coreai.abs %[[X]]
// CHECK:         coreai.decomposable.broadcasting_floor_divide %[[ABS]], %{{.*}}
// CHECK:         %[[NEG:.*]] = coreai.decomposable.broadcasting_greater %{{.*}}, %[[X]]
// CHECK:         %[[T:.*]] = coreai.decomposable.broadcasting_where %[[NEG]]
// CHECK-NEXT:    %[[I:.*]] = coreai.cast %[[T]] : tensor<4xf32> to tensor<4xsi32>
// CHECK-NEXT:    %[[F:.*]] = coreai.cast %[[I]] : tensor<4xsi32> to tensor<4xf32>
// CHECK-NEXT:    coreai.output %[[F]]
func.func @float_int_float(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = aten._to_copy.default %x {dtype = i32, non_blocking = false} : (tensor<4xf32>) -> tensor<4xi32>
  %1 = aten._to_copy.default %0 {dtype = f32, non_blocking = false} : (tensor<4xi32>) -> tensor<4xf32>
  return %1 : tensor<4xf32>
}

// -----

// (c) div(x, 1, rounding_mode="floor") floors (no "divide by 1 is identity"); "trunc" truncates.
// CHECK-LABEL: coreai.graph @floor_by_one(
// CHECK-SAME:    %[[X:[^:]*]]: tensor<4xf32>
// CHECK:         coreai.decomposable.broadcasting_modulo %[[X]], %{{.*}}
// CHECK:         coreai.decomposable.broadcasting_floor_divide
// CHECK:         %[[Q:.*]] = coreai.decomposable.broadcasting_divide %[[X]], %{{.*}}
// CHECK:         %[[ABS:.*]] = coreai.abs %[[Q]]
// CHECK:         coreai.decomposable.broadcasting_floor_divide %[[ABS]], %{{.*}}
// CHECK:         coreai.output
func.func @floor_by_one(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %0 = aten.div.Scalar_mode %x {other = 1 : i64, rounding_mode = "floor"} : (tensor<4xf32>) -> tensor<4xf32>
  %1 = aten.div.Scalar_mode %x {other = 1 : i64, rounding_mode = "trunc"} : (tensor<4xf32>) -> tensor<4xf32>
  return %0, %1 : tensor<4xf32>, tensor<4xf32>
}

// -----

// (d) An f16 graph never writes 0.1 as an f16 literal: mul computes in f32 with f32(0.1) and rounds
// once; add converts 0.1 to f16 with an explicit cast (PyTorch's kernels, measured); an exact number
// (2) is an f16 constant.
// CHECK-LABEL: coreai.graph @f16_numbers(
// CHECK-SAME:    %[[X:[^:]*]]: tensor<4xf16>
// CHECK-NEXT:    %[[W:.*]] = coreai.cast %[[X]] : tensor<4xf16> to tensor<4xf32>
// CHECK-NEXT:    %[[K:.*]] = coreai.constant dense<1.000000e-01> : tensor<f32>
// CHECK-NEXT:    %[[M:.*]] = coreai.decomposable.broadcasting_mul %[[W]], %[[K]] : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
// CHECK-NEXT:    %[[R0:.*]] = coreai.cast %[[M]] : tensor<4xf32> to tensor<4xf16>
// CHECK-NEXT:    %[[K2:.*]] = coreai.constant dense<1.000000e-01> : tensor<f32>
// CHECK-NEXT:    %[[H:.*]] = coreai.cast %[[K2]] : tensor<f32> to tensor<f16>
// CHECK-NEXT:    %[[R1:.*]] = coreai.decomposable.broadcasting_add %[[X]], %[[H]] : (tensor<4xf16>, tensor<f16>) -> tensor<4xf16>
// CHECK-NEXT:    %[[TWO:.*]] = coreai.constant dense<2.000000e+00> : tensor<f16>
// CHECK-NEXT:    %[[R2:.*]] = coreai.decomposable.broadcasting_mul %[[X]], %[[TWO]]
// CHECK-NEXT:    coreai.output %[[R0]], %[[R1]], %[[R2]]
// CHECK-NOT:     dense<{{.*}}e-01> : tensor<f16>
func.func @f16_numbers(%x: tensor<4xf16>) -> (tensor<4xf16>, tensor<4xf16>, tensor<4xf16>) {
  %s = arith.constant {aten.wrapped_number} dense<0.1> : tensor<f64>
  %0 = aten.mul.Tensor %x, %s : (tensor<4xf16>, tensor<f64>) -> tensor<4xf16>
  %1 = aten.add.Tensor %x, %s {alpha = 1 : i64} : (tensor<4xf16>, tensor<f64>) -> tensor<4xf16>
  %t = arith.constant {aten.wrapped_number} dense<2> : tensor<i64>
  %2 = aten.mul.Tensor %x, %t : (tensor<4xf16>, tensor<i64>) -> tensor<4xf16>
  return %0, %1, %2 : tensor<4xf16>, tensor<4xf16>, tensor<4xf16>
}
