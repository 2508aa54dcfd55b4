// RUN: coreai-opt %s --split-input-file --verify-diagnostics --pass-pipeline='builtin.module(legalize-aten-to-coreai)'

// Declines: each lowering says why it does not apply, at the op.

func.func @argmax_of_bool(%x: tensor<3x4xi1>) -> tensor<3xi64> {
  // expected-error @below {{cannot lower 'aten::argmax.default': argmax/argmin of a bool tensor: cast it to an integer type first}}
  %0 = aten.argmax.default %x {dim = 1 : i64, keepdim = false} : (tensor<3x4xi1>) -> tensor<3xi64>
  return %0 : tensor<3xi64>
}

// -----

func.func @mean_of_integers(%x: tensor<3x4xi64>) -> tensor<3xi64> {
  // expected-error @below {{cannot lower 'aten::mean.dim': mean of tensor<3x4xsi64>: PyTorch only averages floating-point tensors}}
  %0 = aten.mean.dim %x {dim = [1], keepdim = false} : (tensor<3x4xi64>) -> tensor<3xi64>
  return %0 : tensor<3xi64>
}

// -----

func.func @topk_k_too_large(%x: tensor<3x4xf32>) -> (tensor<3x5xf32>, tensor<3x5xi64>) {
  // expected-error @below {{cannot lower 'aten::topk.default': k = 5 is out of range for dim 1 of tensor<3x4xf32>}}
  %0:2 = aten.topk.default %x {k = 5 : i64, dim = 1 : i64, largest = true, sorted = true} : (tensor<3x4xf32>) -> (tensor<3x5xf32>, tensor<3x5xi64>)
  return %0#0, %0#1 : tensor<3x5xf32>, tensor<3x5xi64>
}

// -----

func.func @median_of_every_element_of_a_dynamic_shape(%x: tensor<?x4xf32>) -> tensor<f32> {
  // expected-error @below {{cannot lower 'aten::median.default': dim 0 of tensor<?x4xf32> is dynamic; the median of every element needs the element count (the middle position)}}
  %0 = aten.operator "aten::median.default"(%x) : (tensor<?x4xf32>) -> tensor<f32>
  return %0 : tensor<f32>
}

// -----

func.func @sum_out_of_range_dim(%x: tensor<3x4xf32>) -> tensor<3xf32> {
  // expected-error @below {{cannot lower 'aten::sum.dim_IntList': dimension 2 is out of range for a rank-2 tensor}}
  %0 = aten.sum.dim_IntList %x {dim = [2], keepdim = false} : (tensor<3x4xf32>) -> tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

func.func @sort_bool(%x: tensor<4xi1>) -> (tensor<4xi1>, tensor<4xi64>) {
  // expected-error @below {{cannot lower 'aten::sort.default': sorting a bool tensor is not lowered: cast it to an integer type first}}
  %0:2 = aten.sort.default %x {dim = 0 : i64, descending = false} : (tensor<4xi1>) -> (tensor<4xi1>, tensor<4xi64>)
  return %0#0, %0#1 : tensor<4xi1>, tensor<4xi64>
}

