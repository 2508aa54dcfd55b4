// RUN: coreai-opt %s --split-input-file --verify-diagnostics --pass-pipeline='builtin.module(legalize-aten-to-coreai)'

// Declines: each lowering says why it does not apply, at the op.

func.func @true_division_needs_a_float_result(%a: tensor<4xi64>, %b: tensor<4xi64>) -> tensor<4xi64> {
  // expected-error @below {{cannot lower 'aten::div.Tensor': true division must have a float result, not si64}}
  %0 = aten.div.Tensor %a, %b : (tensor<4xi64>, tensor<4xi64>) -> tensor<4xi64>
  return %0 : tensor<4xi64>
}

// -----

func.func @bool_arithmetic(%a: tensor<4xi1>, %b: tensor<4xi1>) -> tensor<4xi1> {
  // expected-error @below {{cannot lower 'aten::add.Tensor': arithmetic on bool tensors has no coreai lowering; convert to an integer dtype first}}
  %0 = aten.add.Tensor %a, %b {alpha = 1 : i64} : (tensor<4xi1>, tensor<4xi1>) -> tensor<4xi1>
  return %0 : tensor<4xi1>
}

// -----

func.func @unknown_rounding_mode(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @below {{cannot lower 'aten::div.Tensor_mode': rounding_mode 'round' is not one of None, 'trunc', 'floor'}}
  %0 = aten.div.Tensor_mode %a, %b {rounding_mode = "round"} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @int_number_that_does_not_fit(%a: tensor<4xi8>) -> tensor<4xi8> {
  // expected-error @below {{cannot lower 'aten::mul.Scalar': the number 1000 does not fit the dtype si8}}
  %0 = aten.mul.Scalar %a {other = 1000 : i64} : (tensor<4xi8>) -> tensor<4xi8>
  return %0 : tensor<4xi8>
}

// -----

func.func @negative_integer_power(%a: tensor<4xi32>) -> tensor<4xi32> {
  // expected-error @below {{cannot lower 'aten::pow.Tensor_Scalar': integer tensors to the power -1 are not supported (PyTorch allows non-negative integer powers only)}}
  %0 = aten.pow.Tensor_Scalar %a {exponent = -1 : i64} : (tensor<4xi32>) -> tensor<4xi32>
  return %0 : tensor<4xi32>
}
