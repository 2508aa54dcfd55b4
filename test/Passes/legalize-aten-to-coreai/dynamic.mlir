// RUN: coreai-opt %s --split-input-file --pass-pipeline='builtin.module(legalize-aten-to-coreai{composites=inline})' | FileCheck %s --enable-var-scope

// A creator of a dynamic shape broadcasts a rank-1.. unit constant to the
// runtime shape: the symbolic size operand (reshaped, cast to ui32) joined
// with the static sizes.
// CHECK-LABEL: coreai.graph @full_symbolic(
// CHECK:         %[[N:.*]] = coreai.cast %{{.*}} : tensor<ui32> to tensor<si64>
// CHECK:         %[[V:.*]] = coreai.constant dense<2.500000e+00> : tensor<1x1xf32>
// CHECK:         %[[N1:.*]] = coreai.reshape %[[N]], %{{.*}} : (tensor<si64>, tensor<1xui32>) -> tensor<1xsi64>
// CHECK:         %[[U:.*]] = coreai.cast %[[N1]] : tensor<1xsi64> to tensor<1xui32>
// CHECK:         %[[C3:.*]] = coreai.constant dense<3> : tensor<1xui32>
// CHECK:         %[[S:.*]] = coreai.concat %{{.*}}, %[[U]], %[[C3]] : (tensor<si32>, tensor<1xui32>, tensor<1xui32>) -> tensor<2xui32>
// CHECK:         %[[R:.*]] = coreai.broadcast_to %[[V]], %[[S]] : (tensor<1x1xf32>, tensor<2xui32>) -> tensor<?x3xf32>
// CHECK:         coreai.output %[[R]]
// CHECK-NOT:     coreai.constant {{.*}} : tensor<?x
func.func @full_symbolic(%x: tensor<?x4xf32>) -> tensor<?x3xf32> {
  %n = aten.sym_size.int %x {dim = 0 : i64} : (tensor<?x4xf32>) -> i64
  %c3 = arith.constant 3 : i64
  %0 = aten.operator "aten::full.default"(%n, %c3) {fill_value = 2.5 : f64, dtype = f32, operand_args = ["size"], operand_groups = array<i64: 2>} : (i64, i64) -> tensor<?x3xf32>
  return %0 : tensor<?x3xf32>
}

// -----

// `_like` of a dynamic input: the input's whole coreai.get_shape.
// CHECK-LABEL: coreai.graph @zeros_like_dynamic(
// CHECK-SAME:    %[[X:[^:]*]]: tensor<?x4x?xf32>)
// CHECK-NEXT:    %[[Z:.*]] = coreai.constant dense<0> : tensor<1x1x1xsi32>
// CHECK-NEXT:    %[[S:.*]] = coreai.get_shape %[[X]] : tensor<?x4x?xf32> -> tensor<3xui32>
// CHECK-NEXT:    %[[R:.*]] = coreai.broadcast_to %[[Z]], %[[S]] : (tensor<1x1x1xsi32>, tensor<3xui32>) -> tensor<?x4x?xsi32>
// CHECK-NEXT:    coreai.output %[[R]]
func.func @zeros_like_dynamic(%x: tensor<?x4x?xf32>) -> tensor<?x4x?xsi32> {
  %0 = aten.full_like.default %x {fill_value = 0 : i64, dtype = si32} : (tensor<?x4x?xf32>) -> tensor<?x4x?xsi32>
  return %0 : tensor<?x4x?xsi32>
}

// -----

