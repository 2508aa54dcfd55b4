// RUN: coreai-opt %s --split-input-file --verify-diagnostics --pass-pipeline='builtin.module(legalize-aten-to-coreai)'

// Dims a lowering must know decline naming the dim (the diagnostic sits at
// the op's location, its source line).

func.func @pool_dynamic_spatial(%x: tensor<2x3x?x8xf32>) -> tensor<2x3x?x4xf32> {
  // expected-error @below {{cannot lower 'aten::avg_pool2d.default': spatial dim 2 of the input (tensor<2x3x?x8xf32>) is dynamic; pooling needs static spatial sizes (only the batch and channel dims may be dynamic)}}
  %0 = aten.avg_pool2d.default %x {kernel_size = [2, 2], stride = [], padding = [0, 0], ceil_mode = false, count_include_pad = true} : (tensor<2x3x?x8xf32>) -> tensor<2x3x?x4xf32>
  return %0 : tensor<2x3x?x4xf32>
}

// -----

func.func @conv_dynamic_spatial(%x: tensor<?x2x?x5xf32>, %w: tensor<3x2x3x3xf32>) -> tensor<?x3x?x3xf32> {
  // expected-error @below {{cannot lower 'aten::convolution.default': dim 2 of the input (tensor<?x2x?x5xf32>) is dynamic; convolution needs static channel and spatial sizes (only the batch dim may be dynamic)}}
  %0 = aten.convolution.default %x, %w {stride = [1, 1], padding = [0, 0], dilation = [1, 1], transposed = false, output_padding = [0, 0], groups = 1 : i64} : (tensor<?x2x?x5xf32>, tensor<3x2x3x3xf32>) -> tensor<?x3x?x3xf32>
  return %0 : tensor<?x3x?x3xf32>
}

// -----

func.func @group_norm_dynamic_channels(%x: tensor<2x?x5xf32>) -> tensor<2x?x5xf32> {
  // expected-error @below {{cannot lower 'aten::group_norm.default': dim 1 of operand #0 (tensor<2x?x5xf32>) must be static for this lowering}}
  %0 = aten.group_norm.default %x {num_groups = 2 : i64, eps = 1.0e-05 : f64, cudnn_enabled = false, operandSegmentSizes = array<i32: 1, 0, 0>} : (tensor<2x?x5xf32>) -> tensor<2x?x5xf32>
  return %0 : tensor<2x?x5xf32>
}

// -----

// A dynamic creator without symbolic sizes (the typed form's `size`
// attribute cannot hold one) has no runtime shape to broadcast to.
func.func @full_without_sizes() -> tensor<?x3xf32> {
  // expected-error @below {{cannot lower 'aten::full.default': the result type tensor<?x3xf32> is dynamic and the op carries no symbolic size of it}}
  %0 = aten.full.default {size = [2, 3], fill_value = 0 : i64, dtype = f32} : () -> tensor<?x3xf32>
  return %0 : tensor<?x3xf32>
}
