// RUN: coreai-opt %s --split-input-file --verify-diagnostics --pass-pipeline='builtin.module(legalize-aten-to-coreai)'

// Indexing lowerings that decline, with the reason.

func.func @bool_mask_with_other_index(%x: tensor<5x3xf32>, %m: tensor<5xi1>, %j: tensor<2xi64>) -> tensor<?x2xf32> {
  // expected-error @+1 {{cannot lower 'aten::index.Tensor': boolean mask indices are not supported; use torch.where or masked ops}}
  %0 = aten.index.Tensor %x, %m, %j {indices_present = array<i1: true, true>} : (tensor<5x3xf32>, tensor<5xi1>, tensor<2xi64>) -> tensor<?x2xf32>
  return %0 : tensor<?x2xf32>
}

// -----

func.func @scatter_reduce_unknown(%x: tensor<4x6xf32>, %i: tensor<4x3xi64>, %s: tensor<4x3xf32>) -> tensor<4x6xf32> {
  // expected-error @+1 {{cannot lower 'aten::scatter_reduce.two': unknown scatter_reduce reduction 'median'}}
  %0 = aten.scatter_reduce.two %x, %i, %s {dim = 1 : i64, reduce = "median", include_self = true} : (tensor<4x6xf32>, tensor<4x3xi64>, tensor<4x3xf32>) -> tensor<4x6xf32>
  return %0 : tensor<4x6xf32>
}

// -----

func.func @gather_dynamic_mismatch(%x: tensor<?x6xf32>, %i: tensor<2x3xi64>) -> tensor<2x3xf32> {
  // expected-error @+1 {{cannot lower 'aten::gather.default': the index and the input may differ in size in the dynamic dim 0; this needs static shapes}}
  %0 = aten.gather.default %x, %i {dim = 1 : i64, sparse_grad = false} : (tensor<?x6xf32>, tensor<2x3xi64>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

func.func @scatter_index_too_large(%x: tensor<4x6xf32>, %i: tensor<5x3xi64>, %s: tensor<5x3xf32>) -> tensor<4x6xf32> {
  // expected-error @+1 {{cannot lower 'aten::scatter.src': index size 5 exceeds the input size 4 in dim 0}}
  %0 = aten.scatter.src %x, %i, %s {dim = 1 : i64} : (tensor<4x6xf32>, tensor<5x3xi64>, tensor<5x3xf32>) -> tensor<4x6xf32>
  return %0 : tensor<4x6xf32>
}

// -----

func.func @bool_mask_put_many_values(%x: tensor<5x3xf32>, %m: tensor<5x3xi1>, %v: tensor<4xf32>) -> tensor<5x3xf32> {
  // expected-error @+1 {{cannot lower 'aten::index_put.default': x[mask] = v with v of shape [4] is not supported (one element is); use torch.where}}
  %0 = aten.index_put.default %x, %m, %v {indices_present = array<i1: true>, accumulate = false} : (tensor<5x3xf32>, tensor<5x3xi1>, tensor<4xf32>) -> tensor<5x3xf32>
  return %0 : tensor<5x3xf32>
}

// -----

func.func @two_indices_after_dynamic_dim(%y: tensor<?x4x6xf32>, %j: tensor<2xi64>) -> tensor<?x2xf32> {
  // expected-error @+1 {{cannot lower 'aten::index.Tensor': dim 0 of tensor<?x4x6xf32> is dynamic; indexing after it needs its size}}
  %0 = aten.index.Tensor %y, %j, %j {indices_present = array<i1: false, true, true>} : (tensor<?x4x6xf32>, tensor<2xi64>, tensor<2xi64>) -> tensor<?x2xf32>
  return %0 : tensor<?x2xf32>
}