// Group norm with a dynamic batch and length: the grouped shape [N, G, -1]
// takes N from coreai.get_shape, the output is reshaped back to the input's
// runtime shape.
// CHECK-LABEL: coreai.graph @group_norm_dynamic(
// CHECK-SAME:    %[[X:[^:]*]]: tensor<?x4x?xf32>
// CHECK:         %[[SH:.*]] = coreai.get_shape %[[X]] : tensor<?x4x?xf32> -> tensor<3xui32>
// CHECK:         %[[N:.*]] = coreai.slice %[[SH]], {{.*}} -> tensor<1xui32>
// CHECK:         %[[NI:.*]] = coreai.cast %[[N]] : tensor<1xui32> to tensor<1xsi32>
// CHECK:         %[[GR:.*]] = coreai.constant dense<[2, -1]> : tensor<2xsi32>
// CHECK:         %[[GS:.*]] = coreai.concat %{{.*}}, %[[NI]], %[[GR]] : (tensor<si32>, tensor<1xsi32>, tensor<2xsi32>) -> tensor<3xsi32>
// CHECK:         %[[G:.*]] = coreai.reshape %[[X]], %[[GS]] : (tensor<?x4x?xf32>, tensor<3xsi32>) -> tensor<?x2x?xf32>
// CHECK:         coreai.reduce_mean %[[G]], {{.*}} -> tensor<?x2x1xf32>
// CHECK:         %[[XS:.*]] = coreai.get_shape %[[X]] : tensor<?x4x?xf32> -> tensor<3xui32>
// CHECK:         coreai.reshape %{{.*}}, %[[XS]] : (tensor<?x2x?xf32>, tensor<3xui32>) -> tensor<?x4x?xf32>
func.func @group_norm_dynamic(%x: tensor<?x4x?xf32>, %w: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<?x4x?xf32> {
  %0 = aten.group_norm.default %x, %w, %b {num_groups = 2 : i64, eps = 1.0e-05 : f64, cudnn_enabled = false, operandSegmentSizes = array<i32: 1, 1, 1>} : (tensor<?x4x?xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<?x4x?xf32>
  return %0 : tensor<?x4x?xf32>
}

// -----

// The generic form torch.export writes with a symbolic N: weight and bias
// are found by name, not taken for the N operand; one dynamic dim reshapes
// with -1.
// CHECK-LABEL: coreai.graph @native_group_norm_symbolic_n(
// CHECK-SAME:    %[[X:[^:]*]]: tensor<?x4x5xf32>, %[[W:[^:]*]]: tensor<4xf32>, %[[B:[^:]*]]: tensor<4xf32>)
// CHECK:         %[[GS:.*]] = coreai.constant dense<[-1, 2, 10]> : tensor<3xsi32>
// CHECK:         coreai.reshape %[[X]], %[[GS]] : (tensor<?x4x5xf32>, tensor<3xsi32>) -> tensor<?x2x10xf32>
// CHECK:         coreai.constant dense<[-1, 4, 5]> : tensor<3xsi32>
// CHECK:         coreai.reshape %[[W]], {{.*}} -> tensor<1x4x1xf32>
// CHECK:         coreai.reshape %[[B]], {{.*}} -> tensor<1x4x1xf32>
// CHECK-NOT:     coreai.reshape {{.*}}tensor<si64>{{.*}} -> tensor<1x4x1xf32>
func.func @native_group_norm_symbolic_n(%x: tensor<?x4x5xf32>, %w: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<?x4x5xf32> {
  %n = aten.sym_size.int %x {dim = 0 : i64} : (tensor<?x4x5xf32>) -> i64
  %0:3 = aten.operator "aten::native_group_norm.default"(%x, %w, %b, %n) {C = 4 : i64, HxW = 5 : i64, group = 2 : i64, eps = 1.0e-05 : f64, operand_args = ["input", "weight", "bias", "N"], operand_groups = array<i64: 1, 1, 1, 1>} : (tensor<?x4x5xf32>, tensor<4xf32>, tensor<4xf32>, i64) -> (tensor<?x4x5xf32>, tensor<?x2xf32>, tensor<?x2xf32>)
  return %0#0 : tensor<?x4x5xf32>
}

// -----

// Max-pool indices with a dynamic batch: the taps slice the whole batch
// (2^31-1), the index table is broadcast to the runtime shape of the
// stacked taps.
// CHECK-LABEL: coreai.graph @max_pool_indices_dynamic_batch(
// CHECK-SAME:    %[[X:[^:]*]]: tensor<?x2x4x4xf32>)
// CHECK:         coreai.max_pool_2d %[[X]], {{.*}} -> tensor<?x2x2x2xf32>
// CHECK:         coreai.constant dense<[2147483647, 2, 3, 3]> : tensor<4xsi32>
// CHECK:         coreai.expand_dims {{.*}} : (tensor<?x2x2x2xf32>, tensor<1xsi32>) to tensor<?x2x2x2x1xf32>
// CHECK:         %[[T:.*]] = coreai.concat {{.*}} -> tensor<?x2x2x2x4xf32>
// CHECK:         %[[TS:.*]] = coreai.get_shape %[[T]] : tensor<?x2x2x2x4xf32> -> tensor<5xui32>
// CHECK:         coreai.broadcast_to %{{.*}}, %{{.*}} : (tensor<1x1x2x2x4xsi64>, tensor<5xui32>) -> tensor<?x2x2x2x4xsi64>
// CHECK:         coreai.constant dense<[-1, 2, 2, 2]> : tensor<4xsi32>
// CHECK:         coreai.output {{.*}} : tensor<?x2x2x2xf32>, tensor<?x2x2x2xsi64>
func.func @max_pool_indices_dynamic_batch(%x: tensor<?x2x4x4xf32>) -> (tensor<?x2x2x2xf32>, tensor<?x2x2x2xi64>) {
  %0:2 = aten.max_pool2d_with_indices.default %x {kernel_size = [2, 2], stride = [], padding = [0, 0], dilation = [1, 1], ceil_mode = false} : (tensor<?x2x4x4xf32>) -> (tensor<?x2x2x2xf32>, tensor<?x2x2x2xi64>)
  return %0#0, %0#1 : tensor<?x2x2x2xf32>, tensor<?x2x2x2xi64>
}

// -----

// Non-divisible adaptive average pooling with a dynamic batch: each window
// slice runs over the whole batch.
// CHECK-LABEL: coreai.graph @adaptive_avg_pool_dynamic_batch(
// CHECK:         coreai.constant dense<[2147483647, 2, 3, 5]> : tensor<4xsi32>
// CHECK:         coreai.slice {{.*}} -> tensor<?x2x3x5xf32>
// CHECK:         coreai.concat {{.*}} -> tensor<?x2x2x5xf32>
// CHECK:         coreai.concat {{.*}} -> tensor<?x2x2x2xf32>
func.func @adaptive_avg_pool_dynamic_batch(%x: tensor<?x2x5x5xf32>) -> tensor<?x2x2x2xf32> {
  %0 = aten._adaptive_avg_pool2d.default %x {output_size = [2, 2]} : (tensor<?x2x5x5xf32>) -> tensor<?x2x2x2xf32>
  return %0 : tensor<?x2x2x2xf32>
}

// -----

// CHECK-LABEL: coreai.graph @conv_dynamic_batch(
// CHECK:         coreai.conv2d {{.*}} : (tensor<?x2x5x5xf32>, tensor<3x2x3x3xf32>, tensor<2xui32>, tensor<2xui32>, tensor<ui32>) -> tensor<?x3x3x3xf32>
func.func @conv_dynamic_batch(%x: tensor<?x2x5x5xf32>, %w: tensor<3x2x3x3xf32>) -> tensor<?x3x3x3xf32> {
  %0 = aten.convolution.default %x, %w {stride = [1, 1], padding = [0, 0], dilation = [1, 1], transposed = false, output_padding = [0, 0], groups = 1 : i64} : (tensor<?x2x5x5xf32>, tensor<3x2x3x3xf32>) -> tensor<?x3x3x3xf32>
  return %0 : tensor<?x3x3x3xf32>
}

// -----

// arange with symbolic bounds (coreai-torch's lower-right causal mask over a
// dynamic key length): coreai.range on the bounds, for a static length
// (arange(T_k - 3, T_k)) and a dynamic one (arange(T_k)).
// CHECK-LABEL: coreai.graph @arange_symbolic(
// CHECK:         %[[T:.*]] = coreai.cast %{{.*}} : tensor<ui32> to tensor<si64>
// CHECK:         %[[START:.*]] = coreai.decomposable.broadcasting_sub %[[T]], %{{.*}} : (tensor<si64>, tensor<si64>) -> tensor<si64>
// CHECK:         %[[ONE:.*]] = coreai.constant dense<1> : tensor<si64>
// CHECK:         coreai.range %[[START]], %[[T]], %[[ONE]] : (tensor<si64>, tensor<si64>, tensor<si64>) -> tensor<3xsi64>
// CHECK:         %[[ZERO:.*]] = coreai.constant dense<0> : tensor<si64>
// CHECK:         coreai.range %[[ZERO]], %[[T]], %{{.*}} : (tensor<si64>, tensor<si64>, tensor<si64>) -> tensor<?xsi64>
func.func @arange_symbolic(%k: tensor<1x2x?x8xf32> {coreai.dims = [1, 2, "s0", 8]}) -> (tensor<3xi64>, tensor<?xi64>) {
  %t = aten.sym_size.int %k {dim = 2 : i64} : (tensor<1x2x?x8xf32>) -> i64
  %c3 = arith.constant 3 : i64
  %s = aten.sub %t, %c3 : (i64, i64) -> i64
  %a = aten.operator "aten::arange.start_step"(%s, %t) {step = 1 : i64, operand_args = ["start", "end"], operand_groups = array<i64: 1, 1>} : (i64, i64) -> tensor<3xi64>
  %b = aten.operator "aten::arange.start_step"(%t) {start = 0 : i64, step = 1 : i64, operand_args = ["end"], operand_groups = array<i64: 1>} : (i64) -> tensor<?xi64>
  return %a, %b : tensor<3xi64>, tensor<?xi64>
}

// -----

// A dynamic image side: the convolution, the floor-mode pools over padding
// and the global pool keep it dynamic; the window arithmetic is the ops'.
// CHECK-LABEL: coreai.graph @conv_pool_dynamic_spatial(
// CHECK:         coreai.pad {{.*}} -> tensor<1x2x?x?xf32>
// CHECK:         coreai.conv2d {{.*}} -> tensor<1x3x?x?xf32>
// CHECK:         coreai.pad {{.*}} -> tensor<1x3x?x?xf32>
// CHECK:         coreai.max_pool_2d {{.*}} -> tensor<1x3x?x?xf32>
// CHECK:         %[[S:.*]] = coreai.sum_pool_2d {{.*}} -> tensor<1x3x?x?xf32>
// CHECK:         %[[K:.*]] = coreai.constant dense<9.000000e+00> : tensor<f32>
// CHECK:         coreai.decomposable.broadcasting_divide %[[S]], %[[K]]
// CHECK:         coreai.reduce_mean {{.*}} -> tensor<1x3x1x1xf32>
func.func @conv_pool_dynamic_spatial(%x: tensor<1x2x?x?xf32>, %w: tensor<3x2x3x3xf32>) -> tensor<1x3x1x1xf32> {
  %0 = aten.convolution.default %x, %w {stride = [2, 2], padding = [1, 1], dilation = [1, 1], transposed = false, output_padding = [0, 0], groups = 1 : i64} : (tensor<1x2x?x?xf32>, tensor<3x2x3x3xf32>) -> tensor<1x3x?x?xf32>
  %1:2 = aten.max_pool2d_with_indices.default %0 {kernel_size = [3, 3], stride = [2, 2], padding = [1, 1], dilation = [1, 1], ceil_mode = false} : (tensor<1x3x?x?xf32>) -> (tensor<1x3x?x?xf32>, tensor<1x3x?x?xi64>)
  %2 = aten.avg_pool2d.default %1#0 {kernel_size = [3, 3], stride = [1, 1], padding = [1, 1], ceil_mode = false, count_include_pad = true} : (tensor<1x3x?x?xf32>) -> tensor<1x3x?x?xf32>
  %3 = aten._adaptive_avg_pool2d.default %2 {output_size = [1, 1]} : (tensor<1x3x?x?xf32>) -> tensor<1x3x1x1xf32>
  return %3 : tensor<1x3x1x1xf32>
}
