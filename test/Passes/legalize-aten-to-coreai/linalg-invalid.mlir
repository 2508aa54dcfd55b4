// RUN: coreai-opt %s --split-input-file --verify-diagnostics --pass-pipeline='builtin.module(legalize-aten-to-coreai)'

// Lowerings of matrix products and convolutions that decline, with the reason.

func.func @output_padding_too_large(%x: tensor<1x4x5x5xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<1x3x13x13xf32> {
  // expected-error @+1 {{cannot lower 'aten::convolution.default': output_padding [2, 2] must be smaller than the stride [2, 2] or the dilation [1, 1]}}
  %0 = aten.convolution.default %x, %w {stride = [2, 2], padding = [0, 0], dilation = [1, 1], transposed = true, output_padding = [2, 2], groups = 1 : i64} : (tensor<1x4x5x5xf32>, tensor<4x3x3x3xf32>) -> tensor<1x3x13x13xf32>
  return %0 : tensor<1x3x13x13xf32>
}

// -----

// A dynamic batch or spatial dim converts (dynamic.mlir); a dynamic channel
// dim does not.
func.func @dynamic_conv_channels(%x: tensor<1x?x5x5xf32>, %w: tensor<3x4x3x3xf32>) -> tensor<1x3x3x3xf32> {
  // expected-error @+1 {{cannot lower 'aten::convolution.default': dim 1 of the input (tensor<1x?x5x5xf32>) is dynamic; convolution needs a static channel size}}
  %0 = aten.convolution.default %x, %w {stride = [1, 1], padding = [0, 0], dilation = [1, 1], transposed = false, output_padding = [0, 0], groups = 1 : i64} : (tensor<1x?x5x5xf32>, tensor<3x4x3x3xf32>) -> tensor<1x3x3x3xf32>
  return %0 : tensor<1x3x3x3xf32>
}

// -----

func.func @mixed_dtype_mm(%a: tensor<3x4xf32>, %b: tensor<4x5xf16>) -> tensor<3x5xf32> {
  // expected-error @+1 {{cannot lower 'aten::mm.default': operand #1 is f16 but the result is f32: PyTorch requires one dtype}}
  %0 = aten.mm.default %a, %b : (tensor<3x4xf32>, tensor<4x5xf16>) -> tensor<3x5xf32>
  return %0 : tensor<3x5xf32>
}

// -----

func.func @conv_rank_2(%x: tensor<4x5xf32>, %w: tensor<3x4xf32>) -> tensor<3x5xf32> {
  // expected-error @+1 {{cannot lower 'aten::convolution.default': convolution needs an input of rank 3, 4 or 5 (or one less, unbatched) and a weight of that rank, got tensor<4x5xf32> and tensor<3x4xf32>}}
  %0 = aten.convolution.default %x, %w {stride = [], padding = [], dilation = [], transposed = false, output_padding = [], groups = 1 : i64} : (tensor<4x5xf32>, tensor<3x4xf32>) -> tensor<3x5xf32>
  return %0 : tensor<3x5xf32>
}
