// RUN: coreai-opt %s --split-input-file --pass-pipeline='builtin.module(legalize-aten-to-coreai)' | FileCheck %s --enable-var-scope

// _softmax → coreai.softmax with the normalized axis as a tensor<si32>.
// CHECK-LABEL: coreai.graph @softmax(
// CHECK-SAME:    %[[X:[^:]*]]: tensor<2x5xf32>
// CHECK-NEXT:    %[[AX:.*]] = coreai.constant dense<1> : tensor<si32>
// CHECK-NEXT:    %[[R:.*]] = coreai.softmax %[[X]], %[[AX]] : (tensor<2x5xf32>, tensor<si32>) -> tensor<2x5xf32>
// CHECK-NEXT:    coreai.output %[[R]]
func.func @softmax(%x: tensor<2x5xf32>) -> tensor<2x5xf32> {
  %0 = aten._softmax.default %x {dim = -1 : i64, half_to_float = false} : (tensor<2x5xf32>) -> tensor<2x5xf32>
  return %0 : tensor<2x5xf32>
}

// -----

// _log_softmax, max-shifted: d = x - max(x); d - log(sum(exp(d))), in
// coreai-torch's log_softmax composite (its name taken by the function, the
// graph is @log_softmax_1).
// CHECK-LABEL: coreai.graph private noinline @log_softmax_1(
// CHECK-SAME:    %[[X:[^:]*]]: tensor<4x6xf32> {coreai.name = "input"}) -> tensor<4x6xf32>
// CHECK-SAME:    attributes {__coreai_pure__, composite_decl = #coreai.composite_declaration<"log_softmax" = {input_names = ["input"], op_attrs = {axis = 1 : si64, version = 1 : si64}, output_names = ["output"]}>, template_op = "log_softmax"}
// CHECK:         %[[M:.*]] = coreai.reduce_max %[[X]], {{.*}} -> tensor<4x1xf32>
// CHECK:         %[[D:.*]] = coreai.decomposable.broadcasting_sub %[[X]], %[[M]]
// CHECK:         %[[E:.*]] = coreai.exp %[[D]]
// CHECK:         %[[S:.*]] = coreai.reduce_sum %[[E]], {{.*}} -> tensor<4x1xf32>
// CHECK:         %[[L:.*]] = coreai.log %[[S]]
// CHECK:         %[[R:.*]] = coreai.decomposable.broadcasting_sub %[[D]], %[[L]]
// CHECK:         coreai.output %[[R]]
// CHECK-LABEL: coreai.graph @log_softmax(
// CHECK-SAME:    %[[X:[^:]*]]: tensor<4x6xf32>
// CHECK-NEXT:    %[[R:.*]] = coreai.invoke @log_softmax_1(%[[X]]) : (tensor<4x6xf32>) -> tensor<4x6xf32>
// CHECK-NEXT:    coreai.output %[[R]]
func.func @log_softmax(%x: tensor<4x6xf32>) -> tensor<4x6xf32> {
  %0 = aten._log_softmax.default %x {dim = 1 : i64, half_to_float = false} : (tensor<4x6xf32>) -> tensor<4x6xf32>
  return %0 : tensor<4x6xf32>
}

// -----

