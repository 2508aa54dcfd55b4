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
  // expected-error @+1 {{'coreai.if' op operand #0 must be 0D CoreAI Tensor of Boolean type. values, but got 'tensor<2xi1>'}}
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

// -----

// Element types: coreai-core 1.0.0b3's constraints (utils/coreai-ods/element_types.json).

coreai.graph @abs_signless(%x: tensor<3xi64>) -> tensor<3xi64> {
  // expected-error @+1 {{'coreai.abs' op operand #0 must be CoreAI Tensor of bfloat16 type or 16-bit float or 32-bit float or 64-bit float or 8/16/32/64-bit signed integer or 8/16/32/64-bit unsigned integer values, but got 'tensor<3xi64>'}}
  %0 = coreai.abs %x : tensor<3xi64> -> tensor<3xi64>
  coreai.output %0 : tensor<3xi64>
}

// -----

coreai.graph @add_signless(%a: tensor<3xi32>, %b: tensor<i32>) -> tensor<3xi32> {
  // expected-error @+1 {{'coreai.decomposable.broadcasting_add' op operand #0 must be CoreAI Tensor of}}
  %0 = coreai.decomposable.broadcasting_add %a, %b : (tensor<3xi32>, tensor<i32>) -> tensor<3xi32>
  coreai.output %0 : tensor<3xi32>
}

// -----

coreai.graph @exp_integer(%x: tensor<3xsi32>) -> tensor<3xsi32> {
  // expected-error @+1 {{'coreai.exp' op operand #0 must be CoreAI Tensor of bfloat16 type or 16-bit float or 32-bit float or 64-bit float or f8E5M2 type or f8E4M3FN type or complex type with 32-bit float elements values, but got 'tensor<3xsi32>'}}
  %0 = coreai.exp %x : tensor<3xsi32> -> tensor<3xsi32>
  coreai.output %0 : tensor<3xsi32>
}

// -----

coreai.graph @compare_result_not_bool(%a: tensor<3xf32>, %b: tensor<3xf32>) -> tensor<3xf32> {
  // expected-error @+1 {{'coreai.decomposable.broadcasting_equal' op result #0 must be CoreAI Tensor of Boolean type. values, but got 'tensor<3xf32>'}}
  %0 = coreai.decomposable.broadcasting_equal %a, %b : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  coreai.output %0 : tensor<3xf32>
}

// -----

coreai.graph @reduce_axes_si64(%x: tensor<2x3xf32>) -> tensor<2x1xf32> {
  %axes = coreai.constant dense<1> : tensor<1xsi64>
  // expected-error @+1 {{'coreai.reduce_sum' op operand #1 must be 1D CoreAI Tensor of Index type. values, but got 'tensor<1xsi64>'}}
  %0 = coreai.reduce_sum %x, %axes : (tensor<2x3xf32>, tensor<1xsi64>) -> tensor<2x1xf32>
  coreai.output %0 : tensor<2x1xf32>
}

// -----

coreai.graph @reduce_axes_0d(%x: tensor<2x3xf32>) -> tensor<2x1xf32> {
  %axes = coreai.constant dense<1> : tensor<si32>
  // expected-error @+1 {{'coreai.reduce_sum' op operand #1 must be 1D CoreAI Tensor of Index type. values, but got 'tensor<si32>'}}
  %0 = coreai.reduce_sum %x, %axes : (tensor<2x3xf32>, tensor<si32>) -> tensor<2x1xf32>
  coreai.output %0 : tensor<2x1xf32>
}

// -----

coreai.graph @reshape_shape_float(%x: tensor<2x3xf32>) -> tensor<6xf32> {
  %s = coreai.constant dense<6.0> : tensor<1xf32>
  // expected-error @+1 {{'coreai.reshape' op operand #1 must be 1D CoreAI Tensor of Index type. values or 1D CoreAI Tensor of 16-bit unsigned integer or 32-bit unsigned integer values, but got 'tensor<1xf32>'}}
  %0 = coreai.reshape %x, %s : (tensor<2x3xf32>, tensor<1xf32>) -> tensor<6xf32>
  coreai.output %0 : tensor<6xf32>
}

// -----

