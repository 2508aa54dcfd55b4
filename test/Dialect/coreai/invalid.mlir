// RUN: coreai-opt %s --split-input-file --verify-diagnostics

coreai.graph @wrong_output_type(%x: tensor<2xf32>) -> tensor<2xf16> {
  // expected-error @+1 {{'coreai.output' op operand #0 has type 'tensor<2xf32>', but the enclosing graph returns 'tensor<2xf16>'}}
  coreai.output %x : tensor<2xf32>
}

// -----

coreai.graph @wrong_output_count(%x: tensor<2xf32>) -> tensor<2xf32> {
  // expected-error @+1 {{'coreai.output' op has 0 operands, but the enclosing graph 'wrong_output_count' returns 1}}
  coreai.output
}

// -----

// expected-error @+1 {{'coreai.graph' op cannot be both 'private' and 'externalize'}}
coreai.graph private externalize @both() {
  coreai.output
}

// -----

coreai.graph @not_broadcastable(%a: tensor<2x3xf32>, %b: tensor<4xf32>) -> tensor<2x3xf32> {
  // expected-error @+1 {{operand shapes 'tensor<2x3xf32>' and 'tensor<4xf32>' are not broadcast-compatible at dim 1}}
  %0 = coreai.decomposable.broadcasting_add %a, %b : (tensor<2x3xf32>, tensor<4xf32>) -> tensor<2x3xf32>
  coreai.output %0 : tensor<2x3xf32>
}

// -----

coreai.graph @wrong_broadcast_result(%a: tensor<2x3xf32>, %b: tensor<3xf32>) -> tensor<2x4xf32> {
  // expected-error @+1 {{result dim 1 is 4 but the broadcast of the operands is 3}}
  %0 = coreai.decomposable.broadcasting_mul %a, %b : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x4xf32>
  coreai.output %0 : tensor<2x4xf32>
}

// -----

coreai.graph @constant_type_mismatch() -> tensor<2xf32> {
  // expected-error @+1 {{'coreai.constant' op failed to verify that all of {value, result} have same type}}
  %0 = "coreai.constant"() <{value = dense<1.0> : tensor<2xf32>}> : () -> tensor<3xf32>
  coreai.output %0 : tensor<3xf32>
}

// -----

func.func @output_outside_graph() {
  // expected-error @+1 {{'coreai.output' op expects parent op 'coreai.graph'}}
  coreai.output
}
