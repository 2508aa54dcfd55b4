// RUN: coreai-opt %s --split-input-file --pass-pipeline='builtin.module(externalize-composites)' | FileCheck %s --enable-var-scope
// RUN: coreai-opt %s --split-input-file --pass-pipeline='builtin.module(externalize-composites{remarks=true})' -o /dev/null 2>&1 | FileCheck %s --check-prefix=REMARK

// RoPE, the cat form: cat(x₁·c − x₂·s, x₁·s + x₂·c) of the halves
// x₁ = x[..., :4], x₂ = x[..., 4:] with half-width tables, passed as they are.
// CHECK-LABEL: coreai.graph private noinline @rope(
// CHECK-SAME:    %{{.*}}: tensor<1x2x3x8xf32> {coreai.name = "input"}, %{{.*}}: tensor<3x4xf32> {coreai.name = "cos"}, %{{.*}}: tensor<3x4xf32> {coreai.name = "sin"}
// CHECK-SAME:    op_attrs = {base = 1.000000e+04 : f32, interleaved = false, scale = 1.000000e+00 : f32, version = 1 : si64}
// CHECK-LABEL: coreai.graph @rope_cat_form(
// CHECK-SAME:    %[[X:.*]]: tensor<1x2x3x8xf32>, %[[C:.*]]: tensor<3x4xf32>, %[[S:.*]]: tensor<3x4xf32>
// CHECK-NOT:     coreai.slice
// CHECK:         %[[Y:.*]] = coreai.invoke @rope(%[[X]], %[[C]], %[[S]])
// CHECK-NEXT:    coreai.output %[[Y]]
coreai.graph @rope_cat_form(%x: tensor<1x2x3x8xf32>, %cos: tensor<3x4xf32>, %sin: tensor<3x4xf32>) -> tensor<1x2x3x8xf32> {
  %zero = coreai.constant dense<0> : tensor<4xsi32>
  %e4 = coreai.constant dense<[2147483647, 2147483647, 2147483647, 4]> : tensor<4xsi32>
  %b4 = coreai.constant dense<[0, 0, 0, 4]> : tensor<4xsi32>
  %max = coreai.constant dense<2147483647> : tensor<4xsi32>
  %one = coreai.constant dense<1> : tensor<4xsi32>
  %x1 = coreai.slice %x, %zero, %e4, %one : (tensor<1x2x3x8xf32>, tensor<4xsi32>, tensor<4xsi32>, tensor<4xsi32>) -> tensor<1x2x3x4xf32>
  %x2 = coreai.slice %x, %b4, %max, %one : (tensor<1x2x3x8xf32>, tensor<4xsi32>, tensor<4xsi32>, tensor<4xsi32>) -> tensor<1x2x3x4xf32>
  %a = coreai.decomposable.broadcasting_mul %x1, %cos : (tensor<1x2x3x4xf32>, tensor<3x4xf32>) -> tensor<1x2x3x4xf32>
  %b = coreai.decomposable.broadcasting_mul %x2, %sin : (tensor<1x2x3x4xf32>, tensor<3x4xf32>) -> tensor<1x2x3x4xf32>
  %y1 = coreai.decomposable.broadcasting_sub %a, %b : (tensor<1x2x3x4xf32>, tensor<1x2x3x4xf32>) -> tensor<1x2x3x4xf32>
  %c = coreai.decomposable.broadcasting_mul %sin, %x1 : (tensor<3x4xf32>, tensor<1x2x3x4xf32>) -> tensor<1x2x3x4xf32>
  %d = coreai.decomposable.broadcasting_mul %x2, %cos : (tensor<1x2x3x4xf32>, tensor<3x4xf32>) -> tensor<1x2x3x4xf32>
  %y2 = coreai.decomposable.broadcasting_add %d, %c : (tensor<1x2x3x4xf32>, tensor<1x2x3x4xf32>) -> tensor<1x2x3x4xf32>
  %ax = coreai.constant dense<3> : tensor<si32>
  %y = coreai.concat %ax, %y1, %y2 : (tensor<si32>, tensor<1x2x3x4xf32>, tensor<1x2x3x4xf32>) -> tensor<1x2x3x8xf32>
  coreai.output %y : tensor<1x2x3x8xf32>
}

// -----

