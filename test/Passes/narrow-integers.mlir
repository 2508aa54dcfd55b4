// RUN: coreai-opt %s --split-input-file --pass-pipeline='builtin.module(narrow-integers{inputs=true})' | FileCheck %s --enable-var-scope
// RUN: coreai-opt %s --split-input-file --pass-pipeline='builtin.module(narrow-integers{inputs=true remarks=true})' -o /dev/null 2>&1 | FileCheck %s --check-prefix=REMARK
// RUN: coreai-opt %s --split-input-file --pass-pipeline='builtin.module(narrow-integers)' | FileCheck %s --check-prefix=NOINPUTS

// Token ids (si64) cast to si32, reshaped and gathered from a 64-row table
// → the argument is si16 (valid ids lie in [-64, 64)), the chain computes
// in si16, the cast is gone. Without inputs=true the signature stays and so
// does the argument's class; the cast result's class has unknown values.
// CHECK-LABEL: coreai.graph @embedding(
// CHECK-SAME:    %[[IDS:.*]]: tensor<2x9xsi16> {coreai.name = "ids"}, %[[T:.*]]: tensor<64x16xf16>) -> tensor<2x9x16xf16>
// CHECK-NOT:     coreai.cast
// CHECK:         %[[R:.*]] = coreai.reshape %[[IDS]], %{{.*}} : (tensor<2x9xsi16>, tensor<3xui32>) -> tensor<2x9x1xsi16>
// CHECK:         coreai.gather_nd %[[T]] at %[[R]] : (tensor<64x16xf16>, tensor<2x9x1xsi16>)
// REMARK: narrow-integers: loc({{.*}}): an argument of type tensor<2x9xsi64> becomes si16: its values lie in [-64, 63]
// REMARK: narrow-integers: loc({{.*}}): the tensor<2x9xsi32> result of 'coreai.cast' (and 1 value of its class) becomes si16: its values lie in [-64, 63]
// NOINPUTS-LABEL: coreai.graph @embedding(
// NOINPUTS-SAME:    tensor<2x9xsi64>
// NOINPUTS:         coreai.cast %{{.*}} : tensor<2x9xsi64> to tensor<2x9xsi32>
coreai.graph @embedding(%ids: tensor<2x9xsi64> {coreai.name = "ids"}, %t: tensor<64x16xf16>) -> tensor<2x9x16xf16> {
  %c = coreai.cast %ids : tensor<2x9xsi64> to tensor<2x9xsi32>
  %s = coreai.constant dense<[2, 9, 1]> : tensor<3xui32>
  %r = coreai.reshape %c, %s : (tensor<2x9xsi32>, tensor<3xui32>) -> tensor<2x9x1xsi32>
  %g = coreai.gather_nd %t at %r : (tensor<64x16xf16>, tensor<2x9x1xsi32>) to tensor<2x9x16xf16>
  coreai.output %g : tensor<2x9x16xf16>
}

// -----

// Through a private graph called once: its index parameter becomes si16 too.
// CHECK-LABEL: coreai.graph private noinline @gather(
// CHECK-SAME:    %{{.*}}: tensor<64x16xf16>, %[[I:.*]]: tensor<4x1xsi16>) -> tensor<4x16xf16>
// CHECK:         coreai.gather_nd %{{.*}} at %[[I]] : (tensor<64x16xf16>, tensor<4x1xsi16>)
// CHECK-LABEL: coreai.graph @main(
// CHECK-SAME:    %[[IDS:.*]]: tensor<4xsi16>
// CHECK:         %[[R:.*]] = coreai.reshape %[[IDS]]
// CHECK:         coreai.invoke @gather(%{{.*}}, %[[R]]) : (tensor<64x16xf16>, tensor<4x1xsi16>) -> tensor<4x16xf16>
coreai.graph private noinline @gather(%t: tensor<64x16xf16>, %i: tensor<4x1xsi32>) -> tensor<4x16xf16> {
  %g = coreai.gather_nd %t at %i : (tensor<64x16xf16>, tensor<4x1xsi32>) to tensor<4x16xf16>
  coreai.output %g : tensor<4x16xf16>
}
coreai.graph @main(%ids: tensor<4xsi64>, %t: tensor<64x16xf16>) -> tensor<4x16xf16> {
  %c = coreai.cast %ids : tensor<4xsi64> to tensor<4xsi32>
  %s = coreai.constant dense<[4, 1]> : tensor<2xui32>
  %r = coreai.reshape %c, %s : (tensor<4xsi32>, tensor<2xui32>) -> tensor<4x1xsi32>
  %g = coreai.invoke @gather(%t, %r) : (tensor<64x16xf16>, tensor<4x1xsi32>) -> tensor<4x16xf16>
  coreai.output %g : tensor<4x16xf16>
}

