// RUN: coreai-opt %s --split-input-file --pass-pipeline='builtin.module(core-optimize)' | FileCheck %s --enable-var-scope
// RUN: coreai-opt %s --split-input-file --pass-pipeline='builtin.module(core-optimize{exact=true})' | FileCheck %s --check-prefix=EXACT --enable-var-scope
// RUN: coreai-opt %s --split-input-file --pass-pipeline='builtin.module(core-optimize{trace-rewrites=true})' 2>&1 >/dev/null | FileCheck %s --check-prefix=TRACE
// RUN: coreai-opt %s --split-input-file --pass-pipeline='builtin.module(core-optimize{max-rewrites=1})' | FileCheck %s --check-prefix=FIRST --enable-var-scope
// Printing options do not change what merges (graphs are compared by their
// own text, printed with every option that changes it set).
// RUN: coreai-opt %s --split-input-file --pass-pipeline='builtin.module(core-optimize)' --mlir-print-debuginfo --mlir-elide-elementsattrs-if-larger=1 | FileCheck %s --check-prefix=FLAGS

// Constant folding computes with the executor's kernels.
// CHECK-LABEL: coreai.graph @fold_add(
// CHECK-NEXT:    %[[C:.*]] = coreai.constant dense<[1.500000e+00, 0xFF800000]> : tensor<2xf32>
// CHECK-NEXT:    coreai.output %[[C]]
coreai.graph @fold_add() -> tensor<2xf32> {
  %a = coreai.constant dense<[1.0, 0xFF800000]> : tensor<2xf32>
  %b = coreai.constant dense<0.5> : tensor<f32>
  %0 = coreai.decomposable.broadcasting_add %a, %b : (tensor<2xf32>, tensor<f32>) -> tensor<2xf32>
  coreai.output %0 : tensor<2xf32>
}

// -----

// A float → int → float round trip on constants folds to the truncated
// values, -0.4 to +0.0 (never to the identity: §9.7 #6).
// CHECK-LABEL: coreai.graph @fold_cast_round_trip(
// CHECK-NEXT:    %[[C:.*]] = coreai.constant dense<[0.000000e+00, 0.000000e+00, 2.000000e+00]> : tensor<3xf32>
// CHECK-NEXT:    coreai.output %[[C]]
coreai.graph @fold_cast_round_trip() -> tensor<3xf32> {
  %a = coreai.constant dense<[0.3, -0.4, 2.7]> : tensor<3xf32>
  %0 = coreai.cast %a : tensor<3xf32> to tensor<3xsi32>
  %1 = coreai.cast %0 : tensor<3xsi32> to tensor<3xf32>
  coreai.output %1 : tensor<3xf32>
}

// -----

// Does not fire: a float → int → float round trip is not an identity.
// CHECK-LABEL: coreai.graph @cast_round_trip_kept(
// CHECK:         coreai.cast %{{.*}} : tensor<3xf32> to tensor<3xsi32>
// CHECK:         coreai.cast %{{.*}} : tensor<3xsi32> to tensor<3xf32>
coreai.graph @cast_round_trip_kept(%x: tensor<3xf32>) -> tensor<3xf32> {
  %0 = coreai.cast %x : tensor<3xf32> to tensor<3xsi32>
  %1 = coreai.cast %0 : tensor<3xsi32> to tensor<3xf32>
  coreai.output %1 : tensor<3xf32>
}

// -----

// Widen then narrow back is the identity.
// CHECK-LABEL: coreai.graph @widen_then_narrow(
// CHECK-SAME:    %[[X:[^:]*]]: tensor<3xf16>
// CHECK-NOT:     coreai.cast
// CHECK:         coreai.output %[[X]]
coreai.graph @widen_then_narrow(%x: tensor<3xf16>) -> tensor<3xf16> {
  %0 = coreai.cast %x : tensor<3xf16> to tensor<3xf32>
  %1 = coreai.cast %0 : tensor<3xf32> to tensor<3xf16>
  coreai.output %1 : tensor<3xf16>
}

// -----

// Does not fire: narrow then widen loses values.
// CHECK-LABEL: coreai.graph @narrow_then_widen_kept(
// CHECK-COUNT-2: coreai.cast
coreai.graph @narrow_then_widen_kept(%x: tensor<3xf32>) -> tensor<3xf32> {
  %0 = coreai.cast %x : tensor<3xf32> to tensor<3xf16>
  %1 = coreai.cast %0 : tensor<3xf16> to tensor<3xf32>
  coreai.output %1 : tensor<3xf32>
}

// -----

// Does not fire: an int64 accumulator is never narrowed.
// CHECK-LABEL: coreai.graph @int64_sum_kept(
// CHECK:         coreai.cast %{{.*}} : tensor<4xsi32> to tensor<4xsi64>
// CHECK:         coreai.reduce_sum %{{.*}} : (tensor<4xsi64>, tensor<1xsi32>) -> tensor<1xsi64>
coreai.graph @int64_sum_kept(%x: tensor<4xsi32>) -> tensor<1xsi64> {
  %axes = coreai.constant dense<0> : tensor<1xsi32>
  %0 = coreai.cast %x : tensor<4xsi32> to tensor<4xsi64>
  %1 = coreai.reduce_sum %0, %axes : (tensor<4xsi64>, tensor<1xsi32>) -> tensor<1xsi64>
  coreai.output %1 : tensor<1xsi64>
}

// -----

// Does not fire: floor division by 1 floors (§9.7 #7's fold).
// CHECK-LABEL: coreai.graph @floor_divide_by_one_kept(
// CHECK:         coreai.decomposable.broadcasting_floor_divide
coreai.graph @floor_divide_by_one_kept(%x: tensor<3xf32>) -> tensor<3xf32> {
  %one = coreai.constant dense<1.0> : tensor<f32>
  %0 = coreai.decomposable.broadcasting_floor_divide %x, %one : (tensor<3xf32>, tensor<f32>) -> tensor<3xf32>
  coreai.output %0 : tensor<3xf32>
}

// -----

// x * 1, x + (-0.0), x - 0.0 and x / 1 are x.
// CHECK-LABEL: coreai.graph @neutral_constants(
// CHECK-SAME:    %[[X:[^:]*]]: tensor<3xf32>
// CHECK-NOT:     coreai.decomposable
// CHECK:         coreai.output %[[X]], %[[X]], %[[X]], %[[X]]
coreai.graph @neutral_constants(%x: tensor<3xf32>) -> (tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) {
  %one = coreai.constant dense<1.0> : tensor<f32>
  %nz = coreai.constant dense<-0.0> : tensor<f32>
  %z = coreai.constant dense<0.0> : tensor<f32>
  %0 = coreai.decomposable.broadcasting_mul %one, %x : (tensor<f32>, tensor<3xf32>) -> tensor<3xf32>
  %1 = coreai.decomposable.broadcasting_add %x, %nz : (tensor<3xf32>, tensor<f32>) -> tensor<3xf32>
  %2 = coreai.decomposable.broadcasting_sub %x, %z : (tensor<3xf32>, tensor<f32>) -> tensor<3xf32>
  %3 = coreai.decomposable.broadcasting_divide %x, %one : (tensor<3xf32>, tensor<f32>) -> tensor<3xf32>
  coreai.output %0, %1, %2, %3 : tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>
}

// -----

