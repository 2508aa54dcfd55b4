// RUN: coreai-opt %s --split-input-file --verify-diagnostics --pass-pipeline='builtin.module(legalize-aten-to-coreai)'

// Pooling, normalization and attention lowerings that decline, with the reason.

func.func @upsample_without_size_or_scales(%x: tensor<1x2x4x4xf32>) -> tensor<1x2x8x8xf32> {
  // expected-error @+1 {{cannot lower 'aten::upsample_nearest2d.vec': give exactly one of output_size and two positive scale_factors}}
  %0 = aten.upsample_nearest2d.vec %x : (tensor<1x2x4x4xf32>) -> tensor<1x2x8x8xf32>
  return %0 : tensor<1x2x8x8xf32>
}

// -----

func.func @softmax_half_to_float(%x: tensor<2x5xf16>) -> tensor<2x5xf32> {
  // expected-error @+1 {{cannot lower 'aten::_softmax.default': half_to_float = true (a CUDA-only fused upcast) is not supported}}
  %0 = aten._softmax.default %x {dim = 1 : i64, half_to_float = true} : (tensor<2x5xf16>) -> tensor<2x5xf32>
  return %0 : tensor<2x5xf32>
}

// -----

func.func @instance_norm_no_running_stats(%x: tensor<2x3x4x4xf32>) -> tensor<2x3x4x4xf32> {
  // expected-error @+1 {{cannot lower 'aten::instance_norm.default': use_input_stats = false needs running_mean and running_var}}
  %0 = aten.instance_norm.default %x {use_input_stats = false, momentum = 0.1 : f64, eps = 1.0e-05 : f64, cudnn_enabled = false, operandSegmentSizes = array<i32: 1, 0, 0, 0, 0>} : (tensor<2x3x4x4xf32>) -> tensor<2x3x4x4xf32>
  return %0 : tensor<2x3x4x4xf32>
}

// -----

func.func @sdpa_dropout(%q: tensor<1x2x3x8xf32>) -> tensor<1x2x3x8xf32> {
  // expected-error @+1 {{cannot lower 'aten::scaled_dot_product_attention.default': dropout_p ≠ 0 is random; export the model in eval mode}}
  %0 = aten.scaled_dot_product_attention.default %q, %q, %q {dropout_p = 0.5 : f64, is_causal = false, enable_gqa = false} : (tensor<1x2x3x8xf32>, tensor<1x2x3x8xf32>, tensor<1x2x3x8xf32>) -> tensor<1x2x3x8xf32>
  return %0 : tensor<1x2x3x8xf32>
}

// -----

func.func @sdpa_mask_and_causal(%q: tensor<1x2x3x8xf32>, %m: tensor<3x3xf32>) -> tensor<1x2x3x8xf32> {
  // expected-error @+1 {{cannot lower 'aten::scaled_dot_product_attention.default': attn_mask and is_causal = true are exclusive}}
  %0 = aten.scaled_dot_product_attention.default %q, %q, %q, %m {dropout_p = 0.0 : f64, is_causal = true, enable_gqa = false} : (tensor<1x2x3x8xf32>, tensor<1x2x3x8xf32>, tensor<1x2x3x8xf32>, tensor<3x3xf32>) -> tensor<1x2x3x8xf32>
  return %0 : tensor<1x2x3x8xf32>
}

// -----

func.func @layer_norm_bad_shape(%x: tensor<2x5xf32>) -> (tensor<2x5xf32>, tensor<2x1xf32>, tensor<2x1xf32>) {
  // expected-error @+1 {{cannot lower 'aten::native_layer_norm.default': normalized_shape [4] is not the trailing shape of [2, 5]}}
  %0:3 = aten.native_layer_norm.default %x {normalized_shape = [4], eps = 1.0e-05 : f64, operandSegmentSizes = array<i32: 1, 0, 0>} : (tensor<2x5xf32>) -> (tensor<2x5xf32>, tensor<2x1xf32>, tensor<2x1xf32>)
  return %0#0, %0#1, %0#2 : tensor<2x5xf32>, tensor<2x1xf32>, tensor<2x1xf32>
}

// -----

func.func @batch_norm_dynamic_channels(%x: tensor<2x?x4xf32>, %m: tensor<?xf32>, %v: tensor<?xf32>) -> tensor<2x?x4xf32> {
  // expected-error @+1 {{cannot lower 'aten::_native_batch_norm_legit_no_training.default': dim 1 of operand #0 (tensor<2x?x4xf32>) must be static for this lowering}}
  %0:3 = aten._native_batch_norm_legit_no_training.default %x, %m, %v {momentum = 0.1 : f64, eps = 1.0e-05 : f64, operandSegmentSizes = array<i32: 1, 0, 0, 1, 1>} : (tensor<2x?x4xf32>, tensor<?xf32>, tensor<?xf32>) -> (tensor<2x?x4xf32>, tensor<0xf32>, tensor<0xf32>)
  return %0#0 : tensor<2x?x4xf32>
}