coreai.graph @transpose_perm_signed(%x: tensor<2x3xf32>) -> tensor<3x2xf32> {
  %p = coreai.constant dense<[1, 0]> : tensor<2xsi32>
  // expected-error @+1 {{'coreai.transpose' op operand #1 must be 1D CoreAI Tensor of 16-bit unsigned integer or 32-bit unsigned integer values, but got 'tensor<2xsi32>'}}
  %0 = coreai.transpose %x, %p : (tensor<2x3xf32>, tensor<2xsi32>) -> tensor<3x2xf32>
  coreai.output %0 : tensor<3x2xf32>
}

// -----

coreai.graph @gather_indices_si64(%x: tensor<4x3xf32>, %i: tensor<2x1xsi64>) -> tensor<2x3xf32> {
  // expected-error @+1 {{'coreai.gather_nd' op operand #1 must be CoreAI Tensor of Index type. values, but got 'tensor<2x1xsi64>'}}
  %0 = coreai.gather_nd %x at %i : (tensor<4x3xf32>, tensor<2x1xsi64>) to tensor<2x3xf32>
  coreai.output %0 : tensor<2x3xf32>
}

// -----

coreai.graph @cast_to_signless(%x: tensor<3xf32>) -> tensor<3xi64> {
  // expected-error @+1 {{'coreai.cast' op result #0 must be CoreAI Tensor of}}
  %0 = coreai.cast %x : tensor<3xf32> to tensor<3xi64>
  coreai.output %0 : tensor<3xi64>
}

// -----

