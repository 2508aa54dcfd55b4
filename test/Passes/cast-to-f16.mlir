// RUN: coreai-opt %s --split-input-file --pass-pipeline='builtin.module(cast-to-f16)' | FileCheck %s --enable-var-scope
// RUN: coreai-opt %s --split-input-file --pass-pipeline='builtin.module(cast-to-f16{io=f16})' | FileCheck %s --check-prefix=IO16 --enable-var-scope
// RUN: coreai-opt %s --split-input-file --pass-pipeline='builtin.module(cast-to-f16{islands=none})' | FileCheck %s --check-prefix=NONE --enable-var-scope
// RUN: coreai-opt %s --split-input-file --pass-pipeline='builtin.module(cast-to-f16{islands=neural-engine})' | FileCheck %s --check-prefix=ANE --enable-var-scope
// RUN: coreai-opt %s --split-input-file --pass-pipeline='builtin.module(cast-to-f16{keep-f32=exp,invoke,greater,argsort})' | FileCheck %s --check-prefix=KEEP --enable-var-scope
// RUN: coreai-opt %s --split-input-file --pass-pipeline='builtin.module(cast-to-f16{remarks=true})' -o /dev/null 2>&1 | FileCheck %s --check-prefix=REMARK

// Elementwise f32 compute becomes f16; constants become f16 constants (0.1
// rounds to 0.0999755859375); integer ops are not converted; the bool
// comparison compares the f16 value and an f16 0.5 (exact: widening f16 to
// f32 keeps every comparison). io=f32 keeps the signature: a cast after the
// argument, one before the output.
// CHECK-LABEL: coreai.graph @basic(
// CHECK-SAME:    %[[X:.*]]: tensor<4xf32>, %[[I:.*]]: tensor<4xsi32>) -> (tensor<4xf32>, tensor<4xi1>, tensor<4xsi32>)
// CHECK:         %[[X16:.*]] = coreai.cast %[[X]] : tensor<4xf32> to tensor<4xf16>
// CHECK-DAG:     %[[H16:.*]] = coreai.constant dense<5.000000e-01> : tensor<f16>
// CHECK-DAG:     %[[W16:.*]] = coreai.constant dense<[1.000000e+00, 2.000000e+00, 3.000000e+00, 9.997550e-02]> : tensor<4xf16>
// CHECK:         %[[E:.*]] = coreai.exp %[[X16]] : tensor<4xf16> -> tensor<4xf16>
// CHECK:         %[[M:.*]] = coreai.decomposable.broadcasting_mul %[[E]], %[[H16]] : (tensor<4xf16>, tensor<f16>) -> tensor<4xf16>
// CHECK:         %[[A:.*]] = coreai.decomposable.broadcasting_add %[[M]], %[[W16]] : (tensor<4xf16>, tensor<4xf16>) -> tensor<4xf16>
// CHECK:         %[[A32:.*]] = coreai.cast %[[A]] : tensor<4xf16> to tensor<4xf32>
// CHECK:         %[[H:.*]] = coreai.constant dense<5.000000e-01> : tensor<f16>
// CHECK-NEXT:    %[[G:.*]] = coreai.decomposable.broadcasting_greater %[[A]], %[[H]] : (tensor<4xf16>, tensor<f16>) -> tensor<4xi1>
// CHECK:         %[[J:.*]] = coreai.decomposable.broadcasting_add %[[I]], %[[I]] : (tensor<4xsi32>, tensor<4xsi32>) -> tensor<4xsi32>
// CHECK-NOT:     coreai.cast
// CHECK:         coreai.output %[[A32]], %[[G]], %[[J]]
// io=f16: the f32 argument and result become f16, no cast at the boundary.
// IO16-LABEL: coreai.graph @basic(
// IO16-SAME:    %[[X:.*]]: tensor<4xf16>, %{{.*}}: tensor<4xsi32>) -> (tensor<4xf16>, tensor<4xi1>, tensor<4xsi32>)
// IO16-NOT:     coreai.cast %[[X]]
// IO16:         %[[E:.*]] = coreai.exp %[[X]] : tensor<4xf16>
// IO16:         %[[A:.*]] = coreai.decomposable.broadcasting_add
// IO16:         coreai.output %[[A]], %{{.*}}, %{{.*}} : tensor<4xf16>, tensor<4xi1>, tensor<4xsi32>
// KEEP-LABEL: coreai.graph @basic(
// KEEP:         coreai.exp %{{.*}} : tensor<4xf32> -> tensor<4xf32>
// KEEP:         coreai.decomposable.broadcasting_mul %{{.*}} : (tensor<4xf16>, tensor<f16>) -> tensor<4xf16>
// REMARK: cast-to-f16: loc({{.*}}cast-to-f16.mlir":{{[0-9]+}}:{{[0-9]+}}): 'coreai.exp' f16
coreai.graph @basic(%x: tensor<4xf32>, %i: tensor<4xsi32>) -> (tensor<4xf32>, tensor<4xi1>, tensor<4xsi32>) {
  %half = coreai.constant dense<5.000000e-01> : tensor<f32>
  %w = coreai.constant dense<[1.0, 2.0, 3.0, 0.1]> : tensor<4xf32>
  %e = coreai.exp %x : tensor<4xf32> -> tensor<4xf32>
  %m = coreai.decomposable.broadcasting_mul %e, %half : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  %a = coreai.decomposable.broadcasting_add %m, %w : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %g = coreai.decomposable.broadcasting_greater %a, %half : (tensor<4xf32>, tensor<f32>) -> tensor<4xi1>
  %j = coreai.decomposable.broadcasting_add %i, %i : (tensor<4xsi32>, tensor<4xsi32>) -> tensor<4xsi32>
  coreai.output %a, %g, %j : tensor<4xf32>, tensor<4xi1>, tensor<4xsi32>
}

