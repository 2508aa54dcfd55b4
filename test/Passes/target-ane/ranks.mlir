// RUN: coreai-opt %s --split-input-file --pass-pipeline='builtin.module(target-ane)' | FileCheck %s --enable-var-scope
// RUN: coreai-opt %s --split-input-file --pass-pipeline='builtin.module(target-ane{remarks=true})' -o /dev/null 2>&1 | FileCheck %s --check-prefix=REMARK
// A whole pipeline keeps the two products of each step apart (core-optimize
// does not merge them into one by 2^24, which overflows f16).
// RUN: coreai-opt %s --split-input-file --pass-pipeline='builtin.module(target-ane,canonicalize,cse,core-optimize)' | FileCheck %s --check-prefix=OPT

// A router's top-k: the ascending stable argsort of the reversed softmax
// (the descending sort's form) becomes counts in f16. Each step is two
// products by 2^12 with a clamp to [0, 1] between; the places are summed
// over j (axis 1 of the 8x4x4 pairs), the indices over i (axis 2) from the
// one-hot of each place; then cast to si16, clamped to [0, 3] and cast to
// the argsort's si32.
// CHECK-LABEL: coreai.graph @router(
// CHECK-SAME:    %[[X:[^:]*]]: tensor<8x4xf16>
// CHECK:         %[[S:.*]] = coreai.softmax %[[X]]
// CHECK:         %[[V:.*]] = coreai.reverse %[[S]]
// CHECK-NOT:     coreai.argsort
// CHECK-DAG:     %[[J:.*]] = coreai.reshape %[[V]], %{{.*}} -> tensor<8x4x1xf16>
// CHECK-DAG:     %[[I:.*]] = coreai.reshape %[[V]], %{{.*}} -> tensor<8x1x4xf16>
// CHECK:         coreai.decomposable.broadcasting_sub %[[J]], %[[I]] : (tensor<8x4x1xf16>, tensor<8x1x4xf16>) -> tensor<8x4x4xf16>
// CHECK:         %[[K:.*]] = coreai.constant dense<4.096000e+03> : tensor<f16>
// CHECK:         coreai.decomposable.broadcasting_mul %{{.*}}, %[[K]]
// CHECK:         coreai.decomposable.broadcasting_maximum
// CHECK:         coreai.decomposable.broadcasting_minimum
// CHECK:         coreai.decomposable.broadcasting_mul
// CHECK:         coreai.decomposable.broadcasting_minimum
// CHECK:         coreai.decomposable.broadcasting_sub %[[I]], %[[J]]
// CHECK:         coreai.constant dense<{{\[\[}}0.000000e+00, 1.000000e+00, 1.000000e+00, 1.000000e+00], [0.000000e+00, 0.000000e+00, 1.000000e+00, 1.000000e+00], [0.000000e+00, 0.000000e+00, 0.000000e+00, 1.000000e+00], [0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00]]> : tensor<4x4xf16>
// CHECK:         %[[R:.*]] = coreai.reduce_sum %{{.*}} : (tensor<8x4x4xf16>, tensor<1xsi32>) -> tensor<8x1x4xf16>
// CHECK:         coreai.decomposable.broadcasting_sub %[[R]], %{{.*}} : (tensor<8x1x4xf16>, tensor<4x1xf16>) -> tensor<8x4x4xf16>
// CHECK:         coreai.abs
// CHECK:         %[[P:.*]] = coreai.reduce_sum %{{.*}} : (tensor<8x4x4xf16>, tensor<1xsi32>) -> tensor<8x4x1xf16>
// CHECK:         %[[Q:.*]] = coreai.reshape %[[P]], %{{.*}} -> tensor<8x4xf16>
// CHECK:         %[[C:.*]] = coreai.cast %[[Q]] : tensor<8x4xf16> to tensor<8x4xsi16>
// CHECK:         %[[LO:.*]] = coreai.decomposable.broadcasting_maximum %[[C]]
// CHECK:         %[[HI:.*]] = coreai.decomposable.broadcasting_minimum %[[LO]]
// CHECK:         %[[W:.*]] = coreai.cast %[[HI]] : tensor<8x4xsi16> to tensor<8x4xsi32>
// CHECK:         coreai.output %[[W]]
// REMARK: target-ane: loc({{.*}}): 'coreai.argsort' argsort-ranks: an argsort's indices are si32
// OPT-LABEL: coreai.graph @router(
// OPT-NOT:     0x7C00
// OPT:         %[[K:.*]] = coreai.constant dense<4.096000e+03> : tensor<f16>
// OPT-NOT:     0x7C00
// OPT-COUNT-4: coreai.decomposable.broadcasting_mul %{{.*}}, %[[K]]
// OPT-NOT:     coreai.argsort
// OPT:         coreai.output
coreai.graph @router(%x: tensor<8x4xf16>) -> tensor<8x4xsi32> {
  %a = coreai.constant dense<1> : tensor<si32>
  %r = coreai.constant dense<1> : tensor<1xsi32>
  %t = coreai.constant dense<true> : tensor<i1>
  %f = coreai.constant dense<false> : tensor<i1>
  %s = coreai.softmax %x, %a : (tensor<8x4xf16>, tensor<si32>) -> tensor<8x4xf16>
  %v = coreai.reverse %s, %r : (tensor<8x4xf16>, tensor<1xsi32>) -> tensor<8x4xf16>
  %o = coreai.argsort %v, %a, %f, %t : (tensor<8x4xf16>, tensor<si32>, tensor<i1>, tensor<i1>) -> tensor<8x4xsi32>
  coreai.output %o : tensor<8x4xsi32>
}