// -----

// GQA splits the query heads into groups: a dynamic head count declines.
func.func @sdpa_gqa_dynamic_heads(%q: tensor<1x?x5x8xf32>, %k: tensor<1x2x5x8xf32>) -> tensor<1x?x5x8xf32> {
  // expected-error @+1 {{cannot lower 'aten::scaled_dot_product_attention.default': dim 1 of operand #0 (tensor<1x?x5x8xf32>) must be static for this lowering}}
  %0 = aten.scaled_dot_product_attention.default %q, %k, %k {dropout_p = 0.0 : f64, is_causal = true, enable_gqa = true} : (tensor<1x?x5x8xf32>, tensor<1x2x5x8xf32>, tensor<1x2x5x8xf32>) -> tensor<1x?x5x8xf32>
  return %0 : tensor<1x?x5x8xf32>
}

// -----

// Found by the pipeline fuzz target: window values this large made the
// window arithmetic overflow (a panic) or the index table take gigabytes.
func.func @max_pool_huge_dilation(%x: tensor<1x8x8x6xf32>) -> (tensor<1x8x4x3xf32>, tensor<1x8x4x3xi64>) {
  // expected-error @below {{cannot lower 'aten::max_pool2d_with_indices.default': pooling window Window { input: 6, kernel: 3, stride: 2, pad: 0, dilation: 9223372036854775807, output: 3, ceil: true } has a value outside [0, 2^31)}}
  %0:2 = aten.max_pool2d_with_indices.default %x {kernel_size = [3, 3], stride = [2, 2], padding = [0, 0], dilation = [1, 9223372036854775807], ceil_mode = true} : (tensor<1x8x8x6xf32>) -> (tensor<1x8x4x3xf32>, tensor<1x8x4x3xi64>)
  return %0#0, %0#1 : tensor<1x8x4x3xf32>, tensor<1x8x4x3xi64>
}

// -----

func.func @max_pool_huge_kernel(%x: tensor<1x1x4x5xf32>) -> (tensor<1x1x2x2xf32>, tensor<1x1x2x2xi64>) {
  // expected-error @below {{cannot lower 'aten::max_pool2d_with_indices.default': pooling window Window { input: 4, kernel: 4286578688, stride: 2, pad: 0, dilation: 1, output: 2, ceil: false } has a value outside [0, 2^31)}}
  %0:2 = aten.max_pool2d_with_indices.default %x {kernel_size = [4286578688, 2], stride = [2, 2], padding = [0, 0], dilation = [1, 1], ceil_mode = false} : (tensor<1x1x4x5xf32>) -> (tensor<1x1x2x2xf32>, tensor<1x1x2x2xi64>)
  return %0#0, %0#1 : tensor<1x1x2x2xf32>, tensor<1x1x2x2xi64>
}

// -----

func.func @max_pool_indices_of_too_many_taps(%x: tensor<1x1x4x5xf32>) -> (tensor<1x1x2x2xf32>, tensor<1x1x2x2xi64>) {
  // expected-error @below {{cannot lower 'aten::max_pool2d_with_indices.default': max-pool indices of 2x2 windows of 100000x2 taps: more than 4096 taps or 67108864 table entries}}
  %0:2 = aten.max_pool2d_with_indices.default %x {kernel_size = [100000, 2], stride = [2, 2], padding = [0, 0], dilation = [1, 1], ceil_mode = false} : (tensor<1x1x4x5xf32>) -> (tensor<1x1x2x2xf32>, tensor<1x1x2x2xi64>)
  return %0#0, %0#1 : tensor<1x1x2x2xf32>, tensor<1x1x2x2xi64>
}

// -----

// Found by the pipeline fuzz target: padding amounts that overflow the
// padded dim (an arithmetic overflow panic before).
func.func @conv1d_padding_overflows(%x: tensor<2x4x10xf32>, %w: tensor<6x4x3xf32>) -> tensor<2x6x10xf32> {
  // expected-error @below {{cannot lower 'aten::convolution.default': padding dim 10 by 9223372036854775807 and 9223372036854775807 overflows}}
  %0 = aten.convolution.default %x, %w {stride = [1], padding = [9223372036854775807], dilation = [1], transposed = false, output_padding = [0], groups = 1 : i64} : (tensor<2x4x10xf32>, tensor<6x4x3xf32>) -> tensor<2x6x10xf32>
  return %0 : tensor<2x6x10xf32>
}

// -----

func.func @dropout_in_training_mode(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  // expected-error @below {{cannot lower 'aten::dropout.default': dropout in training mode is random; put the model in eval mode (model.eval()) before exporting}}
  %0 = aten.operator "aten::dropout.default"(%x) {p = 0.1 : f64, train = true, operand_args = ["input"], operand_groups = array<i64: 1>} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}
