// RUN: coreai-opt %s --split-input-file --pass-pipeline='builtin.module(target-gpu)' | FileCheck %s --enable-var-scope
// RUN: coreai-opt %s --split-input-file --pass-pipeline='builtin.module(target-gpu{remarks=true})' -o /dev/null 2>&1 | FileCheck %s --check-prefix=REMARK

// floor (the lowering's guarded x // 1) → (2x) // 2 where 0 < |x| < 2^23, x elsewhere.
// CHECK-LABEL: coreai.graph @floor(
// CHECK-SAME:    %[[X:.*]]: tensor<4xf32>
// CHECK:         %[[A:.*]] = coreai.abs %[[X]]
// CHECK:         %[[BOUND:.*]] = coreai.constant dense<0x4B000000> : tensor<f32>
// CHECK:         %[[BELOW:.*]] = coreai.decomposable.broadcasting_greater %[[BOUND]], %[[A]]
// CHECK:         %[[NZ:.*]] = coreai.decomposable.broadcasting_greater %[[A]], %{{.*}}
// CHECK:         %[[IN:.*]] = coreai.decomposable.broadcasting_and %[[BELOW]], %[[NZ]]
// CHECK:         %[[TWO:.*]] = coreai.constant dense<2.000000e+00> : tensor<f32>
// CHECK:         %[[X2:.*]] = coreai.decomposable.broadcasting_mul %[[X]], %[[TWO]]
// CHECK:         %[[FL:.*]] = coreai.decomposable.broadcasting_floor_divide %[[X2]], %[[TWO]]
// CHECK:         %[[F:.*]] = coreai.decomposable.broadcasting_where %[[IN]], %[[FL]], %[[X]]
// CHECK:         %[[NAN:.*]] = coreai.decomposable.broadcasting_not_equal %[[F]], %[[F]]
// CHECK:         coreai.decomposable.broadcasting_where %[[NAN]], %[[X]], %[[F]]
// CHECK-NOT:     floor_divide %[[X]]
// REMARK: target-gpu: loc({{.*}}): 'coreai.decomposable.broadcasting_floor_divide' floor-by-two: the GPU delegate executes float x // 1 (floor, ceil, trunc) as the identity (guide §9.7 #7)
coreai.graph @floor(%x: tensor<4xf32>) -> tensor<4xf32> {
  %one = coreai.constant dense<1.000000e+00> : tensor<f32>
  %f = coreai.decomposable.broadcasting_floor_divide %x, %one : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  %nan = coreai.decomposable.broadcasting_not_equal %f, %f : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
  %r = coreai.decomposable.broadcasting_where %nan, %x, %f : (tensor<4xi1>, tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  coreai.output %r : tensor<4xf32>
}

// -----

// f16: the bound is 2^10; the same-shape floor_divide with a full splat 1 fires too.
// CHECK-LABEL: coreai.graph @floor_f16_same_shape(
// CHECK:         coreai.constant dense<1.024000e+03> : tensor<f16>
// CHECK:         coreai.decomposable.broadcasting_floor_divide %{{.*}}, %{{.*}} : (tensor<2x3xf16>, tensor<f16>) -> tensor<2x3xf16>
// CHECK-NOT:     coreai.floor_divide
coreai.graph @floor_f16_same_shape(%x: tensor<2x3xf16>) -> tensor<2x3xf16> {
  %one = coreai.constant dense<1.000000e+00> : tensor<2x3xf16>
  %f = coreai.floor_divide %x, %one : (tensor<2x3xf16>, tensor<2x3xf16>) -> tensor<2x3xf16>
  coreai.output %f : tensor<2x3xf16>
}

// -----

// round → ties to even from the floor of |x|, its fraction and its parity; the sign is x's.
// CHECK-LABEL: coreai.graph @round(
// CHECK-SAME:    %[[X:.*]]: tensor<4xf32>
// CHECK:         %[[A:.*]] = coreai.abs %[[X]]
// CHECK:         %[[IN:.*]] = coreai.decomposable.broadcasting_and
// CHECK:         %[[A2:.*]] = coreai.decomposable.broadcasting_mul %[[A]], %[[TWO:.*]] :
// CHECK:         %[[F:.*]] = coreai.decomposable.broadcasting_floor_divide %[[A2]], %[[TWO]]
// CHECK:         %[[D:.*]] = coreai.decomposable.broadcasting_sub %[[A]], %[[F]]
// CHECK:         %[[H:.*]] = coreai.decomposable.broadcasting_floor_divide %[[F]], %[[TWO2:.*]] :
// CHECK:         %[[E:.*]] = coreai.decomposable.broadcasting_mul %[[H]], %[[TWO2]]
// CHECK:         %[[ODD:.*]] = coreai.decomposable.broadcasting_not_equal %[[E]], %[[F]]
// CHECK:         %[[TIE:.*]] = coreai.decomposable.broadcasting_equal %[[D]], %[[HALF:.*]] :
// CHECK:         %[[ABOVE:.*]] = coreai.decomposable.broadcasting_greater %[[D]], %[[HALF]]
// CHECK:         %[[TO:.*]] = coreai.decomposable.broadcasting_and %[[TIE]], %[[ODD]]
// CHECK:         %[[UP:.*]] = coreai.decomposable.broadcasting_or %[[ABOVE]], %[[TO]]
// CHECK:         %[[F1:.*]] = coreai.decomposable.broadcasting_add %[[F]]
// CHECK:         %[[R:.*]] = coreai.decomposable.broadcasting_where %[[UP]], %[[F1]], %[[F]]
// CHECK:         %[[NEG:.*]] = coreai.decomposable.broadcasting_greater %{{.*}}, %[[X]]
// CHECK:         %[[RN:.*]] = coreai.decomposable.broadcasting_mul %[[R]]
// CHECK:         %[[S:.*]] = coreai.decomposable.broadcasting_where %[[NEG]], %[[RN]], %[[R]]
// CHECK:         %[[OUT:.*]] = coreai.decomposable.broadcasting_where %[[IN]], %[[S]], %[[X]]
// CHECK-NOT:     coreai.round
// CHECK:         coreai.output %[[OUT]]
// REMARK: target-gpu: loc({{.*}}): 'coreai.round' round-half-even: the GPU delegate rounds ties away from zero
coreai.graph @round(%x: tensor<4xf32>) -> tensor<4xf32> {
  %r = coreai.round %x : tensor<4xf32> -> tensor<4xf32>
  coreai.output %r : tensor<4xf32>
}

// -----

// Does not fire: integer floor division and round of integers (exact on the
// GPU), a divisor other than 1, x broadcast by the divisor.
// CHECK-LABEL: coreai.graph @keeps(
// CHECK:         coreai.decomposable.broadcasting_floor_divide %arg0, %{{.*}} : (tensor<4xsi32>, tensor<si32>)
// CHECK:         coreai.decomposable.broadcasting_floor_divide %arg1, %{{.*}} : (tensor<4xf32>, tensor<f32>)
// CHECK:         coreai.decomposable.broadcasting_floor_divide %arg2, %{{.*}} : (tensor<f32>, tensor<4xf32>)
// CHECK:         coreai.round %arg0 : tensor<4xsi32>
// CHECK-NOT:     broadcasting_mul
// REMARK-NOT: 'coreai.decomposable.broadcasting_floor_divide' floor-by-two
coreai.graph @keeps(%i: tensor<4xsi32>, %x: tensor<4xf32>, %s: tensor<f32>) -> (tensor<4xsi32>, tensor<4xf32>, tensor<4xf32>, tensor<4xsi32>) {
  %ione = coreai.constant dense<1> : tensor<si32>
  %a = coreai.decomposable.broadcasting_floor_divide %i, %ione : (tensor<4xsi32>, tensor<si32>) -> tensor<4xsi32>
  %three = coreai.constant dense<3.000000e+00> : tensor<f32>
  %b = coreai.decomposable.broadcasting_floor_divide %x, %three : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  %ones = coreai.constant dense<1.000000e+00> : tensor<4xf32>
  %c = coreai.decomposable.broadcasting_floor_divide %s, %ones : (tensor<f32>, tensor<4xf32>) -> tensor<4xf32>
  %d = coreai.round %i : tensor<4xsi32> -> tensor<4xsi32>
  coreai.output %a, %b, %c, %d : tensor<4xsi32>, tensor<4xf32>, tensor<4xf32>, tensor<4xsi32>
}
