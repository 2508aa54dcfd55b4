// RUN: coreai-opt %s --split-input-file --verify-diagnostics

coreai.graph @view_changes_dtype(%x: tensor<4xf16, #coreaix.hw_constraints<MTLBuffer, alignments: [1x1], interleave: [1]>>) {
  // expected-error @+1 {{'coreaix.view' op expected source 'f16' and result element type 'f32' to match}}
  %0 = coreaix.view(%x) : (tensor<4xf16, #coreaix.hw_constraints<MTLBuffer, alignments: [1x1], interleave: [1]>>) -> tensor<4xf32, #coreaix.hw_constraints<MTLBuffer, alignments: [1x1], interleave: [1]>>
  coreai.output
}

// -----

coreai.graph @view_unconstrained(%x: tensor<4xf16>) {
  // expected-error @+1 {{operand #0 must be ranked tensor with a #coreaix.hw_constraints encoding, but got 'tensor<4xf16>'}}
  %0 = coreaix.view(%x) : (tensor<4xf16>) -> tensor<4xf16, #coreaix.hw_constraints<MTLBuffer, alignments: [1x1], interleave: [1]>>
  coreai.output
}

// -----

coreai.graph @view_other_encoding(%x: tensor<4xf16, "a">) {
  // expected-error @+1 {{operand #0 must be ranked tensor with a #coreaix.hw_constraints encoding, but got 'tensor<4xf16, "a">'}}
  %0 = coreaix.view(%x) : (tensor<4xf16, "a">) -> tensor<4xf16, #coreaix.hw_constraints<MTLBuffer, alignments: [1x1], interleave: [1]>>
  coreai.output
}

// -----

coreai.graph @copy_with_constrained_source(%x: tensor<4xf16, #coreaix.hw_constraints<MTLBuffer, alignments: [1x1], interleave: [1]>>) {
  // expected-error @+1 {{operand #0 must be ranked tensor without a #coreaix.hw_constraints encoding}}
  %0 = coreaix.copy_with_constraints(%x) : (tensor<4xf16, #coreaix.hw_constraints<MTLBuffer, alignments: [1x1], interleave: [1]>>) -> tensor<4xf16, #coreaix.hw_constraints<Heap, alignments: [1x1], interleave: [1]>>
  coreai.output
}

// -----

coreai.graph @copy_with_changes_dtype(%x: tensor<4xf16>) {
  // expected-error @+1 {{'coreaix.copy_with_constraints' op expected source 'f16' and result element type 'f32' to match}}
  %0 = coreaix.copy_with_constraints(%x) : (tensor<4xf16>) -> tensor<4xf32, #coreaix.hw_constraints<MTLBuffer, alignments: [1x1], interleave: [1]>>
  coreai.output
}

// -----

coreai.graph @copy_discarding_keeps_constraints(%x: tensor<4xf16, #coreaix.hw_constraints<MTLBuffer, alignments: [1x1], interleave: [1]>>) {
  // expected-error @+1 {{result #0 must be ranked tensor without a #coreaix.hw_constraints encoding}}
  %0 = coreaix.copy_discarding_constraints(%x) : (tensor<4xf16, #coreaix.hw_constraints<MTLBuffer, alignments: [1x1], interleave: [1]>>) -> tensor<4xf16, #coreaix.hw_constraints<MTLBuffer, alignments: [1x1], interleave: [1]>>
  coreai.output
}

// -----

coreai.graph @cast_unconstrained_result(%x: tensor<4xf16, #coreaix.hw_constraints<MTLBuffer, alignments: [1x1], interleave: [1]>>) {
  // expected-error @+1 {{result #0 must be ranked tensor with a #coreaix.hw_constraints encoding, but got 'tensor<4xf32>'}}
  %0 = coreaix.cast(%x) : (tensor<4xf16, #coreaix.hw_constraints<MTLBuffer, alignments: [1x1], interleave: [1]>>) -> tensor<4xf32>
  coreai.output
}

// -----

// expected-error @+1 {{expected alignments to have (rank + 1) elements}}
coreai.graph @alignments_rank(%x: tensor<4x8xf16, #coreaix.hw_constraints<MTLBuffer, alignments: [1x16], interleave: [1x1]>>) {
  coreai.output
}

// -----

// expected-error @+1 {{expected interleave to have (rank) elements}}
coreai.graph @interleave_rank(%x: tensor<4x8xf16, #coreaix.hw_constraints<MTLBuffer, alignments: [1x1x16], interleave: [1]>>) {
  coreai.output
}

// -----

// expected-error @+1 {{expected alignments to be statically defined}}
coreai.graph @dynamic_alignment(%x: tensor<4x8xf16, #coreaix.hw_constraints<MTLBuffer, alignments: [1x?x16], interleave: [1x1]>>) {
  coreai.output
}

// -----

// expected-error @+1 {{dimension shape 8 must be a multiple of dimension interleave factor 3}}
coreai.graph @interleave_divides(%x: tensor<4x8xf16, #coreaix.hw_constraints<MTLBuffer, alignments: [1x1x16], interleave: [1x3]>>) {
  coreai.output
}

// -----

// expected-error @+2 {{to be one of: IOSurface, MTLBuffer, Heap}}
// expected-error @+1 {{failed to parse CoreAIX_HWConstraintsAttr parameter 'backing'}}
coreai.graph @unknown_backing(%x: tensor<4xf16, #coreaix.hw_constraints<Foo, alignments: [1x1], interleave: [1]>>) {
  coreai.output
}

// -----

// expected-error @+1 {{interleave is only supported for a single dimension}}
coreai.graph @two_interleaved_dims(%x: tensor<4x8xf16, #coreaix.hw_constraints<MTLBuffer, alignments: [1x1x16], interleave: [2x4]>>) {
  coreai.output
}

// -----

// A view may not reach past its source's layout (coreai-core's extent:
// 2x3 with alignments [1x1x1] is 6 elements, 6 with [1x16] interleave [3] is 32).
coreai.graph @view_past_source(%x: tensor<2x3xf32, #coreaix.hw_constraints<MTLBuffer, alignments: [1x1x1], interleave: [1x1]>>) {
  // expected-error @+1 {{'coreaix.view' op dest max offset 32 exceeds source max offset 6}}
  %0 = coreaix.view(%x) : (tensor<2x3xf32, #coreaix.hw_constraints<MTLBuffer, alignments: [1x1x1], interleave: [1x1]>>) -> tensor<6xf32, #coreaix.hw_constraints<MTLBuffer, alignments: [1x16], interleave: [3]>>
  coreai.output
}
