// RUN: coreai-opt %s --split-input-file --pass-pipeline='builtin.module(decompose)' | FileCheck %s --enable-var-scope

// x·wᵀ + b for a matrix input: one addmm with the transposed weight.
// CHECK-LABEL: func.func @linear_2d(
// CHECK-SAME:    %[[X:.*]]: tensor<4x8xf32>, %[[W:.*]]: tensor<16x8xf32>, %[[B:.*]]: tensor<16xf32>
// CHECK:         %[[WT:.*]] = aten.permute.default %[[W]] {dims = [1, 0]} : (tensor<16x8xf32>) -> tensor<8x16xf32>
// CHECK:         %[[Y:.*]] = aten.addmm.default %[[B]], %[[X]], %[[WT]] {alpha = 1 : i64, beta = 1 : i64}
// CHECK-SAME:      -> tensor<4x16xf32>
// CHECK:         return %[[Y]]
func.func @linear_2d(%x: tensor<4x8xf32>, %w: tensor<16x8xf32>, %b: tensor<16xf32>) -> tensor<4x16xf32> {
  %0 = aten.linear.default %x, %w, %b : (tensor<4x8xf32>, tensor<16x8xf32>, tensor<16xf32>) -> tensor<4x16xf32>
  return %0 : tensor<4x16xf32>
}

// -----

// A batched input without bias: flattened to a matrix, mm, viewed back.
// CHECK-LABEL: func.func @linear_3d_no_bias(
// CHECK-SAME:    %[[X:.*]]: tensor<2x3x8xf32>, %[[W:.*]]: tensor<5x8xf32>
// CHECK:         %[[WT:.*]] = aten.permute.default %[[W]] {dims = [1, 0]}
// CHECK:         %[[F:.*]] = aten.view.default %[[X]] {size = [6, 8]} : (tensor<2x3x8xf32>) -> tensor<6x8xf32>
// CHECK:         %[[M:.*]] = aten.mm.default %[[F]], %[[WT]] : (tensor<6x8xf32>, tensor<8x5xf32>) -> tensor<6x5xf32>
// CHECK:         %[[Y:.*]] = aten.view.default %[[M]] {size = [2, 3, 5]} : (tensor<6x5xf32>) -> tensor<2x3x5xf32>
// CHECK:         return %[[Y]]
func.func @linear_3d_no_bias(%x: tensor<2x3x8xf32>, %w: tensor<5x8xf32>) -> tensor<2x3x5xf32> {
  %0 = aten.linear.default %x, %w : (tensor<2x3x8xf32>, tensor<5x8xf32>) -> tensor<2x3x5xf32>
  return %0 : tensor<2x3x5xf32>
}

// -----

// A dynamic batch is fine for a matrix input.
// CHECK-LABEL: func.func @linear_dynamic(
// CHECK:         aten.addmm.default {{.*}} -> tensor<?x16xf32>
func.func @linear_dynamic(%x: tensor<?x8xf32>, %w: tensor<16x8xf32>, %b: tensor<16xf32>) -> tensor<?x16xf32> {
  %0 = aten.linear.default %x, %w, %b : (tensor<?x8xf32>, tensor<16x8xf32>, tensor<16xf32>) -> tensor<?x16xf32>
  return %0 : tensor<?x16xf32>
}

// -----

// CHECK-LABEL: func.func @conv2d(
// CHECK-SAME:    %[[X:.*]]: tensor<1x3x16x12xf32>, %[[W:.*]]: tensor<8x3x3x3xf32>, %[[B:.*]]: tensor<8xf32>
// CHECK:         %[[Y:.*]] = aten.convolution.default %[[X]], %[[W]], %[[B]] {dilation = [1, 1], groups = 1 : i64, output_padding = [0, 0], padding = [1, 1], stride = [2, 2], transposed = false}
// CHECK:         return %[[Y]]
func.func @conv2d(%x: tensor<1x3x16x12xf32>, %w: tensor<8x3x3x3xf32>, %b: tensor<8xf32>) -> tensor<1x8x8x6xf32> {
  %0 = aten.conv2d.default %x, %w, %b {stride = [2, 2], padding = [1, 1], dilation = [1, 1], groups = 1 : i64} : (tensor<1x3x16x12xf32>, tensor<8x3x3x3xf32>, tensor<8xf32>) -> tensor<1x8x8x6xf32>
  return %0 : tensor<1x8x8x6xf32>
}

