// RUN: coreai-opt %s --split-input-file --pass-pipeline='builtin.module(externalize-composites)' | FileCheck %s --enable-var-scope
// RUN: coreai-opt %s --split-input-file --pass-pipeline='builtin.module(externalize-composites{only=rope})' | FileCheck %s --check-prefix=ONLY-ROPE --enable-var-scope
// RUN: coreai-opt %s --split-input-file --pass-pipeline='builtin.module(externalize-composites{exclude=rms_norm,rope})' | FileCheck %s --check-prefix=NO-NORM --enable-var-scope
// RUN: not coreai-opt %s --split-input-file --pass-pipeline='builtin.module(externalize-composites{require=rope})' 2>&1 | FileCheck %s --check-prefix=REQUIRE

// require=rope: every chunk without a RoPE fails; the one with near misses
// names the closest (the full-width tables passed in) at its location.
// REQUIRE: error: externalize-composites: required composite(s) not found: rope; 'rope': no candidate op in the module
// REQUIRE: externalize-composites.mlir:[[#]]:8: error: externalize-composites: required composite(s) not found: rope; 'rope': the closest near miss matched sum of two products, rotate_half {{.*}}, half slices of the rotated input; cos/sin tables did not match: the halves of the full-width cos/sin tables are not provably equal
// REQUIRE: note: closest near miss for 'rope'

// RMSNorm, weight after: x · rsqrt(mean(x·x, -1) + eps) · w.
// CHECK-LABEL: coreai.graph private noinline @rms_norm(
// CHECK-SAME:    %[[X:.*]]: tensor<2x3x16xf32> {coreai.name = "input"}, %[[W:.*]]: tensor<16xf32> {coreai.name = "scale"}
// CHECK-SAME:    composite_decl = #coreai.composite_declaration<"rms_norm" = {input_names = ["input", "scale"], op_attrs = {axes = -1 : si64, eps = 9.99999997E-7 : f32, version = 1 : si64}, output_names = ["output"]}>
// CHECK:         %[[SQ:.*]] = coreai.decomposable.broadcasting_mul %[[X]], %[[X]]
// CHECK:         coreai.reduce_mean %[[SQ]]
// CHECK:         coreai.rsqrt
// CHECK:         %[[R:.*]] = coreai.decomposable.broadcasting_mul %{{.*}}, %[[W]]
// CHECK:         coreai.output %[[R]]
// CHECK-LABEL: coreai.graph @rms_norm_after(
// CHECK-SAME:    %[[X:.*]]: tensor<2x3x16xf32>, %[[W:.*]]: tensor<16xf32>
// CHECK-NOT:     coreai.rsqrt
// CHECK:         %[[Y:.*]] = coreai.invoke @rms_norm(%[[X]], %[[W]])
// CHECK-NOT:     coreai.reduce_mean
// CHECK:         coreai.output %[[Y]]
// ONLY-ROPE-LABEL: coreai.graph @rms_norm_after(
// ONLY-ROPE-NOT:   coreai.invoke
// ONLY-ROPE:       coreai.rsqrt
// NO-NORM-LABEL:   coreai.graph @rms_norm_after(
// NO-NORM-NOT:     coreai.invoke
// NO-NORM:         coreai.rsqrt
coreai.graph @rms_norm_after(%x: tensor<2x3x16xf32>, %w: tensor<16xf32>) -> tensor<2x3x16xf32> {
  %sq = coreai.decomposable.broadcasting_mul %x, %x : (tensor<2x3x16xf32>, tensor<2x3x16xf32>) -> tensor<2x3x16xf32>
  %axes = coreai.constant dense<2> : tensor<1xsi32>
  %mean = coreai.reduce_mean %sq, %axes : (tensor<2x3x16xf32>, tensor<1xsi32>) -> tensor<2x3x1xf32>
  %eps = coreai.constant dense<9.99999997E-7> : tensor<f32>
  %e = coreai.decomposable.broadcasting_add %mean, %eps : (tensor<2x3x1xf32>, tensor<f32>) -> tensor<2x3x1xf32>
  %r = coreai.rsqrt %e : tensor<2x3x1xf32> -> tensor<2x3x1xf32>
  %n = coreai.decomposable.broadcasting_mul %x, %r : (tensor<2x3x16xf32>, tensor<2x3x1xf32>) -> tensor<2x3x16xf32>
  %y = coreai.decomposable.broadcasting_mul %n, %w : (tensor<2x3x16xf32>, tensor<16xf32>) -> tensor<2x3x16xf32>
  coreai.output %y : tensor<2x3x16xf32>
}

// -----