// -----

// islands=auto keeps in f32: the RMSNorm statistic (square, mean over 64,
// + eps, rsqrt), a sum over 64 elements, softmax, the RoPE angle and its cos,
// a multiply by 4097 (beyond 2048, not exact in f16). The normalised product converts.
// islands=none converts all of them; islands=neural-engine converts the
// statistic, the sum and softmax (Apple's Neural Engine forms compute them in
// f16) and keeps the RoPE angle and the multiply by 4097.
// CHECK-LABEL: coreai.graph @islands(
// CHECK-SAME:    %[[X:.*]]: tensor<2x64xf32>, %[[P:.*]]: tensor<8xf32>)
// CHECK:         %[[X16:.*]] = coreai.cast %[[X]] : tensor<2x64xf32> to tensor<2x64xf16>
// CHECK:         %[[SQ:.*]] = coreai.decomposable.broadcasting_mul %[[X]], %[[X]] : (tensor<2x64xf32>, tensor<2x64xf32>) -> tensor<2x64xf32>
// CHECK:         %[[MS:.*]] = coreai.reduce_mean %[[SQ]], %{{.*}} : (tensor<2x64xf32>, tensor<1xsi32>) -> tensor<2x1xf32>
// CHECK:         %[[VE:.*]] = coreai.decomposable.broadcasting_add %[[MS]], %{{.*}} : (tensor<2x1xf32>, tensor<f32>) -> tensor<2x1xf32>
// CHECK:         %[[R:.*]] = coreai.rsqrt %[[VE]] : tensor<2x1xf32> -> tensor<2x1xf32>
// CHECK:         %[[R16:.*]] = coreai.cast %[[R]] : tensor<2x1xf32> to tensor<2x1xf16>
// CHECK:         %[[N:.*]] = coreai.decomposable.broadcasting_mul %[[X16]], %[[R16]] : (tensor<2x64xf16>, tensor<2x1xf16>) -> tensor<2x64xf16>
// CHECK:         %[[N32:.*]] = coreai.cast %[[N]] : tensor<2x64xf16> to tensor<2x64xf32>
// CHECK:         coreai.reduce_sum %[[X]], %{{.*}} : (tensor<2x64xf32>, tensor<1xsi32>) -> tensor<2x1xf32>
// CHECK:         coreai.softmax %[[N32]], %{{.*}} : (tensor<2x64xf32>, tensor<si32>) -> tensor<2x64xf32>
// CHECK:         coreai.decomposable.broadcasting_mul %[[P]], %{{.*}} : (tensor<8xf32>, tensor<f32>) -> tensor<8xf32>
// CHECK:         coreai.cos %{{.*}} : tensor<8xf32> -> tensor<8xf32>
// CHECK:         coreai.decomposable.broadcasting_mul %{{.*}} : (tensor<2x1xf32>, tensor<f32>) -> tensor<2x1xf32>
// CHECK-NOT:     f16
// CHECK:         coreai.output
// NONE-LABEL: coreai.graph @islands(
// NONE:         coreai.reduce_mean %{{.*}} : (tensor<2x64xf16>, tensor<1xsi32>) -> tensor<2x1xf16>
// NONE:         coreai.rsqrt %{{.*}} : tensor<2x1xf16> -> tensor<2x1xf16>
// NONE:         coreai.reduce_sum %{{.*}} : (tensor<2x64xf16>, tensor<1xsi32>) -> tensor<2x1xf16>
// NONE:         coreai.softmax %{{.*}} : (tensor<2x64xf16>, tensor<si32>) -> tensor<2x64xf16>
// NONE:         coreai.cos %{{.*}} : tensor<8xf16> -> tensor<8xf16>
// NONE:         coreai.decomposable.broadcasting_mul %{{.*}} : (tensor<2x1xf16>, tensor<f16>) -> tensor<2x1xf16>
// NONE-NOT:     tensor<2x1xf32>, tensor<f32>
// ANE-LABEL: coreai.graph @islands(
// ANE:         coreai.reduce_mean %{{.*}} : (tensor<2x64xf16>, tensor<1xsi32>) -> tensor<2x1xf16>
// ANE:         coreai.rsqrt %{{.*}} : tensor<2x1xf16> -> tensor<2x1xf16>
// ANE:         coreai.reduce_sum %{{.*}} : (tensor<2x64xf16>, tensor<1xsi32>) -> tensor<2x1xf16>
// ANE:         coreai.softmax %{{.*}} : (tensor<2x64xf16>, tensor<si32>) -> tensor<2x64xf16>
// ANE:         coreai.cos %{{.*}} : tensor<8xf32> -> tensor<8xf32>
// ANE:         coreai.decomposable.broadcasting_mul %{{.*}} : (tensor<2x1xf32>, tensor<f32>) -> tensor<2x1xf32>
// REMARK: 'coreai.reduce_mean' kept f32: reduction over 64 elements (max-f16-reduction=32)
// REMARK: 'coreai.rsqrt' kept f32: norm statistic (root of a mean of squares)
// REMARK: 'coreai.decomposable.broadcasting_mul' f16
// REMARK: 'coreai.softmax' kept f32: softmax accumulator
// REMARK: 'coreai.cos' kept f32: RoPE angle
// REMARK: 'coreai.decomposable.broadcasting_mul' kept f32: large constant operand (4097 is beyond 2048 and not exact in f16)
coreai.graph @islands(%x: tensor<2x64xf32>, %pos: tensor<8xf32>) -> (tensor<2x64xf32>, tensor<2x1xf32>, tensor<2x64xf32>, tensor<8xf32>, tensor<2x1xf32>) {
  %ax = coreai.constant dense<1> : tensor<1xsi32>
  %eps = coreai.constant dense<1.000000e-06> : tensor<f32>
  %d = coreai.constant dense<1> : tensor<si32>
  %freq = coreai.constant dense<1.000000e-01> : tensor<f32>
  %big = coreai.constant dense<4.097000e+03> : tensor<f32>
  %sq = coreai.decomposable.broadcasting_mul %x, %x : (tensor<2x64xf32>, tensor<2x64xf32>) -> tensor<2x64xf32>
  %ms = coreai.reduce_mean %sq, %ax : (tensor<2x64xf32>, tensor<1xsi32>) -> tensor<2x1xf32>
  %ve = coreai.decomposable.broadcasting_add %ms, %eps : (tensor<2x1xf32>, tensor<f32>) -> tensor<2x1xf32>
  %r = coreai.rsqrt %ve : tensor<2x1xf32> -> tensor<2x1xf32>
  %n = coreai.decomposable.broadcasting_mul %x, %r : (tensor<2x64xf32>, tensor<2x1xf32>) -> tensor<2x64xf32>
  %s = coreai.reduce_sum %x, %ax : (tensor<2x64xf32>, tensor<1xsi32>) -> tensor<2x1xf32>
  %sm = coreai.softmax %n, %d : (tensor<2x64xf32>, tensor<si32>) -> tensor<2x64xf32>
  %ang = coreai.decomposable.broadcasting_mul %pos, %freq : (tensor<8xf32>, tensor<f32>) -> tensor<8xf32>
  %c = coreai.cos %ang : tensor<8xf32> -> tensor<8xf32>
  %p = coreai.decomposable.broadcasting_mul %s, %big : (tensor<2x1xf32>, tensor<f32>) -> tensor<2x1xf32>
  coreai.output %n, %s, %sm, %c, %p : tensor<2x64xf32>, tensor<2x1xf32>, tensor<2x64xf32>, tensor<8xf32>, tensor<2x1xf32>
}

