// RUN: coreai-opt %s --split-input-file --pass-pipeline='builtin.module(target-gpu)' | FileCheck %s --enable-var-scope
// RUN: coreai-opt %s --split-input-file --pass-pipeline='builtin.module(target-gpu{remarks=true})' -o /dev/null 2>&1 | FileCheck %s --check-prefix=REMARK

// The in-bounds mask of a floored index, ((i >= 0) & (i < 7)).float() with
// i = (x // 2).long(): i >= 0 → max(min(y - 0 + 1, 1), 0); i < 7 is 7 > i
// → 1 - (i >= 7); & → product. The integer ops are left dead (canonicalize
// removes them in the pipeline); nothing after the mask reads them.
// CHECK-LABEL: coreai.graph @bounds(
// CHECK-SAME:    %[[X:.*]]: tensor<4xf32>
// CHECK:         %[[Y:.*]] = coreai.decomposable.broadcasting_floor_divide %[[X]]
// CHECK:         %[[ONE:.*]] = coreai.constant dense<1.000000e+00> : tensor<f32>
// CHECK:         %[[ZERO:.*]] = coreai.constant dense<0.000000e+00> : tensor<f32>
// CHECK:         %[[C0:.*]] = coreai.constant dense<0.000000e+00> : tensor<f32>
// CHECK:         %[[D0:.*]] = coreai.decomposable.broadcasting_sub %[[Y]], %[[C0]]
// CHECK:         %[[E0:.*]] = coreai.decomposable.broadcasting_add %[[D0]], %[[ONE]]
// CHECK:         %[[N0:.*]] = coreai.decomposable.broadcasting_minimum %[[E0]], %[[ONE]]
// CHECK:         %[[GE:.*]] = coreai.decomposable.broadcasting_maximum %[[N0]], %[[ZERO]]
// CHECK:         %[[C7:.*]] = coreai.constant dense<7.000000e+00> : tensor<f32>
// CHECK:         %[[D7:.*]] = coreai.decomposable.broadcasting_sub %[[Y]], %[[C7]]
// CHECK:         %[[E7:.*]] = coreai.decomposable.broadcasting_add %[[D7]], %[[ONE]]
// CHECK:         %[[N7:.*]] = coreai.decomposable.broadcasting_minimum %[[E7]], %[[ONE]]
// CHECK:         %[[GE7:.*]] = coreai.decomposable.broadcasting_maximum %[[N7]], %[[ZERO]]
// CHECK:         %[[LT:.*]] = coreai.decomposable.broadcasting_sub %[[ONE]], %[[GE7]]
// CHECK:         %[[M:.*]] = coreai.decomposable.broadcasting_mul %[[GE]], %[[LT]]
// CHECK-NOT:     si64
// CHECK-NOT:     coreai.cast
// CHECK:         coreai.output %[[M]]
// REMARK: target-gpu: loc({{.*}}): 'coreai.cast' mask-arithmetic: an integer comparison → bool → float chain corrupts an unrelated live tensor on the CPU and GPU delegates (guide §9.7 #8)
// REMARK-NOT: declined
coreai.graph @bounds(%x: tensor<4xf32>) -> tensor<4xf32> {
  %two = coreai.constant dense<2.000000e+00> : tensor<f32>
  %y = coreai.decomposable.broadcasting_floor_divide %x, %two : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  %i = coreai.cast %y : tensor<4xf32> to tensor<4xsi64>
  %zero = coreai.constant dense<0> : tensor<si64>
  %w = coreai.constant dense<7> : tensor<si64>
  %gt = coreai.decomposable.broadcasting_greater %i, %zero : (tensor<4xsi64>, tensor<si64>) -> tensor<4xi1>
  %eq = coreai.decomposable.broadcasting_equal %i, %zero : (tensor<4xsi64>, tensor<si64>) -> tensor<4xi1>
  %ge = coreai.decomposable.broadcasting_or %gt, %eq : (tensor<4xi1>, tensor<4xi1>) -> tensor<4xi1>
  %lt = coreai.decomposable.broadcasting_greater %w, %i : (tensor<si64>, tensor<4xsi64>) -> tensor<4xi1>
  %in = coreai.decomposable.broadcasting_bitwise_and %ge, %lt : (tensor<4xi1>, tensor<4xi1>) -> tensor<4xi1>
  %m = coreai.cast %in : tensor<4xi1> to tensor<4xf32>
  coreai.output %m : tensor<4xf32>
}

// -----

