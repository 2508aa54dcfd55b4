// RUN: coreai-opt %s --split-input-file --pass-pipeline='builtin.module(target-ane)' | FileCheck %s --enable-var-scope
// RUN: coreai-opt %s --split-input-file --pass-pipeline='builtin.module(target-ane{remarks=true})' -o /dev/null 2>&1 | FileCheck %s --check-prefix=REMARK
// The pipeline of `coreai-compile --target ane` after the pass:
// RUN: coreai-opt %s --split-input-file --pass-pipeline='builtin.module(target-ane,canonicalize,cse,core-optimize)' | FileCheck %s --check-prefix=FOLD --enable-var-scope

// Two pre-norm residual blocks: `x + W(norm(x))`. Each linear layer is a
// 1×1 conv in BC1S; `bc1s-stream` keeps the residual stream and the norms
// in BC1S between them, so the stream is transposed into BC1S once (the
// input) and out once (the output), not around every block. The norm runs
// as its BC1S composite: axes = 1, the weight (1, D, 1, 1), its body
// reducing over dim 1.
// CHECK-LABEL: coreai.graph private noinline @rms_norm_bc1s(
// CHECK-SAME:    %[[IN:.*]]: tensor<1x16x1x8xf32> {coreai.name = "input"}, %[[W:.*]]: tensor<1x16x1x1xf32> {coreai.name = "scale"}) -> tensor<1x16x1x8xf32>
// CHECK-SAME:    composite_declaration<"rms_norm" = {{.*}}axes = 1 : si64
// CHECK:         %[[SQ:.*]] = coreai.decomposable.broadcasting_mul %[[IN]], %[[IN]] : (tensor<1x16x1x8xf32>, tensor<1x16x1x8xf32>) -> tensor<1x16x1x8xf32>
// CHECK:         %[[ONE:.*]] = coreai.constant dense<1> : tensor<1xsi32>
// CHECK:         coreai.reduce_mean %[[SQ]], %[[ONE]] : (tensor<1x16x1x8xf32>, tensor<1xsi32>) -> tensor<1x1x1x8xf32>
// CHECK:         %[[Y:.*]] = coreai.decomposable.broadcasting_mul %[[W]], %{{.*}} : (tensor<1x16x1x1xf32>, tensor<1x16x1x8xf32>) -> tensor<1x16x1x8xf32>
// CHECK:         coreai.output %[[Y]] : tensor<1x16x1x8xf32>
// CHECK-LABEL: coreai.graph @blocks(
// CHECK:         coreai.transpose %{{.*}} -> tensor<1x16x1x8xf32>
// CHECK-NOT:     coreai.transpose {{.*}} -> tensor<1x{{(1x8x16|16x1x8)}}xf32>
// CHECK:         coreai.invoke @rms_norm_bc1s(%{{.*}}, %{{.*}}) : (tensor<1x16x1x8xf32>, tensor<1x16x1x1xf32>) -> tensor<1x16x1x8xf32>
// CHECK-NOT:     coreai.transpose {{.*}} -> tensor<1x{{(1x8x16|16x1x8)}}xf32>
// CHECK:         coreai.conv2d
// CHECK-NOT:     coreai.transpose {{.*}} -> tensor<1x{{(1x8x16|16x1x8)}}xf32>
// CHECK:         coreai.decomposable.broadcasting_add %{{.*}} : (tensor<1x16x1x8xf32>, tensor<1x16x1x8xf32>) -> tensor<1x16x1x8xf32>
// CHECK-NOT:     coreai.transpose {{.*}} -> tensor<1x{{(1x8x16|16x1x8)}}xf32>
// CHECK:         coreai.invoke @rms_norm_bc1s(
// CHECK-NOT:     coreai.transpose {{.*}} -> tensor<1x{{(1x8x16|16x1x8)}}xf32>
// CHECK:         coreai.conv2d
// CHECK-NOT:     coreai.transpose {{.*}} -> tensor<1x{{(1x8x16|16x1x8)}}xf32>
// CHECK:         coreai.decomposable.broadcasting_add
// CHECK:         coreai.transpose %{{.*}} -> tensor<1x1x8x16xf32>
// CHECK-NOT:     coreai.transpose {{.*}} -> tensor<1x{{(1x8x16|16x1x8)}}xf32>
// CHECK:         coreai.output
// REMARK: target-ane: loc({{.*}}): 'coreai.transpose' bc1s-stream: the Neural Engine runs the stream between projections in BC1S
// FOLD-NOT:     @rms_norm(
// FOLD-LABEL: coreai.graph @blocks(
// FOLD-COUNT-2: coreai.transpose
// FOLD-NOT:     coreai.transpose
module {
  coreai.graph private noinline @rms_norm(%x: tensor<1x8x16xf32> {coreai.name = "input"}, %w: tensor<16xf32> {coreai.name = "scale"}) -> tensor<1x8x16xf32> attributes {__coreai_pure__, composite_decl = #coreai.composite_declaration<"rms_norm" = {input_names = ["input", "scale"], op_attrs = {axes = -1 : si64, eps = 9.99999997E-7 : f32, version = 1 : si64}, output_names = ["output"]}>} {
    %eps = coreai.constant dense<9.99999997E-7> : tensor<f32>
    %last = coreai.constant dense<2> : tensor<1xsi32>
    %sq = coreai.decomposable.broadcasting_mul %x, %x : (tensor<1x8x16xf32>, tensor<1x8x16xf32>) -> tensor<1x8x16xf32>
    %m = coreai.reduce_mean %sq, %last : (tensor<1x8x16xf32>, tensor<1xsi32>) -> tensor<1x8x1xf32>
    %a = coreai.decomposable.broadcasting_add %m, %eps : (tensor<1x8x1xf32>, tensor<f32>) -> tensor<1x8x1xf32>
    %r = coreai.rsqrt %a : tensor<1x8x1xf32> -> tensor<1x8x1xf32>
    %n = coreai.decomposable.broadcasting_mul %x, %r : (tensor<1x8x16xf32>, tensor<1x8x1xf32>) -> tensor<1x8x16xf32>
    %y = coreai.decomposable.broadcasting_mul %w, %n : (tensor<16xf32>, tensor<1x8x16xf32>) -> tensor<1x8x16xf32>
    coreai.output %y : tensor<1x8x16xf32>
  }
  coreai.graph @blocks(%x: tensor<1x8x16xf32>) -> tensor<1x8x16xf32> {
    %g = coreai.constant dense<1.500000e+00> : tensor<16xf32>
    %w1 = coreai.constant dense<2.500000e-01> : tensor<16x16xf32>
    %w2 = coreai.constant dense<-1.250000e-01> : tensor<16x16xf32>
    %n1 = coreai.invoke @rms_norm(%x, %g) : (tensor<1x8x16xf32>, tensor<16xf32>) -> tensor<1x8x16xf32>
    %p1 = coreai.decomposable.broadcasting_batch_matmul %n1, %w1 : (tensor<1x8x16xf32>, tensor<16x16xf32>) -> tensor<1x8x16xf32>
    %h1 = coreai.decomposable.broadcasting_add %x, %p1 : (tensor<1x8x16xf32>, tensor<1x8x16xf32>) -> tensor<1x8x16xf32>
    %n2 = coreai.invoke @rms_norm(%h1, %g) : (tensor<1x8x16xf32>, tensor<16xf32>) -> tensor<1x8x16xf32>
    %p2 = coreai.decomposable.broadcasting_batch_matmul %n2, %w2 : (tensor<1x8x16xf32>, tensor<16x16xf32>) -> tensor<1x8x16xf32>
    %h2 = coreai.decomposable.broadcasting_add %h1, %p2 : (tensor<1x8x16xf32>, tensor<1x8x16xf32>) -> tensor<1x8x16xf32>
    coreai.output %h2 : tensor<1x8x16xf32>
  }
}

