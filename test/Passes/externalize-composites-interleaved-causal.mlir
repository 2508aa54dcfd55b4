// RUN: coreai-opt %s --split-input-file --pass-pipeline='builtin.module(externalize-composites)' | FileCheck %s --enable-var-scope
// RUN: coreai-opt %s --split-input-file --pass-pipeline='builtin.module(externalize-composites{remarks=true})' -o /dev/null 2>&1 | FileCheck %s --check-prefix=REMARK

// Interleaved RoPE (coreai-torch's RoPE(interleaved=True)): x[..., 0::2]
// and x[..., 1::2] rotated by half-width tables and re-interleaved
// (unsqueeze, concat on a new last axis, flatten): the tables are passed
// as they are.
// CHECK-LABEL: coreai.graph private noinline @rope(
// CHECK-SAME:    %[[X:.*]]: tensor<1x2x3x8xf32> {coreai.name = "input"}, %[[C:.*]]: tensor<3x4xf32> {coreai.name = "cos"}, %[[S:.*]]: tensor<3x4xf32> {coreai.name = "sin"}
// CHECK-SAME:    composite_decl = #coreai.composite_declaration<"rope" = {input_names = ["input", "cos", "sin"], op_attrs = {base = 1.000000e+04 : f32, interleaved = true, scale = 1.000000e+00 : f32, version = 1 : si64}, output_names = ["output"]}>
// CHECK:         coreai.slice %[[X]]
// CHECK:         coreai.concat
// CHECK:         coreai.output
// CHECK-LABEL: coreai.graph @rope_interleaved(
// CHECK-SAME:    %[[X:.*]]: tensor<1x2x3x8xf32>, %[[C:.*]]: tensor<3x4xf32>, %[[S:.*]]: tensor<3x4xf32>
// CHECK-NOT:     coreai.slice
// CHECK:         %[[Y:.*]] = coreai.invoke @rope(%[[X]], %[[C]], %[[S]])
// CHECK-NEXT:    coreai.output %[[Y]]
coreai.graph @rope_interleaved(%x: tensor<1x2x3x8xf32>, %cos: tensor<3x4xf32>, %sin: tensor<3x4xf32>) -> tensor<1x2x3x8xf32> {
  %zero = coreai.constant dense<0> : tensor<4xsi32>
  %max = coreai.constant dense<2147483647> : tensor<4xsi32>
  %b1 = coreai.constant dense<[0, 0, 0, 1]> : tensor<4xsi32>
  %st = coreai.constant dense<[1, 1, 1, 2]> : tensor<4xsi32>
  %x1 = coreai.slice %x, %zero, %max, %st : (tensor<1x2x3x8xf32>, tensor<4xsi32>, tensor<4xsi32>, tensor<4xsi32>) -> tensor<1x2x3x4xf32>
  %x2 = coreai.slice %x, %b1, %max, %st : (tensor<1x2x3x8xf32>, tensor<4xsi32>, tensor<4xsi32>, tensor<4xsi32>) -> tensor<1x2x3x4xf32>
  %a = coreai.decomposable.broadcasting_mul %x1, %cos : (tensor<1x2x3x4xf32>, tensor<3x4xf32>) -> tensor<1x2x3x4xf32>
  %b = coreai.decomposable.broadcasting_mul %x2, %sin : (tensor<1x2x3x4xf32>, tensor<3x4xf32>) -> tensor<1x2x3x4xf32>
  %y1 = coreai.decomposable.broadcasting_sub %a, %b : (tensor<1x2x3x4xf32>, tensor<1x2x3x4xf32>) -> tensor<1x2x3x4xf32>
  %c = coreai.decomposable.broadcasting_mul %x1, %sin : (tensor<1x2x3x4xf32>, tensor<3x4xf32>) -> tensor<1x2x3x4xf32>
  %d = coreai.decomposable.broadcasting_mul %cos, %x2 : (tensor<3x4xf32>, tensor<1x2x3x4xf32>) -> tensor<1x2x3x4xf32>
  %y2 = coreai.decomposable.broadcasting_add %d, %c : (tensor<1x2x3x4xf32>, tensor<1x2x3x4xf32>) -> tensor<1x2x3x4xf32>
  %s5 = coreai.constant dense<[1, 2, 3, 4, 1]> : tensor<5xui32>
  %u1 = coreai.reshape %y1, %s5 : (tensor<1x2x3x4xf32>, tensor<5xui32>) -> tensor<1x2x3x4x1xf32>
  %u2 = coreai.reshape %y2, %s5 : (tensor<1x2x3x4xf32>, tensor<5xui32>) -> tensor<1x2x3x4x1xf32>
  %ax = coreai.constant dense<4> : tensor<si32>
  %cat = coreai.concat %ax, %u1, %u2 : (tensor<si32>, tensor<1x2x3x4x1xf32>, tensor<1x2x3x4x1xf32>) -> tensor<1x2x3x4x2xf32>
  %s4 = coreai.constant dense<[1, 2, 3, 8]> : tensor<4xui32>
  %y = coreai.reshape %cat, %s4 : (tensor<1x2x3x4x2xf32>, tensor<4xui32>) -> tensor<1x2x3x8xf32>
  coreai.output %y : tensor<1x2x3x8xf32>
}