// -----

// A sum over 8 elements converts (below max-f16-reduction); a sum of exp is
// a logsumexp accumulator and stays f32 whatever its size, with its log.
// CHECK-LABEL: coreai.graph @small_sums(
// CHECK:         coreai.reduce_sum %{{.*}} : (tensor<2x8xf16>, tensor<1xsi32>) -> tensor<2x1xf16>
// CHECK:         coreai.exp %{{.*}} : tensor<2x8xf16> -> tensor<2x8xf16>
// CHECK:         coreai.reduce_sum %{{.*}} : (tensor<2x8xf32>, tensor<1xsi32>) -> tensor<2x1xf32>
// CHECK:         coreai.log %{{.*}} : tensor<2x1xf32> -> tensor<2x1xf32>
coreai.graph @small_sums(%x: tensor<2x8xf32>) -> (tensor<2x1xf32>, tensor<2x1xf32>) {
  %ax = coreai.constant dense<1> : tensor<1xsi32>
  %s = coreai.reduce_sum %x, %ax : (tensor<2x8xf32>, tensor<1xsi32>) -> tensor<2x1xf32>
  %e = coreai.exp %x : tensor<2x8xf32> -> tensor<2x8xf32>
  %se = coreai.reduce_sum %e, %ax : (tensor<2x8xf32>, tensor<1xsi32>) -> tensor<2x1xf32>
  %l = coreai.log %se : tensor<2x1xf32> -> tensor<2x1xf32>
  coreai.output %s, %l : tensor<2x1xf32>, tensor<2x1xf32>
}

