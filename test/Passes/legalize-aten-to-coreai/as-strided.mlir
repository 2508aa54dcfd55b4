// RUN: coreai-opt %s --split-input-file --verify-diagnostics --pass-pipeline='builtin.module(legalize-aten-to-coreai)' | FileCheck %s

// as_strided lowers where its sizes and strides are a row-major view of its
// input: a reshape. Strides of size-1 dims address nothing (PyTorch's
// adaptive-pooling decomposition on channels-last [N, C, 1, 1]).

// The same shape: the value itself.
// CHECK-LABEL: coreai.graph @channels_last_pool
// CHECK-NEXT:    coreai.output %arg0
func.func @channels_last_pool(%x: tensor<2x8x1x1xf32>) -> tensor<2x8x1x1xf32> {
  %0 = aten.as_strided.default %x {size = [2, 8, 1, 1], stride = [8, 1, 8, 8]} : (tensor<2x8x1x1xf32>) -> tensor<2x8x1x1xf32>
  return %0 : tensor<2x8x1x1xf32>
}

// -----

// CHECK-LABEL: coreai.graph @regroup
// CHECK:         coreai.reshape %arg0
func.func @regroup(%x: tensor<4x6xf32>) -> tensor<2x3x4xf32> {
  %0 = aten.as_strided.default %x {size = [2, 3, 4], stride = [12, 4, 1], storage_offset = 0 : i64} : (tensor<4x6xf32>) -> tensor<2x3x4xf32>
  return %0 : tensor<2x3x4xf32>
}

// -----

func.func @transposing(%x: tensor<4x6xf32>) -> tensor<6x4xf32> {
  // expected-error @+1 {{cannot lower 'aten::as_strided.default': size [6, 4], stride [1, 6], storage_offset 0 is not a view of the input [4, 6] in row-major order; only such as_strided ops lower}}
  %0 = aten.as_strided.default %x {size = [6, 4], stride = [1, 6]} : (tensor<4x6xf32>) -> tensor<6x4xf32>
  return %0 : tensor<6x4xf32>
}

// -----

func.func @offset(%x: tensor<4x6xf32>) -> tensor<4x6xf32> {
  // expected-error @+1 {{storage_offset 1 is not a view}}
  %0 = aten.as_strided.default %x {size = [4, 6], stride = [6, 1], storage_offset = 1 : i64} : (tensor<4x6xf32>) -> tensor<4x6xf32>
  return %0 : tensor<4x6xf32>
}

// -----

func.func @overlapping_windows(%x: tensor<8xf32>) -> tensor<3x4xf32> {
  // expected-error @+1 {{size [3, 4], stride [2, 1], storage_offset 0 is not a view of the input [8]}}
  %0 = aten.as_strided.default %x {size = [3, 4], stride = [2, 1]} : (tensor<8xf32>) -> tensor<3x4xf32>
  return %0 : tensor<3x4xf32>
}