// -----

// Interleaved, partial: pairs within the first 4 of 8 dims
// (x[..., 0:4:2], x[..., 1:4:2]), the rest passed through → dims = 4.
// CHECK-LABEL: coreai.graph private noinline @rope(
// CHECK-SAME:    tensor<1x2x3x8xf32> {coreai.name = "input"}, %{{.*}}: tensor<3x2xf32> {coreai.name = "cos"}
// CHECK-SAME:    op_attrs = {base = 1.000000e+04 : f32, dims = 4 : si64, interleaved = true, scale = 1.000000e+00 : f32, version = 1 : si64}
// CHECK-LABEL: coreai.graph @rope_interleaved_partial(
// CHECK-SAME:    %[[X:.*]]: tensor<1x2x3x8xf32>, %[[C:.*]]: tensor<3x2xf32>, %[[S:.*]]: tensor<3x2xf32>
// CHECK:         %[[Y:.*]] = coreai.invoke @rope(%[[X]], %[[C]], %[[S]])
// CHECK-NEXT:    coreai.output %[[Y]]
coreai.graph @rope_interleaved_partial(%x: tensor<1x2x3x8xf32>, %cos: tensor<3x2xf32>, %sin: tensor<3x2xf32>) -> tensor<1x2x3x8xf32> {
  %zero = coreai.constant dense<0> : tensor<4xsi32>
  %max = coreai.constant dense<2147483647> : tensor<4xsi32>
  %e4 = coreai.constant dense<[2147483647, 2147483647, 2147483647, 4]> : tensor<4xsi32>
  %b1 = coreai.constant dense<[0, 0, 0, 1]> : tensor<4xsi32>
  %b4 = coreai.constant dense<[0, 0, 0, 4]> : tensor<4xsi32>
  %one = coreai.constant dense<1> : tensor<4xsi32>
  %st = coreai.constant dense<[1, 1, 1, 2]> : tensor<4xsi32>
  %x1 = coreai.slice %x, %zero, %e4, %st : (tensor<1x2x3x8xf32>, tensor<4xsi32>, tensor<4xsi32>, tensor<4xsi32>) -> tensor<1x2x3x2xf32>
  %x2 = coreai.slice %x, %b1, %e4, %st : (tensor<1x2x3x8xf32>, tensor<4xsi32>, tensor<4xsi32>, tensor<4xsi32>) -> tensor<1x2x3x2xf32>
  %a = coreai.decomposable.broadcasting_mul %x1, %cos : (tensor<1x2x3x2xf32>, tensor<3x2xf32>) -> tensor<1x2x3x2xf32>
  %b = coreai.decomposable.broadcasting_mul %x2, %sin : (tensor<1x2x3x2xf32>, tensor<3x2xf32>) -> tensor<1x2x3x2xf32>
  %y1 = coreai.decomposable.broadcasting_sub %a, %b : (tensor<1x2x3x2xf32>, tensor<1x2x3x2xf32>) -> tensor<1x2x3x2xf32>
  %c = coreai.decomposable.broadcasting_mul %x1, %sin : (tensor<1x2x3x2xf32>, tensor<3x2xf32>) -> tensor<1x2x3x2xf32>
  %d = coreai.decomposable.broadcasting_mul %x2, %cos : (tensor<1x2x3x2xf32>, tensor<3x2xf32>) -> tensor<1x2x3x2xf32>
  %y2 = coreai.decomposable.broadcasting_add %c, %d : (tensor<1x2x3x2xf32>, tensor<1x2x3x2xf32>) -> tensor<1x2x3x2xf32>
  %s5 = coreai.constant dense<[1, 2, 3, 2, 1]> : tensor<5xui32>
  %u1 = coreai.reshape %y1, %s5 : (tensor<1x2x3x2xf32>, tensor<5xui32>) -> tensor<1x2x3x2x1xf32>
  %u2 = coreai.reshape %y2, %s5 : (tensor<1x2x3x2xf32>, tensor<5xui32>) -> tensor<1x2x3x2x1xf32>
  %ax4 = coreai.constant dense<4> : tensor<si32>
  %cat = coreai.concat %ax4, %u1, %u2 : (tensor<si32>, tensor<1x2x3x2x1xf32>, tensor<1x2x3x2x1xf32>) -> tensor<1x2x3x2x2xf32>
  %s4 = coreai.constant dense<[1, 2, 3, 4]> : tensor<4xui32>
  %r = coreai.reshape %cat, %s4 : (tensor<1x2x3x2x2xf32>, tensor<4xui32>) -> tensor<1x2x3x4xf32>
  %xp = coreai.slice %x, %b4, %max, %one : (tensor<1x2x3x8xf32>, tensor<4xsi32>, tensor<4xsi32>, tensor<4xsi32>) -> tensor<1x2x3x4xf32>
  %ax3 = coreai.constant dense<3> : tensor<si32>
  %y = coreai.concat %ax3, %r, %xp : (tensor<si32>, tensor<1x2x3x4xf32>, tensor<1x2x3x4xf32>) -> tensor<1x2x3x8xf32>
  coreai.output %y : tensor<1x2x3x8xf32>
}

