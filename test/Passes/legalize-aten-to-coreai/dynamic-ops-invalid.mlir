// RUN: coreai-opt %s --split-input-file --verify-diagnostics --pass-pipeline='builtin.module(legalize-aten-to-coreai)'

// Dims a lowering must know decline naming the dim (the diagnostic sits at
// the op's location, its source line).

func.func @upsample_dynamic_spatial_factor_3(%x: tensor<2x3x?x5xf32>) -> tensor<2x3x?x15xf32> {
  // expected-error @below {{cannot lower 'aten::upsample_nearest2d.vec': spatial dim 2 of the input (tensor<2x3x?x5xf32>) is dynamic; scale factors [3.0, 3.0] are not powers of two (only power-of-two integer scale factors without align_corners give the output size and source indices at every size)}}
  %0 = aten.upsample_nearest2d.vec %x {scale_factors = [3.0, 3.0]} : (tensor<2x3x?x5xf32>) -> tensor<2x3x?x15xf32>
  return %0 : tensor<2x3x?x15xf32>
}

// -----

func.func @upsample_dynamic_spatial_align_corners(%x: tensor<2x3x?x5xf32>) -> tensor<2x3x?x10xf32> {
  // expected-error @below {{cannot lower 'aten::upsample_bilinear2d.vec': spatial dim 2 of the input (tensor<2x3x?x5xf32>) is dynamic; align_corners scales by (out - 1)/(in - 1) (only power-of-two integer scale factors without align_corners give the output size and source indices at every size)}}
  %0 = aten.upsample_bilinear2d.vec %x {scale_factors = [2.0, 2.0], align_corners = true} : (tensor<2x3x?x5xf32>) -> tensor<2x3x?x10xf32>
  return %0 : tensor<2x3x?x10xf32>
}

// -----

func.func @median_dynamic_dim(%x: tensor<?x3xf32>) -> tensor<3xf32> {
  // expected-error @below {{cannot lower 'aten::median.dim': dim 0 of tensor<?x3xf32> is dynamic; median along it needs its size (the middle position)}}
  %0:2 = aten.operator "aten::median.dim"(%x) {dim = 0 : i64, keepdim = false} : (tensor<?x3xf32>) -> (tensor<3xf32>, tensor<3xi64>)
  return %0#0 : tensor<3xf32>
}

// -----

func.func @index_put_accumulate_dynamic(%x: tensor<?x5xf32>, %i: tensor<?xi64>, %v: tensor<?x5xf32>) -> tensor<?x5xf32> {
  // expected-error @below {{cannot lower 'aten::index_put.default': dim 0 of tensor<?x5xf32> is dynamic; this lowering needs static shapes}}
  %0 = aten.index_put.default %x, %i, %v {indices_present = array<i1: true>, accumulate = true} : (tensor<?x5xf32>, tensor<?xi64>, tensor<?x5xf32>) -> tensor<?x5xf32>
  return %0 : tensor<?x5xf32>
}

// -----

func.func @masked_scatter_dynamic_broadcast_mask(%x: tensor<?x3xf32>, %m: tensor<3xi1>, %s: tensor<?x3xf32>) -> tensor<?x3xf32> {
  // expected-error @below {{cannot lower 'aten::masked_scatter.default': the mask tensor<3xi1> is broadcast to the dynamic shape tensor<?x3xf32>; this lowering needs the mask of that shape}}
  %0 = aten.masked_scatter.default %x, %m, %s : (tensor<?x3xf32>, tensor<3xi1>, tensor<?x3xf32>) -> tensor<?x3xf32>
  return %0 : tensor<?x3xf32>
}
