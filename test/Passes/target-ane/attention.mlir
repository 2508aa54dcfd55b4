// RUN: coreai-opt %s --pass-pipeline='builtin.module(target-ane)' | FileCheck %s --enable-var-scope
// RUN: coreai-opt %s --pass-pipeline='builtin.module(target-ane{remarks=true})' -o /dev/null 2>&1 | FileCheck %s --check-prefix=REMARK
// The pipeline of `coreai-compile --target ane` after the pass: the
// composite, left without callers, is erased.
// RUN: coreai-opt %s --pass-pipeline='builtin.module(target-ane,canonicalize,cse,core-optimize)' | FileCheck %s --check-prefix=FOLD

// attention-inline: the call of a scaled_dot_product_attention composite
// becomes its body, each argument read as the call's operand; a call of
// another composite stays.

// CHECK-LABEL: coreai.graph @main(
// CHECK-SAME:    %[[Q:[a-z0-9]+]]: tensor<1x2x4x8xf16>, %[[K:[a-z0-9]+]]: tensor<1x2x4x8xf16>, %[[V:[a-z0-9]+]]: tensor<1x2x4x8xf16>
// CHECK-NOT:     coreai.invoke @sdpa
// CHECK:         %[[P:.*]] = coreai.constant dense<[0, 1, 3, 2]> : tensor<4xui32>
// CHECK-NEXT:    %[[KT:.*]] = coreai.transpose %[[K]], %[[P]]
// Then matmul-per-head: each head's product, the two concatenated.
// CHECK:         %[[S0:.*]] = coreai.decomposable.broadcasting_batch_matmul %{{.*}}, %{{.*}} : (tensor<1x1x4x8xf16>, tensor<1x1x8x4xf16>) -> tensor<1x1x4x4xf16>
// CHECK:         %[[S1:.*]] = coreai.decomposable.broadcasting_batch_matmul %{{.*}}, %{{.*}} : (tensor<1x1x4x8xf16>, tensor<1x1x8x4xf16>) -> tensor<1x1x4x4xf16>
// CHECK:         %[[S:.*]] = coreai.concat %{{.*}}, %[[S0]], %[[S1]] : {{.*}} -> tensor<1x2x4x4xf16>
// CHECK:         %[[W:.*]] = coreai.softmax %[[S]]
// CHECK:         %[[O0:.*]] = coreai.decomposable.broadcasting_batch_matmul %{{.*}}, %{{.*}} : (tensor<1x1x4x4xf16>, tensor<1x1x4x8xf16>) -> tensor<1x1x4x8xf16>
// CHECK:         %[[O1:.*]] = coreai.decomposable.broadcasting_batch_matmul
// CHECK:         %[[O:.*]] = coreai.concat %{{.*}}, %[[O0]], %[[O1]]
// CHECK-NEXT:    %[[N:.*]] = coreai.invoke @norm(%[[O]])
// CHECK-NEXT:    coreai.output %[[N]]

// REMARK: target-ane: {{.*}}'coreai.invoke' attention-inline: the Neural Engine has no fused attention
// REMARK-NOT: attention-inline
// REMARK-COUNT-2: matmul-per-head: the Neural Engine computes attention one head at a time

// FOLD-NOT: @sdpa
// FOLD: coreai.graph private @norm

coreai.graph @main(%q: tensor<1x2x4x8xf16>, %k: tensor<1x2x4x8xf16>, %v: tensor<1x2x4x8xf16>) -> tensor<1x2x4x8xf16> {
  %a = coreai.invoke @sdpa(%q, %k, %v) : (tensor<1x2x4x8xf16>, tensor<1x2x4x8xf16>, tensor<1x2x4x8xf16>) -> tensor<1x2x4x8xf16>
  %n = coreai.invoke @norm(%a) : (tensor<1x2x4x8xf16>) -> tensor<1x2x4x8xf16>
  coreai.output %n : tensor<1x2x4x8xf16>
}

coreai.graph private @sdpa(%q: tensor<1x2x4x8xf16>, %k: tensor<1x2x4x8xf16>, %v: tensor<1x2x4x8xf16>) -> tensor<1x2x4x8xf16> attributes {composite_decl = #coreai.composite_declaration<"scaled_dot_product_attention" = {input_names = ["query", "key", "value"], op_attrs = {is_causal = false, version = 1 : si64, window_size = 0 : si64}, output_names = ["output"]}>} {
  %p = coreai.constant dense<[0, 1, 3, 2]> : tensor<4xui32>
  %kt = coreai.transpose %k, %p : (tensor<1x2x4x8xf16>, tensor<4xui32>) -> tensor<1x2x8x4xf16>
  %s = coreai.decomposable.broadcasting_batch_matmul %q, %kt : (tensor<1x2x4x8xf16>, tensor<1x2x8x4xf16>) -> tensor<1x2x4x4xf16>
  %axis = coreai.constant dense<3> : tensor<si32>
  %w = coreai.softmax %s, %axis : (tensor<1x2x4x4xf16>, tensor<si32>) -> tensor<1x2x4x4xf16>
  %o = coreai.decomposable.broadcasting_batch_matmul %w, %v : (tensor<1x2x4x4xf16>, tensor<1x2x4x8xf16>) -> tensor<1x2x4x8xf16>
  coreai.output %o : tensor<1x2x4x8xf16>
}

coreai.graph private @norm(%x: tensor<1x2x4x8xf16>) -> tensor<1x2x4x8xf16> attributes {composite_decl = #coreai.composite_declaration<"rms_norm" = {input_names = ["input"], op_attrs = {eps = 1.0e-06 : f32, version = 1 : si64}, output_names = ["output"]}>} {
  coreai.output %x : tensor<1x2x4x8xf16>
}