// -----

// Interleaved near misses: the wrong sign (c·x₁ + s·x₂), the pairing
// swapped (odd elements first), and the sum's tables swapped (s·x₂ + c·x₁).
// CHECK-LABEL: coreai.graph @rope_interleaved_near_misses(
// CHECK-NOT:     coreai.invoke
// CHECK:         coreai.output
// CHECK-NOT:     composite_declaration
// REMARK-DAG: remark: rope not outlined: matched interleave (reshape of a concat of the two unsqueezed parts); rotation (c·x₁ − s·x₂, s·x₁ + c·x₂) did not match: the first part is not a difference (a rotation with the wrong sign)
// REMARK-DAG: remark: rope not outlined: matched interleave (reshape of a concat of the two unsqueezed parts); rotation (c·x₁ − s·x₂, s·x₁ + c·x₂) did not match: the first part is not c·x[..., 0::2] − s·x[..., 1::2] (a rotation with the wrong sign or pairing)
// REMARK-DAG: remark: rope not outlined: matched interleave (reshape of a concat of the two unsqueezed parts); rotation (c·x₁ − s·x₂, s·x₁ + c·x₂) did not match: the second part is not s·x[..., 0::2] + c·x[..., 1::2] with the first part's tables
coreai.graph @rope_interleaved_near_misses(%x: tensor<1x2x3x8xf32>, %cos: tensor<3x4xf32>, %sin: tensor<3x4xf32>) -> (tensor<1x2x3x8xf32>, tensor<1x2x3x8xf32>, tensor<1x2x3x8xf32>) {
  %zero = coreai.constant dense<0> : tensor<4xsi32>
  %max = coreai.constant dense<2147483647> : tensor<4xsi32>
  %b1 = coreai.constant dense<[0, 0, 0, 1]> : tensor<4xsi32>
  %st = coreai.constant dense<[1, 1, 1, 2]> : tensor<4xsi32>
  %s5 = coreai.constant dense<[1, 2, 3, 4, 1]> : tensor<5xui32>
  %ax = coreai.constant dense<4> : tensor<si32>
  %s4 = coreai.constant dense<[1, 2, 3, 8]> : tensor<4xui32>
  %x1 = coreai.slice %x, %zero, %max, %st : (tensor<1x2x3x8xf32>, tensor<4xsi32>, tensor<4xsi32>, tensor<4xsi32>) -> tensor<1x2x3x4xf32>
  %x2 = coreai.slice %x, %b1, %max, %st : (tensor<1x2x3x8xf32>, tensor<4xsi32>, tensor<4xsi32>, tensor<4xsi32>) -> tensor<1x2x3x4xf32>
  // c·x₁ + s·x₂ (wrong sign)
  %a = coreai.decomposable.broadcasting_mul %x1, %cos : (tensor<1x2x3x4xf32>, tensor<3x4xf32>) -> tensor<1x2x3x4xf32>
  %b = coreai.decomposable.broadcasting_mul %x2, %sin : (tensor<1x2x3x4xf32>, tensor<3x4xf32>) -> tensor<1x2x3x4xf32>
  %y1 = coreai.decomposable.broadcasting_add %a, %b : (tensor<1x2x3x4xf32>, tensor<1x2x3x4xf32>) -> tensor<1x2x3x4xf32>
  %c = coreai.decomposable.broadcasting_mul %x1, %sin : (tensor<1x2x3x4xf32>, tensor<3x4xf32>) -> tensor<1x2x3x4xf32>
  %d = coreai.decomposable.broadcasting_mul %x2, %cos : (tensor<1x2x3x4xf32>, tensor<3x4xf32>) -> tensor<1x2x3x4xf32>
  %y2 = coreai.decomposable.broadcasting_add %c, %d : (tensor<1x2x3x4xf32>, tensor<1x2x3x4xf32>) -> tensor<1x2x3x4xf32>
  %u1 = coreai.reshape %y1, %s5 : (tensor<1x2x3x4xf32>, tensor<5xui32>) -> tensor<1x2x3x4x1xf32>
  %u2 = coreai.reshape %y2, %s5 : (tensor<1x2x3x4xf32>, tensor<5xui32>) -> tensor<1x2x3x4x1xf32>
  %cat = coreai.concat %ax, %u1, %u2 : (tensor<si32>, tensor<1x2x3x4x1xf32>, tensor<1x2x3x4x1xf32>) -> tensor<1x2x3x4x2xf32>
  %y = coreai.reshape %cat, %s4 : (tensor<1x2x3x4x2xf32>, tensor<4xui32>) -> tensor<1x2x3x8xf32>
  // the pairing swapped: x₂·c − x₁·s, x₂·s + x₁·c
  %p1 = coreai.slice %x, %b1, %max, %st : (tensor<1x2x3x8xf32>, tensor<4xsi32>, tensor<4xsi32>, tensor<4xsi32>) -> tensor<1x2x3x4xf32>
  %p2 = coreai.slice %x, %zero, %max, %st : (tensor<1x2x3x8xf32>, tensor<4xsi32>, tensor<4xsi32>, tensor<4xsi32>) -> tensor<1x2x3x4xf32>
  %pa = coreai.decomposable.broadcasting_mul %p1, %cos : (tensor<1x2x3x4xf32>, tensor<3x4xf32>) -> tensor<1x2x3x4xf32>
  %pb = coreai.decomposable.broadcasting_mul %p2, %sin : (tensor<1x2x3x4xf32>, tensor<3x4xf32>) -> tensor<1x2x3x4xf32>
  %py1 = coreai.decomposable.broadcasting_sub %pa, %pb : (tensor<1x2x3x4xf32>, tensor<1x2x3x4xf32>) -> tensor<1x2x3x4xf32>
  %pc = coreai.decomposable.broadcasting_mul %p1, %sin : (tensor<1x2x3x4xf32>, tensor<3x4xf32>) -> tensor<1x2x3x4xf32>
  %pd = coreai.decomposable.broadcasting_mul %p2, %cos : (tensor<1x2x3x4xf32>, tensor<3x4xf32>) -> tensor<1x2x3x4xf32>
  %py2 = coreai.decomposable.broadcasting_add %pc, %pd : (tensor<1x2x3x4xf32>, tensor<1x2x3x4xf32>) -> tensor<1x2x3x4xf32>
  %pu1 = coreai.reshape %py1, %s5 : (tensor<1x2x3x4xf32>, tensor<5xui32>) -> tensor<1x2x3x4x1xf32>
  %pu2 = coreai.reshape %py2, %s5 : (tensor<1x2x3x4xf32>, tensor<5xui32>) -> tensor<1x2x3x4x1xf32>
  %pcat = coreai.concat %ax, %pu1, %pu2 : (tensor<si32>, tensor<1x2x3x4x1xf32>, tensor<1x2x3x4x1xf32>) -> tensor<1x2x3x4x2xf32>
  %py = coreai.reshape %pcat, %s4 : (tensor<1x2x3x4x2xf32>, tensor<4xui32>) -> tensor<1x2x3x8xf32>
  // the second part with the tables swapped: c·x₁ + s·x₂
  %q1 = coreai.slice %x, %zero, %max, %st : (tensor<1x2x3x8xf32>, tensor<4xsi32>, tensor<4xsi32>, tensor<4xsi32>) -> tensor<1x2x3x4xf32>
  %q2 = coreai.slice %x, %b1, %max, %st : (tensor<1x2x3x8xf32>, tensor<4xsi32>, tensor<4xsi32>, tensor<4xsi32>) -> tensor<1x2x3x4xf32>
  %qa = coreai.decomposable.broadcasting_mul %q1, %cos : (tensor<1x2x3x4xf32>, tensor<3x4xf32>) -> tensor<1x2x3x4xf32>
  %qb = coreai.decomposable.broadcasting_mul %q2, %sin : (tensor<1x2x3x4xf32>, tensor<3x4xf32>) -> tensor<1x2x3x4xf32>
  %qy1 = coreai.decomposable.broadcasting_sub %qa, %qb : (tensor<1x2x3x4xf32>, tensor<1x2x3x4xf32>) -> tensor<1x2x3x4xf32>
  %qc = coreai.decomposable.broadcasting_mul %q1, %cos : (tensor<1x2x3x4xf32>, tensor<3x4xf32>) -> tensor<1x2x3x4xf32>
  %qd = coreai.decomposable.broadcasting_mul %q2, %sin : (tensor<1x2x3x4xf32>, tensor<3x4xf32>) -> tensor<1x2x3x4xf32>
  %qy2 = coreai.decomposable.broadcasting_add %qc, %qd : (tensor<1x2x3x4xf32>, tensor<1x2x3x4xf32>) -> tensor<1x2x3x4xf32>
  %qu1 = coreai.reshape %qy1, %s5 : (tensor<1x2x3x4xf32>, tensor<5xui32>) -> tensor<1x2x3x4x1xf32>
  %qu2 = coreai.reshape %qy2, %s5 : (tensor<1x2x3x4xf32>, tensor<5xui32>) -> tensor<1x2x3x4x1xf32>
  %qcat = coreai.concat %ax, %qu1, %qu2 : (tensor<si32>, tensor<1x2x3x4x1xf32>, tensor<1x2x3x4x1xf32>) -> tensor<1x2x3x4x2xf32>
  %qy = coreai.reshape %qcat, %s4 : (tensor<1x2x3x4x2xf32>, tensor<4xui32>) -> tensor<1x2x3x8xf32>
  coreai.output %y, %py, %qy : tensor<1x2x3x8xf32>, tensor<1x2x3x8xf32>, tensor<1x2x3x8xf32>
}

