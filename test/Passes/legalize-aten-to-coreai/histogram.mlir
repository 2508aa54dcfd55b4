// RUN: coreai-opt %s --split-input-file --pass-pipeline='builtin.module(legalize-aten-to-coreai)' | FileCheck %s --enable-var-scope

// histc: PyTorch's bin formula in x's dtype, the elements outside [min, max]
// (NaN included) masked out, x == max clamped into the last bin (the f32
// width max - min a constant), one-hot
// counts summed in si32 and cast back.
// CHECK-LABEL: coreai.graph @histc(
// CHECK-SAME:    %[[X:[^:]*]]: tensor<2x3xf32>
// CHECK:         %[[F:.*]] = coreai.reshape %[[X]], %{{.*}} -> tensor<6x1xf32>
// CHECK:         %[[LO:.*]] = coreai.constant dense<0.000000e+00> : tensor<f32>
// CHECK:         %[[HI:.*]] = coreai.constant dense<3.000000e+00> : tensor<f32>
// CHECK:         %[[GT:.*]] = coreai.decomposable.broadcasting_greater %[[F]], %[[LO]]
// CHECK:         %[[EQ:.*]] = coreai.decomposable.broadcasting_equal %[[F]], %[[LO]]
// CHECK:         %[[GE:.*]] = coreai.decomposable.broadcasting_or %[[GT]], %[[EQ]]
// CHECK:         %[[LT:.*]] = coreai.decomposable.broadcasting_greater %[[HI]], %[[F]]
// CHECK:         %[[EQ2:.*]] = coreai.decomposable.broadcasting_equal %[[F]], %[[HI]]
// CHECK:         %[[LE:.*]] = coreai.decomposable.broadcasting_or %[[LT]], %[[EQ2]]
// CHECK:         %[[IN:.*]] = coreai.decomposable.broadcasting_and %[[GE]], %[[LE]]
// CHECK:         %[[XS:.*]] = coreai.decomposable.broadcasting_where %[[IN]], %[[F]], %[[LO]]
// CHECK:         %[[D:.*]] = coreai.decomposable.broadcasting_sub %[[XS]], %[[LO]]
// CHECK:         %[[B:.*]] = coreai.constant dense<4.000000e+00> : tensor<f32>
// CHECK:         %[[M:.*]] = coreai.decomposable.broadcasting_mul %[[D]], %[[B]]
// CHECK:         %[[W:.*]] = coreai.constant dense<3.000000e+00> : tensor<f32>
// CHECK:         %[[P:.*]] = coreai.decomposable.broadcasting_divide %[[M]], %[[W]]
// CHECK:         %[[PI:.*]] = coreai.cast %[[P]] : tensor<6x1xf32> to tensor<6x1xsi32>
// CHECK:         %[[LAST:.*]] = coreai.constant dense<3> : tensor<si32>
// CHECK:         %[[BIN:.*]] = coreai.decomposable.broadcasting_minimum %[[PI]], %[[LAST]]
// CHECK:         %[[NUMBERS:.*]] = coreai.reshape %{{.*}} -> tensor<1x4xsi32>
// CHECK:         %[[ONEHOT:.*]] = coreai.decomposable.broadcasting_equal %[[BIN]], %[[NUMBERS]] : (tensor<6x1xsi32>, tensor<1x4xsi32>) -> tensor<6x4xi1>
// CHECK:         %[[HITS:.*]] = coreai.decomposable.broadcasting_and %[[ONEHOT]], %[[IN]]
// CHECK:         %[[HI32:.*]] = coreai.cast %[[HITS]] : tensor<6x4xi1> to tensor<6x4xsi32>
// CHECK:         %[[SUM:.*]] = coreai.reduce_sum %[[HI32]], %{{.*}} : (tensor<6x4xsi32>, tensor<1xsi32>) -> tensor<1x4xsi32>
// CHECK:         %[[FLAT:.*]] = coreai.reshape %[[SUM]], %{{.*}} -> tensor<4xsi32>
// CHECK:         %[[H:.*]] = coreai.cast %[[FLAT]] : tensor<4xsi32> to tensor<4xf32>
// CHECK:         coreai.output %[[H]]
func.func @histc(%x: tensor<2x3xf32>) -> tensor<4xf32> {
  %0 = aten.operator "aten::histc.default"(%x) {bins = 4 : i64, min = 0 : i64, max = 3 : i64, operand_args = ["self"], operand_groups = array<i64: 1>} : (tensor<2x3xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// Float bounds are PyTorch's edges rounded to f32 (0.1 is 0x3DCCCCCD); the
// width is their f32 difference, 2.4f (0x4019999A).
// CHECK-LABEL: coreai.graph @histc$float_bounds(
// CHECK:         coreai.constant dense<1.000000e-01> : tensor<f32>
// CHECK:         coreai.constant dense<2.500000e+00> : tensor<f32>
// CHECK:         coreai.constant dense<7.000000e+00> : tensor<f32>
// CHECK:         coreai.constant dense<2.400000e+00> : tensor<f32>
func.func @"histc$float_bounds"(%x: tensor<5xf32>) -> tensor<7xf32> {
  %0 = aten.operator "aten::histc.default"(%x) {bins = 7 : i64, min = 0.1 : f64, max = 2.5 : f64, operand_args = ["self"], operand_groups = array<i64: 1>} : (tensor<5xf32>) -> tensor<7xf32>
  return %0 : tensor<7xf32>
}

// -----

// A dynamic f32 input: flattened with an inferred size.
// CHECK-LABEL: coreai.graph @histc$dynamic(
// CHECK:         coreai.reshape %{{.*}}, %{{.*}} : (tensor<?xf32>, tensor<2xsi32>) -> tensor<?x1xf32>
// CHECK:         coreai.reduce_sum %{{.*}}, %{{.*}} : (tensor<?x3xsi32>, tensor<1xsi32>) -> tensor<1x3xsi32>
func.func @"histc$dynamic"(%x: tensor<?xf32>) -> tensor<3xf32> {
  %0 = aten.operator "aten::histc.default"(%x) {bins = 3 : i64, min = 0 : i64, max = 2 : i64, operand_args = ["self"], operand_groups = array<i64: 1>} : (tensor<?xf32>) -> tensor<3xf32>
  return %0 : tensor<3xf32>
}