// -----

// One norm and one linear layer: the stream would take a transpose into
// BC1S for the input instead of the one in front of the conv, no saving,
// so it is left as `linear-conv1x1` made it (the norm keeps its composite).
// CHECK-NOT:   @rms_norm_bc1s
// CHECK-LABEL: coreai.graph @one_layer(
// CHECK:         coreai.invoke @rms_norm(%{{.*}}) : (tensor<1x8x16xf32>, tensor<16xf32>) -> tensor<1x8x16xf32>
// CHECK:         coreai.transpose %{{.*}} -> tensor<1x16x1x8xf32>
// CHECK:         coreai.conv2d
// CHECK:         coreai.transpose %{{.*}} -> tensor<1x1x8x16xf32>
// REMARK-NOT: bc1s-stream
// FOLD-LABEL: coreai.graph @one_layer(
module {
  coreai.graph private noinline @rms_norm(%x: tensor<1x8x16xf32> {coreai.name = "input"}, %w: tensor<16xf32> {coreai.name = "scale"}) -> tensor<1x8x16xf32> attributes {__coreai_pure__, composite_decl = #coreai.composite_declaration<"rms_norm" = {input_names = ["input", "scale"], op_attrs = {axes = -1 : si64, eps = 9.99999997E-7 : f32, version = 1 : si64}, output_names = ["output"]}>} {
    %eps = coreai.constant dense<9.99999997E-7> : tensor<f32>
    %last = coreai.constant dense<2> : tensor<1xsi32>
    %sq = coreai.decomposable.broadcasting_mul %x, %x : (tensor<1x8x16xf32>, tensor<1x8x16xf32>) -> tensor<1x8x16xf32>
    %m = coreai.reduce_mean %sq, %last : (tensor<1x8x16xf32>, tensor<1xsi32>) -> tensor<1x8x1xf32>
    %a = coreai.decomposable.broadcasting_add %m, %eps : (tensor<1x8x1xf32>, tensor<f32>) -> tensor<1x8x1xf32>
    %r = coreai.rsqrt %a : tensor<1x8x1xf32> -> tensor<1x8x1xf32>
    %n = coreai.decomposable.broadcasting_mul %x, %r : (tensor<1x8x16xf32>, tensor<1x8x1xf32>) -> tensor<1x8x16xf32>
    %y = coreai.decomposable.broadcasting_mul %w, %n : (tensor<16xf32>, tensor<1x8x16xf32>) -> tensor<1x8x16xf32>
    coreai.output %y : tensor<1x8x16xf32>
  }
  coreai.graph @one_layer(%x: tensor<1x8x16xf32>) -> tensor<1x8x16xf32> {
    %g = coreai.constant dense<1.500000e+00> : tensor<16xf32>
    %w1 = coreai.constant dense<2.500000e-01> : tensor<16x16xf32>
    %n1 = coreai.invoke @rms_norm(%x, %g) : (tensor<1x8x16xf32>, tensor<16xf32>) -> tensor<1x8x16xf32>
    %p1 = coreai.decomposable.broadcasting_batch_matmul %n1, %w1 : (tensor<1x8x16xf32>, tensor<16x16xf32>) -> tensor<1x8x16xf32>
    coreai.output %p1 : tensor<1x8x16xf32>
  }
}

