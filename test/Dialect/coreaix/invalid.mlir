// RUN: coreai-opt %s --split-input-file --verify-diagnostics

func.func @view_changes_dtype(%x: tensor<4xf16, "a">) -> tensor<4xf32, "a"> {
  // expected-error @+1 {{'coreaix.view' op cannot change the element type ('f16' to 'f32'); use coreaix.cast}}
  %0 = coreaix.view(%x) : (tensor<4xf16, "a">) -> tensor<4xf32, "a">
  return %0 : tensor<4xf32, "a">
}

// -----

func.func @view_unconstrained(%x: tensor<4xf16>) -> tensor<4xf16, "a"> {
  // expected-error @+1 {{operand #0 must be ranked tensor with a hardware-constraint encoding}}
  %0 = coreaix.view(%x) : (tensor<4xf16>) -> tensor<4xf16, "a">
  return %0 : tensor<4xf16, "a">
}