// -----

// A composite graph is converted with its call site: f16 arguments and
// results, the invoke rebuilt with f16 types, no cast around it. With
// keep-f32=invoke the composite stays f32 and the invoke reads f32.
// CHECK-LABEL: coreai.graph private noinline @norm(
// CHECK-SAME:    %[[A:.*]]: tensor<2x8xf16>, %[[W:.*]]: tensor<8xf16>) -> tensor<2x8xf16>
// CHECK:         %[[Y:.*]] = coreai.decomposable.broadcasting_mul %[[A]], %[[W]] : (tensor<2x8xf16>, tensor<8xf16>) -> tensor<2x8xf16>
// CHECK:         coreai.output %[[Y]] : tensor<2x8xf16>
// CHECK-LABEL: coreai.graph @caller(
// CHECK:         %[[T:.*]] = coreai.tanh %{{.*}} : tensor<2x8xf16> -> tensor<2x8xf16>
// CHECK-NOT:     coreai.cast
// CHECK:         %[[I:.*]] = coreai.invoke @norm(%[[T]], %{{.*}}) : (tensor<2x8xf16>, tensor<8xf16>) -> tensor<2x8xf16>
// CHECK:         coreai.exp %[[I]] : tensor<2x8xf16>
// KEEP-LABEL: coreai.graph private noinline @norm(
// KEEP-SAME:    tensor<2x8xf32>, %{{.*}}: tensor<8xf32>) -> tensor<2x8xf32>
// KEEP-NOT:     f16
// KEEP-LABEL: coreai.graph @caller(
// KEEP:         coreai.invoke @norm(%{{.*}}, %{{.*}}) : (tensor<2x8xf32>, tensor<8xf32>) -> tensor<2x8xf32>
coreai.graph private noinline @norm(%x: tensor<2x8xf32>, %w: tensor<8xf32>) -> tensor<2x8xf32> attributes {composite_decl = #coreai.composite_declaration<"rms_norm" = {input_names = ["x", "w"], op_attrs = {}, output_names = ["y"]}>} {
  %y = coreai.decomposable.broadcasting_mul %x, %w : (tensor<2x8xf32>, tensor<8xf32>) -> tensor<2x8xf32>
  coreai.output %y : tensor<2x8xf32>
}
coreai.graph @caller(%x: tensor<2x8xf32>) -> tensor<2x8xf32> {
  %w = coreai.constant dense<2.0> : tensor<8xf32>
  %t = coreai.tanh %x : tensor<2x8xf32> -> tensor<2x8xf32>
  %y = coreai.invoke @norm(%t, %w) : (tensor<2x8xf32>, tensor<8xf32>) -> tensor<2x8xf32>
  %z = coreai.exp %y : tensor<2x8xf32> -> tensor<2x8xf32>
  coreai.output %z : tensor<2x8xf32>
}