// The cat form, partial: the halves of x[..., :4] rotate, x[..., 4:] is
// passed through in the same concat → dims = 4, tables 2 wide.
// CHECK-LABEL: coreai.graph private noinline @rope(
// CHECK-SAME:    %{{.*}}: tensor<1x2x3x8xf32> {coreai.name = "input"}, %{{.*}}: tensor<3x2xf32> {coreai.name = "cos"}
// CHECK-SAME:    op_attrs = {base = 1.000000e+04 : f32, dims = 4 : si64, interleaved = false, scale = 1.000000e+00 : f32, version = 1 : si64}
// CHECK-LABEL: coreai.graph @rope_cat_form_partial(
// CHECK-SAME:    %[[X:.*]]: tensor<1x2x3x8xf32>, %[[C:.*]]: tensor<3x2xf32>, %[[S:.*]]: tensor<3x2xf32>
// CHECK:         %[[Y:.*]] = coreai.invoke @rope(%[[X]], %[[C]], %[[S]])
// CHECK-NEXT:    coreai.output %[[Y]]
coreai.graph @rope_cat_form_partial(%x: tensor<1x2x3x8xf32>, %cos: tensor<3x2xf32>, %sin: tensor<3x2xf32>) -> tensor<1x2x3x8xf32> {
  %zero = coreai.constant dense<0> : tensor<4xsi32>
  %e2 = coreai.constant dense<[2147483647, 2147483647, 2147483647, 2]> : tensor<4xsi32>
  %b2 = coreai.constant dense<[0, 0, 0, 2]> : tensor<4xsi32>
  %e4 = coreai.constant dense<[2147483647, 2147483647, 2147483647, 4]> : tensor<4xsi32>
  %b4 = coreai.constant dense<[0, 0, 0, 4]> : tensor<4xsi32>
  %max = coreai.constant dense<2147483647> : tensor<4xsi32>
  %one = coreai.constant dense<1> : tensor<4xsi32>
  %x1 = coreai.slice %x, %zero, %e2, %one : (tensor<1x2x3x8xf32>, tensor<4xsi32>, tensor<4xsi32>, tensor<4xsi32>) -> tensor<1x2x3x2xf32>
  %x2 = coreai.slice %x, %b2, %e4, %one : (tensor<1x2x3x8xf32>, tensor<4xsi32>, tensor<4xsi32>, tensor<4xsi32>) -> tensor<1x2x3x2xf32>
  %a = coreai.decomposable.broadcasting_mul %x1, %cos : (tensor<1x2x3x2xf32>, tensor<3x2xf32>) -> tensor<1x2x3x2xf32>
  %b = coreai.decomposable.broadcasting_mul %x2, %sin : (tensor<1x2x3x2xf32>, tensor<3x2xf32>) -> tensor<1x2x3x2xf32>
  %y1 = coreai.decomposable.broadcasting_sub %a, %b : (tensor<1x2x3x2xf32>, tensor<1x2x3x2xf32>) -> tensor<1x2x3x2xf32>
  %c = coreai.decomposable.broadcasting_mul %x1, %sin : (tensor<1x2x3x2xf32>, tensor<3x2xf32>) -> tensor<1x2x3x2xf32>
  %d = coreai.decomposable.broadcasting_mul %x2, %cos : (tensor<1x2x3x2xf32>, tensor<3x2xf32>) -> tensor<1x2x3x2xf32>
  %y2 = coreai.decomposable.broadcasting_add %c, %d : (tensor<1x2x3x2xf32>, tensor<1x2x3x2xf32>) -> tensor<1x2x3x2xf32>
  %xp = coreai.slice %x, %b4, %max, %one : (tensor<1x2x3x8xf32>, tensor<4xsi32>, tensor<4xsi32>, tensor<4xsi32>) -> tensor<1x2x3x4xf32>
  %ax = coreai.constant dense<3> : tensor<si32>
  %y = coreai.concat %ax, %y1, %y2, %xp : (tensor<si32>, tensor<1x2x3x2xf32>, tensor<1x2x3x2xf32>, tensor<1x2x3x4xf32>) -> tensor<1x2x3x8xf32>
  coreai.output %y : tensor<1x2x3x8xf32>
}

// -----

