// RUN: coreai-opt %s --verify-diagnostics --pass-pipeline='builtin.module(ane-residency)' -o /dev/null 2>&1 | FileCheck %s --check-prefix=SUMMARY
// RUN: coreai-opt %s --pass-pipeline='builtin.module(ane-residency)' -o - 2>/dev/null | FileCheck %s --check-prefix=UNCHANGED

// Each rule of Apple's Neural Engine authoring rules the IR decides, on
// one op each, next to ops that stay: f16 and 8/16-bit integer compute,
// static shapes of rank <= 5. Integer constant operands (shapes, axes)
// are static parameters and are not checked, as are the constant f32
// scale and offset coreai's interpolate takes; constants, terminators and
// calls of composites other than attention are not counted.

// SUMMARY: ane-residency: 5 of 13 ops Neural-Engine-resident (8 leave it: dtype: 5, static-shape: 1, rank: 1, fused-attention: 1)
// UNCHANGED: coreai.graph @main

coreai.graph @main(%x: tensor<2x3xf32>, %y: tensor<2x3xf16>, %i: tensor<4xsi8>, %d: tensor<?x3xf16>, %w: tensor<1x1x1x1x2x3xf16>, %img: tensor<1x1x2x3xf16>) -> (tensor<3x2xf16>, tensor<4xsi8>, tensor<?x3xf16>, tensor<1x1x1x1x2x3xf16>, tensor<2x3xf16>, tensor<1x4x2xf16>, tensor<1x1x4x6xf16>, tensor<2x3xf16>) {
  // expected-remark @+1 {{ane-residency: 'coreai.cast' leaves the Neural Engine: dtype: operand #0 is tensor<2x3xf32> (the Neural Engine computes in f16, int8 and int16 only); it is a graph input or output: give the model f16 inputs and outputs}}
  %xh = coreai.cast %x : tensor<2x3xf32> to tensor<2x3xf16>
  %a = coreai.abs %xh : tensor<2x3xf16> -> tensor<2x3xf16>
  %s = coreai.decomposable.broadcasting_add %a, %y : (tensor<2x3xf16>, tensor<2x3xf16>) -> tensor<2x3xf16>
  %j = coreai.decomposable.broadcasting_add %i, %i : (tensor<4xsi8>, tensor<4xsi8>) -> tensor<4xsi8>
  %shape = coreai.constant dense<[3, 2]> : tensor<2xui32>
  %r = coreai.reshape %s, %shape : (tensor<2x3xf16>, tensor<2xui32>) -> tensor<3x2xf16>
  // expected-remark @+1 {{ane-residency: 'coreai.abs' leaves the Neural Engine: static-shape: operand #0 has a dynamic shape, tensor<?x3xf16> (the Neural Engine needs static shapes: one function per shape)}}
  %da = coreai.abs %d : tensor<?x3xf16> -> tensor<?x3xf16>
  // expected-remark @+1 {{ane-residency: 'coreai.abs' leaves the Neural Engine: rank: operand #0 is rank 6, tensor<1x1x1x1x2x3xf16> (the Neural Engine takes rank <= 5)}}
  %wa = coreai.abs %w : tensor<1x1x1x1x2x3xf16> -> tensor<1x1x1x1x2x3xf16>
  // An f32 computation inside the graph (an f32 island).
  // expected-remark @+1 {{ane-residency: 'coreai.cast' leaves the Neural Engine: dtype: result #0 is tensor<2x3xf32>}}
  %f = coreai.cast %s : tensor<2x3xf16> to tensor<2x3xf32>
  // expected-remark @+1 {{ane-residency: 'coreai.exp' leaves the Neural Engine: dtype: operand #0 is tensor<2x3xf32>}}
  %e = coreai.exp %f : tensor<2x3xf32> -> tensor<2x3xf32>
  // expected-remark @+1 {{ane-residency: 'coreai.cast' leaves the Neural Engine: dtype: operand #0 is tensor<2x3xf32> (the Neural Engine computes in f16, int8 and int16 only)}}
  %eh = coreai.cast %e : tensor<2x3xf32> to tensor<2x3xf16>
  %q = coreai.constant dense<1.0> : tensor<1x4x2xf16>
  // expected-remark @+1 {{ane-residency: 'coreai.invoke' leaves the Neural Engine: fused-attention: the Neural Engine has no fused attention; attention runs per head}}
  %att = coreai.invoke @sdpa(%q, %q, %q) : (tensor<1x4x2xf16>, tensor<1x4x2xf16>, tensor<1x4x2xf16>) -> tensor<1x4x2xf16>
  %osh = coreai.constant dense<[1, 1, 4, 6]> : tensor<4xsi32>
  %scale = coreai.constant dense<[1.0, 1.0, 2.0, 2.0]> : tensor<4xf32>
  %offset = coreai.constant dense<0.0> : tensor<4xf32>
  // A boolean mask tensor is data (a rank-0 boolean would be a flag).
  %mask = coreai.constant dense<[[true, false, true], [false, true, true]]> : tensor<2x3xi1>
  // expected-remark @+1 {{ane-residency: 'coreai.decomposable.broadcasting_where' leaves the Neural Engine: dtype: operand #0 is tensor<2x3xi1>}}
  %masked = coreai.decomposable.broadcasting_where %mask, %y, %y : (tensor<2x3xi1>, tensor<2x3xf16>, tensor<2x3xf16>) -> tensor<2x3xf16>
  %up = coreai.interpolate %img, %osh, %scale, %offset {interpolation_mode = #coreai.interpolation_mode<linear>} : (tensor<1x1x2x3xf16>, tensor<4xsi32>, tensor<4xf32>, tensor<4xf32>) -> tensor<1x1x4x6xf16>
  coreai.output %r, %j, %da, %wa, %eh, %att, %up, %masked : tensor<3x2xf16>, tensor<4xsi8>, tensor<?x3xf16>, tensor<1x1x1x1x2x3xf16>, tensor<2x3xf16>, tensor<1x4x2xf16>, tensor<1x1x4x6xf16>, tensor<2x3xf16>
}

coreai.graph private @sdpa(%q: tensor<1x4x2xf16>, %k: tensor<1x4x2xf16>, %v: tensor<1x4x2xf16>) -> tensor<1x4x2xf16> attributes {composite_decl = #coreai.composite_declaration<"scaled_dot_product_attention" = {input_names = ["query", "key", "value"], op_attrs = {is_causal = true, version = 1 : si64, window_size = 0 : si64}, output_names = ["output"]}>} {
  coreai.output %q : tensor<1x4x2xf16>
}