// -----

// conv1d without bias: the bias operand stays absent.
// CHECK-LABEL: func.func @conv1d_no_bias(
// CHECK-SAME:    %[[X:.*]]: tensor<2x4x10xf32>, %[[W:.*]]: tensor<6x4x3xf32>
// CHECK:         aten.convolution.default %[[X]], %[[W]] {dilation = [1], groups = 1 : i64, output_padding = [0], padding = [1], stride = [1], transposed = false} : (tensor<2x4x10xf32>, tensor<6x4x3xf32>) -> tensor<2x6x10xf32>
func.func @conv1d_no_bias(%x: tensor<2x4x10xf32>, %w: tensor<6x4x3xf32>) -> tensor<2x6x10xf32> {
  %0 = aten.conv1d.default %x, %w {stride = [1], padding = [1], dilation = [1], groups = 1 : i64} : (tensor<2x4x10xf32>, tensor<6x4x3xf32>) -> tensor<2x6x10xf32>
  return %0 : tensor<2x6x10xf32>
}

// -----

// 'same' with an even kernel (total padding 3 along W with dilation 3):
// the odd unit goes at the end, through constant_pad_nd.
// CHECK-LABEL: func.func @conv2d_same_even_kernel(
// CHECK-SAME:    %[[X:.*]]: tensor<1x3x6x7xf32>, %[[W:.*]]: tensor<4x3x3x2xf32>
// CHECK:         %[[P:.*]] = aten.constant_pad_nd.default %[[X]] {pad = [0, 1, 0, 0], value = 0.000000e+00 : f64} : (tensor<1x3x6x7xf32>) -> tensor<1x3x6x8xf32>
// CHECK:         aten.convolution.default %[[P]], %[[W]] {dilation = [1, 3], groups = 1 : i64, output_padding = [0, 0], padding = [1, 1], stride = [1, 1], transposed = false} : (tensor<1x3x6x8xf32>, tensor<4x3x3x2xf32>) -> tensor<1x4x6x7xf32>
func.func @conv2d_same_even_kernel(%x: tensor<1x3x6x7xf32>, %w: tensor<4x3x3x2xf32>) -> tensor<1x4x6x7xf32> {
  %0 = aten.conv2d.padding %x, %w {stride = [1, 1], padding = "same", dilation = [1, 3], groups = 1 : i64} : (tensor<1x3x6x7xf32>, tensor<4x3x3x2xf32>) -> tensor<1x4x6x7xf32>
  return %0 : tensor<1x4x6x7xf32>
}

// -----

// CHECK-LABEL: func.func @conv_transpose2d(
// CHECK:         aten.convolution.default {{.*}} {dilation = [1, 1], groups = 1 : i64, output_padding = [1, 1], padding = [1, 1], stride = [2, 2], transposed = true}
func.func @conv_transpose2d(%x: tensor<1x8x8x8xf32>, %w: tensor<8x3x3x3xf32>, %b: tensor<3xf32>) -> tensor<1x3x16x16xf32> {
  %0 = aten.conv_transpose2d.input %x, %w, %b {stride = [2, 2], padding = [1, 1], output_padding = [1, 1], groups = 1 : i64, dilation = [1, 1]} : (tensor<1x8x8x8xf32>, tensor<8x3x3x3xf32>, tensor<3xf32>) -> tensor<1x3x16x16xf32>
  return %0 : tensor<1x3x16x16xf32>
}

// -----