// RMSNorm, weight before and eps first: (w · x) · rsqrt(eps + mean(x·x, -1)).
// CHECK-LABEL: coreai.graph private noinline @rms_norm(
// CHECK-SAME:    eps = 9.99999974E-6 : f32
// CHECK-LABEL: coreai.graph @rms_norm_before(
// CHECK-SAME:    %[[X:.*]]: tensor<4x8xf32>, %[[W:.*]]: tensor<8xf32>
// CHECK:         %[[Y:.*]] = coreai.invoke @rms_norm(%[[X]], %[[W]])
// CHECK:         coreai.output %[[Y]]
coreai.graph @rms_norm_before(%x: tensor<4x8xf32>, %w: tensor<8xf32>) -> tensor<4x8xf32> {
  %sq = coreai.decomposable.broadcasting_mul %x, %x : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %axes = coreai.constant dense<-1> : tensor<1xsi32>
  %mean = coreai.reduce_mean %sq, %axes : (tensor<4x8xf32>, tensor<1xsi32>) -> tensor<4x1xf32>
  %eps = coreai.constant dense<9.99999974E-6> : tensor<f32>
  %e = coreai.decomposable.broadcasting_add %eps, %mean : (tensor<f32>, tensor<4x1xf32>) -> tensor<4x1xf32>
  %r = coreai.rsqrt %e : tensor<4x1xf32> -> tensor<4x1xf32>
  %wx = coreai.decomposable.broadcasting_mul %w, %x : (tensor<8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %y = coreai.decomposable.broadcasting_mul %wx, %r : (tensor<4x8xf32>, tensor<4x1xf32>) -> tensor<4x8xf32>
  coreai.output %y : tensor<4x8xf32>
}

// -----

// RMSNorm computed in f32 and cast back (Llama), and Gemma's
// x / sqrt(...) · (1 + w) with the cast last: the casts are outlined too.
// CHECK-LABEL: coreai.graph private noinline @rms_norm(
// CHECK-SAME:    tensor<2x16xf16> {coreai.name = "input"}, %{{.*}}: tensor<16xf16> {coreai.name = "scale"}
// CHECK:         coreai.cast
// CHECK-LABEL: coreai.graph private noinline @rms_norm_1(
// CHECK-SAME:    tensor<2x16xf16> {coreai.name = "input"}, %{{.*}}: tensor<16xf32> {coreai.name = "scale"}
// CHECK:         coreai.sqrt
// CHECK:         coreai.decomposable.broadcasting_divide
// CHECK:         %[[C:.*]] = coreai.cast %{{.*}} : tensor<2x16xf32> to tensor<2x16xf16>
// CHECK:         coreai.output %[[C]]
// CHECK-LABEL: coreai.graph @rms_norm_casts(
// CHECK-SAME:    %[[X:.*]]: tensor<2x16xf16>, %[[W:.*]]: tensor<16xf16>, %[[G:.*]]: tensor<16xf32>
// CHECK-NOT:     coreai.cast
// CHECK:         %[[A:.*]] = coreai.invoke @rms_norm(%[[X]], %[[W]])
// CHECK:         %[[ONEW:.*]] = coreai.decomposable.broadcasting_add %[[G]]
// CHECK:         %[[B:.*]] = coreai.invoke @rms_norm_1(%[[X]], %[[ONEW]])
// CHECK:         coreai.decomposable.broadcasting_add %[[A]], %[[B]]
coreai.graph @rms_norm_casts(%x: tensor<2x16xf16>, %w: tensor<16xf16>, %g: tensor<16xf32>) -> tensor<2x16xf16> {
  %axes = coreai.constant dense<1> : tensor<1xsi32>
  %eps = coreai.constant dense<9.99999997E-7> : tensor<f32>
  %xf = coreai.cast %x : tensor<2x16xf16> to tensor<2x16xf32>
  %sq = coreai.decomposable.broadcasting_mul %xf, %xf : (tensor<2x16xf32>, tensor<2x16xf32>) -> tensor<2x16xf32>
  %mean = coreai.reduce_mean %sq, %axes : (tensor<2x16xf32>, tensor<1xsi32>) -> tensor<2x1xf32>
  %e = coreai.decomposable.broadcasting_add %mean, %eps : (tensor<2x1xf32>, tensor<f32>) -> tensor<2x1xf32>
  %r = coreai.rsqrt %e : tensor<2x1xf32> -> tensor<2x1xf32>
  %n = coreai.decomposable.broadcasting_mul %xf, %r : (tensor<2x16xf32>, tensor<2x1xf32>) -> tensor<2x16xf32>
  %nh = coreai.cast %n : tensor<2x16xf32> to tensor<2x16xf16>
  %a = coreai.decomposable.broadcasting_mul %w, %nh : (tensor<16xf16>, tensor<2x16xf16>) -> tensor<2x16xf16>
  %xg = coreai.cast %x : tensor<2x16xf16> to tensor<2x16xf32>
  %sqg = coreai.decomposable.broadcasting_mul %xg, %xg : (tensor<2x16xf32>, tensor<2x16xf32>) -> tensor<2x16xf32>
  %meang = coreai.reduce_mean %sqg, %axes : (tensor<2x16xf32>, tensor<1xsi32>) -> tensor<2x1xf32>
  %eg = coreai.decomposable.broadcasting_add %meang, %eps : (tensor<2x1xf32>, tensor<f32>) -> tensor<2x1xf32>
  %s = coreai.sqrt %eg : tensor<2x1xf32> -> tensor<2x1xf32>
  %ng = coreai.decomposable.broadcasting_divide %xg, %s : (tensor<2x16xf32>, tensor<2x1xf32>) -> tensor<2x16xf32>
  %one = coreai.constant dense<1.000000e+00> : tensor<f32>
  %onew = coreai.decomposable.broadcasting_add %g, %one : (tensor<16xf32>, tensor<f32>) -> tensor<16xf32>
  %bg = coreai.decomposable.broadcasting_mul %ng, %onew : (tensor<2x16xf32>, tensor<16xf32>) -> tensor<2x16xf32>
  %b = coreai.cast %bg : tensor<2x16xf32> to tensor<2x16xf16>
  %y = coreai.decomposable.broadcasting_add %a, %b : (tensor<2x16xf16>, tensor<2x16xf16>) -> tensor<2x16xf16>
  coreai.output %y : tensor<2x16xf16>
}

// -----

// Near misses that must not match: eps added after the root, a mean over
// the wrong axis, a square of another value, an intermediate used twice.
// CHECK-LABEL: coreai.graph @rms_norm_near_misses(
// CHECK-NOT:     coreai.invoke
// CHECK:         coreai.output
// CHECK-NOT:     composite_declaration
coreai.graph @rms_norm_near_misses(%x: tensor<4x8xf32>, %z: tensor<4x8xf32>, %w: tensor<8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x1xf32>) {
  %last = coreai.constant dense<1> : tensor<1xsi32>
  %first = coreai.constant dense<0> : tensor<1xsi32>
  %eps = coreai.constant dense<9.99999974E-6> : tensor<f32>
  %sq = coreai.decomposable.broadcasting_mul %x, %x : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %mean = coreai.reduce_mean %sq, %last : (tensor<4x8xf32>, tensor<1xsi32>) -> tensor<4x1xf32>
  %r = coreai.rsqrt %mean : tensor<4x1xf32> -> tensor<4x1xf32>
  %re = coreai.decomposable.broadcasting_add %r, %eps : (tensor<4x1xf32>, tensor<f32>) -> tensor<4x1xf32>
  %n = coreai.decomposable.broadcasting_mul %x, %re : (tensor<4x8xf32>, tensor<4x1xf32>) -> tensor<4x8xf32>
  %a = coreai.decomposable.broadcasting_mul %n, %w : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
  %mean0 = coreai.reduce_mean %sq, %first : (tensor<4x8xf32>, tensor<1xsi32>) -> tensor<1x8xf32>
  %e0 = coreai.decomposable.broadcasting_add %mean0, %eps : (tensor<1x8xf32>, tensor<f32>) -> tensor<1x8xf32>
  %r0 = coreai.rsqrt %e0 : tensor<1x8xf32> -> tensor<1x8xf32>
  %n0 = coreai.decomposable.broadcasting_mul %x, %r0 : (tensor<4x8xf32>, tensor<1x8xf32>) -> tensor<4x8xf32>
  %b = coreai.decomposable.broadcasting_mul %n0, %w : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
  %mean1 = coreai.reduce_mean %sq, %last : (tensor<4x8xf32>, tensor<1xsi32>) -> tensor<4x1xf32>
  %e1 = coreai.decomposable.broadcasting_add %mean1, %eps : (tensor<4x1xf32>, tensor<f32>) -> tensor<4x1xf32>
  %r1 = coreai.rsqrt %e1 : tensor<4x1xf32> -> tensor<4x1xf32>
  %n1 = coreai.decomposable.broadcasting_mul %z, %r1 : (tensor<4x8xf32>, tensor<4x1xf32>) -> tensor<4x8xf32>
  %c = coreai.decomposable.broadcasting_mul %n1, %w : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
  %sq2 = coreai.decomposable.broadcasting_mul %z, %z : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %mean2 = coreai.reduce_mean %sq2, %last : (tensor<4x8xf32>, tensor<1xsi32>) -> tensor<4x1xf32>
  %e2 = coreai.decomposable.broadcasting_add %mean2, %eps : (tensor<4x1xf32>, tensor<f32>) -> tensor<4x1xf32>
  %r2 = coreai.rsqrt %e2 : tensor<4x1xf32> -> tensor<4x1xf32>
  %n2 = coreai.decomposable.broadcasting_mul %z, %r2 : (tensor<4x8xf32>, tensor<4x1xf32>) -> tensor<4x8xf32>
  %d = coreai.decomposable.broadcasting_mul %n2, %w : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
  coreai.output %a, %b, %d, %r2 : tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x1xf32>
}

// -----

// RoPE, full rotary, half-split (rotate_half), with cos/sin computed from
// cat(f, f): the composite takes the first halves, the body widens them.
// CHECK-LABEL: coreai.graph private noinline @rope(
// CHECK-SAME:    %[[X:.*]]: tensor<1x2x3x8xf32> {coreai.name = "input"}, %[[C:.*]]: tensor<3x4xf32> {coreai.name = "cos"}, %[[S:.*]]: tensor<3x4xf32> {coreai.name = "sin"}
// CHECK-SAME:    composite_decl = #coreai.composite_declaration<"rope" = {input_names = ["input", "cos", "sin"], op_attrs = {base = 1.000000e+04 : f32, interleaved = false, scale = 1.000000e+00 : f32, version = 1 : si64}, output_names = ["output"]}>
// CHECK-DAG:     coreai.concat %{{.*}}, %[[C]], %[[C]]
// CHECK-DAG:     coreai.concat %{{.*}}, %[[S]], %[[S]]
// CHECK:         coreai.output
// CHECK-LABEL: coreai.graph @rope_full(
// CHECK-SAME:    %[[X:.*]]: tensor<1x2x3x8xf32>
// CHECK:         %[[CH:.*]] = coreai.slice %[[COS:.*]], %{{.*}} : (tensor<3x8xf32>, {{.*}}) -> tensor<3x4xf32>
// CHECK:         %[[SH:.*]] = coreai.slice %[[SIN:.*]], %{{.*}} -> tensor<3x4xf32>
// CHECK:         %[[Y:.*]] = coreai.invoke @rope(%[[X]], %[[CH]], %[[SH]])
// CHECK:         coreai.output %[[Y]]
// ONLY-ROPE-LABEL: coreai.graph @rope_full(
// ONLY-ROPE:       coreai.invoke @rope(
// NO-NORM-LABEL:   coreai.graph @rope_full(
// NO-NORM-NOT:     coreai.invoke
// NO-NORM:         coreai.output
coreai.graph @rope_full(%x: tensor<1x2x3x8xf32>, %f: tensor<3x4xf32>) -> tensor<1x2x3x8xf32> {
  %last = coreai.constant dense<1> : tensor<si32>
  %emb = coreai.concat %last, %f, %f : (tensor<si32>, tensor<3x4xf32>, tensor<3x4xf32>) -> tensor<3x8xf32>
  %cos = coreai.cos %emb : tensor<3x8xf32> -> tensor<3x8xf32>
  %sin = coreai.sin %emb : tensor<3x8xf32> -> tensor<3x8xf32>
  %a = coreai.decomposable.broadcasting_mul %x, %cos : (tensor<1x2x3x8xf32>, tensor<3x8xf32>) -> tensor<1x2x3x8xf32>
  %b0 = coreai.constant dense<0> : tensor<4xsi32>
  %e0 = coreai.constant dense<[2147483647, 2147483647, 2147483647, 4]> : tensor<4xsi32>
  %one = coreai.constant dense<1> : tensor<4xsi32>
  %x1 = coreai.slice %x, %b0, %e0, %one : (tensor<1x2x3x8xf32>, tensor<4xsi32>, tensor<4xsi32>, tensor<4xsi32>) -> tensor<1x2x3x4xf32>
  %b1 = coreai.constant dense<[0, 0, 0, 4]> : tensor<4xsi32>
  %e1 = coreai.constant dense<2147483647> : tensor<4xsi32>
  %x2 = coreai.slice %x, %b1, %e1, %one : (tensor<1x2x3x8xf32>, tensor<4xsi32>, tensor<4xsi32>, tensor<4xsi32>) -> tensor<1x2x3x4xf32>
  %m1 = coreai.constant dense<-1.000000e+00> : tensor<f32>
  %nx2 = coreai.decomposable.broadcasting_mul %x2, %m1 : (tensor<1x2x3x4xf32>, tensor<f32>) -> tensor<1x2x3x4xf32>
  %ax = coreai.constant dense<3> : tensor<si32>
  %rot = coreai.concat %ax, %nx2, %x1 : (tensor<si32>, tensor<1x2x3x4xf32>, tensor<1x2x3x4xf32>) -> tensor<1x2x3x8xf32>
  %b = coreai.decomposable.broadcasting_mul %rot, %sin : (tensor<1x2x3x8xf32>, tensor<3x8xf32>) -> tensor<1x2x3x8xf32>
  %y = coreai.decomposable.broadcasting_add %a, %b : (tensor<1x2x3x8xf32>, tensor<1x2x3x8xf32>) -> tensor<1x2x3x8xf32>
  coreai.output %y : tensor<1x2x3x8xf32>
}

// -----

// RoPE, partial rotary: the first 4 of 8 dims rotate (pairs i, i + 2), the
// rest pass through → dims = 4.
// CHECK-LABEL: coreai.graph private noinline @rope(
// CHECK-SAME:    tensor<1x2x3x8xf32> {coreai.name = "input"}, %{{.*}}: tensor<3x2xf32> {coreai.name = "cos"}
// CHECK-SAME:    op_attrs = {base = 1.000000e+04 : f32, dims = 4 : si64, interleaved = false, scale = 1.000000e+00 : f32, version = 1 : si64}
// CHECK-LABEL: coreai.graph @rope_partial(
// CHECK-SAME:    %[[X:.*]]: tensor<1x2x3x8xf32>
// CHECK:         %[[Y:.*]] = coreai.invoke @rope(%[[X]], %{{.*}}, %{{.*}})
// CHECK:         coreai.output %[[Y]]
coreai.graph @rope_partial(%x: tensor<1x2x3x8xf32>, %f: tensor<3x2xf32>) -> tensor<1x2x3x8xf32> {
  %last = coreai.constant dense<1> : tensor<si32>
  %emb = coreai.concat %last, %f, %f : (tensor<si32>, tensor<3x2xf32>, tensor<3x2xf32>) -> tensor<3x4xf32>
  %cos = coreai.cos %emb : tensor<3x4xf32> -> tensor<3x4xf32>
  %sin = coreai.sin %emb : tensor<3x4xf32> -> tensor<3x4xf32>
  %one = coreai.constant dense<1> : tensor<4xsi32>
  %zero = coreai.constant dense<0> : tensor<4xsi32>
  %max = coreai.constant dense<2147483647> : tensor<4xsi32>
  %e4 = coreai.constant dense<[2147483647, 2147483647, 2147483647, 4]> : tensor<4xsi32>
  %b4 = coreai.constant dense<[0, 0, 0, 4]> : tensor<4xsi32>
  %xr = coreai.slice %x, %zero, %e4, %one : (tensor<1x2x3x8xf32>, tensor<4xsi32>, tensor<4xsi32>, tensor<4xsi32>) -> tensor<1x2x3x4xf32>
  %xp = coreai.slice %x, %b4, %max, %one : (tensor<1x2x3x8xf32>, tensor<4xsi32>, tensor<4xsi32>, tensor<4xsi32>) -> tensor<1x2x3x4xf32>
  %a = coreai.decomposable.broadcasting_mul %xr, %cos : (tensor<1x2x3x4xf32>, tensor<3x4xf32>) -> tensor<1x2x3x4xf32>
  %e2 = coreai.constant dense<[2147483647, 2147483647, 2147483647, 2]> : tensor<4xsi32>
  %b2 = coreai.constant dense<[0, 0, 0, 2]> : tensor<4xsi32>
  %x1 = coreai.slice %xr, %zero, %e2, %one : (tensor<1x2x3x4xf32>, tensor<4xsi32>, tensor<4xsi32>, tensor<4xsi32>) -> tensor<1x2x3x2xf32>
  %x2 = coreai.slice %xr, %b2, %max, %one : (tensor<1x2x3x4xf32>, tensor<4xsi32>, tensor<4xsi32>, tensor<4xsi32>) -> tensor<1x2x3x2xf32>
  %m1 = coreai.constant dense<-1.000000e+00> : tensor<f32>
  %nx2 = coreai.decomposable.broadcasting_mul %x2, %m1 : (tensor<1x2x3x2xf32>, tensor<f32>) -> tensor<1x2x3x2xf32>
  %ax = coreai.constant dense<3> : tensor<si32>
  %rot = coreai.concat %ax, %nx2, %x1 : (tensor<si32>, tensor<1x2x3x2xf32>, tensor<1x2x3x2xf32>) -> tensor<1x2x3x4xf32>
  %b = coreai.decomposable.broadcasting_mul %rot, %sin : (tensor<1x2x3x4xf32>, tensor<3x4xf32>) -> tensor<1x2x3x4xf32>
  %r = coreai.decomposable.broadcasting_add %a, %b : (tensor<1x2x3x4xf32>, tensor<1x2x3x4xf32>) -> tensor<1x2x3x4xf32>
  %y = coreai.concat %ax, %r, %xp : (tensor<si32>, tensor<1x2x3x4xf32>, tensor<1x2x3x4xf32>) -> tensor<1x2x3x8xf32>
  coreai.output %y : tensor<1x2x3x8xf32>
}

// -----

// RoPE near misses: the rotation with the wrong sign (cat(x2, -x1)), and
// full-width tables passed in (their halves are not provably equal).
// CHECK-LABEL: coreai.graph @rope_near_misses(
// CHECK-NOT:     coreai.invoke
// CHECK:         coreai.output
// CHECK-NOT:     composite_declaration
coreai.graph @rope_near_misses(%x: tensor<1x2x3x8xf32>, %f: tensor<3x4xf32>, %cos_in: tensor<3x8xf32>, %sin_in: tensor<3x8xf32>) -> (tensor<1x2x3x8xf32>, tensor<1x2x3x8xf32>) {
  %last = coreai.constant dense<1> : tensor<si32>
  %emb = coreai.concat %last, %f, %f : (tensor<si32>, tensor<3x4xf32>, tensor<3x4xf32>) -> tensor<3x8xf32>
  %cos = coreai.cos %emb : tensor<3x8xf32> -> tensor<3x8xf32>
  %sin = coreai.sin %emb : tensor<3x8xf32> -> tensor<3x8xf32>
  %b0 = coreai.constant dense<0> : tensor<4xsi32>
  %e0 = coreai.constant dense<[2147483647, 2147483647, 2147483647, 4]> : tensor<4xsi32>
  %one = coreai.constant dense<1> : tensor<4xsi32>
  %b1 = coreai.constant dense<[0, 0, 0, 4]> : tensor<4xsi32>
  %e1 = coreai.constant dense<2147483647> : tensor<4xsi32>
  %m1 = coreai.constant dense<-1.000000e+00> : tensor<f32>
  %ax = coreai.constant dense<3> : tensor<si32>
  %x1 = coreai.slice %x, %b0, %e0, %one : (tensor<1x2x3x8xf32>, tensor<4xsi32>, tensor<4xsi32>, tensor<4xsi32>) -> tensor<1x2x3x4xf32>
  %x2 = coreai.slice %x, %b1, %e1, %one : (tensor<1x2x3x8xf32>, tensor<4xsi32>, tensor<4xsi32>, tensor<4xsi32>) -> tensor<1x2x3x4xf32>
  %nx1 = coreai.decomposable.broadcasting_mul %x1, %m1 : (tensor<1x2x3x4xf32>, tensor<f32>) -> tensor<1x2x3x4xf32>
  %rot = coreai.concat %ax, %x2, %nx1 : (tensor<si32>, tensor<1x2x3x4xf32>, tensor<1x2x3x4xf32>) -> tensor<1x2x3x8xf32>
  %a = coreai.decomposable.broadcasting_mul %x, %cos : (tensor<1x2x3x8xf32>, tensor<3x8xf32>) -> tensor<1x2x3x8xf32>
  %b = coreai.decomposable.broadcasting_mul %rot, %sin : (tensor<1x2x3x8xf32>, tensor<3x8xf32>) -> tensor<1x2x3x8xf32>
  %y = coreai.decomposable.broadcasting_add %a, %b : (tensor<1x2x3x8xf32>, tensor<1x2x3x8xf32>) -> tensor<1x2x3x8xf32>
  %y1 = coreai.slice %x, %b0, %e0, %one : (tensor<1x2x3x8xf32>, tensor<4xsi32>, tensor<4xsi32>, tensor<4xsi32>) -> tensor<1x2x3x4xf32>
  %y2 = coreai.slice %x, %b1, %e1, %one : (tensor<1x2x3x8xf32>, tensor<4xsi32>, tensor<4xsi32>, tensor<4xsi32>) -> tensor<1x2x3x4xf32>
  %ny2 = coreai.decomposable.broadcasting_mul %y2, %m1 : (tensor<1x2x3x4xf32>, tensor<f32>) -> tensor<1x2x3x4xf32>
  %rot2 = coreai.concat %ax, %ny2, %y1 : (tensor<si32>, tensor<1x2x3x4xf32>, tensor<1x2x3x4xf32>) -> tensor<1x2x3x8xf32>
  %c = coreai.decomposable.broadcasting_mul %x, %cos_in : (tensor<1x2x3x8xf32>, tensor<3x8xf32>) -> tensor<1x2x3x8xf32>
  %d = coreai.decomposable.broadcasting_mul %rot2, %sin_in : (tensor<1x2x3x8xf32>, tensor<3x8xf32>) -> tensor<1x2x3x8xf32>
  %z = coreai.decomposable.broadcasting_add %c, %d : (tensor<1x2x3x8xf32>, tensor<1x2x3x8xf32>) -> tensor<1x2x3x8xf32>
  coreai.output %y, %z : tensor<1x2x3x8xf32>, tensor<1x2x3x8xf32>
}

// -----

// Attention: softmax(q · kᵀ / √d + mask) · v with GQA (2 key/value heads
// repeated to 4 on axis 1, the lowering's repeat_interleave), in the
// lowering's reshape/batch-matmul form. The composite takes the native
// key and value; 1/√8 is the default scale, so `scale` is left out.
// CHECK-LABEL: coreai.graph private noinline @scaled_dot_product_attention(
// CHECK-SAME:    tensor<1x4x3x8xf32> {coreai.name = "query"}, %{{.*}}: tensor<1x2x3x8xf32> {coreai.name = "key"}, %{{.*}}: tensor<1x2x3x8xf32> {coreai.name = "value"}, %{{.*}}: tensor<3x3xf32> {coreai.name = "attn_mask"}
// CHECK-SAME:    composite_decl = #coreai.composite_declaration<"scaled_dot_product_attention" = {input_names = ["query", "key", "value", "attn_mask"], op_attrs = {is_causal = false, version = 1 : si64, window_size = 0 : si64}, output_names = ["output"]}>
// CHECK:         coreai.broadcast_in_dims
// CHECK:         coreai.softmax
// CHECK-LABEL: coreai.graph @attention_gqa(
// CHECK-SAME:    %[[Q:.*]]: tensor<1x4x3x8xf32>, %[[K:.*]]: tensor<1x2x3x8xf32>, %[[V:.*]]: tensor<1x2x3x8xf32>, %[[M:.*]]: tensor<3x3xf32>
// CHECK-NOT:     coreai.softmax
// CHECK:         %[[O:.*]] = coreai.invoke @scaled_dot_product_attention(%[[Q]], %[[K]], %[[V]], %[[M]])
// CHECK-NEXT:    coreai.output %[[O]]
// NO-NORM-LABEL: coreai.graph @attention_gqa(
// NO-NORM:       coreai.invoke @scaled_dot_product_attention(
coreai.graph @attention_gqa(%q: tensor<1x4x3x8xf32>, %k: tensor<1x2x3x8xf32>, %v: tensor<1x2x3x8xf32>, %mask: tensor<3x3xf32>) -> tensor<1x4x3x8xf32> {
  %s5 = coreai.constant dense<[1, 2, 1, 3, 8]> : tensor<5xui32>
  %bd = coreai.constant dense<2> : tensor<1xui32>
  %bn = coreai.constant dense<2> : tensor<1xsi32>
  %s4 = coreai.constant dense<[1, 4, 3, 8]> : tensor<4xui32>
  %k5 = coreai.reshape %k, %s5 : (tensor<1x2x3x8xf32>, tensor<5xui32>) -> tensor<1x2x1x3x8xf32>
  %kb = coreai.broadcast_in_dims %k5, %bd, %bn : (tensor<1x2x1x3x8xf32>, tensor<1xui32>, tensor<1xsi32>) -> tensor<1x2x2x3x8xf32>
  %kr = coreai.reshape %kb, %s4 : (tensor<1x2x2x3x8xf32>, tensor<4xui32>) -> tensor<1x4x3x8xf32>
  %v5 = coreai.reshape %v, %s5 : (tensor<1x2x3x8xf32>, tensor<5xui32>) -> tensor<1x2x1x3x8xf32>
  %vb = coreai.broadcast_in_dims %v5, %bd, %bn : (tensor<1x2x1x3x8xf32>, tensor<1xui32>, tensor<1xsi32>) -> tensor<1x2x2x3x8xf32>
  %vr = coreai.reshape %vb, %s4 : (tensor<1x2x2x3x8xf32>, tensor<4xui32>) -> tensor<1x4x3x8xf32>
  %perm = coreai.constant dense<[0, 1, 3, 2]> : tensor<4xui32>
  %kt = coreai.transpose %kr, %perm : (tensor<1x4x3x8xf32>, tensor<4xui32>) -> tensor<1x4x8x3xf32>
  %q3s = coreai.constant dense<[4, 3, 8]> : tensor<3xui32>
  %q3 = coreai.reshape %q, %q3s : (tensor<1x4x3x8xf32>, tensor<3xui32>) -> tensor<4x3x8xf32>
  %kt3s = coreai.constant dense<[4, 8, 3]> : tensor<3xui32>
  %kt3 = coreai.reshape %kt, %kt3s : (tensor<1x4x8x3xf32>, tensor<3xui32>) -> tensor<4x8x3xf32>
  %s3 = coreai.decomposable.broadcasting_batch_matmul %q3, %kt3 : (tensor<4x3x8xf32>, tensor<4x8x3xf32>) -> tensor<4x3x3xf32>
  %s4s = coreai.constant dense<[1, 4, 3, 3]> : tensor<4xui32>
  %s = coreai.reshape %s3, %s4s : (tensor<4x3x3xf32>, tensor<4xui32>) -> tensor<1x4x3x3xf32>
  %c = coreai.constant dense<2.82842708> : tensor<f32>
  %sd = coreai.decomposable.broadcasting_divide %s, %c : (tensor<1x4x3x3xf32>, tensor<f32>) -> tensor<1x4x3x3xf32>
  %sm = coreai.decomposable.broadcasting_add %sd, %mask : (tensor<1x4x3x3xf32>, tensor<3x3xf32>) -> tensor<1x4x3x3xf32>
  %ax = coreai.constant dense<3> : tensor<si32>
  %p = coreai.softmax %sm, %ax : (tensor<1x4x3x3xf32>, tensor<si32>) -> tensor<1x4x3x3xf32>
  %p3s = coreai.constant dense<[4, 3, 3]> : tensor<3xui32>
  %p3 = coreai.reshape %p, %p3s : (tensor<1x4x3x3xf32>, tensor<3xui32>) -> tensor<4x3x3xf32>
  %v3 = coreai.reshape %vr, %q3s : (tensor<1x4x3x8xf32>, tensor<3xui32>) -> tensor<4x3x8xf32>
  %o3 = coreai.decomposable.broadcasting_batch_matmul %p3, %v3 : (tensor<4x3x3xf32>, tensor<4x3x8xf32>) -> tensor<4x3x8xf32>
  %o = coreai.reshape %o3, %s4 : (tensor<4x3x8xf32>, tensor<4xui32>) -> tensor<1x4x3x8xf32>
  coreai.output %o : tensor<1x4x3x8xf32>
}

// -----

// Attention with a boolean mask (true = attend: where(m, s, -inf)) and
// an explicit scale 0.5 ≠ 1/√8, written as 4-D batch matmuls.
// CHECK-LABEL: coreai.graph private noinline @scaled_dot_product_attention(
// CHECK-SAME:    %{{.*}}: tensor<3x3xi1> {coreai.name = "attn_mask"}
// CHECK-SAME:    op_attrs = {is_causal = false, scale = 5.000000e-01 : f32, version = 1 : si64, window_size = 0 : si64}
// CHECK-LABEL: coreai.graph @attention_bool_mask(
// CHECK:         coreai.invoke @scaled_dot_product_attention(
coreai.graph @attention_bool_mask(%q: tensor<1x2x3x8xf32>, %k: tensor<1x2x3x8xf32>, %v: tensor<1x2x3x8xf32>, %m: tensor<3x3xi1>) -> tensor<1x2x3x8xf32> {
  %perm = coreai.constant dense<[0, 1, 3, 2]> : tensor<4xui32>
  %kt = coreai.transpose %k, %perm : (tensor<1x2x3x8xf32>, tensor<4xui32>) -> tensor<1x2x8x3xf32>
  %s = coreai.decomposable.broadcasting_batch_matmul %q, %kt : (tensor<1x2x3x8xf32>, tensor<1x2x8x3xf32>) -> tensor<1x2x3x3xf32>
  %c = coreai.constant dense<5.000000e-01> : tensor<f32>
  %ss = coreai.decomposable.broadcasting_mul %s, %c : (tensor<1x2x3x3xf32>, tensor<f32>) -> tensor<1x2x3x3xf32>
  %ninf = coreai.constant dense<0xFF800000> : tensor<f32>
  %sm = coreai.decomposable.broadcasting_where %m, %ss, %ninf : (tensor<3x3xi1>, tensor<1x2x3x3xf32>, tensor<f32>) -> tensor<1x2x3x3xf32>
  %ax = coreai.constant dense<3> : tensor<si32>
  %p = coreai.softmax %sm, %ax : (tensor<1x2x3x3xf32>, tensor<si32>) -> tensor<1x2x3x3xf32>
  %o = coreai.decomposable.broadcasting_batch_matmul %p, %v : (tensor<1x2x3x3xf32>, tensor<1x2x3x8xf32>) -> tensor<1x2x3x8xf32>
  coreai.output %o : tensor<1x2x3x8xf32>
}

// -----

// Attention near misses: a masked_fill whose fill is not very negative
// (-1 is a bias, not a mask), a softmax over the wrong axis. (A boolean
// mask true where masked out, masked_fill(m, -inf), is recognised:
// externalize-composites-forms.mlir.)
// CHECK-LABEL: coreai.graph @attention_near_misses(
// CHECK-NOT:     coreai.invoke
// CHECK:         coreai.output
// CHECK-NOT:     composite_declaration
coreai.graph @attention_near_misses(%q: tensor<1x2x3x8xf32>, %k: tensor<1x2x3x8xf32>, %v: tensor<1x2x3x8xf32>, %m: tensor<3x3xi1>) -> (tensor<1x2x3x8xf32>, tensor<1x2x3x8xf32>) {
  %perm = coreai.constant dense<[0, 1, 3, 2]> : tensor<4xui32>
  %ninf = coreai.constant dense<-1.0> : tensor<f32>
  %ax = coreai.constant dense<3> : tensor<si32>
  %ax2 = coreai.constant dense<2> : tensor<si32>
  %kt = coreai.transpose %k, %perm : (tensor<1x2x3x8xf32>, tensor<4xui32>) -> tensor<1x2x8x3xf32>
  %s = coreai.decomposable.broadcasting_batch_matmul %q, %kt : (tensor<1x2x3x8xf32>, tensor<1x2x8x3xf32>) -> tensor<1x2x3x3xf32>
  %sm = coreai.decomposable.broadcasting_where %m, %ninf, %s : (tensor<3x3xi1>, tensor<f32>, tensor<1x2x3x3xf32>) -> tensor<1x2x3x3xf32>
  %p = coreai.softmax %sm, %ax : (tensor<1x2x3x3xf32>, tensor<si32>) -> tensor<1x2x3x3xf32>
  %o = coreai.decomposable.broadcasting_batch_matmul %p, %v : (tensor<1x2x3x3xf32>, tensor<1x2x3x8xf32>) -> tensor<1x2x3x8xf32>
  %kt2 = coreai.transpose %k, %perm : (tensor<1x2x3x8xf32>, tensor<4xui32>) -> tensor<1x2x8x3xf32>
  %s2 = coreai.decomposable.broadcasting_batch_matmul %q, %kt2 : (tensor<1x2x3x8xf32>, tensor<1x2x8x3xf32>) -> tensor<1x2x3x3xf32>
  %p2 = coreai.softmax %s2, %ax2 : (tensor<1x2x3x3xf32>, tensor<si32>) -> tensor<1x2x3x3xf32>
  %o2 = coreai.decomposable.broadcasting_batch_matmul %p2, %v : (tensor<1x2x3x3xf32>, tensor<1x2x3x8xf32>) -> tensor<1x2x3x8xf32>
  coreai.output %o, %o2 : tensor<1x2x3x8xf32>, tensor<1x2x3x8xf32>
}

// -----

// RoPE with constant tables (registered buffers): outlined when every row's
// halves are bit-identical, declined when they differ.
// CHECK-LABEL: coreai.graph private noinline @rope(
// CHECK-SAME:    tensor<2x1xf32> {coreai.name = "cos"}
// CHECK-LABEL: coreai.graph @rope_constant_tables(
// CHECK-COUNT-1: coreai.invoke @rope(
// CHECK-NOT:     coreai.invoke
// CHECK:         coreai.output
coreai.graph @rope_constant_tables(%x: tensor<1x2x2xf32>) -> (tensor<1x2x2xf32>, tensor<1x2x2xf32>) {
  %cos = coreai.constant dense<[[1.0, 1.0], [0.5, 0.5]]> : tensor<2x2xf32>
  %sin = coreai.constant dense<[[0.0, 0.0], [0.25, 0.25]]> : tensor<2x2xf32>
  %bad = coreai.constant dense<[[0.0, 0.0], [0.25, 0.5]]> : tensor<2x2xf32>
  %zero = coreai.constant dense<0> : tensor<3xsi32>
  %e1 = coreai.constant dense<[2147483647, 2147483647, 1]> : tensor<3xsi32>
  %b1 = coreai.constant dense<[0, 0, 1]> : tensor<3xsi32>
  %max = coreai.constant dense<2147483647> : tensor<3xsi32>
  %one = coreai.constant dense<1> : tensor<3xsi32>
  %m1 = coreai.constant dense<-1.000000e+00> : tensor<f32>
  %ax = coreai.constant dense<2> : tensor<si32>
  %x1 = coreai.slice %x, %zero, %e1, %one : (tensor<1x2x2xf32>, tensor<3xsi32>, tensor<3xsi32>, tensor<3xsi32>) -> tensor<1x2x1xf32>
  %x2 = coreai.slice %x, %b1, %max, %one : (tensor<1x2x2xf32>, tensor<3xsi32>, tensor<3xsi32>, tensor<3xsi32>) -> tensor<1x2x1xf32>
  %n = coreai.decomposable.broadcasting_mul %x2, %m1 : (tensor<1x2x1xf32>, tensor<f32>) -> tensor<1x2x1xf32>
  %rot = coreai.concat %ax, %n, %x1 : (tensor<si32>, tensor<1x2x1xf32>, tensor<1x2x1xf32>) -> tensor<1x2x2xf32>
  %a = coreai.decomposable.broadcasting_mul %x, %cos : (tensor<1x2x2xf32>, tensor<2x2xf32>) -> tensor<1x2x2xf32>
  %b = coreai.decomposable.broadcasting_mul %rot, %sin : (tensor<1x2x2xf32>, tensor<2x2xf32>) -> tensor<1x2x2xf32>
  %y = coreai.decomposable.broadcasting_add %a, %b : (tensor<1x2x2xf32>, tensor<1x2x2xf32>) -> tensor<1x2x2xf32>
  %y1 = coreai.slice %x, %zero, %e1, %one : (tensor<1x2x2xf32>, tensor<3xsi32>, tensor<3xsi32>, tensor<3xsi32>) -> tensor<1x2x1xf32>
  %y2 = coreai.slice %x, %b1, %max, %one : (tensor<1x2x2xf32>, tensor<3xsi32>, tensor<3xsi32>, tensor<3xsi32>) -> tensor<1x2x1xf32>
  %ny = coreai.decomposable.broadcasting_mul %y2, %m1 : (tensor<1x2x1xf32>, tensor<f32>) -> tensor<1x2x1xf32>
  %rot2 = coreai.concat %ax, %ny, %y1 : (tensor<si32>, tensor<1x2x1xf32>, tensor<1x2x1xf32>) -> tensor<1x2x2xf32>
  %c = coreai.decomposable.broadcasting_mul %x, %cos : (tensor<1x2x2xf32>, tensor<2x2xf32>) -> tensor<1x2x2xf32>
  %d = coreai.decomposable.broadcasting_mul %rot2, %bad : (tensor<1x2x2xf32>, tensor<2x2xf32>) -> tensor<1x2x2xf32>
  %z = coreai.decomposable.broadcasting_add %c, %d : (tensor<1x2x2xf32>, tensor<1x2x2xf32>) -> tensor<1x2x2xf32>
  coreai.output %y, %z : tensor<1x2x2xf32>, tensor<1x2x2xf32>
}

// -----

// MoE dispatch x @ w[idx] (w: 4 stacked experts [8, 6]) → gather_mm; the
// same gather on the left operand (w[idx] @ y) does not match.
// CHECK-LABEL: coreai.graph private noinline @gather_mm(
// CHECK-SAME:    %{{.*}}: tensor<2x3x1x1x8xf32> {coreai.name = "lhs"}, %{{.*}}: tensor<4x8x6xf32> {coreai.name = "rhs"}, %{{.*}}: tensor<2x3x2xsi32> {coreai.name = "rhs_indices"}
// CHECK-SAME:    composite_decl = #coreai.composite_declaration<"gather_mm" = {input_names = ["lhs", "rhs", "rhs_indices"], op_attrs = {num_batch_axes = 0 : si64, version = 1 : si64}, output_names = ["output"]}>
// CHECK:         coreai.gather_nd
// CHECK-LABEL: coreai.graph @moe_dispatch(
// CHECK-SAME:    %[[X:.*]]: tensor<2x3x1x1x8xf32>, %[[W:.*]]: tensor<4x8x6xf32>, %[[I:.*]]: tensor<2x3x2xsi32>
// CHECK:         %[[Y:.*]] = coreai.invoke @gather_mm(%[[X]], %[[W]], %[[I]])
// CHECK:         coreai.gather_nd
// CHECK-NOT:     coreai.invoke
// CHECK:         coreai.output %[[Y]]
coreai.graph @moe_dispatch(%x: tensor<2x3x1x1x8xf32>, %w: tensor<4x8x6xf32>, %i: tensor<2x3x2xsi32>, %y: tensor<2x3x2x6x5xf32>) -> (tensor<2x3x2x1x6xf32>, tensor<2x3x2x8x5xf32>) {
  %s4 = coreai.constant dense<[2, 3, 2, 1]> : tensor<4xui32>
  %i1 = coreai.reshape %i, %s4 : (tensor<2x3x2xsi32>, tensor<4xui32>) -> tensor<2x3x2x1xsi32>
  %g = coreai.gather_nd %w at %i1 : (tensor<4x8x6xf32>, tensor<2x3x2x1xsi32>) to tensor<2x3x2x8x6xf32>
  %bd = coreai.constant dense<2> : tensor<1xui32>
  %bn = coreai.constant dense<2> : tensor<1xsi32>
  %xb = coreai.broadcast_in_dims %x, %bd, %bn : (tensor<2x3x1x1x8xf32>, tensor<1xui32>, tensor<1xsi32>) -> tensor<2x3x2x1x8xf32>
  %sa = coreai.constant dense<[12, 1, 8]> : tensor<3xui32>
  %a3 = coreai.reshape %xb, %sa : (tensor<2x3x2x1x8xf32>, tensor<3xui32>) -> tensor<12x1x8xf32>
  %sb = coreai.constant dense<[12, 8, 6]> : tensor<3xui32>
  %b3 = coreai.reshape %g, %sb : (tensor<2x3x2x8x6xf32>, tensor<3xui32>) -> tensor<12x8x6xf32>
  %o3 = coreai.decomposable.broadcasting_batch_matmul %a3, %b3 : (tensor<12x1x8xf32>, tensor<12x8x6xf32>) -> tensor<12x1x6xf32>
  %so = coreai.constant dense<[2, 3, 2, 1, 6]> : tensor<5xui32>
  %o = coreai.reshape %o3, %so : (tensor<12x1x6xf32>, tensor<5xui32>) -> tensor<2x3x2x1x6xf32>
  %i2 = coreai.reshape %i, %s4 : (tensor<2x3x2xsi32>, tensor<4xui32>) -> tensor<2x3x2x1xsi32>
  %g2 = coreai.gather_nd %w at %i2 : (tensor<4x8x6xf32>, tensor<2x3x2x1xsi32>) to tensor<2x3x2x8x6xf32>
  %l3 = coreai.reshape %g2, %sb : (tensor<2x3x2x8x6xf32>, tensor<3xui32>) -> tensor<12x8x6xf32>
  %sr = coreai.constant dense<[12, 6, 5]> : tensor<3xui32>
  %r3 = coreai.reshape %y, %sr : (tensor<2x3x2x6x5xf32>, tensor<3xui32>) -> tensor<12x6x5xf32>
  %p3 = coreai.decomposable.broadcasting_batch_matmul %l3, %r3 : (tensor<12x8x6xf32>, tensor<12x6x5xf32>) -> tensor<12x8x5xf32>
  %sp = coreai.constant dense<[2, 3, 2, 8, 5]> : tensor<5xui32>
  %p = coreai.reshape %p3, %sp : (tensor<12x8x5xf32>, tensor<5xui32>) -> tensor<2x3x2x8x5xf32>
  coreai.output %o, %p : tensor<2x3x2x1x6xf32>, tensor<2x3x2x8x5xf32>
}

// -----

// The direct form (the lowering of aten._grouped_mm and transformers'
// grouped_mm_fallback): a batch matmul of the gathered experts, the index
// reaching the gather through a reshape (static rows) or an expand_dims
// (dynamic rows) → gather_mm; the where masking rows past offs[E-1] stays
// outside.
// CHECK-LABEL: coreai.graph private noinline @gather_mm(
// CHECK-SAME:    %{{.*}}: tensor<6x1x4xf32> {coreai.name = "lhs"}, %{{.*}}: tensor<3x4x5xf32> {coreai.name = "rhs"}, %{{.*}}: tensor<6xsi32> {coreai.name = "rhs_indices"}
// CHECK-SAME:    composite_decl = #coreai.composite_declaration<"gather_mm" = {input_names = ["lhs", "rhs", "rhs_indices"], op_attrs = {num_batch_axes = 0 : si64, version = 1 : si64}, output_names = ["output"]}>
// CHECK:         coreai.gather_nd
// CHECK:         coreai.decomposable.broadcasting_batch_matmul
// CHECK-LABEL: coreai.graph @grouped_rows(
// CHECK-SAME:    %[[X:[^:]*]]: tensor<6x1x4xf32>, %[[W:[^:]*]]: tensor<3x4x5xf32>, %[[I:[^:]*]]: tensor<6xsi32>, %[[M:[^:]*]]: tensor<6x1x1xi1>
// CHECK:         %[[P:.*]] = coreai.invoke @gather_mm(%[[X]], %[[W]], %[[I]])
// CHECK:         %[[Y:.*]] = coreai.decomposable.broadcasting_where %[[M]], %[[P]]
// CHECK:         coreai.output %[[Y]]
coreai.graph @grouped_rows(%x: tensor<6x1x4xf32>, %w: tensor<3x4x5xf32>, %i: tensor<6xsi32>, %m: tensor<6x1x1xi1>) -> tensor<6x1x5xf32> {
  %s = coreai.constant dense<[6, 1]> : tensor<2xui32>
  %i1 = coreai.reshape %i, %s : (tensor<6xsi32>, tensor<2xui32>) -> tensor<6x1xsi32>
  %g = coreai.gather_nd %w at %i1 : (tensor<3x4x5xf32>, tensor<6x1xsi32>) to tensor<6x4x5xf32>
  %p = coreai.decomposable.broadcasting_batch_matmul %x, %g : (tensor<6x1x4xf32>, tensor<6x4x5xf32>) -> tensor<6x1x5xf32>
  %z = coreai.constant dense<0.0> : tensor<f32>
  %y = coreai.decomposable.broadcasting_where %m, %p, %z : (tensor<6x1x1xi1>, tensor<6x1x5xf32>, tensor<f32>) -> tensor<6x1x5xf32>
  coreai.output %y : tensor<6x1x5xf32>
}
// CHECK-LABEL: coreai.graph private noinline @gather_mm_1(
// CHECK-SAME:    %{{.*}}: tensor<?x1x4xf32> {coreai.name = "lhs"}, %{{.*}}: tensor<3x4x5xf32> {coreai.name = "rhs"}, %{{.*}}: tensor<?xsi32> {coreai.name = "rhs_indices"}
// CHECK:         coreai.expand_dims
// CHECK-LABEL: coreai.graph @grouped_rows$dynamic(
// CHECK:         coreai.invoke @gather_mm_1(
coreai.graph @"grouped_rows$dynamic"(%x: tensor<?x1x4xf32>, %w: tensor<3x4x5xf32>, %i: tensor<?xsi32>) -> tensor<?x1x5xf32> {
  %a = coreai.constant dense<1> : tensor<1xsi32>
  %i1 = coreai.expand_dims %i, %a : (tensor<?xsi32>, tensor<1xsi32>) to tensor<?x1xsi32>
  %g = coreai.gather_nd %w at %i1 : (tensor<3x4x5xf32>, tensor<?x1xsi32>) to tensor<?x4x5xf32>
  %p = coreai.decomposable.broadcasting_batch_matmul %x, %g : (tensor<?x1x4xf32>, tensor<?x4x5xf32>) -> tensor<?x1x5xf32>
  coreai.output %p : tensor<?x1x5xf32>
}

// -----

// Does not fire: the gathered experts on the left (w[idx] @ y), and a
// gather of rank-2 rows (an embedding) on the right.
// CHECK-LABEL: coreai.graph @gathered_left(
// CHECK-NOT:     coreai.invoke
// CHECK:         coreai.output
coreai.graph @gathered_left(%y: tensor<6x5x2xf32>, %w: tensor<3x4x5xf32>, %i: tensor<6xsi32>, %t: tensor<9x4xf32>, %x: tensor<6x3x4xf32>) -> (tensor<6x4x2xf32>, tensor<6x3x6xf32>) {
  %s = coreai.constant dense<[6, 1]> : tensor<2xui32>
  %i1 = coreai.reshape %i, %s : (tensor<6xsi32>, tensor<2xui32>) -> tensor<6x1xsi32>
  %g = coreai.gather_nd %w at %i1 : (tensor<3x4x5xf32>, tensor<6x1xsi32>) to tensor<6x4x5xf32>
  %p = coreai.decomposable.broadcasting_batch_matmul %g, %y : (tensor<6x4x5xf32>, tensor<6x5x2xf32>) -> tensor<6x4x2xf32>
  %e = coreai.gather_nd %t at %i1 : (tensor<9x4xf32>, tensor<6x1xsi32>) to tensor<6x4xf32>
  %s2 = coreai.constant dense<[1, 4, 6]> : tensor<3xui32>
  %e3 = coreai.reshape %e, %s2 : (tensor<6x4xf32>, tensor<3xui32>) -> tensor<1x4x6xf32>
  %q = coreai.decomposable.broadcasting_batch_matmul %x, %e3 : (tensor<6x3x4xf32>, tensor<1x4x6xf32>) -> tensor<6x3x6xf32>
  coreai.output %p, %q : tensor<6x4x2xf32>, tensor<6x3x6xf32>
}