// Cat-form near misses: the signs swapped (x₁·c + x₂·s, x₁·s − x₂·c),
// the halves swapped (x₂·c − x₁·s, ...).
// CHECK-LABEL: coreai.graph @rope_cat_form_near_misses(
// CHECK-NOT:     coreai.invoke
// CHECK:         coreai.output
// CHECK-NOT:     composite_declaration
// REMARK-DAG: remark: rope not outlined: matched concat of the two rotated halves; rotation (c·x₁ − s·x₂, s·x₁ + c·x₂) did not match: the first part is not a difference (a rotation with the wrong sign)
// REMARK-DAG: remark: rope not outlined: matched concat of the two rotated halves; rotation (c·x₁ − s·x₂, s·x₁ + c·x₂) did not match: the first part is not c·x[..., :h] − s·x[..., h:2h] (a rotation with the wrong sign or pairing)
coreai.graph @rope_cat_form_near_misses(%x: tensor<1x2x3x8xf32>, %cos: tensor<3x4xf32>, %sin: tensor<3x4xf32>) -> (tensor<1x2x3x8xf32>, tensor<1x2x3x8xf32>) {
  %zero = coreai.constant dense<0> : tensor<4xsi32>
  %e4 = coreai.constant dense<[2147483647, 2147483647, 2147483647, 4]> : tensor<4xsi32>
  %b4 = coreai.constant dense<[0, 0, 0, 4]> : tensor<4xsi32>
  %max = coreai.constant dense<2147483647> : tensor<4xsi32>
  %one = coreai.constant dense<1> : tensor<4xsi32>
  %ax = coreai.constant dense<3> : tensor<si32>
  %x1 = coreai.slice %x, %zero, %e4, %one : (tensor<1x2x3x8xf32>, tensor<4xsi32>, tensor<4xsi32>, tensor<4xsi32>) -> tensor<1x2x3x4xf32>
  %x2 = coreai.slice %x, %b4, %max, %one : (tensor<1x2x3x8xf32>, tensor<4xsi32>, tensor<4xsi32>, tensor<4xsi32>) -> tensor<1x2x3x4xf32>
  %a = coreai.decomposable.broadcasting_mul %x1, %cos : (tensor<1x2x3x4xf32>, tensor<3x4xf32>) -> tensor<1x2x3x4xf32>
  %b = coreai.decomposable.broadcasting_mul %x2, %sin : (tensor<1x2x3x4xf32>, tensor<3x4xf32>) -> tensor<1x2x3x4xf32>
  %y1 = coreai.decomposable.broadcasting_add %a, %b : (tensor<1x2x3x4xf32>, tensor<1x2x3x4xf32>) -> tensor<1x2x3x4xf32>
  %c = coreai.decomposable.broadcasting_mul %x1, %sin : (tensor<1x2x3x4xf32>, tensor<3x4xf32>) -> tensor<1x2x3x4xf32>
  %d = coreai.decomposable.broadcasting_mul %x2, %cos : (tensor<1x2x3x4xf32>, tensor<3x4xf32>) -> tensor<1x2x3x4xf32>
  %y2 = coreai.decomposable.broadcasting_sub %c, %d : (tensor<1x2x3x4xf32>, tensor<1x2x3x4xf32>) -> tensor<1x2x3x4xf32>
  %y = coreai.concat %ax, %y1, %y2 : (tensor<si32>, tensor<1x2x3x4xf32>, tensor<1x2x3x4xf32>) -> tensor<1x2x3x8xf32>
  %pa = coreai.decomposable.broadcasting_mul %x2, %cos : (tensor<1x2x3x4xf32>, tensor<3x4xf32>) -> tensor<1x2x3x4xf32>
  %pb = coreai.decomposable.broadcasting_mul %x1, %sin : (tensor<1x2x3x4xf32>, tensor<3x4xf32>) -> tensor<1x2x3x4xf32>
  %p1 = coreai.decomposable.broadcasting_sub %pa, %pb : (tensor<1x2x3x4xf32>, tensor<1x2x3x4xf32>) -> tensor<1x2x3x4xf32>
  %pc = coreai.decomposable.broadcasting_mul %x2, %sin : (tensor<1x2x3x4xf32>, tensor<3x4xf32>) -> tensor<1x2x3x4xf32>
  %pd = coreai.decomposable.broadcasting_mul %x1, %cos : (tensor<1x2x3x4xf32>, tensor<3x4xf32>) -> tensor<1x2x3x4xf32>
  %p2 = coreai.decomposable.broadcasting_add %pc, %pd : (tensor<1x2x3x4xf32>, tensor<1x2x3x4xf32>) -> tensor<1x2x3x4xf32>
  %p = coreai.concat %ax, %p1, %p2 : (tensor<si32>, tensor<1x2x3x4xf32>, tensor<1x2x3x4xf32>) -> tensor<1x2x3x8xf32>
  coreai.output %y, %p : tensor<1x2x3x8xf32>, tensor<1x2x3x8xf32>
}