// -----

// A post-norm block with a layer norm (BERT's form) and a slice of the
// stream read outside it (a pooled first token): the layer norm's BC1S
// composite takes gamma and beta as (1, D, 1, 1); the slice reads the
// stream transposed out of BC1S once.
// CHECK-LABEL: coreai.graph private noinline @layer_norm_bc1s(
// CHECK-SAME:    tensor<1x16x1x8xf32> {coreai.name = "input"}, %{{.*}}: tensor<1x16x1x1xf32> {coreai.name = "gamma"}, %{{.*}}: tensor<1x16x1x1xf32> {coreai.name = "beta"})
// CHECK-SAME:    axes = [1 : si64]
// CHECK-LABEL: coreai.graph @post_norm(
// CHECK:         coreai.invoke @layer_norm_bc1s(
// CHECK:         coreai.invoke @layer_norm_bc1s(
// CHECK:         %[[OUT:.*]] = coreai.transpose %{{.*}} -> tensor<1x1x8x16xf32>
// CHECK:         coreai.slice
// CHECK:         coreai.output
// REMARK: 'coreai.transpose' bc1s-stream
module {
  coreai.graph private noinline @layer_norm(%x: tensor<1x8x16xf32> {coreai.name = "input"}, %g: tensor<16xf32> {coreai.name = "gamma"}, %b: tensor<16xf32> {coreai.name = "beta"}) -> tensor<1x8x16xf32> attributes {__coreai_pure__, composite_decl = #coreai.composite_declaration<"layer_norm" = {input_names = ["input", "gamma", "beta"], op_attrs = {axes = [2 : si64], eps = 9.99999997E-7 : f32, version = 1 : si64}, output_names = ["output"]}>} {
    %eps = coreai.constant dense<9.99999997E-7> : tensor<f32>
    %last = coreai.constant dense<-1> : tensor<1xsi32>
    %m = coreai.reduce_mean %x, %last : (tensor<1x8x16xf32>, tensor<1xsi32>) -> tensor<1x8x1xf32>
    %c = coreai.decomposable.broadcasting_sub %x, %m : (tensor<1x8x16xf32>, tensor<1x8x1xf32>) -> tensor<1x8x16xf32>
    %sq = coreai.decomposable.broadcasting_mul %c, %c : (tensor<1x8x16xf32>, tensor<1x8x16xf32>) -> tensor<1x8x16xf32>
    %v = coreai.reduce_mean %sq, %last : (tensor<1x8x16xf32>, tensor<1xsi32>) -> tensor<1x8x1xf32>
    %a = coreai.decomposable.broadcasting_add %v, %eps : (tensor<1x8x1xf32>, tensor<f32>) -> tensor<1x8x1xf32>
    %r = coreai.rsqrt %a : tensor<1x8x1xf32> -> tensor<1x8x1xf32>
    %n = coreai.decomposable.broadcasting_mul %c, %r : (tensor<1x8x16xf32>, tensor<1x8x1xf32>) -> tensor<1x8x16xf32>
    %s = coreai.decomposable.broadcasting_mul %n, %g : (tensor<1x8x16xf32>, tensor<16xf32>) -> tensor<1x8x16xf32>
    %y = coreai.decomposable.broadcasting_add %s, %b : (tensor<1x8x16xf32>, tensor<16xf32>) -> tensor<1x8x16xf32>
    coreai.output %y : tensor<1x8x16xf32>
  }
  coreai.graph @post_norm(%x: tensor<1x8x16xf32>) -> tensor<1x1x16xf32> {
    %g = coreai.constant dense<1.500000e+00> : tensor<16xf32>
    %b = coreai.constant dense<1.000000e-01> : tensor<16xf32>
    %w1 = coreai.constant dense<2.500000e-01> : tensor<16x16xf32>
    %w2 = coreai.constant dense<-1.250000e-01> : tensor<16x16xf32>
    %p1 = coreai.decomposable.broadcasting_batch_matmul %x, %w1 : (tensor<1x8x16xf32>, tensor<16x16xf32>) -> tensor<1x8x16xf32>
    %h1 = coreai.decomposable.broadcasting_add %x, %p1 : (tensor<1x8x16xf32>, tensor<1x8x16xf32>) -> tensor<1x8x16xf32>
    %n1 = coreai.invoke @layer_norm(%h1, %g, %b) : (tensor<1x8x16xf32>, tensor<16xf32>, tensor<16xf32>) -> tensor<1x8x16xf32>
    %p2 = coreai.decomposable.broadcasting_batch_matmul %n1, %w2 : (tensor<1x8x16xf32>, tensor<16x16xf32>) -> tensor<1x8x16xf32>
    %h2 = coreai.decomposable.broadcasting_add %n1, %p2 : (tensor<1x8x16xf32>, tensor<1x8x16xf32>) -> tensor<1x8x16xf32>
    %n2 = coreai.invoke @layer_norm(%h2, %g, %b) : (tensor<1x8x16xf32>, tensor<16xf32>, tensor<16xf32>) -> tensor<1x8x16xf32>
    %begin = coreai.constant dense<0> : tensor<3xsi32>
    %end = coreai.constant dense<[1, 1, 16]> : tensor<3xsi32>
    %step = coreai.constant dense<1> : tensor<3xsi32>
    %first = coreai.slice %n2, %begin, %end, %step : (tensor<1x8x16xf32>, tensor<3xsi32>, tensor<3xsi32>, tensor<3xsi32>) -> tensor<1x1x16xf32>
    coreai.output %first : tensor<1x1x16xf32>
  }
}