// Inference batch norm: (x - mean) / sqrt(var + eps) * w + b with [1, C, 1, 1]
// parameters; the two saved-statistics results are empty constants. They
// are returned (used), so the op is inline: a composite has one output.
// CHECK-NOT:   noinline
// CHECK-LABEL: coreai.graph @batch_norm(
// CHECK-SAME:    %[[X:[^:]*]]: tensor<2x3x4x5xf32>, %[[W:[^:]*]]: tensor<3xf32>, %[[B:[^:]*]]: tensor<3xf32>, %[[M:[^:]*]]: tensor<3xf32>, %[[V:[^:]*]]: tensor<3xf32>
// CHECK:         %[[M4:.*]] = coreai.reshape %[[M]], {{.*}} -> tensor<1x3x1x1xf32>
// CHECK:         %[[V4:.*]] = coreai.reshape %[[V]], {{.*}} -> tensor<1x3x1x1xf32>
// CHECK:         %[[EPS:.*]] = coreai.constant dense<9.99999974E-6> : tensor<f32>
// CHECK:         %[[VE:.*]] = coreai.decomposable.broadcasting_add %[[V4]], %[[EPS]]
// CHECK:         %[[STD:.*]] = coreai.sqrt %[[VE]]
// CHECK:         %[[C:.*]] = coreai.decomposable.broadcasting_sub %[[X]], %[[M4]]
// CHECK:         %[[N:.*]] = coreai.decomposable.broadcasting_divide %[[C]], %[[STD]]
// CHECK:         %[[W4:.*]] = coreai.reshape %[[W]]
// CHECK:         %[[NW:.*]] = coreai.decomposable.broadcasting_mul %[[N]], %[[W4]]
// CHECK:         %[[B4:.*]] = coreai.reshape %[[B]]
// CHECK:         %[[Y:.*]] = coreai.decomposable.broadcasting_add %[[NW]], %[[B4]]
// CHECK:         %[[E1:.*]] = coreai.constant dense<0.000000e+00> : tensor<0xf32>
// CHECK:         %[[E2:.*]] = coreai.constant dense<0.000000e+00> : tensor<0xf32>
// CHECK:         coreai.output %[[Y]], %[[E1]], %[[E2]]
func.func @batch_norm(%x: tensor<2x3x4x5xf32>, %w: tensor<3xf32>, %b: tensor<3xf32>, %m: tensor<3xf32>, %v: tensor<3xf32>) -> (tensor<2x3x4x5xf32>, tensor<0xf32>, tensor<0xf32>) {
  %0:3 = aten._native_batch_norm_legit_no_training.default %x, %w, %b, %m, %v {momentum = 0.1 : f64, eps = 1.0e-05 : f64, operandSegmentSizes = array<i32: 1, 1, 1, 1, 1>} : (tensor<2x3x4x5xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> (tensor<2x3x4x5xf32>, tensor<0xf32>, tensor<0xf32>)
  return %0#0, %0#1, %0#2 : tensor<2x3x4x5xf32>, tensor<0xf32>, tensor<0xf32>
}

// -----

// Layer norm of f16 computes in f32 and rounds out, mean and rstd once
// (inline: mean and rstd are used).
// CHECK-NOT:   noinline
// CHECK-LABEL: coreai.graph @layer_norm_f16(
// CHECK-SAME:    %[[X:[^:]*]]: tensor<4x32xf16>
// CHECK:         %[[XF:.*]] = coreai.cast %[[X]] : tensor<4x32xf16> to tensor<4x32xf32>
// CHECK:         %[[MEAN:.*]] = coreai.reduce_mean %[[XF]], {{.*}} -> tensor<4x1xf32>
// CHECK:         %[[C:.*]] = coreai.decomposable.broadcasting_sub %[[XF]], %[[MEAN]]
// CHECK:         %[[SQ:.*]] = coreai.decomposable.broadcasting_mul %[[C]], %[[C]]
// CHECK:         %[[VAR:.*]] = coreai.reduce_mean %[[SQ]]
// CHECK:         %[[VE:.*]] = coreai.decomposable.broadcasting_add %[[VAR]]
// CHECK:         %[[RSTD:.*]] = coreai.rsqrt %[[VE]]
// CHECK:         %[[Y:.*]] = coreai.cast {{.*}} : tensor<4x32xf32> to tensor<4x32xf16>
// CHECK:         %[[M16:.*]] = coreai.cast %[[MEAN]] : tensor<4x1xf32> to tensor<4x1xf16>
// CHECK:         %[[R16:.*]] = coreai.cast %[[RSTD]] : tensor<4x1xf32> to tensor<4x1xf16>
// CHECK:         coreai.output %[[Y]], %[[M16]], %[[R16]]
func.func @layer_norm_f16(%x: tensor<4x32xf16>, %w: tensor<32xf16>, %b: tensor<32xf16>) -> (tensor<4x32xf16>, tensor<4x1xf16>, tensor<4x1xf16>) {
  %0:3 = aten.native_layer_norm.default %x, %w, %b {normalized_shape = [32], eps = 1.0e-05 : f64, operandSegmentSizes = array<i32: 1, 1, 1>} : (tensor<4x32xf16>, tensor<32xf16>, tensor<32xf16>) -> (tensor<4x32xf16>, tensor<4x1xf16>, tensor<4x1xf16>)
  return %0#0, %0#1, %0#2 : tensor<4x32xf16>, tensor<4x1xf16>, tensor<4x1xf16>
}

// -----

// Group norm standardizes [N, G, C/G·HW] rows; mean and rstd come out [N, G].
// CHECK-LABEL: coreai.graph @group_norm(
// CHECK:         %[[G:.*]] = coreai.reshape %{{.*}}, {{.*}} -> tensor<2x2x75xf32>
// CHECK:         %[[MEAN:.*]] = coreai.reduce_mean %[[G]], {{.*}} -> tensor<2x2x1xf32>
// CHECK:         %[[RSTD:.*]] = coreai.rsqrt
// CHECK:         coreai.reshape {{.*}} -> tensor<2x6x5x5xf32>
// CHECK:         %[[Y:.*]] = coreai.decomposable.broadcasting_add {{.*}} -> tensor<2x6x5x5xf32>
// CHECK:         %[[M2:.*]] = coreai.reshape %[[MEAN]], {{.*}} -> tensor<2x2xf32>
// CHECK:         %[[R2:.*]] = coreai.reshape %[[RSTD]], {{.*}} -> tensor<2x2xf32>
// CHECK:         coreai.output %[[Y]], %[[M2]], %[[R2]]
func.func @group_norm(%x: tensor<2x6x5x5xf32>, %w: tensor<6xf32>, %b: tensor<6xf32>) -> (tensor<2x6x5x5xf32>, tensor<2x2xf32>, tensor<2x2xf32>) {
  %0:3 = aten.native_group_norm.default %x, %w, %b {N = 2 : i64, C = 6 : i64, HxW = 25 : i64, group = 2 : i64, eps = 1.0e-05 : f64, operandSegmentSizes = array<i32: 1, 1, 1>} : (tensor<2x6x5x5xf32>, tensor<6xf32>, tensor<6xf32>) -> (tensor<2x6x5x5xf32>, tensor<2x2xf32>, tensor<2x2xf32>)
  return %0#0, %0#1, %0#2 : tensor<2x6x5x5xf32>, tensor<2x2xf32>, tensor<2x2xf32>
}

// -----

// Instance norm with use_input_stats: statistics over the spatial dims of
// each (n, c), in coreai-torch's instance_norm composite, which takes gamma
// and beta as [C, 1, 1].
// CHECK-LABEL: coreai.graph private noinline @instance_norm(
// CHECK-SAME:    %[[X:[^:]*]]: tensor<2x3x4x4xf32> {coreai.name = "input"}, %{{.*}}: tensor<3x1x1xf32> {coreai.name = "gamma"}, %{{.*}}: tensor<3x1x1xf32> {coreai.name = "beta"}) -> tensor<2x3x4x4xf32>
// CHECK-SAME:    composite_decl = #coreai.composite_declaration<"instance_norm" = {input_names = ["input", "gamma", "beta"], op_attrs = {eps = 9.99999974E-6 : f32, version = 1 : si64}, output_names = ["output"]}>, template_op = "instance_norm"}
// CHECK:         %[[AX:.*]] = coreai.constant dense<[2, 3]> : tensor<2xsi32>
// CHECK:         coreai.reduce_mean %[[X]], %[[AX]] : {{.*}} -> tensor<2x3x1x1xf32>
// CHECK:         coreai.rsqrt
// CHECK-LABEL: coreai.graph @instance_norm_input_stats(
// CHECK-SAME:    %[[X:[^:]*]]: tensor<2x3x4x4xf32>, %[[W:[^:]*]]: tensor<3xf32>, %[[B:[^:]*]]: tensor<3xf32>
// CHECK:         %[[W3:.*]] = coreai.reshape %[[W]], {{.*}} -> tensor<3x1x1xf32>
// CHECK:         %[[B3:.*]] = coreai.reshape %[[B]], {{.*}} -> tensor<3x1x1xf32>
// CHECK-NEXT:    %[[R:.*]] = coreai.invoke @instance_norm(%[[X]], %[[W3]], %[[B3]])
// CHECK-NEXT:    coreai.output %[[R]]
func.func @instance_norm_input_stats(%x: tensor<2x3x4x4xf32>, %w: tensor<3xf32>, %b: tensor<3xf32>) -> tensor<2x3x4x4xf32> {
  %0 = aten.instance_norm.default %x, %w, %b {use_input_stats = true, momentum = 0.1 : f64, eps = 1.0e-05 : f64, cudnn_enabled = false, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0>} : (tensor<2x3x4x4xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<2x3x4x4xf32>
  return %0 : tensor<2x3x4x4xf32>
}

// -----

// Regression (fidelity): with use_input_stats = false instance norm uses the
// running statistics, per channel, and computes no statistics of its own;
// inline, as coreai-torch emits it.
// CHECK-NOT:   noinline
// CHECK-LABEL: coreai.graph @instance_norm_running_stats(
// CHECK-SAME:    %[[X:[^:]*]]: tensor<2x3x4x4xf32>, %[[M:[^:]*]]: tensor<3xf32>, %[[V:[^:]*]]: tensor<3xf32>
// CHECK-NOT:     coreai.reduce_mean
// CHECK:         %[[M4:.*]] = coreai.reshape %[[M]], {{.*}} -> tensor<1x3x1x1xf32>
// CHECK:         %[[V4:.*]] = coreai.reshape %[[V]], {{.*}} -> tensor<1x3x1x1xf32>
// CHECK:         %[[VE:.*]] = coreai.decomposable.broadcasting_add %[[V4]]
// CHECK:         %[[RSTD:.*]] = coreai.rsqrt %[[VE]]
// CHECK:         %[[C:.*]] = coreai.decomposable.broadcasting_sub %[[X]], %[[M4]]
// CHECK:         %[[Y:.*]] = coreai.decomposable.broadcasting_mul %[[C]], %[[RSTD]]
// CHECK-NEXT:    coreai.output %[[Y]]
func.func @instance_norm_running_stats(%x: tensor<2x3x4x4xf32>, %m: tensor<3xf32>, %v: tensor<3xf32>) -> tensor<2x3x4x4xf32> {
  %0 = aten.instance_norm.default %x, %m, %v {use_input_stats = false, momentum = 0.1 : f64, eps = 1.0e-05 : f64, cudnn_enabled = false, operandSegmentSizes = array<i32: 1, 0, 0, 1, 1>} : (tensor<2x3x4x4xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<2x3x4x4xf32>
  return %0 : tensor<2x3x4x4xf32>
}

// -----

// Regression (fidelity): the causal mask with q_len (3) ≠ k_len (5) is
// PyTorch's upper-left one: query i attends keys j ≤ i, i.e. masked where
// j > i (key positions [1, 5] greater than query positions [3, 1]); masked
// scores are -inf (0xFF800000), not -1e4. As coreai-torch does, the mask is
// built at the call site and passed to the @sdpa composite as attn_mask
// (here bool, true = attend) with is_causal = false.
// CHECK-LABEL: coreai.graph private noinline @sdpa(
// CHECK-SAME:    %[[Q:[^:]*]]: tensor<1x2x3x8xf32> {coreai.name = "q"}, %[[K:[^:]*]]: tensor<1x2x5x8xf32> {coreai.name = "k"}, %[[V:[^:]*]]: tensor<1x2x5x4xf32> {coreai.name = "v"}, %[[A:[^:]*]]: tensor<3x5xi1> {coreai.name = "m"}) -> tensor<1x2x3x4xf32>
// CHECK-SAME:    composite_decl = #coreai.composite_declaration<"scaled_dot_product_attention" = {input_names = ["query", "key", "value", "attn_mask"], op_attrs = {is_causal = false, version = 1 : si64, window_size = 0 : si64}, output_names = ["output"]}>, template_op = "sdpa"}
// CHECK:         %[[KT:.*]] = coreai.transpose %[[K]], {{.*}} -> tensor<1x2x8x5xf32>
// CHECK:         %[[S:.*]] = coreai.decomposable.broadcasting_batch_matmul %[[Q]], %[[KT]] : {{.*}} -> tensor<1x2x3x5xf32>
// CHECK:         %[[SCALE:.*]] = coreai.constant dense<0.353553385> : tensor<f32>
// CHECK:         %[[SS:.*]] = coreai.decomposable.broadcasting_mul %[[S]], %[[SCALE]]
// CHECK:         %[[NINF:.*]] = coreai.constant dense<0xFF800000> : tensor<f32>
// CHECK:         %[[MS:.*]] = coreai.decomposable.broadcasting_where %[[A]], %[[SS]], %[[NINF]]
// CHECK:         %[[P:.*]] = coreai.softmax %[[MS]], {{.*}} -> tensor<1x2x3x5xf32>
// CHECK:         %[[O:.*]] = coreai.decomposable.broadcasting_batch_matmul %[[P]], %[[V]] : {{.*}} -> tensor<1x2x3x4xf32>
// CHECK:         coreai.output %[[O]]
// CHECK-LABEL: coreai.graph @sdpa_causal_upper_left(
// CHECK-SAME:    %[[Q:[^:]*]]: tensor<1x2x3x8xf32>, %[[K:[^:]*]]: tensor<1x2x5x8xf32>, %[[V:[^:]*]]: tensor<1x2x5x4xf32>
// CHECK:         %[[QI:.*]] = coreai.range {{.*}} -> tensor<3xsi32>
// CHECK:         %[[ROWS:.*]] = coreai.reshape %[[QI]], {{.*}} -> tensor<3x1xsi32>
// CHECK:         %[[KI:.*]] = coreai.range {{.*}} -> tensor<5xsi32>
// CHECK:         %[[COLS:.*]] = coreai.reshape %[[KI]], {{.*}} -> tensor<1x5xsi32>
// CHECK:         %[[M:.*]] = coreai.decomposable.broadcasting_greater %[[COLS]], %[[ROWS]] : (tensor<1x5xsi32>, tensor<3x1xsi32>) -> tensor<3x5xi1>
// CHECK-NEXT:    %[[ATT:.*]] = coreai.not %[[M]] : tensor<3x5xi1> -> tensor<3x5xi1>
// CHECK-NEXT:    %[[R:.*]] = coreai.invoke @sdpa(%[[Q]], %[[K]], %[[V]], %[[ATT]])
// CHECK-NEXT:    coreai.output %[[R]]
func.func @sdpa_causal_upper_left(%q: tensor<1x2x3x8xf32>, %k: tensor<1x2x5x8xf32>, %v: tensor<1x2x5x4xf32>) -> tensor<1x2x3x4xf32> {
  %0 = aten.scaled_dot_product_attention.default %q, %k, %v {dropout_p = 0.0 : f64, is_causal = true, enable_gqa = false} : (tensor<1x2x3x8xf32>, tensor<1x2x5x8xf32>, tensor<1x2x5x4xf32>) -> tensor<1x2x3x4xf32>
  return %0 : tensor<1x2x3x4xf32>
}

// -----

// GQA: 4 query heads over 2 kv heads as [B, Hk, G, L, E] against
// [B, Hk, 1, ...] so each kv head broadcasts over its group; a bool mask
// keeps scores where true, -inf elsewhere; an explicit scale is used as is
// (and declared). The composite with a mask is coreai-torch's @sdpa.
// CHECK-LABEL: coreai.graph private noinline @sdpa(
// CHECK-SAME:    %[[Q:[^:]*]]: tensor<1x4x3x8xf32> {coreai.name = "q"}, %[[K:[^:]*]]: tensor<1x2x3x8xf32> {coreai.name = "k"}, %[[V:[^:]*]]: tensor<1x2x3x8xf32> {coreai.name = "v"}, %[[M:[^:]*]]: tensor<3x3xi1> {coreai.name = "m"}) -> tensor<1x4x3x8xf32>
// CHECK-SAME:    composite_decl = #coreai.composite_declaration<"scaled_dot_product_attention" = {input_names = ["query", "key", "value", "attn_mask"], op_attrs = {is_causal = false, scale = 2.500000e-01 : f32, version = 1 : si64, window_size = 0 : si64}, output_names = ["output"]}>, template_op = "sdpa"}
// CHECK:         %[[Q5:.*]] = coreai.reshape %[[Q]], {{.*}} -> tensor<1x2x2x3x8xf32>
// CHECK:         %[[K5:.*]] = coreai.reshape {{.*}} -> tensor<1x2x1x8x3xf32>
// CHECK:         %[[V5:.*]] = coreai.reshape %[[V]], {{.*}} -> tensor<1x2x1x3x8xf32>
// CHECK:         coreai.decomposable.broadcasting_batch_matmul %[[Q5]], %[[K5]] : {{.*}} -> tensor<1x2x2x3x3xf32>
// CHECK:         coreai.constant dense<2.500000e-01> : tensor<f32>
// CHECK:         %[[S4:.*]] = coreai.reshape {{.*}} -> tensor<1x4x3x3xf32>
// CHECK:         %[[NINF:.*]] = coreai.constant dense<0xFF800000> : tensor<f32>
// CHECK:         coreai.decomposable.broadcasting_where %[[M]], %[[S4]], %[[NINF]] : (tensor<3x3xi1>, tensor<1x4x3x3xf32>, tensor<f32>) -> tensor<1x4x3x3xf32>
// CHECK:         %[[P:.*]] = coreai.softmax {{.*}} -> tensor<1x2x2x3x3xf32>
// CHECK:         %[[O:.*]] = coreai.decomposable.broadcasting_batch_matmul %[[P]], %[[V5]] : {{.*}} -> tensor<1x2x2x3x8xf32>
// CHECK:         %[[R:.*]] = coreai.reshape %[[O]], {{.*}} -> tensor<1x4x3x8xf32>
// CHECK:         coreai.output %[[R]]
// CHECK-LABEL: coreai.graph @sdpa_gqa_bool_mask(
// CHECK-SAME:    %[[Q:[^:]*]]: tensor<1x4x3x8xf32>, %[[K:[^:]*]]: tensor<1x2x3x8xf32>, %[[V:[^:]*]]: tensor<1x2x3x8xf32>, %[[M:[^:]*]]: tensor<3x3xi1>
// CHECK-NEXT:    %[[R:.*]] = coreai.invoke @sdpa(%[[Q]], %[[K]], %[[V]], %[[M]])
// CHECK-NEXT:    coreai.output %[[R]]
func.func @sdpa_gqa_bool_mask(%q: tensor<1x4x3x8xf32>, %k: tensor<1x2x3x8xf32>, %v: tensor<1x2x3x8xf32>, %m: tensor<3x3xi1>) -> tensor<1x4x3x8xf32> {
  %0 = aten.scaled_dot_product_attention.default %q, %k, %v, %m {dropout_p = 0.0 : f64, is_causal = false, scale = 0.25 : f64, enable_gqa = true} : (tensor<1x4x3x8xf32>, tensor<1x2x3x8xf32>, tensor<1x2x3x8xf32>, tensor<3x3xi1>) -> tensor<1x4x3x8xf32>
  return %0 : tensor<1x4x3x8xf32>
}

// -----

// Max pool with ceil_mode: the partial last window becomes extra -inf
// padding on the right (8 → 9 rows, 6 → 7 cols) and the pool runs in floor
// mode; the unused indices become a dead placeholder.
// CHECK-LABEL: coreai.graph @max_pool_ceil_mode(
// CHECK-SAME:    %[[X:[^:]*]]: tensor<1x8x8x6xf32>
// CHECK:         %[[PADS:.*]] = coreai.constant dense<[0, 0, 0, 0, 0, 1, 0, 1]> : tensor<8xui32>
// CHECK:         %[[NINF:.*]] = coreai.constant dense<0xFF800000> : tensor<f32>
// CHECK:         %[[XP:.*]] = coreai.pad %[[X]], %[[PADS]], %[[NINF]] mode = <constant> : {{.*}} -> tensor<1x8x9x7xf32>
// CHECK:         %[[F:.*]] = coreai.constant dense<false> : tensor<i1>
// CHECK:         %[[Y:.*]] = coreai.max_pool_2d %[[XP]], {{.*}}, %[[F]] : (tensor<1x8x9x7xf32>, tensor<2xui32>, tensor<2xui32>, tensor<2xui32>, tensor<i1>) -> tensor<1x8x4x3xf32>
// CHECK:         coreai.output %[[Y]]
func.func @max_pool_ceil_mode(%x: tensor<1x8x8x6xf32>) -> tensor<1x8x4x3xf32> {
  %0:2 = aten.max_pool2d_with_indices.default %x {kernel_size = [3, 3], stride = [2, 2], padding = [0, 0], dilation = [1, 1], ceil_mode = true} : (tensor<1x8x8x6xf32>) -> (tensor<1x8x4x3xf32>, tensor<1x8x4x3xi64>)
  return %0#0 : tensor<1x8x4x3xf32>
}

// -----

// avg_pool2d without count_include_pad: zero padding, sum_pool_2d, then a
// per-position divisor (4 at corners, 6 at edges, 9 inside), in coreai-torch's
// avg_pool_2d composite: the pooling parameters are also passed as tensors
// (si32 lists, i1 flags, si32 divisor_override with 0 for none).
// CHECK-LABEL: coreai.graph private noinline @avg_pool2d_composite(
// CHECK-SAME:    tensor<1x2x5x5xf32> {coreai.name = "input_tensor"}, %{{.*}}: tensor<2xsi32> {coreai.name = "kernel_size"}, %{{.*}}: tensor<2xsi32> {coreai.name = "stride"}, %{{.*}}: tensor<2xsi32> {coreai.name = "padding"}, %{{.*}}: tensor<i1> {coreai.name = "ceil_mode"}, %{{.*}}: tensor<i1> {coreai.name = "count_include_pad"}, %{{.*}}: tensor<si32> {coreai.name = "divisor_override"}) -> tensor<1x2x3x3xf32>
// CHECK-SAME:    composite_decl = #coreai.composite_declaration<"avg_pool_2d" = {input_names = ["input", "kernel_size", "stride", "padding", "ceil_mode", "count_include_pad", "divisor_override"], op_attrs = {version = 1 : si64}, output_names = ["output"]}>, template_op = "avg_pool2d_composite"}
// CHECK:         %[[XP:.*]] = coreai.pad {{.*}} -> tensor<1x2x7x7xf32>
// CHECK:         %[[S:.*]] = coreai.sum_pool_2d %[[XP]], {{.*}} -> tensor<1x2x3x3xf32>
// CHECK:         coreai.constant dense<[4.000000e+00, 6.000000e+00, 4.000000e+00, 6.000000e+00, 9.000000e+00, 6.000000e+00, 4.000000e+00, 6.000000e+00, 4.000000e+00]> : tensor<9xf32>
// CHECK:         %[[DIV:.*]] = coreai.reshape {{.*}} -> tensor<3x3xf32>
// CHECK:         %[[R:.*]] = coreai.decomposable.broadcasting_divide %[[S]], %[[DIV]]
// CHECK:         coreai.output %[[R]]
// CHECK-LABEL: coreai.graph @avg_pool_exclude_pad(
// CHECK-SAME:    %[[X:[^:]*]]: tensor<1x2x5x5xf32>
// CHECK-NEXT:    %[[KS:.*]] = coreai.constant dense<3> : tensor<2xsi32>
// CHECK-NEXT:    %[[ST:.*]] = coreai.constant dense<2> : tensor<2xsi32>
// CHECK-NEXT:    %[[PD:.*]] = coreai.constant dense<1> : tensor<2xsi32>
// CHECK-NEXT:    %[[CM:.*]] = coreai.constant dense<false> : tensor<i1>
// CHECK-NEXT:    %[[CI:.*]] = coreai.constant dense<false> : tensor<i1>
// CHECK-NEXT:    %[[DO:.*]] = coreai.constant dense<0> : tensor<si32>
// CHECK-NEXT:    %[[R:.*]] = coreai.invoke @avg_pool2d_composite(%[[X]], %[[KS]], %[[ST]], %[[PD]], %[[CM]], %[[CI]], %[[DO]])
// CHECK-NEXT:    coreai.output %[[R]]
func.func @avg_pool_exclude_pad(%x: tensor<1x2x5x5xf32>) -> tensor<1x2x3x3xf32> {
  %0 = aten.avg_pool2d.default %x {kernel_size = [3, 3], stride = [2, 2], padding = [1, 1], ceil_mode = false, count_include_pad = false} : (tensor<1x2x5x5xf32>) -> tensor<1x2x3x3xf32>
  return %0 : tensor<1x2x3x3xf32>
}

// -----

// divisor_override replaces the divisor by one constant (avg_pool_3d
// composite; an empty stride is the kernel size).
// CHECK-LABEL: coreai.graph private noinline @avg_pool3d_composite(
// CHECK-SAME:    composite_decl = #coreai.composite_declaration<"avg_pool_3d" = {input_names = ["input", "kernel_size", "stride", "padding", "ceil_mode", "count_include_pad", "divisor_override"], op_attrs = {version = 1 : si64}, output_names = ["output"]}>, template_op = "avg_pool3d_composite"}
// CHECK:         %[[S:.*]] = coreai.sum_pool_3d {{.*}} -> tensor<1x2x2x2x2xf32>
// CHECK:         %[[K:.*]] = coreai.constant dense<5.000000e+00> : tensor<f32>
// CHECK:         coreai.decomposable.broadcasting_divide %[[S]], %[[K]]
// CHECK-LABEL: coreai.graph @avg_pool3d_divisor_override(
// CHECK-NEXT:    %[[KS:.*]] = coreai.constant dense<2> : tensor<3xsi32>
// CHECK-NEXT:    %[[ST:.*]] = coreai.constant dense<2> : tensor<3xsi32>
// CHECK-NEXT:    %[[PD:.*]] = coreai.constant dense<0> : tensor<3xsi32>
// CHECK-NEXT:    %[[CM:.*]] = coreai.constant dense<false> : tensor<i1>
// CHECK-NEXT:    %[[CI:.*]] = coreai.constant dense<true> : tensor<i1>
// CHECK-NEXT:    %[[DO:.*]] = coreai.constant dense<5> : tensor<si32>
// CHECK-NEXT:    coreai.invoke @avg_pool3d_composite(%{{.*}}, %[[KS]], %[[ST]], %[[PD]], %[[CM]], %[[CI]], %[[DO]])
func.func @avg_pool3d_divisor_override(%x: tensor<1x2x4x4x4xf32>) -> tensor<1x2x2x2x2xf32> {
  %0 = aten.avg_pool3d.default %x {kernel_size = [2, 2, 2], stride = [], padding = [0, 0, 0], ceil_mode = false, count_include_pad = true, divisor_override = 5 : i64} : (tensor<1x2x4x4x4xf32>) -> tensor<1x2x2x2x2xf32>
  return %0 : tensor<1x2x2x2x2xf32>
}

// -----

// Adaptive average pool, divisible sizes: one sum_pool_2d with kernel =
// stride = in/out, divided by the window size.
// CHECK-LABEL: coreai.graph @adaptive_avg_divisible(
// CHECK:         %[[K:.*]] = coreai.constant dense<4> : tensor<2xui32>
// CHECK:         %[[S:.*]] = coreai.sum_pool_2d %{{.*}}, %[[K]], {{.*}} -> tensor<2x3x2x2xf32>
// CHECK:         %[[N:.*]] = coreai.constant dense<1.600000e+01> : tensor<f32>
// CHECK:         coreai.decomposable.broadcasting_divide %[[S]], %[[N]]
func.func @adaptive_avg_divisible(%x: tensor<2x3x8x8xf32>) -> tensor<2x3x2x2xf32> {
  %0 = aten._adaptive_avg_pool2d.default %x {output_size = [2, 2]} : (tensor<2x3x8x8xf32>) -> tensor<2x3x2x2xf32>
  return %0 : tensor<2x3x2x2xf32>
}

// -----

// Adaptive average pool, 7 → 3 rows: overlapping windows [0,3) [2,5) [4,7)
// sliced, averaged and concatenated; the width (5 → 5) is left alone.
// CHECK-LABEL: coreai.graph @adaptive_avg_uneven(
// CHECK:         coreai.constant dense<0> : tensor<4xsi32>
// CHECK:         coreai.constant dense<[1, 2, 3, 5]> : tensor<4xsi32>
// CHECK:         %[[A:.*]] = coreai.reduce_mean {{.*}} -> tensor<1x2x1x5xf32>
// CHECK:         coreai.constant dense<[0, 0, 2, 0]> : tensor<4xsi32>
// CHECK:         %[[B:.*]] = coreai.reduce_mean {{.*}} -> tensor<1x2x1x5xf32>
// CHECK:         coreai.constant dense<[0, 0, 4, 0]> : tensor<4xsi32>
// CHECK:         %[[C:.*]] = coreai.reduce_mean {{.*}} -> tensor<1x2x1x5xf32>
// CHECK:         %[[AX:.*]] = coreai.constant dense<2> : tensor<si32>
// CHECK:         %[[R:.*]] = coreai.concat %[[AX]], %[[A]], %[[B]], %[[C]] : {{.*}} -> tensor<1x2x3x5xf32>
// CHECK:         coreai.output %[[R]]
func.func @adaptive_avg_uneven(%x: tensor<1x2x7x5xf32>) -> tensor<1x2x3x5xf32> {
  %0 = aten._adaptive_avg_pool2d.default %x {output_size = [3, 5]} : (tensor<1x2x7x5xf32>) -> tensor<1x2x3x5xf32>
  return %0 : tensor<1x2x3x5xf32>
}

// -----

// Adaptive max pool, divisible: max_pool_2d with kernel = stride = in/out.
// CHECK-LABEL: coreai.graph @adaptive_max(
// CHECK:         %[[Y:.*]] = coreai.max_pool_2d {{.*}} -> tensor<2x3x2x2xf32>
// CHECK:         coreai.output %[[Y]]
func.func @adaptive_max(%x: tensor<2x3x8x8xf32>) -> tensor<2x3x2x2xf32> {
  %0:2 = aten.adaptive_max_pool2d.default %x {output_size = [2, 2]} : (tensor<2x3x8x8xf32>) -> (tensor<2x3x2x2xf32>, tensor<2x3x2x2xi64>)
  return %0#0 : tensor<2x3x2x2xf32>
}

// -----

// Bilinear with align_corners: scale (out-1)/(in-1), offset (1-scale)/2.
// CHECK-LABEL: coreai.graph @upsample_bilinear_align_corners(
// CHECK-SAME:    %[[X:[^:]*]]: tensor<1x2x4x5xf32>
// CHECK:         %[[SHAPE:.*]] = coreai.constant dense<[1, 2, 8, 10]> : tensor<4xsi32>
// CHECK:         %[[SCALE:.*]] = coreai.constant dense<[1.000000e+00, 1.000000e+00, 2.33333325, 2.250000e+00]> : tensor<4xf32>
// CHECK:         %[[OFF:.*]] = coreai.constant dense<[0.000000e+00, 0.000000e+00, -0.666666686, -6.250000e-01]> : tensor<4xf32>
// CHECK:         %[[Y:.*]] = coreai.interpolate %[[X]], %[[SHAPE]], %[[SCALE]], %[[OFF]] {interpolation_mode = #coreai.interpolation_mode<linear>}
// CHECK:         coreai.output %[[Y]]
func.func @upsample_bilinear_align_corners(%x: tensor<1x2x4x5xf32>) -> tensor<1x2x8x10xf32> {
  %0 = aten.upsample_bilinear2d.vec %x {align_corners = true, scale_factors = [2.0 : f64, 2.0 : f64]} : (tensor<1x2x4x5xf32>) -> tensor<1x2x8x10xf32>
  return %0 : tensor<1x2x8x10xf32>
}

// -----

// Bilinear with an output size, half-pixel: scale out/in, offset 0.
// CHECK-LABEL: coreai.graph @upsample_bilinear_size(
// CHECK:         coreai.constant dense<[1.000000e+00, 1.000000e+00, 1.750000e+00, 1.800000e+00]> : tensor<4xf32>
// CHECK:         coreai.constant dense<0.000000e+00> : tensor<4xf32>
// CHECK:         coreai.interpolate {{.*}} {interpolation_mode = #coreai.interpolation_mode<linear>}
func.func @upsample_bilinear_size(%x: tensor<1x2x4x5xf32>) -> tensor<1x2x7x9xf32> {
  %0 = aten.upsample_bilinear2d.vec %x {output_size = [7, 9], align_corners = false} : (tensor<1x2x4x5xf32>) -> tensor<1x2x7x9xf32>
  return %0 : tensor<1x2x7x9xf32>
}

// -----

// Nearest ×2: offset 0 already reproduces PyTorch's floor(o / 2).
// CHECK-LABEL: coreai.graph @upsample_nearest_x2(
// CHECK:         coreai.constant dense<0.000000e+00> : tensor<4xf32>
// CHECK:         coreai.interpolate {{.*}} {interpolation_mode = #coreai.interpolation_mode<nearest_neighbor>}
func.func @upsample_nearest_x2(%x: tensor<1x2x4x5xf32>) -> tensor<1x2x8x10xf32> {
  %0 = aten.upsample_nearest2d.vec %x {scale_factors = [2.0 : f64, 2.0 : f64]} : (tensor<1x2x4x5xf32>) -> tensor<1x2x8x10xf32>
  return %0 : tensor<1x2x8x10xf32>
}

// -----

// A dynamic batch: layer norm needs only the normalized dims static.
// CHECK-LABEL: coreai.graph @layer_norm_dynamic_batch(
// CHECK:         %[[MEAN:.*]] = coreai.reduce_mean %{{.*}}, {{.*}} : (tensor<?x5x6xf32>, tensor<1xsi32>) -> tensor<?x5x1xf32>
// CHECK:         %[[RSTD:.*]] = coreai.rsqrt {{.*}} -> tensor<?x5x1xf32>
// CHECK:         %[[Y:.*]] = coreai.decomposable.broadcasting_add {{.*}} -> tensor<?x5x6xf32>
// CHECK:         coreai.output %[[Y]], %[[MEAN]], %[[RSTD]]
func.func @layer_norm_dynamic_batch(%x: tensor<?x5x6xf32>, %w: tensor<6xf32>, %b: tensor<6xf32>) -> (tensor<?x5x6xf32>, tensor<?x5x1xf32>, tensor<?x5x1xf32>) {
  %0:3 = aten.native_layer_norm.default %x, %w, %b {normalized_shape = [6], eps = 1.0e-05 : f64, operandSegmentSizes = array<i32: 1, 1, 1>} : (tensor<?x5x6xf32>, tensor<6xf32>, tensor<6xf32>) -> (tensor<?x5x6xf32>, tensor<?x5x1xf32>, tensor<?x5x1xf32>)
  return %0#0, %0#1, %0#2 : tensor<?x5x6xf32>, tensor<?x5x1xf32>, tensor<?x5x1xf32>
}

// -----

// softmax.int with a dtype casts the input first.
// CHECK-LABEL: coreai.graph @softmax_int_dtype(
// CHECK-SAME:    %[[X:[^:]*]]: tensor<2x5xf32>
// CHECK:         %[[XD:.*]] = coreai.cast %[[X]] : tensor<2x5xf32> to tensor<2x5xf64>
// CHECK:         %[[R:.*]] = coreai.softmax %[[XD]], {{.*}} -> tensor<2x5xf64>
// CHECK:         coreai.output %[[R]]
func.func @softmax_int_dtype(%x: tensor<2x5xf32>) -> tensor<2x5xf64> {
  %0 = aten.softmax.int %x {dim = 0 : i64, dtype = f64} : (tensor<2x5xf32>) -> tensor<2x5xf64>
  return %0 : tensor<2x5xf64>
}

// -----

// layer_norm.default and group_norm.default (kept whole without
// decompositions) give native_*'s first result only, each in its composite;
// the absent weight and bias are passed as ones and zeros, as coreai-torch
// passes them (layer norm's of normalized_shape, group norm's of [C]).
// CHECK-LABEL: coreai.graph private noinline @layer_norm(
// CHECK-SAME:    tensor<2x6x5xf32> {coreai.name = "input"}, %{{.*}}: tensor<6x5xf32> {coreai.name = "gamma"}, %{{.*}}: tensor<6x5xf32> {coreai.name = "beta"}) -> tensor<2x6x5xf32>
// CHECK-SAME:    composite_decl = #coreai.composite_declaration<"layer_norm" = {input_names = ["input", "gamma", "beta"], op_attrs = {axes = [1 : si64, 2 : si64], eps = 9.99999974E-6 : f32, version = 1 : si64}, output_names = ["output"]}>, template_op = "layer_norm"}
// CHECK:         coreai.rsqrt
// CHECK:         %[[LN:.*]] = coreai.decomposable.broadcasting_add {{.*}} -> tensor<2x6x5xf32>
// CHECK:         coreai.output %[[LN]]
// CHECK-LABEL: coreai.graph private noinline @group_norm(
// CHECK-SAME:    tensor<2x6x5xf32> {coreai.name = "input"}, %{{.*}}: tensor<6xf32> {coreai.name = "weight"}, %{{.*}}: tensor<6xf32> {coreai.name = "bias"}) -> tensor<2x6x5xf32>
// CHECK-SAME:    composite_decl = #coreai.composite_declaration<"group_norm" = {input_names = ["input", "weight", "bias"], op_attrs = {eps = 9.99999974E-6 : f32, num_channels = 6 : si64, num_groups = 3 : si64, version = 1 : si64}, output_names = ["output"]}>, template_op = "group_norm"}
// CHECK:         coreai.reshape {{.*}} -> tensor<2x3x10xf32>
// CHECK:         coreai.rsqrt
// CHECK:         coreai.reshape {{.*}} -> tensor<2x6x5xf32>
// CHECK:         %[[GN:.*]] = coreai.decomposable.broadcasting_add {{.*}} -> tensor<2x6x5xf32>
// CHECK:         coreai.output %[[GN]]
// CHECK-LABEL: coreai.graph @layer_and_group_norm_default(
// CHECK-SAME:    %[[X:[^:]*]]: tensor<2x6x5xf32>
// CHECK-NEXT:    %[[ONES:.*]] = coreai.constant dense<1.000000e+00> : tensor<6x5xf32>
// CHECK-NEXT:    %[[ZEROS:.*]] = coreai.constant dense<0.000000e+00> : tensor<6x5xf32>
// CHECK-NEXT:    %[[LN:.*]] = coreai.invoke @layer_norm(%[[X]], %[[ONES]], %[[ZEROS]])
// CHECK-NEXT:    %[[W:.*]] = coreai.constant dense<1.000000e+00> : tensor<6xf32>
// CHECK-NEXT:    %[[B:.*]] = coreai.constant dense<0.000000e+00> : tensor<6xf32>
// CHECK-NEXT:    %[[GN:.*]] = coreai.invoke @group_norm(%[[X]], %[[W]], %[[B]])
// CHECK-NEXT:    coreai.output %[[LN]], %[[GN]]
func.func @layer_and_group_norm_default(%x: tensor<2x6x5xf32>) -> (tensor<2x6x5xf32>, tensor<2x6x5xf32>) {
  %0 = aten.layer_norm.default %x {normalized_shape = [6, 5], eps = 1.0e-05 : f64, cudnn_enable = true, operandSegmentSizes = array<i32: 1, 0, 0>} : (tensor<2x6x5xf32>) -> tensor<2x6x5xf32>
  %1 = aten.group_norm.default %x {num_groups = 3 : i64, eps = 1.0e-05 : f64, cudnn_enabled = true, operandSegmentSizes = array<i32: 1, 0, 0>} : (tensor<2x6x5xf32>) -> tensor<2x6x5xf32>
  return %0, %1 : tensor<2x6x5xf32>, tensor<2x6x5xf32>
}

// -----

// Used max-pool indices: the 2x2 window taps sliced with the stride, stacked
// on a new axis, argmax, and a table of flat input indices h·W + w gathered.
// CHECK-LABEL: coreai.graph @max_pool_indices(
// CHECK-SAME:    %[[X:[^:]*]]: tensor<1x1x4x5xf32>
// CHECK:         %[[Y:.*]] = coreai.max_pool_2d %[[X]], {{.*}} -> tensor<1x1x2x2xf32>
// CHECK-COUNT-4: coreai.slice %[[X]], {{.*}} -> tensor<1x1x2x2xf32>
// CHECK:         %[[K:.*]] = coreai.concat {{.*}} -> tensor<1x1x2x2x4xf32>
// CHECK:         %[[A:.*]] = coreai.argmax %[[K]], {{.*}} -> tensor<1x1x2x2x1xui32>
// CHECK:         %[[AI:.*]] = coreai.cast %[[A]] : tensor<1x1x2x2x1xui32> to tensor<1x1x2x2x1xsi32>
// CHECK:         coreai.constant dense<[0, 1, 5, 6, 2, 3, 7, 8, 10, 11, 15, 16, 12, 13, 17, 18]> : tensor<16xsi64>
// CHECK:         %[[T:.*]] = coreai.broadcast_to {{.*}} -> tensor<1x1x2x2x4xsi64>
// CHECK:         %[[G:.*]] = coreai.gather_along_axis %[[T]] at %[[AI]] along {{.*}} to tensor<1x1x2x2x1xsi64>
// CHECK:         %[[I:.*]] = coreai.reshape %[[G]], {{.*}} -> tensor<1x1x2x2xsi64>
// CHECK:         coreai.output %[[Y]], %[[I]]
func.func @max_pool_indices(%x: tensor<1x1x4x5xf32>) -> (tensor<1x1x2x2xf32>, tensor<1x1x2x2xi64>) {
  %0:2 = aten.max_pool2d_with_indices.default %x {kernel_size = [2, 2], stride = [2, 2], padding = [0, 0], dilation = [1, 1], ceil_mode = false} : (tensor<1x1x4x5xf32>) -> (tensor<1x1x2x2xf32>, tensor<1x1x2x2xi64>)
  return %0#0, %0#1 : tensor<1x1x2x2xf32>, tensor<1x1x2x2xi64>
}

// -----

// An unbatched pooling input ([C, H, W]) runs as a batch of one (in the
// composite, which takes the unbatched tensor).
// CHECK-LABEL: coreai.graph private noinline @avg_pool2d_composite(
// CHECK-SAME:    %[[X:[^:]*]]: tensor<3x6x6xf32> {coreai.name = "input_tensor"}
// CHECK:         %[[XB:.*]] = coreai.reshape %[[X]], {{.*}} -> tensor<1x3x6x6xf32>
// CHECK:         %[[S:.*]] = coreai.sum_pool_2d %[[XB]], {{.*}} -> tensor<1x3x3x3xf32>
// CHECK:         %[[Y:.*]] = coreai.decomposable.broadcasting_divide %[[S]]
// CHECK:         %[[R:.*]] = coreai.reshape %[[Y]], {{.*}} -> tensor<3x3x3xf32>
// CHECK:         coreai.output %[[R]]
// CHECK-LABEL: coreai.graph @avg_pool_unbatched(
// CHECK:         coreai.invoke @avg_pool2d_composite({{.*}}) : (tensor<3x6x6xf32>, {{.*}}) -> tensor<3x3x3xf32>
func.func @avg_pool_unbatched(%x: tensor<3x6x6xf32>) -> tensor<3x3x3xf32> {
  %0 = aten.avg_pool2d.default %x {kernel_size = [2, 2], stride = [], padding = [0, 0], ceil_mode = false, count_include_pad = true} : (tensor<3x6x6xf32>) -> tensor<3x3x3xf32>
  return %0 : tensor<3x3x3xf32>
}

// -----

// Used adaptive max-pool indices, 5 → 2 (windows [0,3) and [2,5)): every
// window's taps gathered from the flattened plane, argmax, index table.
// CHECK-LABEL: coreai.graph @adaptive_max_indices(
// CHECK:         %[[P:.*]] = coreai.reshape {{.*}} -> tensor<1x1x5xf32>
// CHECK:         coreai.constant dense<[0, 1, 2, 2, 3, 4]> : tensor<6xsi32>
// CHECK:         %[[T:.*]] = coreai.gather_along_axis %[[P]] at {{.*}} to tensor<1x1x6xf32>
// CHECK:         coreai.argmax {{.*}} -> tensor<1x1x1x2x1xui32>
// CHECK:         coreai.constant dense<[0, 1, 2, 2, 3, 4]> : tensor<6xsi64>
// CHECK:         %[[I:.*]] = coreai.reshape {{.*}} -> tensor<1x1x1x2xsi64>
// CHECK:         coreai.output %{{.*}}, %[[I]]
func.func @adaptive_max_indices(%x: tensor<1x1x1x5xf32>) -> (tensor<1x1x1x2xf32>, tensor<1x1x1x2xi64>) {
  %0:2 = aten.adaptive_max_pool2d.default %x {output_size = [1, 2]} : (tensor<1x1x1x5xf32>) -> (tensor<1x1x1x2xf32>, tensor<1x1x1x2xi64>)
  return %0#0, %0#1 : tensor<1x1x1x2xf32>, tensor<1x1x1x2xi64>
}

// -----

// Attention over dynamic batch and sequence sizes (no causal mask, no GQA):
// only the embedding size must be static (the default scale 1/sqrt(8),
// not declared: coreai-torch declares a scale only when one is given).
// CHECK-LABEL: coreai.graph private noinline @sdpa_maskless(
// CHECK-SAME:    tensor<?x2x?x8xf32> {coreai.name = "q"}, %{{.*}}: tensor<?x2x?x8xf32> {coreai.name = "k"}, %{{.*}}: tensor<?x2x?x4xf32> {coreai.name = "v"}) -> tensor<?x2x?x4xf32>
// CHECK-SAME:    composite_decl = #coreai.composite_declaration<"scaled_dot_product_attention" = {input_names = ["query", "key", "value"], op_attrs = {is_causal = false, version = 1 : si64, window_size = 0 : si64}, output_names = ["output"]}>, template_op = "sdpa_maskless"}
// CHECK:         coreai.decomposable.broadcasting_batch_matmul {{.*}} -> tensor<?x2x?x?xf32>
// CHECK:         coreai.constant dense<0.353553385> : tensor<f32>
// CHECK:         coreai.softmax {{.*}} -> tensor<?x2x?x?xf32>
// CHECK:         %[[O:.*]] = coreai.decomposable.broadcasting_batch_matmul {{.*}} -> tensor<?x2x?x4xf32>
// CHECK:         coreai.output %[[O]]
// CHECK-LABEL: coreai.graph @sdpa_dynamic(
// CHECK-NEXT:    coreai.invoke @sdpa_maskless(
func.func @sdpa_dynamic(%q: tensor<?x2x?x8xf32>, %k: tensor<?x2x?x8xf32>, %v: tensor<?x2x?x4xf32>) -> tensor<?x2x?x4xf32> {
  %0 = aten.scaled_dot_product_attention.default %q, %k, %v {dropout_p = 0.0 : f64, is_causal = false, enable_gqa = false} : (tensor<?x2x?x8xf32>, tensor<?x2x?x8xf32>, tensor<?x2x?x4xf32>) -> tensor<?x2x?x4xf32>
  return %0 : tensor<?x2x?x4xf32>
}

// -----

// Eval-mode dropout (kept by torch.export's training IR) is the identity.
// CHECK-LABEL: coreai.graph @dropout_in_eval_mode(
// CHECK-SAME:    %[[X:[^:]*]]: tensor<2x3xf32>
// CHECK-NEXT:    coreai.output %[[X]]
func.func @dropout_in_eval_mode(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = aten.operator "aten::dropout.default"(%x) {p = 0.1 : f64, train = false, operand_args = ["input"], operand_groups = array<i64: 1>} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}