// -----

// Declined: a 40000-row vocabulary (its ids need more than 16 bits), and an
// integer input that indexes nothing (its values are unknown).
// CHECK-LABEL: coreai.graph @declined(
// CHECK-SAME:    tensor<3xsi64>, %{{.*}}: tensor<40000x8xf16>, %{{.*}}: tensor<3xsi32>
// REMARK: an argument of type tensor<3xsi64> keeps its type: its values may reach [-9223372036854775808, 9223372036854775807]
// REMARK: an argument of type tensor<3xsi32> (and 1 value of its class) keeps its type: operand #1 of 'coreai.output' has a fixed type
coreai.graph @declined(%ids: tensor<3xsi64>, %t: tensor<40000x8xf16>, %j: tensor<3xsi32>) -> (tensor<3x8xf16>, tensor<3xsi32>) {
  %c = coreai.cast %ids : tensor<3xsi64> to tensor<3xsi32>
  %s = coreai.constant dense<[3, 1]> : tensor<2xui32>
  %r = coreai.reshape %c, %s : (tensor<3xsi32>, tensor<2xui32>) -> tensor<3x1xsi32>
  %g = coreai.gather_nd %t at %r : (tensor<40000x8xf16>, tensor<3x1xsi32>) to tensor<3x8xf16>
  %one = coreai.constant dense<1> : tensor<si32>
  %a = coreai.decomposable.broadcasting_add %j, %one : (tensor<3xsi32>, tensor<si32>) -> tensor<3xsi32>
  coreai.output %g, %a : tensor<3x8xf16>, tensor<3xsi32>
}

// -----

// Ids gathered only in a branch: the branch need not run, so nothing bounds
// them (a value out of the table's range is defined when the other branch
// runs); the argument keeps its type, though its cast is in the entry block.
// CHECK-LABEL: coreai.graph @branch(
// CHECK-SAME:    %{{.*}}: tensor<4xsi64>
// REMARK: an argument of type tensor<4xsi64> keeps its type: its values may reach [-9223372036854775808, 9223372036854775807]
coreai.graph @branch(%ids: tensor<4xsi64>, %t: tensor<64x16xf16>, %c: tensor<i1>) -> tensor<4x16xf16> {
  %s = coreai.constant dense<[4, 1]> : tensor<2xui32>
  %c32 = coreai.cast %ids : tensor<4xsi64> to tensor<4xsi32>
  %r = coreai.if %c {
    %i = coreai.reshape %c32, %s : (tensor<4xsi32>, tensor<2xui32>) -> tensor<4x1xsi32>
    %g = coreai.gather_nd %t at %i : (tensor<64x16xf16>, tensor<4x1xsi32>) to tensor<4x16xf16>
    coreai.yield %g : tensor<4x16xf16>
  } else {
    %z = coreai.constant dense<0.0> : tensor<4x16xf16>
    coreai.yield %z : tensor<4x16xf16>
  } : tensor<i1> -> tensor<4x16xf16>
  coreai.output %r : tensor<4x16xf16>
}

// -----