// -----

// Attention whose additive mask is a constant causal triangle (T_q = T_k,
// 0 / -inf): is_causal = true and no attn_mask input, as coreai-torch's
// SDPA(is_causal=True) declares; the body reads the proved mask.
// CHECK-LABEL: coreai.graph private noinline @scaled_dot_product_attention(
// CHECK-SAME:    %{{.*}}: tensor<1x2x3x8xf32> {coreai.name = "query"}, %{{.*}}: tensor<1x2x3x8xf32> {coreai.name = "key"}, %{{.*}}: tensor<1x2x3x8xf32> {coreai.name = "value"})
// CHECK-SAME:    composite_decl = #coreai.composite_declaration<"scaled_dot_product_attention" = {input_names = ["query", "key", "value"], op_attrs = {is_causal = true, version = 1 : si64, window_size = 0 : si64}, output_names = ["output"]}>
// CHECK:         coreai.constant dense<{{\[\[}}0.000000e+00, 0xFF800000, 0xFF800000]
// CHECK:         coreai.softmax
// CHECK-LABEL: coreai.graph @attention_causal_additive(
// CHECK-SAME:    %[[Q:.*]]: tensor<1x2x3x8xf32>, %[[K:.*]]: tensor<1x2x3x8xf32>, %[[V:.*]]: tensor<1x2x3x8xf32>
// CHECK:         %[[O:.*]] = coreai.invoke @scaled_dot_product_attention(%[[Q]], %[[K]], %[[V]])
// CHECK-NEXT:    coreai.output %[[O]]
coreai.graph @attention_causal_additive(%q: tensor<1x2x3x8xf32>, %k: tensor<1x2x3x8xf32>, %v: tensor<1x2x3x8xf32>) -> tensor<1x2x3x8xf32> {
  %perm = coreai.constant dense<[0, 1, 3, 2]> : tensor<4xui32>
  %kt = coreai.transpose %k, %perm : (tensor<1x2x3x8xf32>, tensor<4xui32>) -> tensor<1x2x8x3xf32>
  %s = coreai.decomposable.broadcasting_batch_matmul %q, %kt : (tensor<1x2x3x8xf32>, tensor<1x2x8x3xf32>) -> tensor<1x2x3x3xf32>
  %c = coreai.constant dense<2.82842708> : tensor<f32>
  %sd = coreai.decomposable.broadcasting_divide %s, %c : (tensor<1x2x3x3xf32>, tensor<f32>) -> tensor<1x2x3x3xf32>
  %mask = coreai.constant dense<[[0.0, 0xFF800000, 0xFF800000], [0.0, 0.0, 0xFF800000], [0.0, 0.0, 0.0]]> : tensor<3x3xf32>
  %sm = coreai.decomposable.broadcasting_add %sd, %mask : (tensor<1x2x3x3xf32>, tensor<3x3xf32>) -> tensor<1x2x3x3xf32>
  %ax = coreai.constant dense<3> : tensor<si32>
  %p = coreai.softmax %sm, %ax : (tensor<1x2x3x3xf32>, tensor<si32>) -> tensor<1x2x3x3xf32>
  %o = coreai.decomposable.broadcasting_batch_matmul %p, %v : (tensor<1x2x3x3xf32>, tensor<1x2x3x8xf32>) -> tensor<1x2x3x8xf32>
  coreai.output %o : tensor<1x2x3x8xf32>
}