// torch.where(valid, v, 0) → where(m > 0, v, 0); == and != of two
// integers from x // 2 (1 - min(|a - b|, 1), min(|a - b|, 1)); `not` → 1 - m; a float
// comparison in the tree is kept and cast to 0/1; `or` → max.
// CHECK-LABEL: coreai.graph @select(
// CHECK-SAME:    %[[X:.*]]: tensor<4xf32>, %[[Z:.*]]: tensor<4xf32>, %[[V:.*]]: tensor<4xf32>
// CHECK:         %[[A:.*]] = coreai.decomposable.broadcasting_floor_divide %[[X]]
// CHECK:         %[[B:.*]] = coreai.decomposable.broadcasting_floor_divide %[[Z]]
// CHECK:         %[[FC:.*]] = coreai.decomposable.broadcasting_greater %[[V]]
// CHECK:         %[[ONE:.*]] = coreai.constant dense<1.000000e+00> : tensor<f32>
// CHECK:         %[[D:.*]] = coreai.decomposable.broadcasting_sub %[[A]], %[[B]]
// CHECK:         %[[AD:.*]] = coreai.abs %[[D]]
// CHECK:         %[[NE:.*]] = coreai.decomposable.broadcasting_minimum %[[AD]], %[[ONE]]
// CHECK:         %[[EQ:.*]] = coreai.decomposable.broadcasting_sub %[[ONE]], %[[NE]]
// CHECK:         %[[NOT:.*]] = coreai.decomposable.broadcasting_sub %[[ONE]], %[[EQ]]
// CHECK:         %[[K:.*]] = coreai.cast %[[FC]] : tensor<4xi1> to tensor<4xf32>
// CHECK:         %[[OR:.*]] = coreai.decomposable.broadcasting_maximum %[[NOT]], %[[K]]
// CHECK:         %[[POS:.*]] = coreai.decomposable.broadcasting_greater %[[OR]], %{{.*}} : (tensor<4xf32>, tensor<f32>) -> tensor<4xi1>
// CHECK:         %[[W:.*]] = coreai.decomposable.broadcasting_where %[[POS]], %[[V]], %{{.*}} : (tensor<4xi1>, tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
// CHECK:         coreai.output %[[W]]
// REMARK: 'coreai.decomposable.broadcasting_where' mask-select: an integer comparison → bool → float chain
// REMARK-NOT: declined
coreai.graph @select(%x: tensor<4xf32>, %z: tensor<4xf32>, %v: tensor<4xf32>) -> tensor<4xf32> {
  %two = coreai.constant dense<2.000000e+00> : tensor<f32>
  %a = coreai.decomposable.broadcasting_floor_divide %x, %two : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  %b = coreai.decomposable.broadcasting_floor_divide %z, %two : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  %i = coreai.cast %a : tensor<4xf32> to tensor<4xsi64>
  %j = coreai.cast %b : tensor<4xf32> to tensor<4xsi64>
  %eq = coreai.decomposable.broadcasting_equal %i, %j : (tensor<4xsi64>, tensor<4xsi64>) -> tensor<4xi1>
  %ne = coreai.not %eq : tensor<4xi1> -> tensor<4xi1>
  %fz = coreai.constant dense<0.000000e+00> : tensor<f32>
  %fc = coreai.decomposable.broadcasting_greater %v, %fz : (tensor<4xf32>, tensor<f32>) -> tensor<4xi1>
  %c = coreai.decomposable.broadcasting_or %ne, %fc : (tensor<4xi1>, tensor<4xi1>) -> tensor<4xi1>
  %r = coreai.decomposable.broadcasting_where %c, %v, %fz : (tensor<4xi1>, tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  coreai.output %r : tensor<4xf32>
}

// -----

// The chain the pipeline builds for floor(x).long() >= 0 cast to f16: the
// floor lowering (NaN falls back to x), the trunc before the cast, both
// floors already rewritten by floor-by-two (program order). All proven
// integral; the f32 mask is cast to f16 (0 and 1 are exact).
// CHECK-LABEL: coreai.graph @lowered_chain(
// CHECK:         coreai.cast %[[T:.*]] : tensor<3xf32> to tensor<3xsi64>
// CHECK:         coreai.decomposable.broadcasting_sub %[[T]]
// CHECK:         %[[M:.*]] = coreai.decomposable.broadcasting_maximum
// CHECK:         %[[H:.*]] = coreai.cast %[[M]] : tensor<3xf32> to tensor<3xf16>
// CHECK-NOT:     si64
// CHECK:         coreai.output %[[H]]
// REMARK-COUNT-2: floor-by-two
// REMARK: 'coreai.cast' mask-arithmetic
// REMARK-NOT: declined
coreai.graph @lowered_chain(%x: tensor<3xf32>) -> tensor<3xf16> {
  %one = coreai.constant dense<1.000000e+00> : tensor<f32>
  %zero = coreai.constant dense<0.000000e+00> : tensor<f32>
  %m1 = coreai.constant dense<-1.000000e+00> : tensor<f32>
  %f = coreai.decomposable.broadcasting_floor_divide %x, %one : (tensor<3xf32>, tensor<f32>) -> tensor<3xf32>
  %nan = coreai.decomposable.broadcasting_not_equal %f, %f : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xi1>
  %fl = coreai.decomposable.broadcasting_where %nan, %x, %f : (tensor<3xi1>, tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  %a = coreai.abs %fl : tensor<3xf32> -> tensor<3xf32>
  %g = coreai.decomposable.broadcasting_floor_divide %a, %one : (tensor<3xf32>, tensor<f32>) -> tensor<3xf32>
  %gnan = coreai.decomposable.broadcasting_not_equal %g, %g : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xi1>
  %mag = coreai.decomposable.broadcasting_where %gnan, %a, %g : (tensor<3xi1>, tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  %neg = coreai.decomposable.broadcasting_greater %zero, %fl : (tensor<f32>, tensor<3xf32>) -> tensor<3xi1>
  %negated = coreai.decomposable.broadcasting_mul %mag, %m1 : (tensor<3xf32>, tensor<f32>) -> tensor<3xf32>
  %isz = coreai.decomposable.broadcasting_equal %fl, %zero : (tensor<3xf32>, tensor<f32>) -> tensor<3xi1>
  %kept = coreai.decomposable.broadcasting_where %isz, %fl, %mag : (tensor<3xi1>, tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  %t = coreai.decomposable.broadcasting_where %neg, %negated, %kept : (tensor<3xi1>, tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  %i = coreai.cast %t : tensor<3xf32> to tensor<3xsi64>
  %c0 = coreai.constant dense<0> : tensor<si64>
  %gt = coreai.decomposable.broadcasting_greater %i, %c0 : (tensor<3xsi64>, tensor<si64>) -> tensor<3xi1>
  %eq = coreai.decomposable.broadcasting_equal %i, %c0 : (tensor<3xsi64>, tensor<si64>) -> tensor<3xi1>
  %ge = coreai.decomposable.broadcasting_or %gt, %eq : (tensor<3xi1>, tensor<3xi1>) -> tensor<3xi1>
  %h = coreai.cast %ge : tensor<3xi1> to tensor<3xf16>
  coreai.output %h : tensor<3xf16>
}

// -----

// Declines: the cast of a float not proven integer-valued (a graph input),
// and of an integer from integer arithmetic (i + 1 rounds in floats beyond
// 2^24).
// CHECK-LABEL: coreai.graph @unproven(
// CHECK:         coreai.decomposable.broadcasting_greater %{{.*}}, %{{.*}} : (tensor<4xsi64>, tensor<si64>)
// CHECK:         coreai.cast %{{.*}} : tensor<4xi1> to tensor<4xf32>
// CHECK:         coreai.decomposable.broadcasting_greater %{{.*}}, %{{.*}} : (tensor<4xsi64>, tensor<si64>)
// CHECK:         coreai.cast %{{.*}} : tensor<4xi1> to tensor<4xf32>
// REMARK: mask-arithmetic declined: an integer operand is the cast of a float (from a graph input) not proven integer-valued
// REMARK: mask-arithmetic declined: an integer operand comes from 'coreai.decomposable.broadcasting_add', not a float → int cast or a constant
coreai.graph @unproven(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %i = coreai.cast %x : tensor<4xf32> to tensor<4xsi64>
  %c3 = coreai.constant dense<3> : tensor<si64>
  %gt = coreai.decomposable.broadcasting_greater %i, %c3 : (tensor<4xsi64>, tensor<si64>) -> tensor<4xi1>
  %m = coreai.cast %gt : tensor<4xi1> to tensor<4xf32>
  %one = coreai.constant dense<1.000000e+00> : tensor<f32>
  %y = coreai.decomposable.broadcasting_floor_divide %x, %one : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  %j = coreai.cast %y : tensor<4xf32> to tensor<4xsi64>
  %c1 = coreai.constant dense<1> : tensor<si64>
  %j1 = coreai.decomposable.broadcasting_add %j, %c1 : (tensor<4xsi64>, tensor<si64>) -> tensor<4xsi64>
  %gt1 = coreai.decomposable.broadcasting_greater %j1, %c3 : (tensor<4xsi64>, tensor<si64>) -> tensor<4xi1>
  %n = coreai.cast %gt1 : tensor<4xi1> to tensor<4xf32>
  coreai.output %m, %n : tensor<4xf32>, tensor<4xf32>
}

// -----

// Declines: a constant not exact in f32 (2^24 + 1), integers cast from f32
// and f16, a graph-input integer.
// CHECK-LABEL: coreai.graph @values(
// CHECK-COUNT-3: coreai.cast %{{.*}} : tensor<4xi1> to tensor<4xf32>
// REMARK: mask-arithmetic declined: the integer constant 16777217 is not exact in f32
// REMARK: mask-arithmetic declined: the integer operands are cast from different float types (f32, f16)
// REMARK: mask-arithmetic declined: an integer operand is a graph input
coreai.graph @values(%x: tensor<4xf32>, %h: tensor<4xf16>, %k: tensor<4xsi64>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {
  %one = coreai.constant dense<1.000000e+00> : tensor<f32>
  %y = coreai.decomposable.broadcasting_floor_divide %x, %one : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  %i = coreai.cast %y : tensor<4xf32> to tensor<4xsi64>
  %big = coreai.constant dense<16777217> : tensor<si64>
  %a = coreai.decomposable.broadcasting_greater %i, %big : (tensor<4xsi64>, tensor<si64>) -> tensor<4xi1>
  %ma = coreai.cast %a : tensor<4xi1> to tensor<4xf32>
  %hone = coreai.constant dense<1.000000e+00> : tensor<f16>
  %hy = coreai.decomposable.broadcasting_floor_divide %h, %hone : (tensor<4xf16>, tensor<f16>) -> tensor<4xf16>
  %j = coreai.cast %hy : tensor<4xf16> to tensor<4xsi64>
  %b = coreai.decomposable.broadcasting_equal %i, %j : (tensor<4xsi64>, tensor<4xsi64>) -> tensor<4xi1>
  %mb = coreai.cast %b : tensor<4xi1> to tensor<4xf32>
  %c = coreai.decomposable.broadcasting_equal %i, %k : (tensor<4xsi64>, tensor<4xsi64>) -> tensor<4xi1>
  %mc = coreai.cast %c : tensor<4xi1> to tensor<4xf32>
  coreai.output %ma, %mb, %mc : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}

// -----

// Declines: a mask reshaped between the comparison and the cast; a bool
// cast to an integer and a where selecting integers (not the float chain).
// Not masks, not reported: a cast of a float comparison, a float → int cast.
// CHECK-LABEL: coreai.graph @kept(
// CHECK:         coreai.cast %{{.*}} : tensor<1x4xi1> to tensor<1x4xf32>
// CHECK:         coreai.cast %{{.*}} : tensor<4xi1> to tensor<4xsi32>
// CHECK:         coreai.decomposable.broadcasting_where %{{.*}} : (tensor<4xi1>, tensor<4xsi64>, tensor<si64>) -> tensor<4xsi64>
// CHECK:         coreai.cast %{{.*}} : tensor<4xi1> to tensor<4xf32>
// REMARK: mask-arithmetic declined: a bool of the mask comes from 'coreai.reshape', not a comparison or and/or/xor/not (masks reshaped, broadcast or gathered before the cast are not handled)
// REMARK: mask-arithmetic declined: the cast gives si32, not a float
// REMARK: mask-select declined: the where gives si64, not a float
// REMARK-NOT: declined
coreai.graph @kept(%x: tensor<4xf32>) -> (tensor<1x4xf32>, tensor<4xsi32>, tensor<4xsi64>, tensor<4xf32>) {
  %one = coreai.constant dense<1.000000e+00> : tensor<f32>
  %y = coreai.decomposable.broadcasting_floor_divide %x, %one : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  %i = coreai.cast %y : tensor<4xf32> to tensor<4xsi64>
  %c0 = coreai.constant dense<0> : tensor<si64>
  %gt = coreai.decomposable.broadcasting_greater %i, %c0 : (tensor<4xsi64>, tensor<si64>) -> tensor<4xi1>
  %shape = coreai.constant dense<[1, 4]> : tensor<2xui32>
  %r = coreai.reshape %gt, %shape : (tensor<4xi1>, tensor<2xui32>) -> tensor<1x4xi1>
  %mr = coreai.cast %r : tensor<1x4xi1> to tensor<1x4xf32>
  %mi = coreai.cast %gt : tensor<4xi1> to tensor<4xsi32>
  %wi = coreai.decomposable.broadcasting_where %gt, %i, %c0 : (tensor<4xi1>, tensor<4xsi64>, tensor<si64>) -> tensor<4xsi64>
  %fz = coreai.constant dense<0.000000e+00> : tensor<f32>
  %fc = coreai.decomposable.broadcasting_greater %x, %fz : (tensor<4xf32>, tensor<f32>) -> tensor<4xi1>
  %mf = coreai.cast %fc : tensor<4xi1> to tensor<4xf32>
  coreai.output %mr, %mi, %wi, %mf : tensor<1x4xf32>, tensor<4xsi32>, tensor<4xsi64>, tensor<4xf32>
}