// -----

// kv-bc1s: one decode step over a cache kept in (B, H, D, S) order. The
// keys and values stay in that order: the new token joins the cache along
// its last axis (one token: a reshape, no transpose), the scores read the
// keys as they are, and the values' product runs transposed,
// `(P V)ᵀ = Vᵀ Pᵀ`, one head at a time. No transpose is left.
// CHECK-LABEL: coreai.graph @decode(
// CHECK-SAME:    %[[KN:[^:]*]]: tensor<1x2x1x8xf32>, %[[VN:[^:]*]]: tensor<1x2x1x8xf32>, %[[KC:[^:]*]]: tensor<1x2x8x6xf32>, %[[VC:[^:]*]]: tensor<1x2x8x6xf32>)
// CHECK-NOT:     coreai.transpose
// CHECK:         %[[KNT:.*]] = coreai.reshape %[[KN]], %{{.*}} -> tensor<1x2x8x1xf32>
// CHECK:         coreai.concat %{{.*}}, %[[KC]], %[[KNT]] : (tensor<si32>, tensor<1x2x8x6xf32>, tensor<1x2x8x1xf32>) -> tensor<1x2x8x7xf32>
// CHECK:         coreai.decomposable.broadcasting_batch_matmul %{{.*}} : (tensor<1x1x1x8xf32>, tensor<1x1x8x7xf32>) -> tensor<1x1x1x7xf32>
// CHECK:         coreai.decomposable.broadcasting_batch_matmul %{{.*}} : (tensor<1x1x8x7xf32>, tensor<1x1x7x1xf32>) -> tensor<1x1x8x1xf32>
// CHECK-NOT:     coreai.transpose
// CHECK:         coreai.output
// REMARK: stream.mlir":[[@LINE+5]]:{{.*}} 'coreai.transpose' kv-bc1s: the Neural Engine reads attention's cached keys and values in their BC1S order
coreai.graph @decode(%q: tensor<1x2x1x8xf32>, %kn: tensor<1x2x1x8xf32>, %vn: tensor<1x2x1x8xf32>, %kc: tensor<1x2x8x6xf32>, %vc: tensor<1x2x8x6xf32>) -> tensor<1x2x1x8xf32> {
  %axis = coreai.constant dense<2> : tensor<si32>
  %last = coreai.constant dense<3> : tensor<si32>
  %p = coreai.constant dense<[0, 1, 3, 2]> : tensor<4xui32>
  %kt = coreai.transpose %kc, %p : (tensor<1x2x8x6xf32>, tensor<4xui32>) -> tensor<1x2x6x8xf32>
  %k = coreai.concat %axis, %kt, %kn : (tensor<si32>, tensor<1x2x6x8xf32>, tensor<1x2x1x8xf32>) -> tensor<1x2x7x8xf32>
  %vt = coreai.transpose %vc, %p : (tensor<1x2x8x6xf32>, tensor<4xui32>) -> tensor<1x2x6x8xf32>
  %v = coreai.concat %axis, %vt, %vn : (tensor<si32>, tensor<1x2x6x8xf32>, tensor<1x2x1x8xf32>) -> tensor<1x2x7x8xf32>
  %kT = coreai.transpose %k, %p : (tensor<1x2x7x8xf32>, tensor<4xui32>) -> tensor<1x2x8x7xf32>
  %s = coreai.decomposable.broadcasting_batch_matmul %q, %kT : (tensor<1x2x1x8xf32>, tensor<1x2x8x7xf32>) -> tensor<1x2x1x7xf32>
  %w = coreai.softmax %s, %last : (tensor<1x2x1x7xf32>, tensor<si32>) -> tensor<1x2x1x7xf32>
  %o = coreai.decomposable.broadcasting_batch_matmul %w, %v : (tensor<1x2x1x7xf32>, tensor<1x2x7x8xf32>) -> tensor<1x2x1x8xf32>
  coreai.output %o : tensor<1x2x1x8xf32>
}