// The statistics results of native_layer_norm are [N..., 1, 1].
// CHECK-LABEL: func.func @layer_norm(
// CHECK-SAME:    %[[X:.*]]: tensor<2x4x6xf32>, %[[W:.*]]: tensor<6xf32>, %[[B:.*]]: tensor<6xf32>
// CHECK:         %[[Y:[^,]*]], %{{.*}}, %{{.*}} = aten.native_layer_norm.default %[[X]], %[[W]], %[[B]] {eps = 1.000000e-05 : f64, normalized_shape = [6], operandSegmentSizes = array<i32: 1, 1, 1>} : (tensor<2x4x6xf32>, tensor<6xf32>, tensor<6xf32>) -> (tensor<2x4x6xf32>, tensor<2x4x1xf32>, tensor<2x4x1xf32>)
// CHECK:         return %[[Y]] :
func.func @layer_norm(%x: tensor<2x4x6xf32>, %w: tensor<6xf32>, %b: tensor<6xf32>) -> tensor<2x4x6xf32> {
  %0 = aten.layer_norm.default %x, %w, %b {normalized_shape = [6], eps = 1.0e-05 : f64, cudnn_enable = false, operandSegmentSizes = array<i32: 1, 1, 1>} : (tensor<2x4x6xf32>, tensor<6xf32>, tensor<6xf32>) -> tensor<2x4x6xf32>
  return %0 : tensor<2x4x6xf32>
}

// -----

// Without weight and bias.
// CHECK-LABEL: func.func @layer_norm_plain(
// CHECK:         aten.native_layer_norm.default %{{.*}} {eps = 1.000000e-05 : f64, normalized_shape = [4, 6], operandSegmentSizes = array<i32: 1, 0, 0>} : (tensor<2x4x6xf32>) -> (tensor<2x4x6xf32>, tensor<2x1x1xf32>, tensor<2x1x1xf32>)
func.func @layer_norm_plain(%x: tensor<2x4x6xf32>) -> tensor<2x4x6xf32> {
  %0 = aten.layer_norm.default %x {normalized_shape = [4, 6], eps = 1.0e-05 : f64, cudnn_enable = false, operandSegmentSizes = array<i32: 1, 0, 0>} : (tensor<2x4x6xf32>) -> tensor<2x4x6xf32>
  return %0 : tensor<2x4x6xf32>
}

// -----

// CHECK-LABEL: func.func @group_norm(
// CHECK:         %[[Y:[^,]*]], %{{.*}}, %{{.*}} = aten.native_group_norm.default %{{.*}}, %{{.*}}, %{{.*}} {C = 6 : i64, HxW = 25 : i64, N = 2 : i64, eps = 1.000000e-05 : f64, group = 2 : i64, operandSegmentSizes = array<i32: 1, 1, 1>} : (tensor<2x6x5x5xf32>, tensor<6xf32>, tensor<6xf32>) -> (tensor<2x6x5x5xf32>, tensor<2x2xf32>, tensor<2x2xf32>)
// CHECK:         return %[[Y]] :
func.func @group_norm(%x: tensor<2x6x5x5xf32>, %w: tensor<6xf32>, %b: tensor<6xf32>) -> tensor<2x6x5x5xf32> {
  %0 = aten.group_norm.default %x, %w, %b {num_groups = 2 : i64, eps = 1.0e-05 : f64, cudnn_enabled = false, operandSegmentSizes = array<i32: 1, 1, 1>} : (tensor<2x6x5x5xf32>, tensor<6xf32>, tensor<6xf32>) -> tensor<2x6x5x5xf32>
  return %0 : tensor<2x6x5x5xf32>
}

// -----