// -----

// Interleaved RoPE in the pair form: reshape(x, [..., 4, 2])[..., 0] and
// [..., 1], rotated, stacked and flattened → interleaved = true.
// CHECK-LABEL: coreai.graph private noinline @rope(
// CHECK-SAME:    %{{.*}}: tensor<1x2x3x8xf32> {coreai.name = "input"}, %{{.*}}: tensor<3x4xf32> {coreai.name = "cos"}
// CHECK-SAME:    op_attrs = {base = 1.000000e+04 : f32, interleaved = true, scale = 1.000000e+00 : f32, version = 1 : si64}
// CHECK-LABEL: coreai.graph @rope_pair_form(
// CHECK-SAME:    %[[X:.*]]: tensor<1x2x3x8xf32>, %[[C:.*]]: tensor<3x4xf32>, %[[S:.*]]: tensor<3x4xf32>
// CHECK-NOT:     coreai.reshape
// CHECK:         %[[Y:.*]] = coreai.invoke @rope(%[[X]], %[[C]], %[[S]])
// CHECK-NEXT:    coreai.output %[[Y]]
coreai.graph @rope_pair_form(%x: tensor<1x2x3x8xf32>, %cos: tensor<3x4xf32>, %sin: tensor<3x4xf32>) -> tensor<1x2x3x8xf32> {
  %s5 = coreai.constant dense<[1, 2, 3, 4, 2]> : tensor<5xui32>
  %xr = coreai.reshape %x, %s5 : (tensor<1x2x3x8xf32>, tensor<5xui32>) -> tensor<1x2x3x4x2xf32>
  %zero = coreai.constant dense<0> : tensor<5xsi32>
  %e1 = coreai.constant dense<[2147483647, 2147483647, 2147483647, 2147483647, 1]> : tensor<5xsi32>
  %b1 = coreai.constant dense<[0, 0, 0, 0, 1]> : tensor<5xsi32>
  %e2 = coreai.constant dense<[2147483647, 2147483647, 2147483647, 2147483647, 2]> : tensor<5xsi32>
  %one = coreai.constant dense<1> : tensor<5xsi32>
  %s4 = coreai.constant dense<[1, 2, 3, 4]> : tensor<4xui32>
  %p0 = coreai.slice %xr, %zero, %e1, %one : (tensor<1x2x3x4x2xf32>, tensor<5xsi32>, tensor<5xsi32>, tensor<5xsi32>) -> tensor<1x2x3x4x1xf32>
  %x0 = coreai.reshape %p0, %s4 : (tensor<1x2x3x4x1xf32>, tensor<4xui32>) -> tensor<1x2x3x4xf32>
  %p1 = coreai.slice %xr, %b1, %e2, %one : (tensor<1x2x3x4x2xf32>, tensor<5xsi32>, tensor<5xsi32>, tensor<5xsi32>) -> tensor<1x2x3x4x1xf32>
  %x1 = coreai.reshape %p1, %s4 : (tensor<1x2x3x4x1xf32>, tensor<4xui32>) -> tensor<1x2x3x4xf32>
  %a = coreai.decomposable.broadcasting_mul %x0, %cos : (tensor<1x2x3x4xf32>, tensor<3x4xf32>) -> tensor<1x2x3x4xf32>
  %b = coreai.decomposable.broadcasting_mul %x1, %sin : (tensor<1x2x3x4xf32>, tensor<3x4xf32>) -> tensor<1x2x3x4xf32>
  %y1 = coreai.decomposable.broadcasting_sub %a, %b : (tensor<1x2x3x4xf32>, tensor<1x2x3x4xf32>) -> tensor<1x2x3x4xf32>
  %c = coreai.decomposable.broadcasting_mul %x0, %sin : (tensor<1x2x3x4xf32>, tensor<3x4xf32>) -> tensor<1x2x3x4xf32>
  %d = coreai.decomposable.broadcasting_mul %x1, %cos : (tensor<1x2x3x4xf32>, tensor<3x4xf32>) -> tensor<1x2x3x4xf32>
  %y2 = coreai.decomposable.broadcasting_add %c, %d : (tensor<1x2x3x4xf32>, tensor<1x2x3x4xf32>) -> tensor<1x2x3x4xf32>
  %u5 = coreai.constant dense<[1, 2, 3, 4, 1]> : tensor<5xui32>
  %u1 = coreai.reshape %y1, %u5 : (tensor<1x2x3x4xf32>, tensor<5xui32>) -> tensor<1x2x3x4x1xf32>
  %u2 = coreai.reshape %y2, %u5 : (tensor<1x2x3x4xf32>, tensor<5xui32>) -> tensor<1x2x3x4x1xf32>
  %ax = coreai.constant dense<4> : tensor<si32>
  %cat = coreai.concat %ax, %u1, %u2 : (tensor<si32>, tensor<1x2x3x4x1xf32>, tensor<1x2x3x4x1xf32>) -> tensor<1x2x3x4x2xf32>
  %f = coreai.constant dense<[1, 2, 3, 8]> : tensor<4xui32>
  %y = coreai.reshape %cat, %f : (tensor<1x2x3x4x2xf32>, tensor<4xui32>) -> tensor<1x2x3x8xf32>
  coreai.output %y : tensor<1x2x3x8xf32>
}