// -----

// A boolean lower-right triangle for a 2-token query over 4 keys
// (where(m, s, -1e4), m computed from a constant by a logical not):
// is_causal = true. The upper-left triangle (PyTorch's is_causal) and a
// mask with one wrong entry stay attn_mask inputs with is_causal = false.
// CHECK-LABEL: coreai.graph private noinline @scaled_dot_product_attention(
// CHECK-SAME:    input_names = ["query", "key", "value"], op_attrs = {is_causal = true, scale = 5.000000e-01 : f32, version = 1 : si64, window_size = 0 : si64}
// CHECK-LABEL: coreai.graph private noinline @scaled_dot_product_attention_1(
// CHECK-SAME:    %{{.*}}: tensor<2x4xi1> {coreai.name = "attn_mask"}
// CHECK-SAME:    input_names = ["query", "key", "value", "attn_mask"], op_attrs = {is_causal = false, scale = 5.000000e-01 : f32, version = 1 : si64, window_size = 0 : si64}
// CHECK-LABEL: coreai.graph private noinline @scaled_dot_product_attention_2(
// CHECK-SAME:    %{{.*}}: tensor<2x4xi1> {coreai.name = "attn_mask"}
// CHECK-SAME:    op_attrs = {is_causal = false
// CHECK-LABEL: coreai.graph @attention_causal_bool(
// CHECK:         coreai.invoke @scaled_dot_product_attention(%{{[^,]*}}, %{{[^,]*}}, %{{[^,]*}})
// CHECK:         coreai.invoke @scaled_dot_product_attention_1(%{{[^,]*}}, %{{[^,]*}}, %{{[^,]*}}, %{{[^,]*}})
// CHECK:         coreai.invoke @scaled_dot_product_attention_2(%{{[^,]*}}, %{{[^,]*}}, %{{[^,]*}}, %{{[^,]*}})
coreai.graph @attention_causal_bool(%q: tensor<1x2x2x8xf32>, %k: tensor<1x2x4x8xf32>, %v: tensor<1x2x4x8xf32>) -> (tensor<1x2x2x8xf32>, tensor<1x2x2x8xf32>, tensor<1x2x2x8xf32>) {
  %perm = coreai.constant dense<[0, 1, 3, 2]> : tensor<4xui32>
  %c = coreai.constant dense<5.000000e-01> : tensor<f32>
  %neg = coreai.constant dense<-1.000000e+04> : tensor<f32>
  %ax = coreai.constant dense<3> : tensor<si32>
  %masked = coreai.constant dense<[[false, false, false, true], [false, false, false, false]]> : tensor<2x4xi1>
  %lower_right = coreai.not %masked : tensor<2x4xi1> -> tensor<2x4xi1>
  %upper_left = coreai.constant dense<[[true, false, false, false], [true, true, false, false]]> : tensor<2x4xi1>
  %wrong = coreai.constant dense<[[true, true, true, false], [true, true, false, true]]> : tensor<2x4xi1>
  %kt = coreai.transpose %k, %perm : (tensor<1x2x4x8xf32>, tensor<4xui32>) -> tensor<1x2x8x4xf32>
  %s = coreai.decomposable.broadcasting_batch_matmul %q, %kt : (tensor<1x2x2x8xf32>, tensor<1x2x8x4xf32>) -> tensor<1x2x2x4xf32>
  %ss = coreai.decomposable.broadcasting_mul %s, %c : (tensor<1x2x2x4xf32>, tensor<f32>) -> tensor<1x2x2x4xf32>
  %sm = coreai.decomposable.broadcasting_where %lower_right, %ss, %neg : (tensor<2x4xi1>, tensor<1x2x2x4xf32>, tensor<f32>) -> tensor<1x2x2x4xf32>
  %p = coreai.softmax %sm, %ax : (tensor<1x2x2x4xf32>, tensor<si32>) -> tensor<1x2x2x4xf32>
  %o = coreai.decomposable.broadcasting_batch_matmul %p, %v : (tensor<1x2x2x4xf32>, tensor<1x2x4x8xf32>) -> tensor<1x2x2x8xf32>
  %kt1 = coreai.transpose %k, %perm : (tensor<1x2x4x8xf32>, tensor<4xui32>) -> tensor<1x2x8x4xf32>
  %s1 = coreai.decomposable.broadcasting_batch_matmul %q, %kt1 : (tensor<1x2x2x8xf32>, tensor<1x2x8x4xf32>) -> tensor<1x2x2x4xf32>
  %ss1 = coreai.decomposable.broadcasting_mul %s1, %c : (tensor<1x2x2x4xf32>, tensor<f32>) -> tensor<1x2x2x4xf32>
  %sm1 = coreai.decomposable.broadcasting_where %upper_left, %ss1, %neg : (tensor<2x4xi1>, tensor<1x2x2x4xf32>, tensor<f32>) -> tensor<1x2x2x4xf32>
  %p1 = coreai.softmax %sm1, %ax : (tensor<1x2x2x4xf32>, tensor<si32>) -> tensor<1x2x2x4xf32>
  %o1 = coreai.decomposable.broadcasting_batch_matmul %p1, %v : (tensor<1x2x2x4xf32>, tensor<1x2x4x8xf32>) -> tensor<1x2x2x8xf32>
  %kt2 = coreai.transpose %k, %perm : (tensor<1x2x4x8xf32>, tensor<4xui32>) -> tensor<1x2x8x4xf32>
  %s2 = coreai.decomposable.broadcasting_batch_matmul %q, %kt2 : (tensor<1x2x2x8xf32>, tensor<1x2x8x4xf32>) -> tensor<1x2x2x4xf32>
  %ss2 = coreai.decomposable.broadcasting_mul %s2, %c : (tensor<1x2x2x4xf32>, tensor<f32>) -> tensor<1x2x2x4xf32>
  %sm2 = coreai.decomposable.broadcasting_where %wrong, %ss2, %neg : (tensor<2x4xi1>, tensor<1x2x2x4xf32>, tensor<f32>) -> tensor<1x2x2x4xf32>
  %p2 = coreai.softmax %sm2, %ax : (tensor<1x2x2x4xf32>, tensor<si32>) -> tensor<1x2x2x4xf32>
  %o2 = coreai.decomposable.broadcasting_batch_matmul %p2, %v : (tensor<1x2x2x4xf32>, tensor<1x2x4x8xf32>) -> tensor<1x2x2x8xf32>
  coreai.output %o, %o1, %o2 : tensor<1x2x2x8xf32>, tensor<1x2x2x8xf32>, tensor<1x2x2x8xf32>
}