// RoBERTa's padding-aware positions, as the lowering writes them:
// mask = ids != pad; pos = wrap32(cumsum(mask)) * mask + pad, gathered from
// a 66-row table. mask ∈ [0, 1], the cumsum over 8 ∈ [0, 8], so PyTorch's
// int64 → int32 wrap is the identity and goes; every value fits si16; the
// boolean becomes min(|ids - pad|, 1) (exact for integers).
// CHECK-LABEL: coreai.graph @positions(
// CHECK-SAME:    %[[IDS:.*]]: tensor<1x8xsi16>
// CHECK-NOT:     bitwise
// CHECK-NOT:     xi1>
// CHECK:         %[[D:.*]] = coreai.decomposable.broadcasting_sub %[[IDS]], %{{.*}} : (tensor<1x8xsi16>, tensor<si16>) -> tensor<1x8xsi16>
// CHECK:         %[[A:.*]] = coreai.abs %[[D]] : tensor<1x8xsi16> -> tensor<1x8xsi16>
// CHECK:         %[[M:.*]] = coreai.decomposable.broadcasting_minimum %[[A]], %{{.*}} : (tensor<1x8xsi16>, tensor<si16>) -> tensor<1x8xsi16>
// CHECK:         %[[S:.*]] = coreai.scan %[[M]], {{.*}} : (tensor<1x8xsi16>, tensor<ui32>, tensor<i1>) -> tensor<1x8xsi16>
// CHECK:         %[[P:.*]] = coreai.decomposable.broadcasting_mul %[[S]], %[[M]] : (tensor<1x8xsi16>, tensor<1x8xsi16>) -> tensor<1x8xsi16>
// CHECK:         %[[Q:.*]] = coreai.decomposable.broadcasting_add %[[P]], %{{.*}} : (tensor<1x8xsi16>, tensor<si16>) -> tensor<1x8xsi16>
// CHECK-NOT:     xs{{i|ui}}{{32|64}}>
// CHECK:         coreai.gather_nd %{{.*}} at %{{.*}} : (tensor<66x4xf16>, tensor<1x8x1xsi16>)
coreai.graph @positions(%ids: tensor<1x8xsi64>, %table: tensor<66x4xf16>, %words: tensor<128x4xf16>) -> (tensor<1x8x4xf16>, tensor<1x8x4xf16>) {
  %pad = coreai.constant dense<1> : tensor<si64>
  %ne = coreai.decomposable.broadcasting_not_equal %ids, %pad : (tensor<1x8xsi64>, tensor<si64>) -> tensor<1x8xi1>
  %mask = coreai.cast %ne : tensor<1x8xi1> to tensor<1x8xsi32>
  %wide = coreai.cast %mask : tensor<1x8xsi32> to tensor<1x8xsi64>
  %axis = coreai.constant dense<1> : tensor<ui32>
  %false = coreai.constant dense<false> : tensor<i1>
  %sum = coreai.scan %wide, %axis, %false combiner = <sum> : (tensor<1x8xsi64>, tensor<ui32>, tensor<i1>) -> tensor<1x8xsi64>
  %low = coreai.constant dense<4294967295> : tensor<si64>
  %half = coreai.constant dense<2147483648> : tensor<si64>
  %and = coreai.decomposable.broadcasting_bitwise_and %sum, %low : (tensor<1x8xsi64>, tensor<si64>) -> tensor<1x8xsi64>
  %xor = coreai.decomposable.broadcasting_bitwise_xor %and, %half : (tensor<1x8xsi64>, tensor<si64>) -> tensor<1x8xsi64>
  %sext = coreai.decomposable.broadcasting_sub %xor, %half : (tensor<1x8xsi64>, tensor<si64>) -> tensor<1x8xsi64>
  %w32 = coreai.cast %sext : tensor<1x8xsi64> to tensor<1x8xsi32>
  %masked = coreai.decomposable.broadcasting_mul %w32, %mask : (tensor<1x8xsi32>, tensor<1x8xsi32>) -> tensor<1x8xsi32>
  %m64 = coreai.cast %masked : tensor<1x8xsi32> to tensor<1x8xsi64>
  %pos = coreai.decomposable.broadcasting_add %m64, %pad : (tensor<1x8xsi64>, tensor<si64>) -> tensor<1x8xsi64>
  %p32 = coreai.cast %pos : tensor<1x8xsi64> to tensor<1x8xsi32>
  %shape = coreai.constant dense<[1, 8, 1]> : tensor<3xui32>
  %idx = coreai.reshape %p32, %shape : (tensor<1x8xsi32>, tensor<3xui32>) -> tensor<1x8x1xsi32>
  %g = coreai.gather_nd %table at %idx : (tensor<66x4xf16>, tensor<1x8x1xsi32>) to tensor<1x8x4xf16>
  %i32 = coreai.cast %ids : tensor<1x8xsi64> to tensor<1x8xsi32>
  %widx = coreai.reshape %i32, %shape : (tensor<1x8xsi32>, tensor<3xui32>) -> tensor<1x8x1xsi32>
  %e = coreai.gather_nd %words at %widx : (tensor<128x4xf16>, tensor<1x8x1xsi32>) to tensor<1x8x4xf16>
  coreai.output %g, %e : tensor<1x8x4xf16>, tensor<1x8x4xf16>
}