// Does not fire: x + 0.0 turns -0.0 into +0.0; x - (-0.0) likewise; a
// neutral constant that broadcasts x larger.
// CHECK-LABEL: coreai.graph @not_neutral(
// CHECK-COUNT-2: coreai.decomposable.broadcasting_add
// CHECK:         coreai.decomposable.broadcasting_sub
// CHECK:         coreai.decomposable.broadcasting_mul
coreai.graph @not_neutral(%x: tensor<3xf32>) -> (tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<2x3xf32>) {
  %z = coreai.constant dense<0.0> : tensor<f32>
  %nz = coreai.constant dense<-0.0> : tensor<f32>
  %ones = coreai.constant dense<1.0> : tensor<2x3xf32>
  %0 = coreai.decomposable.broadcasting_add %x, %z : (tensor<3xf32>, tensor<f32>) -> tensor<3xf32>
  %1 = coreai.decomposable.broadcasting_add %z, %x : (tensor<f32>, tensor<3xf32>) -> tensor<3xf32>
  %2 = coreai.decomposable.broadcasting_sub %x, %nz : (tensor<3xf32>, tensor<f32>) -> tensor<3xf32>
  %3 = coreai.decomposable.broadcasting_mul %x, %ones : (tensor<3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  coreai.output %0, %1, %2, %3 : tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<2x3xf32>
}

// -----

// Integer x + 0 and x * 1 are x.
// CHECK-LABEL: coreai.graph @int_neutral(
// CHECK-SAME:    %[[X:[^:]*]]: tensor<3xsi32>
// CHECK:         coreai.output %[[X]], %[[X]]
coreai.graph @int_neutral(%x: tensor<3xsi32>) -> (tensor<3xsi32>, tensor<3xsi32>) {
  %z = coreai.constant dense<0> : tensor<si32>
  %one = coreai.constant dense<1> : tensor<si32>
  %0 = coreai.decomposable.broadcasting_add %x, %z : (tensor<3xsi32>, tensor<si32>) -> tensor<3xsi32>
  %1 = coreai.decomposable.broadcasting_mul %x, %one : (tensor<3xsi32>, tensor<si32>) -> tensor<3xsi32>
  coreai.output %0, %1 : tensor<3xsi32>, tensor<3xsi32>
}

// -----

// reshape of reshape is one reshape; reshape to the same type is x.
// CHECK-LABEL: coreai.graph @reshapes(
// CHECK-SAME:    %[[X:[^:]*]]: tensor<6x4xf32>
// CHECK:         %[[S:.*]] = coreai.constant dense<[2, 12]> : tensor<2xui32>
// CHECK:         %[[R:.*]] = coreai.reshape %[[X]], %[[S]] : (tensor<6x4xf32>, tensor<2xui32>) -> tensor<2x12xf32>
// CHECK-NOT:     coreai.reshape
// CHECK:         coreai.output %[[R]], %[[X]]
coreai.graph @reshapes(%x: tensor<6x4xf32>) -> (tensor<2x12xf32>, tensor<6x4xf32>) {
  %s1 = coreai.constant dense<[24]> : tensor<1xui32>
  %s2 = coreai.constant dense<[2, 12]> : tensor<2xui32>
  %s3 = coreai.constant dense<[6, 4]> : tensor<2xui32>
  %0 = coreai.reshape %x, %s1 : (tensor<6x4xf32>, tensor<1xui32>) -> tensor<24xf32>
  %1 = coreai.reshape %0, %s2 : (tensor<24xf32>, tensor<2xui32>) -> tensor<2x12xf32>
  %2 = coreai.reshape %x, %s3 : (tensor<6x4xf32>, tensor<2xui32>) -> tensor<6x4xf32>
  coreai.output %1, %2 : tensor<2x12xf32>, tensor<6x4xf32>
}

// -----

// shrink_dims of expand_dims is a reshape to x's shape, hence x.
// CHECK-LABEL: coreai.graph @expand_then_shrink(
// CHECK-SAME:    %[[X:[^:]*]]: tensor<2x5xf32>
// CHECK-NOT:     coreai.expand_dims
// CHECK-NOT:     coreai.shrink_dims
// CHECK-NOT:     coreai.reshape
// CHECK:         coreai.output %[[X]]
coreai.graph @expand_then_shrink(%x: tensor<2x5xf32>) -> tensor<2x5xf32> {
  %axis = coreai.constant dense<1> : tensor<1xsi32>
  %0 = coreai.expand_dims %x, %axis : (tensor<2x5xf32>, tensor<1xsi32>) to tensor<2x1x5xf32>
  %1 = coreai.shrink_dims %0, %axis : (tensor<2x1x5xf32>, tensor<1xsi32>) to tensor<2x5xf32>
  coreai.output %1 : tensor<2x5xf32>
}

// -----

// A reshape that only adds leading 1s to a broadcasting operand goes when
// another operand keeps the result's rank; when every operand would be of
// lower rank it stays (coreai's result rank is the operands' broadcast rank).
// CHECK-LABEL: coreai.graph @broadcast_operand_reshape(
// CHECK-SAME:    %[[X:[^:]*]]: tensor<2x5xf32>, %[[Y:[^:]*]]: tensor<1x2x5xf32>
// CHECK-NOT:     coreai.reshape
// CHECK:         coreai.decomposable.broadcasting_add %[[X]], %[[Y]] : (tensor<2x5xf32>, tensor<1x2x5xf32>) -> tensor<1x2x5xf32>
coreai.graph @broadcast_operand_reshape(%x: tensor<2x5xf32>, %y: tensor<1x2x5xf32>) -> tensor<1x2x5xf32> {
  %s = coreai.constant dense<[1, 2, 5]> : tensor<3xui32>
  %r = coreai.reshape %x, %s : (tensor<2x5xf32>, tensor<3xui32>) -> tensor<1x2x5xf32>
  %0 = coreai.decomposable.broadcasting_add %r, %y : (tensor<1x2x5xf32>, tensor<1x2x5xf32>) -> tensor<1x2x5xf32>
  coreai.output %0 : tensor<1x2x5xf32>
}

// -----

// CHECK-LABEL: coreai.graph @broadcast_operand_reshape_kept(
// CHECK:         %[[R:.*]] = coreai.reshape
// CHECK:         coreai.decomposable.broadcasting_divide %[[R]], {{.*}} : (tensor<1x2x5x5xf32>, tensor<f32>) -> tensor<1x2x5x5xf32>
coreai.graph @broadcast_operand_reshape_kept(%x: tensor<2x5x5xf32>, %c: tensor<f32>) -> tensor<1x2x5x5xf32> {
  %s = coreai.constant dense<[1, 2, 5, 5]> : tensor<4xui32>
  %r = coreai.reshape %x, %s : (tensor<2x5x5xf32>, tensor<4xui32>) -> tensor<1x2x5x5xf32>
  %0 = coreai.decomposable.broadcasting_divide %r, %c : (tensor<1x2x5x5xf32>, tensor<f32>) -> tensor<1x2x5x5xf32>
  coreai.output %0 : tensor<1x2x5x5xf32>
}

// -----

// transpose of transpose composes; the identity permutation is x.
// CHECK-LABEL: coreai.graph @transposes(
// CHECK-SAME:    %[[X:[^:]*]]: tensor<2x3x4xf32>
// CHECK:         %[[P:.*]] = coreai.constant dense<[2, 0, 1]> : tensor<3xui32>
// CHECK:         %[[T:.*]] = coreai.transpose %[[X]], %[[P]] : (tensor<2x3x4xf32>, tensor<3xui32>) -> tensor<4x2x3xf32>
// CHECK-NOT:     coreai.transpose
// CHECK:         coreai.output %[[T]], %[[X]]
coreai.graph @transposes(%x: tensor<2x3x4xf32>) -> (tensor<4x2x3xf32>, tensor<2x3x4xf32>) {
  %p = coreai.constant dense<[1, 2, 0]> : tensor<3xui32>
  %q = coreai.constant dense<[1, 0, 2]> : tensor<3xui32>
  %id = coreai.constant dense<[0, 1, 2]> : tensor<3xui32>
  %0 = coreai.transpose %x, %p : (tensor<2x3x4xf32>, tensor<3xui32>) -> tensor<3x4x2xf32>
  %1 = coreai.transpose %0, %q : (tensor<3x4x2xf32>, tensor<3xui32>) -> tensor<4x3x2xf32>
  %2 = coreai.transpose %1, %q : (tensor<4x3x2xf32>, tensor<3xui32>) -> tensor<3x4x2xf32>
  %3 = coreai.transpose %2, %p : (tensor<3x4x2xf32>, tensor<3xui32>) -> tensor<4x2x3xf32>
  %4 = coreai.transpose %x, %id : (tensor<2x3x4xf32>, tensor<3xui32>) -> tensor<2x3x4xf32>
  coreai.output %3, %4 : tensor<4x2x3xf32>, tensor<2x3x4xf32>
}

// -----

// A full slice with stride 1, a broadcast to the same shape and a concat
// of one tensor are x; a full slice with stride -1 reverses: kept.
// CHECK-LABEL: coreai.graph @shape_identities(
// CHECK-SAME:    %[[X:[^:]*]]: tensor<4xf32>
// CHECK:         %[[REV:.*]] = coreai.slice
// CHECK-NOT:     coreai.broadcast_to
// CHECK-NOT:     coreai.concat
// CHECK:         coreai.output %[[X]], %[[X]], %[[X]], %[[REV]]
coreai.graph @shape_identities(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {
  %b = coreai.constant dense<0> : tensor<1xsi32>
  %e = coreai.constant dense<4> : tensor<1xsi32>
  %s = coreai.constant dense<1> : tensor<1xsi32>
  %rb = coreai.constant dense<3> : tensor<1xsi32>
  %re = coreai.constant dense<-5> : tensor<1xsi32>
  %rs = coreai.constant dense<-1> : tensor<1xsi32>
  %shape = coreai.constant dense<4> : tensor<1xui32>
  %axis = coreai.constant dense<0> : tensor<si32>
  %0 = coreai.slice %x, %b, %e, %s : (tensor<4xf32>, tensor<1xsi32>, tensor<1xsi32>, tensor<1xsi32>) -> tensor<4xf32>
  %1 = coreai.broadcast_to %x, %shape : (tensor<4xf32>, tensor<1xui32>) -> tensor<4xf32>
  %2 = coreai.concat %axis, %x : (tensor<si32>, tensor<4xf32>) -> tensor<4xf32>
  %3 = coreai.slice %x, %rb, %re, %rs : (tensor<4xf32>, tensor<1xsi32>, tensor<1xsi32>, tensor<1xsi32>) -> tensor<4xf32>
  coreai.output %0, %1, %2, %3 : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}

// -----

// With dynamic dims the same type is not the same shape: a slice by
// run-time bounds, a broadcast or tile of `?x4`, a reshape `?x?` → `?x?`
// are kept; a slice taking the dynamic dim whole by constants is x.
// CHECK-LABEL: coreai.graph @dynamic_same_type(
// CHECK-SAME:    %[[X:[^:]*]]: tensor<?x4xf32>
// CHECK:         %[[S:.*]] = coreai.slice %[[X]], %arg2
// CHECK:         %[[B:.*]] = coreai.broadcast_to %[[X]]
// CHECK:         %[[T:.*]] = coreai.tile %[[X]]
// CHECK:         %[[R:.*]] = coreai.reshape %arg1
// CHECK:         coreai.output %[[S]], %[[X]], %[[B]], %[[T]], %[[R]]
coreai.graph @dynamic_same_type(%x: tensor<?x4xf32>, %y: tensor<?x?xf32>, %b: tensor<2xsi32>, %shape: tensor<2xui32>, %ys: tensor<2xsi32>) -> (tensor<?x4xf32>, tensor<?x4xf32>, tensor<?x4xf32>, tensor<?x4xf32>, tensor<?x?xf32>) {
  %zero = coreai.constant dense<0> : tensor<2xsi32>
  %end = coreai.constant dense<2147483647> : tensor<2xsi32>
  %one = coreai.constant dense<1> : tensor<2xsi32>
  %reps = coreai.constant dense<[2, 1]> : tensor<2xui32>
  %0 = coreai.slice %x, %b, %end, %one : (tensor<?x4xf32>, tensor<2xsi32>, tensor<2xsi32>, tensor<2xsi32>) -> tensor<?x4xf32>
  %1 = coreai.slice %x, %zero, %end, %one : (tensor<?x4xf32>, tensor<2xsi32>, tensor<2xsi32>, tensor<2xsi32>) -> tensor<?x4xf32>
  %2 = coreai.broadcast_to %x, %shape : (tensor<?x4xf32>, tensor<2xui32>) -> tensor<?x4xf32>
  %3 = coreai.tile %x, %reps : (tensor<?x4xf32>, tensor<2xui32>) -> tensor<?x4xf32>
  %4 = coreai.reshape %y, %ys : (tensor<?x?xf32>, tensor<2xsi32>) -> tensor<?x?xf32>
  coreai.output %0, %1, %2, %3, %4 : tensor<?x4xf32>, tensor<?x4xf32>, tensor<?x4xf32>, tensor<?x4xf32>, tensor<?x?xf32>
}

// -----

// Dead ops and private graphs no one calls are erased; a public graph and
// a called private one stay.
// CHECK-NOT:   @unused
// CHECK-LABEL: coreai.graph private @used(
// CHECK-LABEL: coreai.graph @dead_code(
// CHECK-NOT:     coreai.exp
// CHECK:         coreai.invoke @used
coreai.graph private @unused(%x: tensor<2xf32>) -> tensor<2xf32> {
  coreai.output %x : tensor<2xf32>
}
coreai.graph private @used(%x: tensor<2xf32>) -> tensor<2xf32> {
  %0 = coreai.abs %x : tensor<2xf32> -> tensor<2xf32>
  coreai.output %0 : tensor<2xf32>
}
coreai.graph @dead_code(%x: tensor<2xf32>) -> tensor<2xf32> {
  %0 = coreai.exp %x : tensor<2xf32> -> tensor<2xf32>
  %1 = coreai.invoke @used(%x) : (tensor<2xf32>) -> tensor<2xf32>
  coreai.output %1 : tensor<2xf32>
}

// -----

// Equal constants and blobs with equal bytes merge; identical private
// graphs merge into the first.
// CHECK-LABEL: coreai.graph private @g(
// CHECK-NOT:   @g_1
// FLAGS-LABEL: coreai.graph private @g(
// FLAGS-NOT:   @g_1
// FLAGS-LABEL: coreai.graph @dedup(
// CHECK-LABEL: coreai.graph @dedup(
// CHECK:         %[[W:.*]] = coreai.constant dense_resource<w1>
// CHECK-NOT:     coreai.constant
// CHECK:         %[[A:.*]] = coreai.invoke @g(%[[W]])
// CHECK:         %[[B:.*]] = coreai.invoke @g(%[[W]])
coreai.graph private @g(%x: tensor<2xf32>) -> tensor<2xf32> {
  %0 = coreai.abs %x : tensor<2xf32> -> tensor<2xf32>
  coreai.output %0 : tensor<2xf32>
}
coreai.graph private @g_1(%x: tensor<2xf32>) -> tensor<2xf32> {
  %0 = coreai.abs %x : tensor<2xf32> -> tensor<2xf32>
  coreai.output %0 : tensor<2xf32>
}
coreai.graph @dedup() -> (tensor<2xf32>, tensor<2xf32>) {
  %w1 = coreai.constant dense_resource<w1> : tensor<2xf32>
  %w2 = coreai.constant dense_resource<w2> : tensor<2xf32>
  %0 = coreai.invoke @g(%w1) : (tensor<2xf32>) -> tensor<2xf32>
  %1 = coreai.invoke @g_1(%w2) : (tensor<2xf32>) -> tensor<2xf32>
  coreai.output %0, %1 : tensor<2xf32>, tensor<2xf32>
}
{-#
  dialect_resources: {
    builtin: {
      w1: "0x040000000000803F000000C0",
      w2: "0x040000000000803F000000C0"
    }
  }
#-}

// -----

// Fires: identical composite graphs (same declaration, same body) share one
// graph, as in coreai-torch's to_coreai() output; the body is not inlined.
// CHECK-LABEL: coreai.graph private noinline @c(
// CHECK-SAME:    composite_decl
// CHECK:         coreai.abs
// CHECK-NOT:   @c_1(
// CHECK-LABEL: coreai.graph @two_composites(
// CHECK:         coreai.invoke @c(
// CHECK:         coreai.invoke @c(
coreai.graph private noinline @c(%x: tensor<2xf32>) -> tensor<2xf32> attributes {composite_decl = #coreai.composite_declaration<"rms_norm" = {input_names = ["x"], op_attrs = {version = 1 : si64}, output_names = ["y"]}>} {
  %0 = coreai.abs %x : tensor<2xf32> -> tensor<2xf32>
  coreai.output %0 : tensor<2xf32>
}
coreai.graph private noinline @c_1(%x: tensor<2xf32>) -> tensor<2xf32> attributes {composite_decl = #coreai.composite_declaration<"rms_norm" = {input_names = ["x"], op_attrs = {version = 1 : si64}, output_names = ["y"]}>} {
  %0 = coreai.abs %x : tensor<2xf32> -> tensor<2xf32>
  coreai.output %0 : tensor<2xf32>
}
coreai.graph @two_composites(%x: tensor<2xf32>) -> tensor<2xf32> {
  %0 = coreai.invoke @c(%x) : (tensor<2xf32>) -> tensor<2xf32>
  %1 = coreai.invoke @c_1(%0) : (tensor<2xf32>) -> tensor<2xf32>
  coreai.output %1 : tensor<2xf32>
}

// -----

// Does not fire: composite graphs with the same body but different
// declarations (op_attrs) are different contracts and stay apart.
// CHECK-LABEL: coreai.graph private noinline @d(
// CHECK-LABEL: coreai.graph private noinline @d_1(
// CHECK-LABEL: coreai.graph @two_contracts(
// CHECK:         coreai.invoke @d(
// CHECK:         coreai.invoke @d_1(
coreai.graph private noinline @d(%x: tensor<2xf32>) -> tensor<2xf32> attributes {composite_decl = #coreai.composite_declaration<"rms_norm" = {input_names = ["x"], op_attrs = {eps = 1.000000e-06 : f32}, output_names = ["y"]}>} {
  %0 = coreai.abs %x : tensor<2xf32> -> tensor<2xf32>
  coreai.output %0 : tensor<2xf32>
}
coreai.graph private noinline @d_1(%x: tensor<2xf32>) -> tensor<2xf32> attributes {composite_decl = #coreai.composite_declaration<"rms_norm" = {input_names = ["x"], op_attrs = {eps = 1.000000e-05 : f32}, output_names = ["y"]}>} {
  %0 = coreai.abs %x : tensor<2xf32> -> tensor<2xf32>
  coreai.output %0 : tensor<2xf32>
}
coreai.graph @two_contracts(%x: tensor<2xf32>) -> tensor<2xf32> {
  %0 = coreai.invoke @d(%x) : (tensor<2xf32>) -> tensor<2xf32>
  %1 = coreai.invoke @d_1(%0) : (tensor<2xf32>) -> tensor<2xf32>
  coreai.output %1 : tensor<2xf32>
}

// -----

// Does not fire: blobs with different bytes stay apart.
// CHECK-LABEL: coreai.graph @blobs_differ(
// CHECK-COUNT-2: coreai.constant dense_resource
coreai.graph @blobs_differ() -> (tensor<2xf32>, tensor<2xf32>) {
  %w1 = coreai.constant dense_resource<v1> : tensor<2xf32>
  %w2 = coreai.constant dense_resource<v2> : tensor<2xf32>
  coreai.output %w1, %w2 : tensor<2xf32>, tensor<2xf32>
}
{-#
  dialect_resources: {
    builtin: {
      v1: "0x040000000000803F000000C0",
      v2: "0x040000000000803F000000C1"
    }
  }
#-}

// -----

// Does not fire: a composite call stays a call, even with constant
// arguments (the pass folds no calls; its body is optimized in place).
// CHECK-LABEL: coreai.graph private noinline @rms(
// CHECK-LABEL: coreai.graph @composite_kept(
// CHECK:         coreai.invoke @rms
coreai.graph private noinline @rms(%x: tensor<2xf32>) -> tensor<2xf32> attributes {composite_decl = #coreai.composite_declaration<"rms_norm" = {input_names = ["x"], op_attrs = {version = 1 : si64}, output_names = ["y"]}>} {
  %0 = coreai.abs %x : tensor<2xf32> -> tensor<2xf32>
  coreai.output %0 : tensor<2xf32>
}
coreai.graph @composite_kept() -> tensor<2xf32> {
  %c = coreai.constant dense<[1.0, -2.0]> : tensor<2xf32>
  %0 = coreai.invoke @rms(%c) : (tensor<2xf32>) -> tensor<2xf32>
  coreai.output %0 : tensor<2xf32>
}

// -----

// Batch norm after a convolution folds into its weights and a bias add
// (value-changing: not under exact=true).
// CHECK-LABEL: coreai.graph @batch_norm_into_conv(
// CHECK-SAME:    %[[X:[^:]*]]: tensor<1x2x3x3xf32>
// CHECK:         %[[W:.*]] = coreai.constant dense<{{\[\[\[\[}}0.999998807]], {{\[\[}}1.99999762]]], {{\[\[\[}}1.49999249]], {{\[\[}}1.999990e+00]]]]> : tensor<2x2x1x1xf32>
// CHECK:         %[[C:.*]] = coreai.conv2d %[[X]], %[[W]]
// CHECK:         %[[B:.*]] = coreai.constant dense<{{\[\[\[\[}}0.500000596]], {{\[\[}}-1.1249994]]]]> : tensor<1x2x1x1xf32>
// CHECK:         %[[Y:.*]] = coreai.decomposable.broadcasting_add %[[C]], %[[B]]
// CHECK-NOT:     coreai.invoke
// CHECK:         coreai.output %[[Y]]
// EXACT-LABEL: coreai.graph @batch_norm_into_conv(
// EXACT:         coreai.conv2d
// EXACT:         coreai.invoke @batch_norm
coreai.graph private noinline @batch_norm(%x: tensor<1x2x3x3xf32>, %g: tensor<2xf32>, %b: tensor<2xf32>, %m: tensor<2xf32>, %v: tensor<2xf32>) -> tensor<1x2x3x3xf32> attributes {composite_decl = #coreai.composite_declaration<"batch_norm" = {input_names = ["input", "gamma", "beta", "mean", "variance"], op_attrs = {eps = 9.99999974E-6 : f32, version = 1 : si64}, output_names = ["output"]}>} {
  coreai.output %x : tensor<1x2x3x3xf32>
}
coreai.graph @batch_norm_into_conv(%x: tensor<1x2x3x3xf32>) -> tensor<1x2x3x3xf32> {
  %w = coreai.constant dense<[[[[1.0]], [[2.0]]], [[[3.0]], [[4.0]]]]> : tensor<2x2x1x1xf32>
  %strides = coreai.constant dense<1> : tensor<2xui32>
  %dil = coreai.constant dense<1> : tensor<2xui32>
  %groups = coreai.constant dense<1> : tensor<ui32>
  %g = coreai.constant dense<[2.0, 0.5]> : tensor<2xf32>
  %b = coreai.constant dense<[1.0, -1.0]> : tensor<2xf32>
  %m = coreai.constant dense<[0.5, 0.25]> : tensor<2xf32>
  %v = coreai.constant dense<[4.0, 1.0]> : tensor<2xf32>
  %0 = coreai.conv2d %x, %w, %strides, %dil, %groups : (tensor<1x2x3x3xf32>, tensor<2x2x1x1xf32>, tensor<2xui32>, tensor<2xui32>, tensor<ui32>) -> tensor<1x2x3x3xf32>
  %1 = coreai.invoke @batch_norm(%0, %g, %b, %m, %v) : (tensor<1x2x3x3xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<1x2x3x3xf32>
  coreai.output %1 : tensor<1x2x3x3xf32>
}

// -----

// A per-channel constant scale after a convolution and its constant bias
// (ConvNeXt's layer scale) folds into the weights and the bias:
// W' = W * c, b' = b * c (value-changing: not under exact=true).
// CHECK-LABEL: coreai.graph @scale_into_conv(
// CHECK-SAME:    %[[X:[^:]*]]: tensor<1x2x3x3xf32>
// CHECK:         %[[W:.*]] = coreai.constant dense<{{\[\[\[\[}}5.000000e-01]], {{\[\[}}1.000000e+00]]], {{\[\[\[}}9.000000e+00]], {{\[\[}}1.200000e+01]]]]> : tensor<2x2x1x1xf32>
// CHECK:         %[[C:.*]] = coreai.conv2d %[[X]], %[[W]]
// CHECK:         %[[B:.*]] = coreai.constant dense<{{\[\[\[\[}}5.000000e-01]], {{\[\[}}-3.000000e+00]]]]> : tensor<1x2x1x1xf32>
// CHECK:         %[[Y:.*]] = coreai.decomposable.broadcasting_add %[[C]], %[[B]]
// CHECK-NOT:     broadcasting_mul
// CHECK:         coreai.output %[[Y]]
// EXACT-LABEL: coreai.graph @scale_into_conv(
// EXACT:         coreai.conv2d
// EXACT:         coreai.decomposable.broadcasting_add
// EXACT:         coreai.decomposable.broadcasting_mul
coreai.graph @scale_into_conv(%x: tensor<1x2x3x3xf32>) -> tensor<1x2x3x3xf32> {
  %w = coreai.constant dense<[[[[1.0]], [[2.0]]], [[[3.0]], [[4.0]]]]> : tensor<2x2x1x1xf32>
  %strides = coreai.constant dense<1> : tensor<2xui32>
  %dil = coreai.constant dense<1> : tensor<2xui32>
  %groups = coreai.constant dense<1> : tensor<ui32>
  %b = coreai.constant dense<[[[[1.0]], [[-1.0]]]]> : tensor<1x2x1x1xf32>
  %c = coreai.constant dense<[[[[0.5]], [[3.0]]]]> : tensor<1x2x1x1xf32>
  %0 = coreai.conv2d %x, %w, %strides, %dil, %groups : (tensor<1x2x3x3xf32>, tensor<2x2x1x1xf32>, tensor<2xui32>, tensor<2xui32>, tensor<ui32>) -> tensor<1x2x3x3xf32>
  %1 = coreai.decomposable.broadcasting_add %0, %b : (tensor<1x2x3x3xf32>, tensor<1x2x1x1xf32>) -> tensor<1x2x3x3xf32>
  %2 = coreai.decomposable.broadcasting_mul %1, %c : (tensor<1x2x3x3xf32>, tensor<1x2x1x1xf32>) -> tensor<1x2x3x3xf32>
  coreai.output %2 : tensor<1x2x3x3xf32>
}

// -----

// Two constant scales in a row (NFNet's gain, then alpha) become one; a
// scale whose convolution is used elsewhere stays.
// CHECK-LABEL: coreai.graph @scales_merge(
// CHECK-SAME:    %[[X:[^:]*]]: tensor<2x3xf32>
// CHECK:         %[[K:.*]] = coreai.constant dense<4.000000e-01> : tensor<f32>
// CHECK:         %[[Y:.*]] = coreai.decomposable.broadcasting_mul %[[X]], %[[K]]
// CHECK-NOT:     broadcasting_mul
// CHECK:         coreai.output %[[Y]]
// EXACT-LABEL: coreai.graph @scales_merge(
// EXACT-COUNT-2: coreai.decomposable.broadcasting_mul
coreai.graph @scales_merge(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %two = coreai.constant dense<2.0> : tensor<f32>
  %alpha = coreai.constant dense<0.2> : tensor<f32>
  %0 = coreai.decomposable.broadcasting_mul %x, %two : (tensor<2x3xf32>, tensor<f32>) -> tensor<2x3xf32>
  %1 = coreai.decomposable.broadcasting_mul %alpha, %0 : (tensor<f32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  coreai.output %1 : tensor<2x3xf32>
}

// -----

// Scales whose product leaves the type's normal range stay apart: 2^15 *
// 2^9 overflows f16 (x * inf would be NaN at x = 0), 1e-30 * 1e-20 is below
// f32's least normal.
// CHECK-LABEL: coreai.graph @scales_out_of_range(
// CHECK-COUNT-4: coreai.decomposable.broadcasting_mul
// CHECK-NOT:     0x7C00
// CHECK:         coreai.output
coreai.graph @scales_out_of_range(%x: tensor<4xf16>, %y: tensor<4xf32>) -> (tensor<4xf16>, tensor<4xf32>) {
  %a = coreai.constant dense<32768.0> : tensor<f16>
  %b = coreai.constant dense<512.0> : tensor<f16>
  %0 = coreai.decomposable.broadcasting_mul %x, %a : (tensor<4xf16>, tensor<f16>) -> tensor<4xf16>
  %1 = coreai.decomposable.broadcasting_mul %0, %b : (tensor<4xf16>, tensor<f16>) -> tensor<4xf16>
  %c = coreai.constant dense<1.0e-30> : tensor<f32>
  %d = coreai.constant dense<1.0e-20> : tensor<f32>
  %2 = coreai.decomposable.broadcasting_mul %y, %c : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  %3 = coreai.decomposable.broadcasting_mul %2, %d : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  coreai.output %1, %3 : tensor<4xf16>, tensor<4xf32>
}

// -----

// The rewrite driver numbers core-optimize's rewrites in program order
// (trace-rewrites=true prints them); max-rewrites=1 applies only the first:
// the reshape chain collapses, x * 1 stays. Dead code is not a rewrite: the
// first reshape, left unused, is erased either way.
// TRACE:      rewrite core-optimize #1 reshape-of-reshape at loc("second")
// TRACE-NEXT: rewrite core-optimize #2 mul-by-one at loc("mul")
// TRACE-NOT:  rewrite core-optimize #3
// CHECK-LABEL: coreai.graph @numbered(
// CHECK-SAME:    %[[X:[^:]*]]: tensor<6x4xf32>
// CHECK:         %[[R:.*]] = coreai.reshape %[[X]]
// CHECK-NOT:     coreai.reshape
// CHECK-NOT:     broadcasting_mul
// CHECK:         coreai.output %[[R]], %[[X]]
// FIRST-LABEL: coreai.graph @numbered(
// FIRST-SAME:    %[[X:[^:]*]]: tensor<6x4xf32>
// FIRST:         %[[R:.*]] = coreai.reshape %[[X]], %{{.*}} : (tensor<6x4xf32>, tensor<2xui32>) -> tensor<2x12xf32>
// FIRST-NOT:     coreai.reshape
// FIRST:         %[[M:.*]] = coreai.decomposable.broadcasting_mul %[[X]]
// FIRST:         coreai.output %[[R]], %[[M]]
coreai.graph @numbered(%x: tensor<6x4xf32>) -> (tensor<2x12xf32>, tensor<6x4xf32>) {
  %s1 = coreai.constant dense<[24]> : tensor<1xui32>
  %s2 = coreai.constant dense<[2, 12]> : tensor<2xui32>
  %one = coreai.constant dense<1.0> : tensor<f32>
  %0 = coreai.reshape %x, %s1 : (tensor<6x4xf32>, tensor<1xui32>) -> tensor<24xf32> loc("first")
  %1 = coreai.reshape %0, %s2 : (tensor<24xf32>, tensor<2xui32>) -> tensor<2x12xf32> loc("second")
  %2 = coreai.decomposable.broadcasting_mul %x, %one : (tensor<6x4xf32>, tensor<f32>) -> tensor<6x4xf32> loc("mul")
  coreai.output %1, %2 : tensor<2x12xf32>, tensor<6x4xf32>
}

// -----

// Fires: a linear layer on a rank-3 input drops its flattening reshapes;
// the matmul takes x at rank 3 and the bias adds to its rows.
// CHECK-LABEL: coreai.graph @linear_rank3(
// CHECK-SAME:    %[[X:[^:]+]]: tensor<2x3x4xf32>, %[[W:[^:]+]]: tensor<4x5xf32>, %[[B:[^:]+]]: tensor<5xf32>
// CHECK-NOT:     coreai.reshape
// CHECK:         %[[M:.+]] = coreai.decomposable.broadcasting_batch_matmul %[[X]], %[[W]] : (tensor<2x3x4xf32>, tensor<4x5xf32>) -> tensor<2x3x5xf32>
// CHECK:         %[[Y:.+]] = coreai.decomposable.broadcasting_add %[[M]], %[[B]] : (tensor<2x3x5xf32>, tensor<5xf32>) -> tensor<2x3x5xf32>
// CHECK-NOT:     coreai.reshape
// CHECK:         coreai.output %[[Y]]
coreai.graph @linear_rank3(%x: tensor<2x3x4xf32>, %w: tensor<4x5xf32>, %b: tensor<5xf32>) -> tensor<2x3x5xf32> {
  %s1 = coreai.constant dense<[6, 4]> : tensor<2xui32>
  %f = coreai.reshape %x, %s1 : (tensor<2x3x4xf32>, tensor<2xui32>) -> tensor<6x4xf32>
  %m = coreai.decomposable.broadcasting_batch_matmul %f, %w : (tensor<6x4xf32>, tensor<4x5xf32>) -> tensor<6x5xf32>
  %a = coreai.decomposable.broadcasting_add %m, %b : (tensor<6x5xf32>, tensor<5xf32>) -> tensor<6x5xf32>
  %s2 = coreai.constant dense<[2, 3, 5]> : tensor<3xui32>
  %y = coreai.reshape %a, %s2 : (tensor<6x5xf32>, tensor<3xui32>) -> tensor<2x3x5xf32>
  coreai.output %y : tensor<2x3x5xf32>
}

// -----

// Fires without a bias; the reshape after the matmul becomes the one
// shape the result needs.
// CHECK-LABEL: coreai.graph @linear_no_bias(
// CHECK:         %[[M:.+]] = coreai.decomposable.broadcasting_batch_matmul %{{.+}}, %{{.+}} : (tensor<2x3x4xf32>, tensor<4x6xf32>) -> tensor<2x3x6xf32>
// CHECK:         coreai.reshape %[[M]], %{{.+}} : (tensor<2x3x6xf32>, tensor<4xui32>) -> tensor<2x3x2x3xf32>
// CHECK-NOT:     coreai.reshape
coreai.graph @linear_no_bias(%x: tensor<2x3x4xf32>, %w: tensor<4x6xf32>) -> tensor<2x3x2x3xf32> {
  %s1 = coreai.constant dense<[6, 4]> : tensor<2xui32>
  %f = coreai.reshape %x, %s1 : (tensor<2x3x4xf32>, tensor<2xui32>) -> tensor<6x4xf32>
  %m = coreai.decomposable.broadcasting_batch_matmul %f, %w : (tensor<6x4xf32>, tensor<4x6xf32>) -> tensor<6x6xf32>
  %s2 = coreai.constant dense<[2, 3, 2, 3]> : tensor<4xui32>
  %y = coreai.reshape %m, %s2 : (tensor<6x6xf32>, tensor<4xui32>) -> tensor<2x3x2x3xf32>
  coreai.output %y : tensor<2x3x2x3xf32>
}

// -----

// Does not fire: x is rank 6 (a window partition); the flattened product
// stays at rank 2 rather than carry rank 6 into the matmul (the Neural
// Engine takes rank <= 5).
// CHECK-LABEL: coreai.graph @linear_rank6(
// CHECK:         coreai.reshape %{{.+}} -> tensor<16x4xf32>
// CHECK:         coreai.decomposable.broadcasting_batch_matmul %{{.+}} : (tensor<16x4xf32>, tensor<4x5xf32>)
coreai.graph @linear_rank6(%x: tensor<1x2x2x2x2x4xf32>, %w: tensor<4x5xf32>) -> tensor<4x4x5xf32> {
  %s1 = coreai.constant dense<[16, 4]> : tensor<2xui32>
  %f = coreai.reshape %x, %s1 : (tensor<1x2x2x2x2x4xf32>, tensor<2xui32>) -> tensor<16x4xf32>
  %m = coreai.decomposable.broadcasting_batch_matmul %f, %w : (tensor<16x4xf32>, tensor<4x5xf32>) -> tensor<16x5xf32>
  %s2 = coreai.constant dense<[4, 4, 5]> : tensor<3xui32>
  %y = coreai.reshape %m, %s2 : (tensor<16x5xf32>, tensor<3xui32>) -> tensor<4x4x5xf32>
  coreai.output %y : tensor<4x4x5xf32>
}

// -----

// Does not fire: the flattening reshape moves elements across rows (x's
// last dim is not the matmul's K).
// CHECK-LABEL: coreai.graph @not_rows(
// CHECK:         coreai.reshape %{{.+}} -> tensor<3x4xf32>
// CHECK:         coreai.decomposable.broadcasting_batch_matmul %{{.+}} : (tensor<3x4xf32>, tensor<4x5xf32>)
coreai.graph @not_rows(%x: tensor<2x3x2xf32>, %w: tensor<4x5xf32>) -> tensor<2x3x5xf32> {
  %s1 = coreai.constant dense<[3, 4]> : tensor<2xui32>
  %f = coreai.reshape %x, %s1 : (tensor<2x3x2xf32>, tensor<2xui32>) -> tensor<3x4xf32>
  %m = coreai.decomposable.broadcasting_batch_matmul %f, %w : (tensor<3x4xf32>, tensor<4x5xf32>) -> tensor<3x5xf32>
  %s2 = coreai.constant dense<[3, 1, 5]> : tensor<3xui32>
  %y = coreai.reshape %m, %s2 : (tensor<3x5xf32>, tensor<3xui32>) -> tensor<3x1x5xf32>
  %t = coreai.constant dense<[1, 0, 2]> : tensor<3xui32>
  %z = coreai.transpose %y, %t : (tensor<3x1x5xf32>, tensor<3xui32>) -> tensor<1x3x5xf32>
  %s3 = coreai.constant dense<[2, 3, 5]> : tensor<3xui32>
  %o = coreai.broadcast_to %z, %s3 : (tensor<1x3x5xf32>, tensor<3xui32>) -> tensor<2x3x5xf32>
  coreai.output %o : tensor<2x3x5xf32>
}

// -----

// Does not fire: the rank-2 product has another use, so both forms would
// be computed; nor when the bias is a whole [M, N] matrix.
// CHECK-LABEL: coreai.graph @linear_shared(
// CHECK:         coreai.reshape %{{.+}} -> tensor<6x4xf32>
// CHECK-LABEL: coreai.graph @linear_matrix_bias(
// CHECK:         coreai.reshape %{{.+}} -> tensor<6x4xf32>
coreai.graph @linear_shared(%x: tensor<2x3x4xf32>, %w: tensor<4x5xf32>) -> (tensor<2x3x5xf32>, tensor<6x5xf32>) {
  %s1 = coreai.constant dense<[6, 4]> : tensor<2xui32>
  %f = coreai.reshape %x, %s1 : (tensor<2x3x4xf32>, tensor<2xui32>) -> tensor<6x4xf32>
  %m = coreai.decomposable.broadcasting_batch_matmul %f, %w : (tensor<6x4xf32>, tensor<4x5xf32>) -> tensor<6x5xf32>
  %s2 = coreai.constant dense<[2, 3, 5]> : tensor<3xui32>
  %y = coreai.reshape %m, %s2 : (tensor<6x5xf32>, tensor<3xui32>) -> tensor<2x3x5xf32>
  coreai.output %y, %m : tensor<2x3x5xf32>, tensor<6x5xf32>
}
coreai.graph @linear_matrix_bias(%x: tensor<2x3x4xf32>, %w: tensor<4x5xf32>, %b: tensor<6x5xf32>) -> tensor<2x3x5xf32> {
  %s1 = coreai.constant dense<[6, 4]> : tensor<2xui32>
  %f = coreai.reshape %x, %s1 : (tensor<2x3x4xf32>, tensor<2xui32>) -> tensor<6x4xf32>
  %m = coreai.decomposable.broadcasting_batch_matmul %f, %w : (tensor<6x4xf32>, tensor<4x5xf32>) -> tensor<6x5xf32>
  %a = coreai.decomposable.broadcasting_add %m, %b : (tensor<6x5xf32>, tensor<6x5xf32>) -> tensor<6x5xf32>
  %s2 = coreai.constant dense<[2, 3, 5]> : tensor<3xui32>
  %y = coreai.reshape %a, %s2 : (tensor<6x5xf32>, tensor<3xui32>) -> tensor<2x3x5xf32>
  coreai.output %y : tensor<2x3x5xf32>
}

// -----

// Fires on a transposed input (as in attention blocks: x is a strided view
// in the executor, the rank-2 form reads a copy; the bits are the same).
// CHECK-LABEL: coreai.graph @linear_transposed_input(
// CHECK:         coreai.transpose
// CHECK-NEXT:    coreai.decomposable.broadcasting_batch_matmul %{{.+}} : (tensor<5x3x8xf32>, tensor<8x7xf32>) -> tensor<5x3x7xf32>
coreai.graph @linear_transposed_input(%x: tensor<3x5x8xf32>, %w: tensor<8x7xf32>, %b: tensor<1x7xf32>) -> tensor<5x3x7xf32> {
  %p = coreai.constant dense<[1, 0, 2]> : tensor<3xui32>
  %t = coreai.transpose %x, %p : (tensor<3x5x8xf32>, tensor<3xui32>) -> tensor<5x3x8xf32>
  %s1 = coreai.constant dense<[15, 8]> : tensor<2xui32>
  %f = coreai.reshape %t, %s1 : (tensor<5x3x8xf32>, tensor<2xui32>) -> tensor<15x8xf32>
  %m = coreai.decomposable.broadcasting_batch_matmul %f, %w : (tensor<15x8xf32>, tensor<8x7xf32>) -> tensor<15x7xf32>
  %a = coreai.decomposable.broadcasting_add %m, %b : (tensor<15x7xf32>, tensor<1x7xf32>) -> tensor<15x7xf32>
  %s2 = coreai.constant dense<[5, 3, 7]> : tensor<3xui32>
  %y = coreai.reshape %a, %s2 : (tensor<15x7xf32>, tensor<3xui32>) -> tensor<5x3x7xf32>
  coreai.output %y : tensor<5x3x7xf32>
}

// -----

// Fires with one dynamic dim in the result (a -1 entry the reshape infers);
// declines with two, whose sizes a shape constant cannot hold.
// CHECK-LABEL: coreai.graph @dynamic_reshape_chain(
// CHECK-NEXT:    %[[S:.+]] = coreai.constant dense<[-1, 2, 3, 32]> : tensor<4xsi32>
// CHECK-NEXT:    %[[R:.+]] = coreai.reshape %arg0, %[[S]] : (tensor<?x96xf32>, tensor<4xsi32>) -> tensor<?x2x3x32xf32>
// CHECK-NEXT:    coreai.reshape %arg1, %{{.+}} : (tensor<?x?xf32>, tensor<3xsi32>) -> tensor<?x?x1xf32>
// CHECK-NEXT:    coreai.reshape %{{.+}} : (tensor<?x?x1xf32>, tensor<2xsi32>) -> tensor<?x?xf32>
coreai.graph @dynamic_reshape_chain(%x: tensor<?x96xf32>, %y: tensor<?x?xf32>, %s3: tensor<3xsi32>, %s2: tensor<2xsi32>) -> (tensor<?x2x3x32xf32>, tensor<?x?xf32>) {
  %a = coreai.constant dense<[-1, 2, 96]> : tensor<3xsi32>
  %b = coreai.constant dense<[-1, 2, 3, 32]> : tensor<4xsi32>
  %0 = coreai.reshape %x, %a : (tensor<?x96xf32>, tensor<3xsi32>) -> tensor<?x2x96xf32>
  %1 = coreai.reshape %0, %b : (tensor<?x2x96xf32>, tensor<4xsi32>) -> tensor<?x2x3x32xf32>
  %2 = coreai.reshape %y, %s3 : (tensor<?x?xf32>, tensor<3xsi32>) -> tensor<?x?x1xf32>
  %3 = coreai.reshape %2, %s2 : (tensor<?x?x1xf32>, tensor<2xsi32>) -> tensor<?x?xf32>
  coreai.output %1, %3 : tensor<?x2x3x32xf32>, tensor<?x?xf32>
}

// -----

// A folded value of 1 KiB or more becomes a dense_resource blob named after
// its first blob operand (the importer's and Apple's form for weights); one
// repeated element stays a dense splat. The blob is each value doubled
// (exact in f32).
// CHECK-LABEL: coreai.graph @fold_to_blob(
// CHECK-NEXT:    %[[B:.*]] = coreai.constant dense_resource<big.folded> : tensor<256xf32>
// CHECK-NEXT:    %[[S:.*]] = coreai.constant dense<2.000000e+00> : tensor<256xf32>
// CHECK-NEXT:    coreai.output %[[B]], %[[S]]
// CHECK:         big.folded: "0x04000000000049C3000047C3000045C3000043C3000041C300003FC300003DC300003BC3000039C3000037C3000035C3000033C3000031C300002FC300002DC300002BC3000029C3000027C3000025C3000023C3000021C300001FC300001DC300001BC3000019C3000017C3000015C3000013C3000011C300000FC300000DC300000BC3000009C3000007C3000005C3000003C3000001C30000FEC20000FAC20000F6C20000F2C20000EEC20000EAC20000E6C20000E2C20000DEC20000DAC20000D6C20000D2C20000CEC20000CAC20000C6C20000C2C20000BEC20000BAC20000B6C20000B2C20000AEC20000AAC20000A6C20000A2C200009EC200009AC2000096C2000092C200008EC200008AC2000086C2000082C200007CC2000074C200006CC2000064C200005CC2000054C200004CC2000044C200003CC2000034C200002CC2000024C200001CC2000014C200000CC2000004C20000F8C10000E8C10000D8C10000C8C10000B8C10000A8C1000098C1000088C1000070C1000050C1000030C1000010C10000E0C00000A0C0000040C0000080BF0000803F000040400000A0400000E0400000104100003041000050410000704100008841000098410000A8410000B8410000C8410000D8410000E8410000F8410000044200000C420000144200001C420000244200002C420000344200003C420000444200004C420000544200005C420000644200006C420000744200007C42000082420000864200008A4200008E42000092420000964200009A4200009E420000A2420000A6420000AA420000AE420000B2420000B6420000BA420000BE420000C2420000C6420000CA420000CE420000D2420000D6420000DA420000DE420000E2420000E6420000EA420000EE420000F2420000F6420000FA420000FE42000001430000034300000543000007430000094300000B4300000D4300000F43000011430000134300001543000017430000194300001B4300001D4300001F43000021430000234300002543000027430000294300002B4300002D4300002F43000031430000334300003543000037430000394300003B4300003D4300003F43000041430000434300004543000047430000494300004B4300004D4300004F43000051430000534300005543000057430000594300005B4300005D4300005F43000061430000634300006543000067430000694300006B4300006D4300006F43000071430000734300007543000077430000794300007B4300007D4300007F430080804300808143008082430080834300808443008085430080864300808743008088430080894300808A4300808B4300808C4300808D4300808E4300808F430080904300809143008092430080934300809443008095430080964300809743008098430080994300809A43"
coreai.graph @fold_to_blob() -> (tensor<256xf32>, tensor<256xf32>) {
  %w = coreai.constant dense_resource<big> : tensor<256xf32>
  %ones = coreai.constant dense_resource<ones> : tensor<256xf32>
  %two = coreai.constant dense<2.0> : tensor<f32>
  %0 = coreai.decomposable.broadcasting_mul %w, %two : (tensor<256xf32>, tensor<f32>) -> tensor<256xf32>
  %1 = coreai.decomposable.broadcasting_mul %ones, %two : (tensor<256xf32>, tensor<f32>) -> tensor<256xf32>
  coreai.output %0, %1 : tensor<256xf32>, tensor<256xf32>
}
{-#
  dialect_resources: {
    builtin: {
      big: "0x040000000000C9C20000C7C20000C5C20000C3C20000C1C20000BFC20000BDC20000BBC20000B9C20000B7C20000B5C20000B3C20000B1C20000AFC20000ADC20000ABC20000A9C20000A7C20000A5C20000A3C20000A1C200009FC200009DC200009BC2000099C2000097C2000095C2000093C2000091C200008FC200008DC200008BC2000089C2000087C2000085C2000083C2000081C200007EC200007AC2000076C2000072C200006EC200006AC2000066C2000062C200005EC200005AC2000056C2000052C200004EC200004AC2000046C2000042C200003EC200003AC2000036C2000032C200002EC200002AC2000026C2000022C200001EC200001AC2000016C2000012C200000EC200000AC2000006C2000002C20000FCC10000F4C10000ECC10000E4C10000DCC10000D4C10000CCC10000C4C10000BCC10000B4C10000ACC10000A4C100009CC1000094C100008CC1000084C1000078C1000068C1000058C1000048C1000038C1000028C1000018C1000008C10000F0C00000D0C00000B0C0000090C0000060C0000020C00000C0BF000000BF0000003F0000C03F0000204000006040000090400000B0400000D0400000F04000000841000018410000284100003841000048410000584100006841000078410000844100008C410000944100009C410000A4410000AC410000B4410000BC410000C4410000CC410000D4410000DC410000E4410000EC410000F4410000FC41000002420000064200000A4200000E42000012420000164200001A4200001E42000022420000264200002A4200002E42000032420000364200003A4200003E42000042420000464200004A4200004E42000052420000564200005A4200005E42000062420000664200006A4200006E42000072420000764200007A4200007E42000081420000834200008542000087420000894200008B4200008D4200008F42000091420000934200009542000097420000994200009B4200009D4200009F420000A1420000A3420000A5420000A7420000A9420000AB420000AD420000AF420000B1420000B3420000B5420000B7420000B9420000BB420000BD420000BF420000C1420000C3420000C5420000C7420000C9420000CB420000CD420000CF420000D1420000D3420000D5420000D7420000D9420000DB420000DD420000DF420000E1420000E3420000E5420000E7420000E9420000EB420000ED420000EF420000F1420000F3420000F5420000F7420000F9420000FB420000FD420000FF420080004300800143008002430080034300800443008005430080064300800743008008430080094300800A4300800B4300800C4300800D4300800E4300800F430080104300801143008012430080134300801443008015430080164300801743008018430080194300801A43",
      ones: "0x040000000000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F"
    }
  }
#-}

// -----

// where with a splat constant condition is the chosen operand (an attention
// body's all-true mask once inlined); kept when the chosen operand would
// broadcast to the result.
// CHECK-LABEL: coreai.graph @select_by_constant(
// CHECK-SAME:    %[[S:.*]]: tensor<2x3xf32>, %[[T:.*]]: tensor<3xf32>
// CHECK:         %[[W:.*]] = coreai.decomposable.broadcasting_where %{{.*}}, %[[T]], %[[S]]
// CHECK:         coreai.output %[[S]], %[[W]] :
coreai.graph @select_by_constant(%s: tensor<2x3xf32>, %t: tensor<3xf32>) -> (tensor<2x3xf32>, tensor<2x3xf32>) {
  %yes = coreai.constant dense<true> : tensor<1x3xi1>
  %ninf = coreai.constant dense<0xFF800000> : tensor<f32>
  %a = coreai.decomposable.broadcasting_where %yes, %s, %ninf : (tensor<1x3xi1>, tensor<2x3xf32>, tensor<f32>) -> tensor<2x3xf32>
  %b = coreai.decomposable.broadcasting_where %yes, %t, %s : (tensor<1x3xi1>, tensor<3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  coreai.output %a, %b : tensor<2x3xf32>, tensor<2x3xf32>
}