coreai.graph @where_condition_float(%c: tensor<3xf32>, %a: tensor<3xf32>) -> tensor<3xf32> {
  // expected-error @+1 {{'coreai.decomposable.broadcasting_where' op operand #0 must be CoreAI Tensor of Boolean type. values, but got 'tensor<3xf32>'}}
  %0 = coreai.decomposable.broadcasting_where %c, %a, %a : (tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  coreai.output %0 : tensor<3xf32>
}

// -----

coreai.graph @logical_not_float(%x: tensor<3xf32>) -> tensor<3xf32> {
  // expected-error @+1 {{'coreai.not' op operand #0 must be CoreAI Tensor of Boolean type. values, but got 'tensor<3xf32>'}}
  %0 = coreai.not %x : tensor<3xf32> -> tensor<3xf32>
  coreai.output %0 : tensor<3xf32>
}

// -----

coreai.graph @concat_dimension_1d(%a: tensor<2xf32>) -> tensor<4xf32> {
  %d = coreai.constant dense<0> : tensor<1xsi32>
  // expected-error @+1 {{'coreai.concat' op operand #0 must be 0D CoreAI Tensor of Index type. values, but got 'tensor<1xsi32>'}}
  %0 = coreai.concat %d, %a, %a : (tensor<1xsi32>, tensor<2xf32>, tensor<2xf32>) -> tensor<4xf32>
  coreai.output %0 : tensor<4xf32>
}

// -----

coreai.graph @index_elements(%x: tensor<3xindex>) -> tensor<3xindex> {
  // expected-error @+1 {{'coreai.sqrt' op operand #0 must be CoreAI Tensor of}}
  %0 = coreai.sqrt %x : tensor<3xindex> -> tensor<3xindex>
  coreai.output %0 : tensor<3xindex>
}

// -----

// Images.

coreai.graph @image_to_tensor_wrong_shape(%x: !coreai.image<<k24RGB> x 4 x 6>) -> tensor<4x6x4xui8> {
  // expected-error @+2 {{'coreai.image_to_tensor' op inferred type(s) 'tensor<4x6x3xui8>' are incompatible with return type(s) of operation 'tensor<4x6x4xui8>'}}
  // expected-error @+1 {{'coreai.image_to_tensor' op failed to infer returned types}}
  %0 = coreai.image_to_tensor %x : <<k24RGB> x 4 x 6> -> tensor<4x6x4xui8>
  coreai.output %0 : tensor<4x6x4xui8>
}

// -----

coreai.graph @tensor_to_image_float(%x: tensor<4x6x3xf32>) -> !coreai.image<<k24RGB> x 4 x 6> {
  // expected-error @+1 {{'coreai.tensor_to_image' op operand #0 must be CoreAI Tensor of 8-bit unsigned integer values, but got 'tensor<4x6x3xf32>'}}
  %0 = coreai.tensor_to_image %x : tensor<4x6x3xf32> -> <<k24RGB> x 4 x 6>
  coreai.output %0 : !coreai.image<<k24RGB> x 4 x 6>
}

// -----

// expected-error @+1 {{expected height to be positive, got 0}}
coreai.graph @image_zero_height(%x: !coreai.image<<k24RGB> x 0 x 6>) {
  coreai.output
}

// -----

// expected-error @+1 {{expected width to be an integer type, got 'f64'}}
coreai.graph @image_float_width(%x: !coreai.image<<k24RGB> x 2 x 6.0>) {
  coreai.output
}

// -----

// expected-error @+2 {{fourCC string must be exactly 4 characters}}
// expected-error @+1 {{failed to parse CoreAI_ImageType parameter 'fourCC'}}
coreai.graph @fourcc_three_chars(%x: !coreai.image<<"RGB"> x 2 x 6>) {
  coreai.output
}

// -----

// expected-error @+2 {{unknown FourCC enum value: k24rgb}}
// expected-error @+1 {{failed to parse CoreAI_ImageType parameter 'fourCC'}}
coreai.graph @fourcc_unknown_name(%x: !coreai.image<<k24rgb> x 2 x 6>) {
  coreai.output
}

// -----

// Sparse encodings.

coreai.graph @abs_of_sparse(%x: tensor<2x3xf32, #coreai.sparse_tensor_encoding<bitmask, posWidth = 1, crdWidth = 1>>) {
  // expected-error @+1 {{'coreai.abs' op operand #0 must be CoreAI Tensor of}}
  %0 = coreai.abs %x : tensor<2x3xf32, #coreai.sparse_tensor_encoding<bitmask, posWidth = 1, crdWidth = 1>> -> tensor<2x3xf32>
  coreai.output
}

// -----

coreai.graph @densify_csr(%x: tensor<2x3xf32, #coreai.sparse_tensor_encoding<csr, posWidth = 32, crdWidth = 32>>) {
  // expected-error @+1 {{'coreai.sparse_with_bitmask_to_dense' op operand #0 must be CoreAI Sparse Tensor with a Bitmask of}}
  %0 = coreai.sparse_with_bitmask_to_dense %x : tensor<2x3xf32, #coreai.sparse_tensor_encoding<csr, posWidth = 32, crdWidth = 32>> -> tensor<2x3xf32>
  coreai.output
}

// -----

// expected-error @+1 {{For Bitmask compression scheme, both posWidth and crdWidth must be equal to 1.}}
coreai.graph @bitmask_widths(%x: tensor<2x3xf32, #coreai.sparse_tensor_encoding<bitmask, posWidth = 2, crdWidth = 1>>) {
  coreai.output
}

// -----

// expected-error @+1 {{block-sparse compression schemes (BSR) require non-empty blockSize}}
coreai.graph @bsr_without_blocks(%x: tensor<2x3xf32, #coreai.sparse_tensor_encoding<bsr, posWidth = 32, crdWidth = 32>>) {
  coreai.output
}

// -----

// coreai.metal4_kernel takes MTLBuffer-backed tensors only.
coreai.graph @metal_iosurface(%x: tensor<2x3xf32, #coreaix.hw_constraints<IOSurface, alignments: [1x1x1], interleave: [1x1]>>, %g: tensor<3xui32>, %s: tensor<2xui32>) {
  // expected-error @+1 {{'coreai.metal4_kernel' op operand #0 must be variadic of MTLBuffer-backed CoreAI Tensor of Metal 4 supported element type values}}
  %0 = coreai.metal4_kernel kernel_args(%x), threads_per_grid %g, threads_per_thread_group %g, result_shapes(%s) {kernel_name = "k", kernel_source = "k"} : (tensor<2x3xf32, #coreaix.hw_constraints<IOSurface, alignments: [1x1x1], interleave: [1x1]>>, tensor<3xui32>, tensor<3xui32>, tensor<2xui32>) -> tensor<2x3xf32, #coreaix.hw_constraints<MTLBuffer, alignments: [1x1x1], interleave: [1x1]>>
  coreai.output
}