// -----

// A rope composite with cos/sin inputs only rotates (its angles are
// computed outside): it converts like any composite. One that takes
// position_ids/freqs builds its angles and stays f32 (guide §5.7), with
// casts around its invoke.
// CHECK-LABEL: coreai.graph private noinline @rotate(
// CHECK-SAME:    tensor<2x4xf16>
// CHECK-LABEL: coreai.graph private noinline @angles(
// CHECK-SAME:    %{{.*}}: tensor<2x4xf32>, %{{.*}}: tensor<2xf32>, %{{.*}}: tensor<2xf32>) -> tensor<2x4xf32>
// CHECK-NOT:     f16
// CHECK-LABEL: coreai.graph @rope_caller(
// CHECK:         coreai.invoke @rotate({{.*}}) : (tensor<2x4xf16>, tensor<2x4xf16>, tensor<2x4xf16>) -> tensor<2x4xf16>
// CHECK:         coreai.invoke @angles({{.*}}) : (tensor<2x4xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<2x4xf32>
coreai.graph private noinline @rotate(%x: tensor<2x4xf32>, %c: tensor<2x4xf32>, %s: tensor<2x4xf32>) -> tensor<2x4xf32> attributes {composite_decl = #coreai.composite_declaration<"rope" = {input_names = ["input", "cos", "sin"], op_attrs = {}, output_names = ["output"]}>} {
  %a = coreai.decomposable.broadcasting_mul %x, %c : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
  %b = coreai.decomposable.broadcasting_mul %x, %s : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
  %y = coreai.decomposable.broadcasting_add %a, %b : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
  coreai.output %y : tensor<2x4xf32>
}
coreai.graph private noinline @angles(%x: tensor<2x4xf32>, %p: tensor<2xf32>, %f: tensor<2xf32>) -> tensor<2x4xf32> attributes {composite_decl = #coreai.composite_declaration<"rope" = {input_names = ["input", "position_ids", "freqs"], op_attrs = {}, output_names = ["output"]}>} {
  coreai.output %x : tensor<2x4xf32>
}
coreai.graph @rope_caller(%x: tensor<2x4xf32>, %c: tensor<2x4xf32>, %s: tensor<2x4xf32>, %p: tensor<2xf32>, %f: tensor<2xf32>) -> (tensor<2x4xf32>, tensor<2x4xf32>) {
  %t = coreai.tanh %x : tensor<2x4xf32> -> tensor<2x4xf32>
  %y = coreai.invoke @rotate(%t, %c, %s) : (tensor<2x4xf32>, tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
  %z = coreai.invoke @angles(%t, %p, %f) : (tensor<2x4xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<2x4xf32>
  coreai.output %y, %z : tensor<2x4xf32>, tensor<2x4xf32>
}

// -----

// coreai.if keeps its f32 results; the ops of both branches convert, cast
// back to f32 before each yield. A sin of a plain value is no RoPE angle.
// CHECK-LABEL: coreai.graph @branches(
// CHECK:         %[[X16:.*]] = coreai.cast %{{.*}} : tensor<3x4xf32> to tensor<3x4xf16>
// CHECK:         coreai.if %{{.*}} {
// CHECK:           %[[S:.*]] = coreai.sin %[[X16]] : tensor<3x4xf16> -> tensor<3x4xf16>
// CHECK:           %[[M:.*]] = coreai.decomposable.broadcasting_mul %[[S]], %{{.*}} : (tensor<3x4xf16>, tensor<f16>) -> tensor<3x4xf16>
// CHECK:           %[[M32:.*]] = coreai.cast %[[M]] : tensor<3x4xf16> to tensor<3x4xf32>
// CHECK:           coreai.yield %[[M32]] : tensor<3x4xf32>
// CHECK:         } else {
// CHECK:           coreai.cos %[[X16]] : tensor<3x4xf16> -> tensor<3x4xf16>
// CHECK:         } : tensor<i1> -> tensor<3x4xf32>
// REMARK: 'coreai.if' kept f32: control flow: its results stay f32, its body converts
// REMARK: 'coreai.sin' f16
coreai.graph @branches(%x: tensor<3x4xf32>, %c: tensor<i1>) -> tensor<3x4xf32> {
  %two = coreai.constant dense<2.000000e+00> : tensor<f32>
  %one = coreai.constant dense<1.000000e+00> : tensor<f32>
  %r = coreai.if %c {
    %s = coreai.sin %x : tensor<3x4xf32> -> tensor<3x4xf32>
    %m = coreai.decomposable.broadcasting_mul %s, %two : (tensor<3x4xf32>, tensor<f32>) -> tensor<3x4xf32>
    coreai.yield %m : tensor<3x4xf32>
  } else {
    %k = coreai.cos %x : tensor<3x4xf32> -> tensor<3x4xf32>
    %d = coreai.decomposable.broadcasting_sub %k, %one : (tensor<3x4xf32>, tensor<f32>) -> tensor<3x4xf32>
    coreai.yield %d : tensor<3x4xf32>
  } : tensor<i1> -> tensor<3x4xf32>
  coreai.output %r : tensor<3x4xf32>
}

// -----

// interpolate converts, but its scale and offset operands are f32-only in
// coreai and stay f32.
// CHECK-LABEL: coreai.graph @resize(
// CHECK:         coreai.interpolate %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} {{.*}} : (tensor<1x2x4x5xf16>, tensor<4xsi32>, tensor<4xf32>, tensor<4xf32>) -> tensor<1x2x8x10xf16>
// NONE-LABEL: coreai.graph @resize(
// NONE-NOT:     tensor<4xf16>
coreai.graph @resize(%x: tensor<1x2x4x5xf32>) -> tensor<1x2x8x10xf32> {
  %shape = coreai.constant dense<[1, 2, 8, 10]> : tensor<4xsi32>
  %scale = coreai.constant dense<[1.0, 1.0, 2.0, 2.0]> : tensor<4xf32>
  %offset = coreai.constant dense<0.0> : tensor<4xf32>
  %y = coreai.interpolate %x, %shape, %scale, %offset {interpolation_mode = #coreai.interpolation_mode<nearest_neighbor>} : (tensor<1x2x4x5xf32>, tensor<4xsi32>, tensor<4xf32>, tensor<4xf32>) -> tensor<1x2x8x10xf32>
  coreai.output %y : tensor<1x2x8x10xf32>
}

// -----

// torch.finfo(torch.float32).min, the finite "minus infinity" of an additive
// attention mask, becomes f16's lowest finite value (what the modeling code
// writes in f16); the add converts.
// CHECK-LABEL: coreai.graph @finfo_min_mask(
// CHECK:         %[[K:.*]] = coreai.constant dense<-6.550400e+04> : tensor<1x4xf16>
// CHECK:         coreai.decomposable.broadcasting_add %{{.*}}, %[[K]] : (tensor<2x4xf16>, tensor<1x4xf16>) -> tensor<2x4xf16>
coreai.graph @finfo_min_mask(%x: tensor<2x4xf32>) -> tensor<2x4xf32> {
  %k = coreai.constant dense<-3.40282347E+38> : tensor<1x4xf32>
  %m = coreai.decomposable.broadcasting_add %x, %k : (tensor<2x4xf32>, tensor<1x4xf32>) -> tensor<2x4xf32>
  coreai.output %m : tensor<2x4xf32>
}

// -----

// An argsort or argmax of an f16 value widened to f32 orders the f16 value
// (the same positions); its axis and flags are not compared.
// CHECK-LABEL: coreai.graph @orderings(
// CHECK:         %[[E:.*]] = coreai.exp %{{.*}} : tensor<2x4xf16> -> tensor<2x4xf16>
// CHECK:         coreai.argsort %[[E]], %{{.*}}, %{{.*}}, %{{.*}} : (tensor<2x4xf16>, tensor<si32>, tensor<i1>, tensor<i1>) -> tensor<2x4xsi32>
// CHECK:         coreai.argmax %[[E]]
// CHECK-SAME:      tensor<2x4xf16>
// NONE-LABEL: coreai.graph @orderings(
// KEEP-LABEL: coreai.graph @orderings(
// KEEP:          coreai.argsort %{{.*}} : (tensor<2x4xf32>,
coreai.graph @orderings(%x: tensor<2x4xf32>) -> (tensor<2x4xsi32>, tensor<2x1xui32>) {
  %axis = coreai.constant dense<1> : tensor<si32>
  %t = coreai.constant dense<true> : tensor<i1>
  %e = coreai.exp %x : tensor<2x4xf32> -> tensor<2x4xf32>
  %p = coreai.argsort %e, %axis, %t, %t : (tensor<2x4xf32>, tensor<si32>, tensor<i1>, tensor<i1>) -> tensor<2x4xsi32>
  %m = coreai.argmax %e, %axis : (tensor<2x4xf32>, tensor<si32>) -> tensor<2x1xui32>
  coreai.output %p, %m : tensor<2x4xsi32>, tensor<2x1xui32>
}

// -----

// A comparison compares in f16 only when every float operand is exact
// there: against 0.1 (not an f16 value) it stays in f32 on the widened
// value; against 2.0 and against another widened value it narrows; with
// keep-f32=greater every greater stays.
// CHECK-LABEL: coreai.graph @comparisons(
// CHECK:         coreai.decomposable.broadcasting_greater %{{.*}}, %{{.*}} : (tensor<4xf32>, tensor<f32>) -> tensor<4xi1>
// CHECK:         coreai.decomposable.broadcasting_greater %{{.*}}, %{{.*}} : (tensor<4xf16>, tensor<f16>) -> tensor<4xi1>
// CHECK:         coreai.decomposable.broadcasting_equal %{{.*}}, %{{.*}} : (tensor<4xf16>, tensor<4xf16>) -> tensor<4xi1>
// NONE-LABEL: coreai.graph @comparisons(
// KEEP-LABEL: coreai.graph @comparisons(
// KEEP-COUNT-2: coreai.decomposable.broadcasting_greater %{{.*}}, %{{.*}} : (tensor<4xf32>, tensor<f32>) -> tensor<4xi1>
coreai.graph @comparisons(%x: tensor<4xf32>) -> (tensor<4xi1>, tensor<4xi1>, tensor<4xi1>) {
  %tenth = coreai.constant dense<1.000000e-01> : tensor<f32>
  %two = coreai.constant dense<2.000000e+00> : tensor<f32>
  %e = coreai.exp %x : tensor<4xf32> -> tensor<4xf32>
  %s = coreai.sin %x : tensor<4xf32> -> tensor<4xf32>
  %a = coreai.decomposable.broadcasting_greater %e, %tenth : (tensor<4xf32>, tensor<f32>) -> tensor<4xi1>
  %b = coreai.decomposable.broadcasting_greater %e, %two : (tensor<4xf32>, tensor<f32>) -> tensor<4xi1>
  %c = coreai.decomposable.broadcasting_equal %e, %s : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
  coreai.output %a, %b, %c : tensor<4xi1>, tensor<4xi1>, tensor<4xi1>
}
