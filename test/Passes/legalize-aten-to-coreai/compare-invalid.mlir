// RUN: coreai-opt %s --split-input-file --verify-diagnostics --pass-pipeline='builtin.module(legalize-aten-to-coreai)'

func.func @bitwise_on_floats(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @below {{cannot lower 'aten::bitwise_and.Tensor': bitwise ops need integer or bool tensors, not f32}}
  %0 = aten.bitwise_and.Tensor %a, %b : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @shift_by_a_float(%a: tensor<4xi32>) -> tensor<4xi32> {
  // expected-error @below {{cannot lower 'aten::__lshift__.Scalar': the shift amount must be an integer}}
  %0 = aten.__lshift__.Scalar %a {other = 1.5 : f64} : (tensor<4xi32>) -> tensor<4xi32>
  return %0 : tensor<4xi32>
}
