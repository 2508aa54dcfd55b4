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
  // expected-error @+1 {{operand shapes 'tensor<2x3xf32>', 'tensor<4xf32>' are not broadcast-compatible at dim 1}}
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

// -----

coreai.graph @where_not_broadcastable(%c: tensor<2x3xi1>, %a: tensor<4xf32>, %b: tensor<f32>) -> tensor<2x3xf32> {
  // expected-error @+1 {{are not broadcast-compatible at dim 1}}
  %0 = coreai.decomposable.broadcasting_where %c, %a, %b : (tensor<2x3xi1>, tensor<4xf32>, tensor<f32>) -> tensor<2x3xf32>
  coreai.output %0 : tensor<2x3xf32>
}

// -----

coreai.graph @if_condition_not_scalar_bool(%c: tensor<2xi1>, %x: tensor<3xf32>) -> tensor<3xf32> {
  // expected-error @+1 {{condition must be tensor<i1>, got 'tensor<2xi1>'}}
  %0 = coreai.if %c {
    coreai.yield %x : tensor<3xf32>
  } else {
    coreai.yield %x : tensor<3xf32>
  } : tensor<2xi1> -> tensor<3xf32>
  coreai.output %0 : tensor<3xf32>
}

// -----

coreai.graph @if_yield_mismatch(%c: tensor<i1>, %x: tensor<3xf32>, %y: tensor<2xf32>) -> tensor<3xf32> {
  // expected-error @+1 {{else region yields ('tensor<2xf32>') but ('tensor<3xf32>') is expected}}
  %0 = coreai.if %c {
    coreai.yield %x : tensor<3xf32>
  } else {
    coreai.yield %y : tensor<2xf32>
  } : tensor<i1> -> tensor<3xf32>
  coreai.output %0 : tensor<3xf32>
}

// -----

coreai.graph @while_after_yield_mismatch(%i: tensor<si32>, %c: tensor<i1>) -> tensor<si32> {
  // expected-error @+1 {{after region yields ('tensor<i1>') but ('tensor<si32>') is expected}}
  %0 = coreai.while %i {
  ^bb0(%a: tensor<si32>):
    coreai.condition %c, %a : (tensor<i1>, tensor<si32>)
  } do {
  ^bb0(%a: tensor<si32>):
    coreai.yield %c : tensor<i1>
  } : (tensor<si32>) -> (tensor<si32>)
  coreai.output %0 : tensor<si32>
}

// -----

coreai.graph @invoke_unknown(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'missing' does not name a coreai.graph; define the graph in this module}}
  %0 = coreai.invoke @missing(%x)  : (tensor<4xf32>) -> tensor<4xf32>
  coreai.output %0 : tensor<4xf32>
}

// -----

coreai.graph private @callee(%x: tensor<4xf32>) -> tensor<4xf32> {
  coreai.output %x : tensor<4xf32>
}
coreai.graph @invoke_wrong_types(%x: tensor<4xf16>) -> tensor<4xf32> {
  // expected-error @+1 {{operand types ('tensor<4xf16>') do not match the inputs of @callee ('tensor<4xf32>')}}
  %0 = coreai.invoke @callee(%x)  : (tensor<4xf16>) -> tensor<4xf32>
  coreai.output %0 : tensor<4xf32>
}

// -----

coreai.graph @read_wrong_type(%h: !coreai.handle<tensor<3xf32>>) -> tensor<3xf16> {
  %t = coreai.create_token : !coreai.token
  // expected-error @+1 {{reads 'tensor<3xf16>' from a handle holding 'tensor<3xf32>'}}
  %v, %t1 = coreai.read_handle %h, %t : (<tensor<3xf32>>, !coreai.token) -> (tensor<3xf16>, !coreai.token)
  coreai.output %v : tensor<3xf16>
}

// -----

coreai.graph @write_wrong_type(%h: !coreai.handle<tensor<3xf32>>, %x: tensor<4xf32>) -> !coreai.token {
  %t = coreai.create_token : !coreai.token
  // expected-error @+1 {{writes 'tensor<4xf32>' into a handle holding 'tensor<3xf32>'}}
  %t1 = coreai.write_handle %h, %x, %t : (<tensor<3xf32>>, tensor<4xf32>, !coreai.token) -> !coreai.token
  coreai.output %t1 : !coreai.token
}

// -----

coreai.graph @unary_shape_mismatch(%x: tensor<3xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'coreai.exp' op requires the same shape for all operands and results}}
  %0 = coreai.exp %x : tensor<3xf32> -> tensor<4xf32>
  coreai.output %0 : tensor<4xf32>
}
