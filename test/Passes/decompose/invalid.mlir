// RUN: coreai-opt %s --split-input-file --verify-diagnostics --pass-pipeline='builtin.module(decompose)'
// RUN: coreai-opt %s --split-input-file --pass-pipeline='builtin.module(decompose{table=none})' | FileCheck %s --check-prefix=NONE

// Ops the table decomposes without a Rust decomposition: one error listing
// them, a note per occurrence, nothing rewritten.
// NONE-LABEL: func.func @missing(
// NONE:         aten.linear.default
func.func @missing(%g: tensor<3xf32>, %x: tensor<3xf32>, %w: tensor<3x3xf32>) -> (tensor<3xf32>, tensor<3xf32>) {
  // expected-error@+2 {{the 'coreai' table decomposes ops that have no decomposition here: aten.hardtanh_backward.default, aten.threshold_backward.default; keep them with preserve=hardtanh_backward.default,threshold_backward.default (and lower them), or import with coreai_export --decompositions coreai}}
  // expected-note@+1 {{'aten.hardtanh_backward.default' has no decomposition}}
  %0 = aten.operator "aten::hardtanh_backward.default"(%g, %x) {min_val = -1.0 : f64, max_val = 1.0 : f64} : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  // expected-note@+1 {{'aten.threshold_backward.default' has no decomposition}}
  %1 = aten.operator "aten::threshold_backward.default"(%g, %x) {threshold = 0.0 : f64} : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  %2 = aten.linear.default %x, %w : (tensor<3xf32>, tensor<3x3xf32>) -> tensor<3xf32>
  return %0, %2 : tensor<3xf32>, tensor<3xf32>
}

// -----

// A decomposition that declines on an op nothing lowers says why, at the op
// (one that legalize-aten-to-coreai lowers is kept: decompose/nn.mlir).
func.func @einsum_trace(%x: tensor<3x3xf32>, %y: tensor<3xf32>) -> tensor<3xf32> {
  // expected-error@+1 {{cannot decompose 'aten.einsum.default': einsum 'ii,i->i' repeats a letter in one term}}
  %0 = aten.einsum.default %x, %y {equation = "ii,i->i"} : (tensor<3x3xf32>, tensor<3xf32>) -> tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

func.func @einsum_unknown_output(%x: tensor<3x4xf32>, %y: tensor<4xf32>) -> tensor<3x2xf32> {
  // expected-error@+1 {{cannot decompose 'aten.einsum.default': einsum 'ij,j->iz': output letter 'z' is in no operand}}
  %0 = aten.einsum.default %x, %y {equation = "ij,j->iz"} : (tensor<3x4xf32>, tensor<4xf32>) -> tensor<3x2xf32>
  return %0 : tensor<3x2xf32>
}

// -----

// Unbatched convolutions are declined, not guessed.
func.func @conv_unbatched(%x: tensor<3x8x8xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<4x6x6xf32> {
  // expected-error@+1 {{cannot decompose 'aten.conv2d.default': an unbatched input (rank 3) is not decomposed; add the batch dimension}}
  %0 = aten.conv2d.default %x, %w {stride = [1, 1], padding = [0, 0], dilation = [1, 1], groups = 1 : i64} : (tensor<3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<4x6x6xf32>
  return %0 : tensor<4x6x6xf32>
}

// -----

// Found by the pipeline fuzz target: dilation · (kernel - 1) overflows (an
// arithmetic overflow panic before).
func.func @conv2d_same_dilation_overflows(%x: tensor<1x3x6x7xf32>, %w: tensor<4x3x3x2xf32>) -> tensor<1x4x6x7xf32> {
  // expected-error @below {{cannot decompose 'aten.conv2d.padding': dilation 9223372036854775807 of a kernel of 3 overflows}}
  %0 = aten.conv2d.padding %x, %w {stride = [1, 1], padding = "same", dilation = [9223372036854775807, 3], groups = 1 : i64} : (tensor<1x3x6x7xf32>, tensor<4x3x3x2xf32>) -> tensor<1x4x6x7xf32>
  return %0 : tensor<1x4x6x7xf32>
}