// -----

// A descending sort along axis 0 of a softmax along axis 0 in f32: the pair
// axes are 0 and 1, the (n, n) constants carry the trailing unit dim, and
// the step's factor is 2^75 (f32's least subnormal is 2^-149).
// CHECK-LABEL: coreai.graph @columns(
// CHECK:         coreai.decomposable.broadcasting_sub %{{.*}}, %{{.*}} : (tensor<3x1x2xf32>, tensor<1x3x2xf32>) -> tensor<3x3x2xf32>
// CHECK:         dense<3.77789319E+22> : tensor<f32>
// CHECK:         coreai.constant dense<{{.*}}> : tensor<3x3x1xf32>
// CHECK:         coreai.reduce_sum %{{.*}} : (tensor<3x3x2xf32>, tensor<1xsi32>) -> tensor<1x3x2xf32>
// CHECK:         coreai.reduce_sum %{{.*}} : (tensor<3x3x2xf32>, tensor<1xsi32>) -> tensor<3x1x2xf32>
// CHECK:         coreai.cast %{{.*}} : tensor<3x2xsi16> to tensor<3x2xsi32>
coreai.graph @columns(%x: tensor<3x2xf32>) -> tensor<3x2xsi32> {
  %a = coreai.constant dense<0> : tensor<si32>
  %t = coreai.constant dense<true> : tensor<i1>
  %s = coreai.softmax %x, %a : (tensor<3x2xf32>, tensor<si32>) -> tensor<3x2xf32>
  %o = coreai.argsort %s, %a, %t, %t : (tensor<3x2xf32>, tensor<si32>, tensor<i1>, tensor<i1>) -> tensor<3x2xsi32>
  coreai.output %o : tensor<3x2xsi32>
}

// -----

// Declined: values that are not a softmax along the sorted axis (they may
// be infinite), a softmax along another axis, and an axis longer than 256.
// CHECK-LABEL: coreai.graph @declined(
// CHECK-COUNT-3: coreai.argsort
coreai.graph @declined(%x: tensor<4x300xf16>) -> (tensor<4x300xsi32>, tensor<4x300xsi32>, tensor<4x300xsi32>) {
  %a0 = coreai.constant dense<0> : tensor<si32>
  %a1 = coreai.constant dense<1> : tensor<si32>
  %t = coreai.constant dense<true> : tensor<i1>
  %logits = coreai.argsort %x, %a1, %t, %t : (tensor<4x300xf16>, tensor<si32>, tensor<i1>, tensor<i1>) -> tensor<4x300xsi32>
  %s0 = coreai.softmax %x, %a0 : (tensor<4x300xf16>, tensor<si32>) -> tensor<4x300xf16>
  %other = coreai.argsort %s0, %a1, %t, %t : (tensor<4x300xf16>, tensor<si32>, tensor<i1>, tensor<i1>) -> tensor<4x300xsi32>
  %s1 = coreai.softmax %x, %a1 : (tensor<4x300xf16>, tensor<si32>) -> tensor<4x300xf16>
  %long = coreai.argsort %s1, %a1, %t, %t : (tensor<4x300xf16>, tensor<si32>, tensor<i1>, tensor<i1>) -> tensor<4x300xsi32>
  coreai.output %logits, %other, %long : tensor<4x300xsi32>, tensor<4x300xsi32>, tensor<4x300xsi32>
}
