// RUN: coreai-opt %s --split-input-file --pass-pipeline='builtin.module(legalize-aten-to-coreai)' | FileCheck %s --enable-var-scope

// _to_copy is a coreai.cast; float → int truncates explicitly first (coreai-core folds an int → float
// cast of the result back to x, dropping the truncation); layout, device and memory format do not
// change values; the same dtype is the operand itself.
// CHECK-LABEL: coreai.graph @float_to_int_and_half(
// CHECK-SAME:    %[[X:[^:]*]]: tensor<4xf32>
// CHECK:         %[[ABS:.*]] = coreai.abs %[[X]]
// CHECK:         coreai.decomposable.broadcasting_floor_divide %[[ABS]], %{{.*}}
// CHECK:         %[[NEG:.*]] = coreai.decomposable.broadcasting_greater %{{.*}}, %[[X]]
// CHECK:         %[[T:.*]] = coreai.decomposable.broadcasting_where %[[NEG]], %{{.*}}, %{{.*}} : (tensor<4xi1>, tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
// CHECK-NEXT:    %[[I:.*]] = coreai.cast %[[T]] : tensor<4xf32> to tensor<4xsi32>
// CHECK-NEXT:    %[[H:.*]] = coreai.cast %[[X]] : tensor<4xf32> to tensor<4xf16>
// CHECK-NEXT:    coreai.output %[[I]], %[[H]], %[[X]]
func.func @float_to_int_and_half(%x: tensor<4xf32>) -> (tensor<4xi32>, tensor<4xf16>, tensor<4xf32>) {
  %0 = aten._to_copy.default %x {dtype = i32, non_blocking = false} : (tensor<4xf32>) -> tensor<4xi32>
  %1 = aten._to_copy.default %x {dtype = f16, layout = "strided", device = "cpu", non_blocking = false, memory_format = "preserve_format"} : (tensor<4xf32>) -> tensor<4xf16>
  %2 = aten._to_copy.default %x {dtype = f32, non_blocking = false} : (tensor<4xf32>) -> tensor<4xf32>
  return %0, %1, %2 : tensor<4xi32>, tensor<4xf16>, tensor<4xf32>
}

// -----

// To bool is x ≠ 0 (NaN is true, as PyTorch).
// CHECK-LABEL: coreai.graph @to_bool(
// CHECK-SAME:    %[[X:[^:]*]]: tensor<4xf32>
// CHECK-NEXT:    %[[Z:.*]] = coreai.constant dense<0.000000e+00> : tensor<f32>
// CHECK-NEXT:    %[[R:.*]] = coreai.decomposable.broadcasting_not_equal %[[X]], %[[Z]]
// CHECK-NEXT:    coreai.output %[[R]]
func.func @to_bool(%x: tensor<4xf32>) -> tensor<4xi1> {
  %0 = aten._to_copy.default %x {dtype = i1, non_blocking = false} : (tensor<4xf32>) -> tensor<4xi1>
  return %0 : tensor<4xi1>
}

// -----

// Narrowing ints keeps the low bits (300 → 44, as PyTorch; coreai.cast would saturate): mask, sign-extend, cast.
// CHECK-LABEL: coreai.graph @narrowing_wraps(
// CHECK-SAME:    %[[X:[^:]*]]: tensor<4xsi64>
// CHECK-NEXT:    %[[MASK:.*]] = coreai.constant dense<255> : tensor<si64>
// CHECK-NEXT:    %[[LOW:.*]] = coreai.decomposable.broadcasting_bitwise_and %[[X]], %[[MASK]]
// CHECK-NEXT:    %[[M:.*]] = coreai.constant dense<128> : tensor<si64>
// CHECK-NEXT:    %[[F:.*]] = coreai.decomposable.broadcasting_bitwise_xor %[[LOW]], %[[M]]
// CHECK-NEXT:    %[[S:.*]] = coreai.decomposable.broadcasting_sub %[[F]], %[[M]]
// CHECK-NEXT:    %[[R:.*]] = coreai.cast %[[S]] : tensor<4xsi64> to tensor<4xsi8>
// CHECK-NEXT:    coreai.output %[[R]]
func.func @narrowing_wraps(%x: tensor<4xi64>) -> tensor<4xi8> {
  %0 = aten._to_copy.default %x {dtype = i8, non_blocking = false} : (tensor<4xi64>) -> tensor<4xi8>
  return %0 : tensor<4xi8>
}