// -----

// Four new tokens (prefill): the keys still save a transpose (the cache's
// and the scores' go, the new keys take one), so they stay in
// (B, H, D, S); the values would not (the weights and the output would
// take one each), so the value cache keeps its transpose.
// CHECK-LABEL: coreai.graph @prefill(
// CHECK-SAME:    %[[KN:[^:]*]]: tensor<1x2x4x8xf32>, %{{[^:]*}}: tensor<1x2x4x8xf32>, %[[KC:[^:]*]]: tensor<1x2x8x6xf32>, %[[VC:[^:]*]]: tensor<1x2x8x6xf32>)
// CHECK:         %[[KNT:.*]] = coreai.transpose %[[KN]], %{{.*}} -> tensor<1x2x8x4xf32>
// CHECK:         coreai.concat %{{.*}}, %[[KC]], %[[KNT]] : (tensor<si32>, tensor<1x2x8x6xf32>, tensor<1x2x8x4xf32>) -> tensor<1x2x8x10xf32>
// CHECK:         coreai.transpose %[[VC]], %{{.*}} -> tensor<1x2x6x8xf32>
// CHECK-NOT:     coreai.transpose
// CHECK:         coreai.output
coreai.graph @prefill(%q: tensor<1x2x4x8xf32>, %kn: tensor<1x2x4x8xf32>, %vn: tensor<1x2x4x8xf32>, %kc: tensor<1x2x8x6xf32>, %vc: tensor<1x2x8x6xf32>) -> tensor<1x2x4x8xf32> {
  %axis = coreai.constant dense<2> : tensor<si32>
  %last = coreai.constant dense<3> : tensor<si32>
  %p = coreai.constant dense<[0, 1, 3, 2]> : tensor<4xui32>
  %kt = coreai.transpose %kc, %p : (tensor<1x2x8x6xf32>, tensor<4xui32>) -> tensor<1x2x6x8xf32>
  %k = coreai.concat %axis, %kt, %kn : (tensor<si32>, tensor<1x2x6x8xf32>, tensor<1x2x4x8xf32>) -> tensor<1x2x10x8xf32>
  %vt = coreai.transpose %vc, %p : (tensor<1x2x8x6xf32>, tensor<4xui32>) -> tensor<1x2x6x8xf32>
  %v = coreai.concat %axis, %vt, %vn : (tensor<si32>, tensor<1x2x6x8xf32>, tensor<1x2x4x8xf32>) -> tensor<1x2x10x8xf32>
  %kT = coreai.transpose %k, %p : (tensor<1x2x10x8xf32>, tensor<4xui32>) -> tensor<1x2x8x10xf32>
  %s = coreai.decomposable.broadcasting_batch_matmul %q, %kT : (tensor<1x2x4x8xf32>, tensor<1x2x8x10xf32>) -> tensor<1x2x4x10xf32>
  %w = coreai.softmax %s, %last : (tensor<1x2x4x10xf32>, tensor<si32>) -> tensor<1x2x4x10xf32>
  %o = coreai.decomposable.broadcasting_batch_matmul %w, %v : (tensor<1x2x4x10xf32>, tensor<1x2x10x8xf32>) -> tensor<1x2x4x8xf32>
  coreai.output %o : tensor<1x2x4x8xf32>
}