// -----

// A router's counts: argsort indices (coreai-core infers si32: read through
// a cast), one-hot compare, reduce_sum over 16 rows ∈ [0, 16], floor_divide,
// and a scatter whose combiner's scalars change type with it.
// CHECK-LABEL: coreai.graph @counts(
// CHECK:         %[[I:.*]] = coreai.argsort %{{.*}} -> tensor<16x4xsi32>
// CHECK:         %[[C:.*]] = coreai.cast %[[I]] : tensor<16x4xsi32> to tensor<16x4xsi16>
// CHECK:         coreai.decomposable.broadcasting_sub %[[C]], %{{.*}} : (tensor<16x4xsi16>, tensor<1x4xsi16>) -> tensor<16x4xsi16>
// CHECK:         coreai.reduce_sum %{{.*}} : (tensor<16x4xsi16>, tensor<1xsi32>) -> tensor<1x4xsi16>
// CHECK:         coreai.decomposable.broadcasting_floor_divide %{{.*}} : (tensor<1x4xsi16>, tensor<si16>) -> tensor<1x4xsi16>
// CHECK:         coreai.scatter_nd
// CHECK-NEXT:    ^bb0(%{{.*}}: tensor<si16>, %{{.*}}: tensor<si16>):
// CHECK:         (tensor<4xsi16>, tensor<4xsi16>, tensor<4x1xsi32>) to tensor<4xsi16>
coreai.graph @counts(%x: tensor<16x4xf16>, %at: tensor<4x1xsi32>) -> tensor<4xf16> {
  %axis = coreai.constant dense<1> : tensor<si32>
  %false = coreai.constant dense<false> : tensor<i1>
  %idx = coreai.argsort %x, %axis, %false, %false : (tensor<16x4xf16>, tensor<si32>, tensor<i1>, tensor<i1>) -> tensor<16x4xsi32>
  %experts = coreai.constant dense<[[0, 1, 2, 3]]> : tensor<1x4xsi32>
  %eq = coreai.decomposable.broadcasting_equal %idx, %experts : (tensor<16x4xsi32>, tensor<1x4xsi32>) -> tensor<16x4xi1>
  %hot = coreai.cast %eq : tensor<16x4xi1> to tensor<16x4xsi32>
  %rows = coreai.constant dense<0> : tensor<1xsi32>
  %count = coreai.reduce_sum %hot, %rows : (tensor<16x4xsi32>, tensor<1xsi32>) -> tensor<1x4xsi32>
  %two = coreai.constant dense<2> : tensor<si32>
  %half = coreai.decomposable.broadcasting_floor_divide %count, %two : (tensor<1x4xsi32>, tensor<si32>) -> tensor<1x4xsi32>
  %s4 = coreai.constant dense<4> : tensor<1xui32>
  %flat = coreai.reshape %half, %s4 : (tensor<1x4xsi32>, tensor<1xui32>) -> tensor<4xsi32>
  %zero = coreai.constant dense<0> : tensor<4xsi32>
  %sc = coreai.scatter_nd %zero with %flat at %at {
  ^bb0(%a: tensor<si32>, %b: tensor<si32>):
    coreai.yield %b : tensor<si32>
  } : (tensor<4xsi32>, tensor<4xsi32>, tensor<4x1xsi32>) to tensor<4xsi32>
  %f = coreai.cast %sc : tensor<4xsi32> to tensor<4xf16>
  coreai.output %f : tensor<4xf16>
}
