// RUN: coreai-opt %s --split-input-file --pass-pipeline='builtin.module(fp16-stabilize)' | FileCheck %s --enable-var-scope
// RUN: coreai-opt %s --split-input-file --pass-pipeline='builtin.module(fp16-stabilize{families=norms})' | FileCheck %s --check-prefix=NORMS-ONLY --enable-var-scope

// softplus/mish: the lowering's log1p form of exp(x) → max(x, 0) + log1p(exp(-|x|)),
// log1p(e) as log(u) - ((u - 1) - e) / u with u = e + 1 (no comparison, no
// select); the unstable exp(x) and its log1p branches are erased.
// CHECK-LABEL: coreai.graph @log1p_exp(
// CHECK-SAME:    %[[X:.*]]: tensor<4xf32>
// CHECK:         %[[POS:.*]] = coreai.decomposable.broadcasting_maximum %[[X]], %{{.*}}
// CHECK:         %[[ABS:.*]] = coreai.abs %[[X]]
// CHECK:         %[[NEG:.*]] = coreai.decomposable.broadcasting_sub %{{.*}}, %[[ABS]]
// CHECK:         %[[E:.*]] = coreai.exp %[[NEG]]
// CHECK-NOT:     coreai.exp
// CHECK-NOT:     broadcasting_or
// CHECK:         %[[U:.*]] = coreai.decomposable.broadcasting_add %[[E]], %[[ONE:.*]] :
// CHECK:         %[[LOG:.*]] = coreai.log %[[U]]
// CHECK:         %[[U1:.*]] = coreai.decomposable.broadcasting_sub %[[U]], %[[ONE]]
// CHECK:         %[[D:.*]] = coreai.decomposable.broadcasting_sub %[[U1]], %[[E]]
// CHECK:         %[[C:.*]] = coreai.decomposable.broadcasting_divide %[[D]], %[[U]]
// CHECK:         %[[L:.*]] = coreai.decomposable.broadcasting_sub %[[LOG]], %[[C]]
// CHECK:         %[[R:.*]] = coreai.decomposable.broadcasting_add %[[POS]], %[[L]]
// CHECK-NOT:     broadcasting_where
// CHECK:         coreai.output %[[R]]
// NORMS-ONLY-LABEL: coreai.graph @log1p_exp(
// NORMS-ONLY:       coreai.exp %arg0
// NORMS-ONLY:       broadcasting_or
coreai.graph @log1p_exp(%x: tensor<4xf32>) -> tensor<4xf32> {
  %inf = coreai.constant dense<0x7F800000> : tensor<f32>
  %one = coreai.constant dense<1.000000e+00> : tensor<f32>
  %zero = coreai.constant dense<0.000000e+00> : tensor<f32>
  %y = coreai.exp %x : tensor<4xf32> -> tensor<4xf32>
  %u = coreai.decomposable.broadcasting_add %y, %one : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  %isinf = coreai.decomposable.broadcasting_equal %u, %inf : (tensor<4xf32>, tensor<f32>) -> tensor<4xi1>
  %uinf = coreai.decomposable.broadcasting_where %isinf, %inf, %u : (tensor<4xi1>, tensor<f32>, tensor<4xf32>) -> tensor<4xf32>
  %log = coreai.log %u : tensor<4xf32> -> tensor<4xf32>
  %num = coreai.decomposable.broadcasting_mul %log, %y : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %den = coreai.decomposable.broadcasting_sub %uinf, %one : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  %q = coreai.decomposable.broadcasting_divide %num, %den : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %isone = coreai.decomposable.broadcasting_equal %u, %one : (tensor<4xf32>, tensor<f32>) -> tensor<4xi1>
  %w = coreai.decomposable.broadcasting_where %isone, %y, %q : (tensor<4xi1>, tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %iszero = coreai.decomposable.broadcasting_equal %u, %zero : (tensor<4xf32>, tensor<f32>) -> tensor<4xi1>
  %c = coreai.decomposable.broadcasting_or %isinf, %iszero : (tensor<4xi1>, tensor<4xi1>) -> tensor<4xi1>
  %r = coreai.decomposable.broadcasting_where %c, %log, %w : (tensor<4xi1>, tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  coreai.output %r : tensor<4xf32>
}

// -----

// log(1 + exp(x)) written by hand, either operand order of the add.
// CHECK-LABEL: coreai.graph @log_one_plus_exp(
// CHECK-SAME:    %[[X:.*]]: tensor<2x3xf32>
// CHECK:         %[[POS:.*]] = coreai.decomposable.broadcasting_maximum %[[X]]
// CHECK:         coreai.abs %[[X]]
// CHECK-NOT:     coreai.exp %[[X]]
// CHECK:         %[[R:.*]] = coreai.decomposable.broadcasting_add %[[POS]],
// CHECK:         coreai.output %[[R]]
coreai.graph @log_one_plus_exp(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %one = coreai.constant dense<1.000000e+00> : tensor<f32>
  %e = coreai.exp %x : tensor<2x3xf32> -> tensor<2x3xf32>
  %u = coreai.decomposable.broadcasting_add %one, %e : (tensor<f32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %r = coreai.log %u : tensor<2x3xf32> -> tensor<2x3xf32>
  coreai.output %r : tensor<2x3xf32>
}

// -----

// log(sigmoid(x)) → min(x, 0) - log1p(exp(-|x|)).
// CHECK-LABEL: coreai.graph @log_sigmoid(
// CHECK-SAME:    %[[X:.*]]: tensor<5xf32>
// CHECK-NOT:     coreai.sigmoid
// CHECK:         %[[NEG:.*]] = coreai.decomposable.broadcasting_minimum %[[X]]
// CHECK:         %[[R:.*]] = coreai.decomposable.broadcasting_sub %[[NEG]],
// CHECK:         coreai.output %[[R]]
coreai.graph @log_sigmoid(%x: tensor<5xf32>) -> tensor<5xf32> {
  %s = coreai.sigmoid %x : (tensor<5xf32>) -> tensor<5xf32>
  %r = coreai.log %s : tensor<5xf32> -> tensor<5xf32>
  coreai.output %r : tensor<5xf32>
}

// -----

// log(reduce_sum(exp(x))) then reshape → max-shifted, the reshape kept last;
// the max is clamped to the finite range (no boolean: min/max only).
// CHECK-LABEL: coreai.graph @log_sum_exp(
// CHECK-SAME:    %[[X:.*]]: tensor<6x20xf32>
// CHECK:         %[[M:.*]] = coreai.reduce_max %[[X]], %[[AXES:.*]] :
// CHECK-DAG:     %[[NEGF:.*]] = coreai.constant dense<-3.40282347E+38> : tensor<f32>
// CHECK-DAG:     %[[F:.*]] = coreai.constant dense<3.40282347E+38> : tensor<f32>
// CHECK:         %[[LO:.*]] = coreai.decomposable.broadcasting_maximum %[[M]], %[[NEGF]]
// CHECK:         %[[SHIFT:.*]] = coreai.decomposable.broadcasting_minimum %[[LO]], %[[F]]
// CHECK:         %[[Z:.*]] = coreai.decomposable.broadcasting_sub %[[X]], %[[SHIFT]]
// CHECK:         %[[E:.*]] = coreai.exp %[[Z]]
// CHECK:         %[[S:.*]] = coreai.reduce_sum %[[E]], %[[AXES]]
// CHECK:         %[[L:.*]] = coreai.log %[[S]]
// CHECK:         %[[A:.*]] = coreai.decomposable.broadcasting_add %[[L]], %[[SHIFT]]
// CHECK:         %[[R:.*]] = coreai.reshape %[[A]]
// CHECK:         coreai.output %[[R]]
coreai.graph @log_sum_exp(%x: tensor<6x20xf32>) -> tensor<6xf32> {
  %axes = coreai.constant dense<1> : tensor<1xsi32>
  %shape = coreai.constant dense<6> : tensor<1xui32>
  %e = coreai.exp %x : tensor<6x20xf32> -> tensor<6x20xf32>
  %s = coreai.reduce_sum %e, %axes : (tensor<6x20xf32>, tensor<1xsi32>) -> tensor<6x1xf32>
  %v = coreai.reshape %s, %shape : (tensor<6x1xf32>, tensor<1xui32>) -> tensor<6xf32>
  %r = coreai.log %v : tensor<6xf32> -> tensor<6xf32>
  coreai.output %r : tensor<6xf32>
}

// -----

// Softmax by hand (attention weights): exp(s) / reduce_sum(exp(s)) → shifted.
// CHECK-LABEL: coreai.graph @softmax_by_hand(
// CHECK-SAME:    %[[X:.*]]: tensor<2x5x7xf32>
// CHECK:         %[[M:.*]] = coreai.reduce_max %[[X]]
// CHECK:         %[[Z:.*]] = coreai.decomposable.broadcasting_sub %[[X]],
// CHECK:         %[[E:.*]] = coreai.exp %[[Z]]
// CHECK:         %[[S:.*]] = coreai.reduce_sum %[[E]]
// CHECK:         %[[R:.*]] = coreai.decomposable.broadcasting_divide %[[E]], %[[S]]
// CHECK:         coreai.output %[[R]]
coreai.graph @softmax_by_hand(%x: tensor<2x5x7xf32>) -> tensor<2x5x7xf32> {
  %axes = coreai.constant dense<2> : tensor<1xsi32>
  %e = coreai.exp %x : tensor<2x5x7xf32> -> tensor<2x5x7xf32>
  %s = coreai.reduce_sum %e, %axes : (tensor<2x5x7xf32>, tensor<1xsi32>) -> tensor<2x5x1xf32>
  %r = coreai.decomposable.broadcasting_divide %e, %s : (tensor<2x5x7xf32>, tensor<2x5x1xf32>) -> tensor<2x5x7xf32>
  coreai.output %r : tensor<2x5x7xf32>
}

// -----

// A norm composite (private noinline graph) is rewritten inside its body
// and stays a composite: rsqrt(mean(d·d) + eps) → rsqrt(mean((d/s)²) + eps/s/s) / s.
// CHECK-LABEL: coreai.graph private noinline @layer_norm(
// CHECK-SAME:    %[[X:.*]]: tensor<3x24xf32>
// CHECK:         %[[D:.*]] = coreai.decomposable.broadcasting_sub %[[X]],
// CHECK:         %[[A:.*]] = coreai.reduce_max %{{.*}}, %[[AXES:.*]] :
// CHECK-DAG:     %[[ONE:.*]] = coreai.constant dense<1.000000e+00> : tensor<f32>
// CHECK-DAG:     %[[F:.*]] = coreai.constant dense<3.40282347E+38> : tensor<f32>
// CHECK:         %[[A1:.*]] = coreai.decomposable.broadcasting_maximum %[[A]], %[[ONE]]
// CHECK:         %[[S:.*]] = coreai.decomposable.broadcasting_minimum %[[A1]], %[[F]]
// CHECK:         %[[DS:.*]] = coreai.decomposable.broadcasting_divide %[[D]], %[[S]]
// CHECK:         %[[SQ:.*]] = coreai.decomposable.broadcasting_mul %[[DS]], %[[DS]]
// CHECK:         %[[V:.*]] = coreai.reduce_mean %[[SQ]], %[[AXES]]
// CHECK:         %[[EPS1:.*]] = coreai.decomposable.broadcasting_divide %[[EPS:.*]], %[[S]]
// CHECK:         %[[EPS2:.*]] = coreai.decomposable.broadcasting_divide %[[EPS1]], %[[S]]
// CHECK:         %[[VE:.*]] = coreai.decomposable.broadcasting_add %[[V]], %[[EPS2]]
// CHECK:         %[[RS:.*]] = coreai.rsqrt %[[VE]]
// CHECK:         %[[INV:.*]] = coreai.decomposable.broadcasting_divide %[[RS]], %[[S]]
// CHECK:         coreai.decomposable.broadcasting_mul %[[D]], %[[INV]]
// NORMS-ONLY-LABEL: coreai.graph private noinline @layer_norm(
// NORMS-ONLY:       coreai.reduce_max
coreai.graph private noinline @layer_norm(%x: tensor<3x24xf32>) -> tensor<3x24xf32> {
  %eps = coreai.constant dense<9.99999974E-6> : tensor<f32>
  %axes = coreai.constant dense<1> : tensor<1xsi32>
  %mean = coreai.reduce_mean %x, %axes : (tensor<3x24xf32>, tensor<1xsi32>) -> tensor<3x1xf32>
  %d = coreai.decomposable.broadcasting_sub %x, %mean : (tensor<3x24xf32>, tensor<3x1xf32>) -> tensor<3x24xf32>
  %sq = coreai.decomposable.broadcasting_mul %d, %d : (tensor<3x24xf32>, tensor<3x24xf32>) -> tensor<3x24xf32>
  %v = coreai.reduce_mean %sq, %axes : (tensor<3x24xf32>, tensor<1xsi32>) -> tensor<3x1xf32>
  %ve = coreai.decomposable.broadcasting_add %v, %eps : (tensor<3x1xf32>, tensor<f32>) -> tensor<3x1xf32>
  %rs = coreai.rsqrt %ve : tensor<3x1xf32> -> tensor<3x1xf32>
  %r = coreai.decomposable.broadcasting_mul %d, %rs : (tensor<3x24xf32>, tensor<3x1xf32>) -> tensor<3x24xf32>
  coreai.output %r : tensor<3x24xf32>
}
coreai.graph @main(%x: tensor<3x24xf32>) -> tensor<3x24xf32> {
  %r = coreai.invoke @layer_norm(%x) : (tensor<3x24xf32>) -> tensor<3x24xf32>
  coreai.output %r : tensor<3x24xf32>
}

// -----

// A vector 2-norm through a reshape: sqrt(reshape(Σ x·x)) → sqrt(reshape(Σ (x/s)²)) · reshape(s).
// CHECK-LABEL: coreai.graph @vector_norm(
// CHECK-SAME:    %[[X:.*]]: tensor<3x5x24xf32>
// CHECK:         %[[DS:.*]] = coreai.decomposable.broadcasting_divide %[[X]], %[[S:.*]] :
// CHECK:         %[[V:.*]] = coreai.reduce_sum
// CHECK:         %[[S2:.*]] = coreai.reshape %[[S]]
// CHECK:         %[[V2:.*]] = coreai.reshape %[[V]]
// CHECK:         %[[Q:.*]] = coreai.sqrt %[[V2]]
// CHECK:         %[[R:.*]] = coreai.decomposable.broadcasting_mul %[[Q]], %[[S2]]
// CHECK:         coreai.output %[[R]]
coreai.graph @vector_norm(%x: tensor<3x5x24xf32>) -> tensor<3x5xf32> {
  %axes = coreai.constant dense<2> : tensor<1xsi32>
  %shape = coreai.constant dense<[3, 5]> : tensor<2xui32>
  %sq = coreai.decomposable.broadcasting_mul %x, %x : (tensor<3x5x24xf32>, tensor<3x5x24xf32>) -> tensor<3x5x24xf32>
  %s = coreai.reduce_sum %sq, %axes : (tensor<3x5x24xf32>, tensor<1xsi32>) -> tensor<3x5x1xf32>
  %v = coreai.reshape %s, %shape : (tensor<3x5x1xf32>, tensor<2xui32>) -> tensor<3x5xf32>
  %r = coreai.sqrt %v : tensor<3x5xf32> -> tensor<3x5xf32>
  coreai.output %r : tensor<3x5xf32>
}

// -----

// Does not fire: already max-shifted (the log_softmax lowering), 2 + exp(x),
// a product of two different values, a sigmoid without log, an integer sum.
// CHECK-LABEL: coreai.graph @does_not_fire(
// CHECK-COUNT-1: coreai.reduce_max
// CHECK-NOT:     coreai.reduce_max
// CHECK-NOT:     broadcasting_maximum
// CHECK-NOT:     broadcasting_minimum
// CHECK:         coreai.output
coreai.graph @does_not_fire(%x: tensor<6x20xf32>, %y: tensor<6x20xf32>, %i: tensor<6x20xsi32>) -> (tensor<6x20xf32>, tensor<6x20xf32>, tensor<6x1xf32>, tensor<6x20xf32>) {
  %axes = coreai.constant dense<1> : tensor<1xsi32>
  %two = coreai.constant dense<2.000000e+00> : tensor<f32>
  %m = coreai.reduce_max %x, %axes : (tensor<6x20xf32>, tensor<1xsi32>) -> tensor<6x1xf32>
  %z = coreai.decomposable.broadcasting_sub %x, %m : (tensor<6x20xf32>, tensor<6x1xf32>) -> tensor<6x20xf32>
  %e = coreai.exp %z : tensor<6x20xf32> -> tensor<6x20xf32>
  %s = coreai.reduce_sum %e, %axes : (tensor<6x20xf32>, tensor<1xsi32>) -> tensor<6x1xf32>
  %l = coreai.log %s : tensor<6x1xf32> -> tensor<6x1xf32>
  %ls = coreai.decomposable.broadcasting_sub %z, %l : (tensor<6x20xf32>, tensor<6x1xf32>) -> tensor<6x20xf32>
  %ex = coreai.exp %x : tensor<6x20xf32> -> tensor<6x20xf32>
  %u = coreai.decomposable.broadcasting_add %ex, %two : (tensor<6x20xf32>, tensor<f32>) -> tensor<6x20xf32>
  %lu = coreai.log %u : tensor<6x20xf32> -> tensor<6x20xf32>
  %xy = coreai.decomposable.broadcasting_mul %x, %y : (tensor<6x20xf32>, tensor<6x20xf32>) -> tensor<6x20xf32>
  %v = coreai.reduce_mean %xy, %axes : (tensor<6x20xf32>, tensor<1xsi32>) -> tensor<6x1xf32>
  %rs = coreai.rsqrt %v : tensor<6x1xf32> -> tensor<6x1xf32>
  %sg = coreai.sigmoid %x : (tensor<6x20xf32>) -> tensor<6x20xf32>
  coreai.output %ls, %lu, %rs, %sg : tensor<6x20xf32>, tensor<6x20xf32>, tensor<6x1xf32>, tensor<6x20xf32>
}

// -----

// softplus's threshold select (beta = 1, threshold 20): the stable form
// already rounds to x above 16, so the select goes; with threshold 10 it stays.
// CHECK-LABEL: coreai.graph @softplus_threshold(
// CHECK-SAME:    %[[X:.*]]: tensor<4xf32>
// CHECK:         %[[R:.*]] = coreai.decomposable.broadcasting_add %{{.*}}, %{{.*}} : (tensor<4xf32>, tensor<4xf32>)
// CHECK-NOT:     broadcasting_greater
// CHECK-NOT:     broadcasting_where
// CHECK:         coreai.output %[[R]] :
// CHECK-LABEL: coreai.graph @softplus_low_threshold(
// CHECK:         %[[G:.*]] = coreai.decomposable.broadcasting_greater
// CHECK:         coreai.decomposable.broadcasting_where %[[G]]
coreai.graph @softplus_threshold(%x: tensor<4xf32>) -> tensor<4xf32> {
  %t = coreai.constant dense<2.000000e+01> : tensor<f32>
  %inf = coreai.constant dense<0x7F800000> : tensor<f32>
  %one = coreai.constant dense<1.000000e+00> : tensor<f32>
  %zero = coreai.constant dense<0.000000e+00> : tensor<f32>
  %y = coreai.exp %x : tensor<4xf32> -> tensor<4xf32>
  %u = coreai.decomposable.broadcasting_add %y, %one : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  %isinf = coreai.decomposable.broadcasting_equal %u, %inf : (tensor<4xf32>, tensor<f32>) -> tensor<4xi1>
  %uinf = coreai.decomposable.broadcasting_where %isinf, %inf, %u : (tensor<4xi1>, tensor<f32>, tensor<4xf32>) -> tensor<4xf32>
  %log = coreai.log %u : tensor<4xf32> -> tensor<4xf32>
  %num = coreai.decomposable.broadcasting_mul %log, %y : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %den = coreai.decomposable.broadcasting_sub %uinf, %one : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  %q = coreai.decomposable.broadcasting_divide %num, %den : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %isone = coreai.decomposable.broadcasting_equal %u, %one : (tensor<4xf32>, tensor<f32>) -> tensor<4xi1>
  %w = coreai.decomposable.broadcasting_where %isone, %y, %q : (tensor<4xi1>, tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %iszero = coreai.decomposable.broadcasting_equal %u, %zero : (tensor<4xf32>, tensor<f32>) -> tensor<4xi1>
  %c = coreai.decomposable.broadcasting_or %isinf, %iszero : (tensor<4xi1>, tensor<4xi1>) -> tensor<4xi1>
  %sp = coreai.decomposable.broadcasting_where %c, %log, %w : (tensor<4xi1>, tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %above = coreai.decomposable.broadcasting_greater %x, %t : (tensor<4xf32>, tensor<f32>) -> tensor<4xi1>
  %r = coreai.decomposable.broadcasting_where %above, %x, %sp : (tensor<4xi1>, tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  coreai.output %r : tensor<4xf32>
}
coreai.graph @softplus_low_threshold(%x: tensor<4xf32>) -> tensor<4xf32> {
  %t = coreai.constant dense<1.000000e+01> : tensor<f32>
  %inf = coreai.constant dense<0x7F800000> : tensor<f32>
  %one = coreai.constant dense<1.000000e+00> : tensor<f32>
  %zero = coreai.constant dense<0.000000e+00> : tensor<f32>
  %y = coreai.exp %x : tensor<4xf32> -> tensor<4xf32>
  %u = coreai.decomposable.broadcasting_add %y, %one : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  %isinf = coreai.decomposable.broadcasting_equal %u, %inf : (tensor<4xf32>, tensor<f32>) -> tensor<4xi1>
  %uinf = coreai.decomposable.broadcasting_where %isinf, %inf, %u : (tensor<4xi1>, tensor<f32>, tensor<4xf32>) -> tensor<4xf32>
  %log = coreai.log %u : tensor<4xf32> -> tensor<4xf32>
  %num = coreai.decomposable.broadcasting_mul %log, %y : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %den = coreai.decomposable.broadcasting_sub %uinf, %one : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  %q = coreai.decomposable.broadcasting_divide %num, %den : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %isone = coreai.decomposable.broadcasting_equal %u, %one : (tensor<4xf32>, tensor<f32>) -> tensor<4xi1>
  %w = coreai.decomposable.broadcasting_where %isone, %y, %q : (tensor<4xi1>, tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %iszero = coreai.decomposable.broadcasting_equal %u, %zero : (tensor<4xf32>, tensor<f32>) -> tensor<4xi1>
  %c = coreai.decomposable.broadcasting_or %isinf, %iszero : (tensor<4xi1>, tensor<4xi1>) -> tensor<4xi1>
  %sp = coreai.decomposable.broadcasting_where %c, %log, %w : (tensor<4xi1>, tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %above = coreai.decomposable.broadcasting_greater %x, %t : (tensor<4xf32>, tensor<f32>) -> tensor<4xi1>
  %r = coreai.decomposable.broadcasting_where %above, %x, %sp : (tensor<4xi1>, tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  coreai.output %r : tensor<4xf32>
}
