// RUN: coreai-opt %s --split-input-file --verify-diagnostics --pass-pipeline='builtin.module(legalize-aten-to-coreai)'

func.func @gelu_unknown_approximation(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @below {{cannot lower 'aten::gelu.default': gelu approximate 'sigmoid' is not 'none' or 'tanh'}}
  %0 = aten.gelu.default %x {approximate = "sigmoid"} : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @clamp_without_bounds(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @below {{cannot lower 'aten::clamp.default': clamp needs at least one of 'min' and 'max'}}
  %0 = aten.clamp.default %x : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @sigmoid_of_int(%x: tensor<4xi32>) -> tensor<4xi32> {
  // expected-error @below {{cannot lower 'aten::sigmoid.default': the result must be a float tensor, not si32}}
  %0 = aten.sigmoid.default %x : (tensor<4xi32>) -> tensor<4xi32>
  return %0 : tensor<4xi32>
}