// CHECK-LABEL: func.func @max_pool2d(
// CHECK:         %[[Y:[^,]*]], %{{.*}} = aten.max_pool2d_with_indices.default %{{.*}} {ceil_mode = true, dilation = [1, 1], kernel_size = [3, 3], padding = [0, 0], stride = [2, 2]} : (tensor<1x8x8x6xf32>) -> (tensor<1x8x4x3xf32>, tensor<1x8x4x3xi64>)
// CHECK:         return %[[Y]] :
func.func @max_pool2d(%x: tensor<1x8x8x6xf32>) -> tensor<1x8x4x3xf32> {
  %0 = aten.max_pool2d.default %x {kernel_size = [3, 3], stride = [2, 2], padding = [0, 0], dilation = [1, 1], ceil_mode = true} : (tensor<1x8x8x6xf32>) -> tensor<1x8x4x3xf32>
  return %0 : tensor<1x8x4x3xf32>
}

// -----

// An empty stride is the kernel size.
// CHECK-LABEL: func.func @avg_pool1d(
// CHECK:         %[[U:.*]] = aten.unsqueeze.default %{{.*}} {dim = 2 : i64} : (tensor<2x6x10xf32>) -> tensor<2x6x1x10xf32>
// CHECK:         %[[P:.*]] = aten.avg_pool2d.default %[[U]] {ceil_mode = false, count_include_pad = true, kernel_size = [1, 2], padding = [0, 0], stride = [1, 2]} : (tensor<2x6x1x10xf32>) -> tensor<2x6x1x5xf32>
// CHECK:         %[[S:.*]] = aten.squeeze.dims %[[P]] {dim = [2]} : (tensor<2x6x1x5xf32>) -> tensor<2x6x5xf32>
// CHECK:         return %[[S]]
func.func @avg_pool1d(%x: tensor<2x6x10xf32>) -> tensor<2x6x5xf32> {
  %0 = aten.avg_pool1d.default %x {kernel_size = [2], stride = [], padding = [0], ceil_mode = false, count_include_pad = true} : (tensor<2x6x10xf32>) -> tensor<2x6x5xf32>
  return %0 : tensor<2x6x5xf32>
}

// -----

// A global average is a mean over H and W; other sizes keep the pool.
// CHECK-LABEL: func.func @adaptive_avg_pool2d(
// CHECK:         aten.mean.dim %{{.*}} {dim = [-1, -2], keepdim = true} : (tensor<2x3x8x8xf32>) -> tensor<2x3x1x1xf32>
// CHECK:         aten._adaptive_avg_pool2d.default %{{.*}} {output_size = [2, 2]} : (tensor<2x3x8x8xf32>) -> tensor<2x3x2x2xf32>
func.func @adaptive_avg_pool2d(%x: tensor<2x3x8x8xf32>) -> (tensor<2x3x1x1xf32>, tensor<2x3x2x2xf32>) {
  %0 = aten.adaptive_avg_pool2d.default %x {output_size = [1, 1]} : (tensor<2x3x8x8xf32>) -> tensor<2x3x1x1xf32>
  %1 = aten.adaptive_avg_pool2d.default %x {output_size = [2, 2]} : (tensor<2x3x8x8xf32>) -> tensor<2x3x2x2xf32>
  return %0, %1 : tensor<2x3x1x1xf32>, tensor<2x3x2x2xf32>
}

// -----

// One dynamic leading dim: both views infer it (-1).
// CHECK-LABEL: func.func @linear_3d_dynamic(
// CHECK-SAME:    %[[X:[^:]*]]: tensor<?x3x8xf32>, %[[W:[^:]*]]: tensor<5x8xf32>, %[[B:[^:]*]]: tensor<5xf32>
// CHECK:         %[[WT:.*]] = aten.permute.default %[[W]] {dims = [1, 0]}
// CHECK:         %[[F:.*]] = aten.view.default %[[X]] {size = [-1, 8]} : (tensor<?x3x8xf32>) -> tensor<?x8xf32>
// CHECK:         %[[M:.*]] = aten.addmm.default %[[B]], %[[F]], %[[WT]] {{.*}} -> tensor<?x5xf32>
// CHECK:         %[[Y:.*]] = aten.view.default %[[M]] {size = [-1, 3, 5]} : (tensor<?x5xf32>) -> tensor<?x3x5xf32>
// CHECK:         return %[[Y]]
func.func @linear_3d_dynamic(%x: tensor<?x3x8xf32>, %w: tensor<5x8xf32>, %b: tensor<5xf32>) -> tensor<?x3x5xf32> {
  %0 = aten.linear.default %x, %w, %b : (tensor<?x3x8xf32>, tensor<5x8xf32>, tensor<5xf32>) -> tensor<?x3x5xf32>
  return %0 : tensor<?x3x5xf32>
}

