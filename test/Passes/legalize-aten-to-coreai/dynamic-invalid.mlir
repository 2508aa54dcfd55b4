// RUN: coreai-opt %s --split-input-file --verify-diagnostics --pass-pipeline='builtin.module(legalize-aten-to-coreai)'

// Dims a lowering must know decline naming the dim (the diagnostic sits at
// the op's location, its source line).

func.func @pool_dynamic_spatial_ceil_mode(%x: tensor<2x3x?x8xf32>) -> tensor<2x3x?x3xf32> {
  // expected-error @below {{cannot lower 'aten::avg_pool2d.default': spatial dim 2 of the input (tensor<2x3x?x8xf32>) is dynamic; ceil_mode's last window, which PyTorch drops when it starts past the input, needs its size}}
  %0 = aten.avg_pool2d.default %x {kernel_size = [2, 2], stride = [3, 3], padding = [0, 0], ceil_mode = true, count_include_pad = true} : (tensor<2x3x?x8xf32>) -> tensor<2x3x?x3xf32>
  return %0 : tensor<2x3x?x3xf32>
}

// -----

func.func @adaptive_pool_dynamic_not_global(%x: tensor<1x3x?x?xf32>) -> tensor<1x3x2x2xf32> {
  // expected-error @below {{cannot lower 'aten::_adaptive_avg_pool2d.default': spatial dim 2 of the input (tensor<1x3x?x?xf32>) is dynamic; adaptive pooling to a size other than 1x1 needs its size}}
  %0 = aten._adaptive_avg_pool2d.default %x {output_size = [2, 2]} : (tensor<1x3x?x?xf32>) -> tensor<1x3x2x2xf32>
  return %0 : tensor<1x3x2x2xf32>
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