// -----

// Pair-form near miss: the members swapped ([..., 1] rotated as the first).
// CHECK-LABEL: coreai.graph @rope_pair_form_swapped(
// CHECK-NOT:     coreai.invoke
// CHECK:         coreai.output
// REMARK: remark: rope not outlined: matched interleave (reshape of a concat of the two unsqueezed parts); rotation (c·x₁ − s·x₂, s·x₁ + c·x₂) did not match: the first part is not c·x[..., 0::2] − s·x[..., 1::2] (a rotation with the wrong sign or pairing)
coreai.graph @rope_pair_form_swapped(%x: tensor<1x2x3x8xf32>, %cos: tensor<3x4xf32>, %sin: tensor<3x4xf32>) -> tensor<1x2x3x8xf32> {
  %s5 = coreai.constant dense<[1, 2, 3, 4, 2]> : tensor<5xui32>
  %xr = coreai.reshape %x, %s5 : (tensor<1x2x3x8xf32>, tensor<5xui32>) -> tensor<1x2x3x4x2xf32>
  %zero = coreai.constant dense<0> : tensor<5xsi32>
  %e1 = coreai.constant dense<[2147483647, 2147483647, 2147483647, 2147483647, 1]> : tensor<5xsi32>
  %b1 = coreai.constant dense<[0, 0, 0, 0, 1]> : tensor<5xsi32>
  %e2 = coreai.constant dense<[2147483647, 2147483647, 2147483647, 2147483647, 2]> : tensor<5xsi32>
  %one = coreai.constant dense<1> : tensor<5xsi32>
  %s4 = coreai.constant dense<[1, 2, 3, 4]> : tensor<4xui32>
  %p0 = coreai.slice %xr, %zero, %e1, %one : (tensor<1x2x3x4x2xf32>, tensor<5xsi32>, tensor<5xsi32>, tensor<5xsi32>) -> tensor<1x2x3x4x1xf32>
  %x0 = coreai.reshape %p0, %s4 : (tensor<1x2x3x4x1xf32>, tensor<4xui32>) -> tensor<1x2x3x4xf32>
  %p1 = coreai.slice %xr, %b1, %e2, %one : (tensor<1x2x3x4x2xf32>, tensor<5xsi32>, tensor<5xsi32>, tensor<5xsi32>) -> tensor<1x2x3x4x1xf32>
  %x1 = coreai.reshape %p1, %s4 : (tensor<1x2x3x4x1xf32>, tensor<4xui32>) -> tensor<1x2x3x4xf32>
  %a = coreai.decomposable.broadcasting_mul %x1, %cos : (tensor<1x2x3x4xf32>, tensor<3x4xf32>) -> tensor<1x2x3x4xf32>
  %b = coreai.decomposable.broadcasting_mul %x0, %sin : (tensor<1x2x3x4xf32>, tensor<3x4xf32>) -> tensor<1x2x3x4xf32>
  %y1 = coreai.decomposable.broadcasting_sub %a, %b : (tensor<1x2x3x4xf32>, tensor<1x2x3x4xf32>) -> tensor<1x2x3x4xf32>
  %c = coreai.decomposable.broadcasting_mul %x1, %sin : (tensor<1x2x3x4xf32>, tensor<3x4xf32>) -> tensor<1x2x3x4xf32>
  %d = coreai.decomposable.broadcasting_mul %x0, %cos : (tensor<1x2x3x4xf32>, tensor<3x4xf32>) -> tensor<1x2x3x4xf32>
  %y2 = coreai.decomposable.broadcasting_add %c, %d : (tensor<1x2x3x4xf32>, tensor<1x2x3x4xf32>) -> tensor<1x2x3x4xf32>
  %u5 = coreai.constant dense<[1, 2, 3, 4, 1]> : tensor<5xui32>
  %u1 = coreai.reshape %y1, %u5 : (tensor<1x2x3x4xf32>, tensor<5xui32>) -> tensor<1x2x3x4x1xf32>
  %u2 = coreai.reshape %y2, %u5 : (tensor<1x2x3x4xf32>, tensor<5xui32>) -> tensor<1x2x3x4x1xf32>
  %ax = coreai.constant dense<4> : tensor<si32>
  %cat = coreai.concat %ax, %u1, %u2 : (tensor<si32>, tensor<1x2x3x4x1xf32>, tensor<1x2x3x4x1xf32>) -> tensor<1x2x3x4x2xf32>
  %f = coreai.constant dense<[1, 2, 3, 8]> : tensor<4xui32>
  %y = coreai.reshape %cat, %f : (tensor<1x2x3x4x2xf32>, tensor<4xui32>) -> tensor<1x2x3x8xf32>
  coreai.output %y : tensor<1x2x3x8xf32>
}