// -----

// A decomposition that declines on an op legalize-aten-to-coreai lowers
// keeps the op, and erases what it built before declining: linear with two
// dynamic batch dims (the flattening view needs one) stays as it is; group_norm
// with a dynamic batch becomes native_group_norm, whose decomposition needs
// the batch size; nothing else is left.
// CHECK-LABEL: func.func @kept_when_the_decomposition_declines(
// CHECK-NEXT:    %[[Y:.*]] = aten.linear.default
// CHECK-NEXT:    %[[G:[^,]*]], {{.*}} = aten.native_group_norm.default {{.*}}N = -1
// CHECK-NEXT:    return %[[Y]], %[[G]]
func.func @kept_when_the_decomposition_declines(%x: tensor<?x?x8xf32>, %w: tensor<16x8xf32>, %g: tensor<?x4x5xf32>) -> (tensor<?x?x16xf32>, tensor<?x4x5xf32>) {
  %0 = aten.linear.default %x, %w : (tensor<?x?x8xf32>, tensor<16x8xf32>) -> tensor<?x?x16xf32>
  %1 = aten.group_norm.default %g {num_groups = 2 : i64, eps = 1.0e-05 : f64, cudnn_enabled = false, operandSegmentSizes = array<i32: 1, 0, 0>} : (tensor<?x4x5xf32>) -> tensor<?x4x5xf32>
  return %0, %1 : tensor<?x?x16xf32>, tensor<?x4x5xf32>
}

// -----

// Batch statistics without running ones (no lowering, and in no torch
// table): decomposed whenever a table is in use, as torch._decomp does.
// CHECK-LABEL: func.func @batch_norm_no_stats(
// CHECK:         %[[M:.*]] = aten.mean.dim %[[X:[^ ]*]] {dim = [0, 2, 3], keepdim = true} : (tensor<2x3x4x5xf32>) -> tensor<1x3x1x1xf32>
// CHECK:         %[[V:.*]] = aten.var.correction %[[X]] {correction = 0 : i64, dim = [0, 2, 3], keepdim = true}
// CHECK:         %[[E:.*]] = aten.add.Tensor %[[V]]
// CHECK:         %[[R:.*]] = aten.rsqrt.default %[[E]]
// CHECK:         %[[C:.*]] = aten.sub.Tensor %[[X]], %[[M]]
// CHECK:         %[[Y:.*]] = aten.mul.Tensor %[[C]], %[[R]]
// CHECK:         %[[W:.*]] = aten.view.default %{{.*}} {size = [1, 3, 1, 1]}
// CHECK:         aten.mul.Tensor %[[Y]], %[[W]]
// CHECK-NOT:     aten._native_batch_norm_legit
func.func @batch_norm_no_stats(%x: tensor<2x3x4x5xf32>, %w: tensor<3xf32>) -> (tensor<2x3x4x5xf32>, tensor<3xf32>) {
  %0:3 = aten._native_batch_norm_legit.no_stats %x, %w {training = true, momentum = 0.1 : f64, eps = 1.0e-05 : f64, operandSegmentSizes = array<i32: 1, 1, 0>} : (tensor<2x3x4x5xf32>, tensor<3xf32>) -> (tensor<2x3x4x5xf32>, tensor<3xf32>, tensor<3xf32>)
  return %0#0, %0#2 : tensor<2x3x4x5xf32>, tensor<3xf32>
}