// -----

// int32 → uint8 wraps too (-7 → 249).
// CHECK-LABEL: coreai.graph @to_unsigned_wraps(
// CHECK-SAME:    %[[X:[^:]*]]: tensor<4xsi32>
// CHECK-NEXT:    %[[W:.*]] = coreai.cast %[[X]] : tensor<4xsi32> to tensor<4xsi64>
// CHECK-NEXT:    %[[MASK:.*]] = coreai.constant dense<255> : tensor<si64>
// CHECK-NEXT:    %[[LOW:.*]] = coreai.decomposable.broadcasting_bitwise_and %[[W]], %[[MASK]]
// CHECK-NEXT:    %[[R:.*]] = coreai.cast %[[LOW]] : tensor<4xsi64> to tensor<4xui8>
// CHECK-NEXT:    coreai.output %[[R]]
func.func @to_unsigned_wraps(%x: tensor<4xi32>) -> tensor<4xui8> {
  %0 = aten._to_copy.default %x {dtype = ui8, non_blocking = false} : (tensor<4xi32>) -> tensor<4xui8>
  return %0 : tensor<4xui8>
}

// -----

// Widening ints and bool → float are plain casts; to.dtype lowers like _to_copy.
// CHECK-LABEL: coreai.graph @widening_and_bool(
// CHECK-SAME:    %[[X:[^:]*]]: tensor<4xsi32>, %[[P:[^:]*]]: tensor<4xi1>
// CHECK-NEXT:    %[[W:.*]] = coreai.cast %[[X]] : tensor<4xsi32> to tensor<4xsi64>
// CHECK-NEXT:    %[[F:.*]] = coreai.cast %[[P]] : tensor<4xi1> to tensor<4xf32>
// CHECK-NEXT:    coreai.output %[[W]], %[[F]]
func.func @widening_and_bool(%x: tensor<4xi32>, %p: tensor<4xi1>) -> (tensor<4xi64>, tensor<4xf32>) {
  %0 = aten.to.dtype %x {dtype = i64, non_blocking = false, copy = false} : (tensor<4xi32>) -> tensor<4xi64>
  %1 = aten._to_copy.default %p {dtype = f32, non_blocking = false} : (tensor<4xi1>) -> tensor<4xf32>
  return %0, %1 : tensor<4xi64>, tensor<4xf32>
}

// -----

// torch.export's training IR keeps `to` with a device or a layout; the
// result type carries the dtype. Same dtype: the operand itself.
// CHECK-LABEL: coreai.graph @to_device_and_layout(
// CHECK-SAME:    %[[X:[^:]*]]: tensor<4xf32>
// CHECK-NEXT:    %[[H:.*]] = coreai.cast %[[X]] : tensor<4xf32> to tensor<4xf16>
// CHECK-NEXT:    coreai.output %[[X]], %[[H]]
func.func @to_device_and_layout(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf16>) {
  %0 = aten.operator "aten::to.device"(%x) {device = "cpu", dtype = f32, non_blocking = false, copy = false, operand_args = ["self"], operand_groups = array<i64: 1>} : (tensor<4xf32>) -> tensor<4xf32>
  %1 = aten.operator "aten::to.dtype_layout"(%x) {dtype = f16, layout = "strided", device = "cpu", non_blocking = false, copy = false, operand_args = ["self"], operand_groups = array<i64: 1>} : (tensor<4xf32>) -> tensor<4xf16>
  return %0, %1 : tensor<4xf32>, tensor<4xf16>
}