// -----

// Attention with masked_fill(triu(ones, 1), -inf), a registered buffer:
// the strict upper triangle true where masked out is the causal mask →
// is_causal = true, no mask input; the body reads the buffer.
// CHECK-LABEL: coreai.graph private noinline @scaled_dot_product_attention(
// CHECK-SAME:    %{{.*}}: tensor<1x2x3x8xf32> {coreai.name = "query"}, %{{.*}}: tensor<1x2x3x8xf32> {coreai.name = "key"}, %{{.*}}: tensor<1x2x3x8xf32> {coreai.name = "value"}) -> tensor<1x2x3x8xf32>
// CHECK-SAME:    op_attrs = {is_causal = true, version = 1 : si64, window_size = 0 : si64}
// CHECK:         coreai.decomposable.broadcasting_where
// CHECK-LABEL: coreai.graph @attention_masked_fill_causal(
// CHECK-SAME:    %[[Q:.*]]: tensor<1x2x3x8xf32>, %[[K:.*]]: tensor<1x2x3x8xf32>, %[[V:.*]]: tensor<1x2x3x8xf32>
// CHECK:         %[[O:.*]] = coreai.invoke @scaled_dot_product_attention(%[[Q]], %[[K]], %[[V]])
// CHECK-NEXT:    coreai.output %[[O]]
coreai.graph @attention_masked_fill_causal(%q: tensor<1x2x3x8xf32>, %k: tensor<1x2x3x8xf32>, %v: tensor<1x2x3x8xf32>) -> tensor<1x2x3x8xf32> {
  %m = coreai.constant dense<[[false, true, true], [false, false, true], [false, false, false]]> : tensor<3x3xi1>
  %perm = coreai.constant dense<[0, 1, 3, 2]> : tensor<4xui32>
  %kt = coreai.transpose %k, %perm : (tensor<1x2x3x8xf32>, tensor<4xui32>) -> tensor<1x2x8x3xf32>
  %s = coreai.decomposable.broadcasting_batch_matmul %q, %kt : (tensor<1x2x3x8xf32>, tensor<1x2x8x3xf32>) -> tensor<1x2x3x3xf32>
  %c = coreai.constant dense<2.82842708> : tensor<f32>
  %ss = coreai.decomposable.broadcasting_divide %s, %c : (tensor<1x2x3x3xf32>, tensor<f32>) -> tensor<1x2x3x3xf32>
  %ninf = coreai.constant dense<0xFF800000> : tensor<f32>
  %sm = coreai.decomposable.broadcasting_where %m, %ninf, %ss : (tensor<3x3xi1>, tensor<f32>, tensor<1x2x3x3xf32>) -> tensor<1x2x3x3xf32>
  %ax = coreai.constant dense<3> : tensor<si32>
  %p = coreai.softmax %sm, %ax : (tensor<1x2x3x3xf32>, tensor<si32>) -> tensor<1x2x3x3xf32>
  %o = coreai.decomposable.broadcasting_batch_matmul %p, %v : (tensor<1x2x3x3xf32>, tensor<1x2x3x8xf32>) -> tensor<1x2x3x8xf32>
  coreai.output %o : tensor<1x2x3x8xf32>
}

// -----

// masked_fill near miss for is_causal: triu(ones, 0) also masks the
// diagonal, not the causal mask → is_causal = false; the mask is passed
// as not(m) (the composite's boolean mask is true where attended) and the
// body negates it back. A scale other than 1/√d is declared.
// CHECK-LABEL: coreai.graph private noinline @scaled_dot_product_attention(
// CHECK-SAME:    %[[M:[^:]*]]: tensor<3x3xi1> {coreai.name = "attn_mask"}
// CHECK-SAME:    op_attrs = {is_causal = false, scale = 2.500000e-01 : f32, version = 1 : si64, window_size = 0 : si64}
// CHECK:         %[[BACK:.*]] = coreai.not %[[M]]
// CHECK:         coreai.decomposable.broadcasting_where %[[BACK]]
// CHECK-LABEL: coreai.graph @attention_masked_fill_not_causal(
// CHECK-SAME:    %[[Q:.*]]: tensor<1x2x3x8xf32>, %[[K:.*]]: tensor<1x2x3x8xf32>, %[[V:.*]]: tensor<1x2x3x8xf32>
// CHECK:         %[[ATTEND:.*]] = coreai.not %{{.*}} : tensor<3x3xi1>
// CHECK-NEXT:    %[[O:.*]] = coreai.invoke @scaled_dot_product_attention(%[[Q]], %[[K]], %[[V]], %[[ATTEND]])
coreai.graph @attention_masked_fill_not_causal(%q: tensor<1x2x3x8xf32>, %k: tensor<1x2x3x8xf32>, %v: tensor<1x2x3x8xf32>) -> tensor<1x2x3x8xf32> {
  %m = coreai.constant dense<[[true, true, true], [false, true, true], [false, false, true]]> : tensor<3x3xi1>
  %perm = coreai.constant dense<[0, 1, 3, 2]> : tensor<4xui32>
  %kt = coreai.transpose %k, %perm : (tensor<1x2x3x8xf32>, tensor<4xui32>) -> tensor<1x2x8x3xf32>
  %s = coreai.decomposable.broadcasting_batch_matmul %q, %kt : (tensor<1x2x3x8xf32>, tensor<1x2x8x3xf32>) -> tensor<1x2x3x3xf32>
  %c = coreai.constant dense<4.0> : tensor<f32>
  %ss = coreai.decomposable.broadcasting_divide %s, %c : (tensor<1x2x3x3xf32>, tensor<f32>) -> tensor<1x2x3x3xf32>
  %ninf = coreai.constant dense<0xFF800000> : tensor<f32>
  %sm = coreai.decomposable.broadcasting_where %m, %ninf, %ss : (tensor<3x3xi1>, tensor<f32>, tensor<1x2x3x3xf32>) -> tensor<1x2x3x3xf32>
  %ax = coreai.constant dense<3> : tensor<si32>
  %p = coreai.softmax %sm, %ax : (tensor<1x2x3x3xf32>, tensor<si32>) -> tensor<1x2x3x3xf32>
  %o = coreai.decomposable.broadcasting_batch_matmul %p, %v : (tensor<1x2x3x3xf32>, tensor<1x2x3x8xf32>) -> tensor<1x2x3x8xf32>
  coreai.output %o : tensor<1x2x3x8xf32>
}

// -----

// 3-D attention (nn.MultiheadAttention with need_weights=True: bmm over
// batch × heads, the query scaled first, the weights also returned): q,
// k, v and the 3-D mask are passed as [1, N, ...], the result comes back
// as [1, N, T, D]; the ops up to the softmax stay in place for the
// weights output and the composite computes its own clone.
// CHECK-LABEL: coreai.graph private noinline @scaled_dot_product_attention(
// CHECK-SAME:    %[[QA:[^:]*]]: tensor<1x4x3x8xf32> {coreai.name = "query"}, %{{.*}}: tensor<1x4x3x8xf32> {coreai.name = "key"}, %{{.*}}: tensor<1x4x3x8xf32> {coreai.name = "value"}, %{{.*}}: tensor<1x4x3x3xf32> {coreai.name = "attn_mask"}) -> tensor<1x4x3x8xf32>
// CHECK-SAME:    op_attrs = {is_causal = false, version = 1 : si64, window_size = 0 : si64}
// CHECK:         coreai.reshape %[[QA]], %{{.*}} -> tensor<4x3x8xf32>
// CHECK:         coreai.softmax
// CHECK:         coreai.reshape %{{.*}} -> tensor<1x4x3x8xf32>
// CHECK-LABEL: coreai.graph @attention_3d_with_weights(
// CHECK-SAME:    %[[Q:.*]]: tensor<4x3x8xf32>, %[[K:.*]]: tensor<4x3x8xf32>, %[[V:.*]]: tensor<4x3x8xf32>, %[[M:.*]]: tensor<4x3x3xf32>
// CHECK:         %[[P:.*]] = coreai.softmax
// CHECK:         %[[Q4:.*]] = coreai.reshape %[[Q]], %{{.*}} -> tensor<1x4x3x8xf32>
// CHECK:         %[[O4:.*]] = coreai.invoke @scaled_dot_product_attention(%[[Q4]],
// CHECK:         %[[O:.*]] = coreai.reshape %[[O4]], %{{.*}} -> tensor<4x3x8xf32>
// CHECK-NEXT:    coreai.output %[[O]], %[[P]]
coreai.graph @attention_3d_with_weights(%q: tensor<4x3x8xf32>, %k: tensor<4x3x8xf32>, %v: tensor<4x3x8xf32>, %m: tensor<4x3x3xf32>) -> (tensor<4x3x8xf32>, tensor<4x3x3xf32>) {
  %c = coreai.constant dense<0.353553385> : tensor<f32>
  %qs = coreai.decomposable.broadcasting_mul %q, %c : (tensor<4x3x8xf32>, tensor<f32>) -> tensor<4x3x8xf32>
  %perm = coreai.constant dense<[0, 2, 1]> : tensor<3xui32>
  %kt = coreai.transpose %k, %perm : (tensor<4x3x8xf32>, tensor<3xui32>) -> tensor<4x8x3xf32>
  %s = coreai.decomposable.broadcasting_batch_matmul %qs, %kt : (tensor<4x3x8xf32>, tensor<4x8x3xf32>) -> tensor<4x3x3xf32>
  %sm = coreai.decomposable.broadcasting_add %m, %s : (tensor<4x3x3xf32>, tensor<4x3x3xf32>) -> tensor<4x3x3xf32>
  %ax = coreai.constant dense<2> : tensor<si32>
  %p = coreai.softmax %sm, %ax : (tensor<4x3x3xf32>, tensor<si32>) -> tensor<4x3x3xf32>
  %o = coreai.decomposable.broadcasting_batch_matmul %p, %v : (tensor<4x3x3xf32>, tensor<4x3x8xf32>) -> tensor<4x3x8xf32>
  coreai.output %o, %p : tensor<4x3x8xf32>, tensor<4x3x3xf32>
}

// -----

// 3-D near miss: the scores (before the softmax) are also an output: only
// the softmax weights may be shared.
// CHECK-LABEL: coreai.graph @attention_3d_scores_used(
// CHECK-NOT:     coreai.invoke
// CHECK:         coreai.output
coreai.graph @attention_3d_scores_used(%q: tensor<4x3x8xf32>, %k: tensor<4x3x8xf32>, %v: tensor<4x3x8xf32>) -> (tensor<4x3x8xf32>, tensor<4x3x3xf32>) {
  %perm = coreai.constant dense<[0, 2, 1]> : tensor<3xui32>
  %kt = coreai.transpose %k, %perm : (tensor<4x3x8xf32>, tensor<3xui32>) -> tensor<4x8x3xf32>
  %s = coreai.decomposable.broadcasting_batch_matmul %q, %kt : (tensor<4x3x8xf32>, tensor<4x8x3xf32>) -> tensor<4x3x3xf32>
  %ax = coreai.constant dense<2> : tensor<si32>
  %p = coreai.softmax %s, %ax : (tensor<4x3x3xf32>, tensor<si32>) -> tensor<4x3x3xf32>
  %o = coreai.decomposable.broadcasting_batch_matmul %p, %v : (tensor<4x3x3xf32>, tensor<4x3x8xf32>) -> tensor<4x3x8xf32>
  coreai.output %o, %s : tensor<4x3x8xf32>, tensor<4x3x3xf32>
}
