// RUN: coreai-opt %s --split-input-file --pass-pipeline='builtin.module(legalize-aten-to-coreai)' | FileCheck %s --enable-var-scope
// RUN: coreai-opt %s --split-input-file --pass-pipeline='builtin.module(legalize-aten-to-coreai{composites=inline})' | FileCheck %s --check-prefix=INLINE --enable-var-scope
// RUN: coreai-opt %s --split-input-file --pass-pipeline='builtin.module(decompose,legalize-aten-to-coreai,canonicalize,cse)' | FileCheck %s --check-prefix=PIPE --enable-var-scope
// RUN: coreai-opt %s --split-input-file --pass-pipeline='builtin.module(legalize-aten-to-coreai)' > %t.a
// RUN: coreai-opt %s --split-input-file --pass-pipeline='builtin.module(legalize-aten-to-coreai)' > %t.b
// RUN: diff %t.a %t.b
// RUN: not coreai-opt %s --split-input-file --pass-pipeline='builtin.module(legalize-aten-to-coreai{composites=outline})' 2>&1 | FileCheck %s --check-prefix=BAD

// The composites coreai-torch emits (conversion guide §5): one private
// noinline graph per call site, named after its template in program order
// (@layer_norm, @layer_norm_1, ...; a name the module already has is
// skipped: the function @layer_norm_1 below pushes the second graph to
// @layer_norm_2), each with a composite_decl, called by coreai.invoke. The
// same input prints byte-identical output (the diff above).

// CHECK-LABEL: coreai.graph @layer_norm_1(
// CHECK-LABEL: coreai.graph private noinline @layer_norm(
// CHECK-SAME:    %{{.*}}: tensor<2x3x4xf32> {coreai.name = "input"}, %{{.*}}: tensor<4xf32> {coreai.name = "gamma"}, %{{.*}}: tensor<4xf32> {coreai.name = "beta"}) -> tensor<2x3x4xf32>
// CHECK-SAME:    attributes {__coreai_pure__, composite_decl = #coreai.composite_declaration<"layer_norm" = {input_names = ["input", "gamma", "beta"], op_attrs = {axes = [2 : si64], eps = 9.99999974E-6 : f32, version = 1 : si64}, output_names = ["output"]}>, template_op = "layer_norm"}
// CHECK:         coreai.reduce_mean
// CHECK:         coreai.output
// CHECK-LABEL: coreai.graph private noinline @layer_norm_2(
// CHECK-SAME:    composite_decl = #coreai.composite_declaration<"layer_norm" = {input_names = ["input", "gamma", "beta"], op_attrs = {axes = [2 : si64], eps = 9.99999974E-6 : f32, version = 1 : si64}, output_names = ["output"]}>, template_op = "layer_norm"}
// CHECK-LABEL: coreai.graph @twice(
// CHECK-SAME:    %[[X:[^:]*]]: tensor<2x3x4xf32>, %[[W:[^:]*]]: tensor<4xf32>, %[[B:[^:]*]]: tensor<4xf32>
// CHECK-NEXT:    %[[Y:.*]] = coreai.invoke @layer_norm(%[[X]], %[[W]], %[[B]]) : (tensor<2x3x4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<2x3x4xf32>
// CHECK-NEXT:    %[[Z:.*]] = coreai.invoke @layer_norm_2(%[[Y]], %[[W]], %[[B]])
// CHECK-NEXT:    coreai.output %[[Z]]

// composites=inline: today's form, no graph, no invoke.
// INLINE-LABEL: coreai.graph @layer_norm_1(
// INLINE-NOT:  noinline
// INLINE-LABEL: coreai.graph @twice(
// INLINE-NOT:    coreai.invoke
// INLINE-COUNT-2: coreai.rsqrt
// INLINE-NOT:    coreai.invoke
// INLINE:        coreai.output

// canonicalize and cse neither inline nor drop the graphs (core-optimize,
// at the end of coreai-pipeline, merges identical ones: core-optimize.mlir),
// and keep each body's constants in its graph.
// PIPE-LABEL:  coreai.graph @layer_norm_1(
// PIPE-LABEL:  coreai.graph private noinline @layer_norm(
// PIPE:          coreai.constant dense<2> : tensor<1xsi32>
// PIPE-NOT:      coreai.constant dense<2> : tensor<1xsi32>
// PIPE:          coreai.output
// PIPE-LABEL:  coreai.graph private noinline @layer_norm_2(
// PIPE-LABEL:  coreai.graph @twice(
// PIPE-NEXT:     %[[Y:.*]] = coreai.invoke @layer_norm(
// PIPE-NEXT:     %[[Z:.*]] = coreai.invoke @layer_norm_2(%[[Y]],
// PIPE-NEXT:     coreai.output %[[Z]]

// BAD: pass 'legalize-aten-to-coreai', option 'composites': unknown composites mode 'outline'; choose graph or inline
func.func @layer_norm_1(%x: tensor<2xf32>) -> tensor<2xf32> {
  return %x : tensor<2xf32>
}
func.func @twice(%x: tensor<2x3x4xf32>, %w: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<2x3x4xf32> {
  %0:3 = aten.native_layer_norm.default %x, %w, %b {normalized_shape = [4], eps = 1.0e-05 : f64, operandSegmentSizes = array<i32: 1, 1, 1>} : (tensor<2x3x4xf32>, tensor<4xf32>, tensor<4xf32>) -> (tensor<2x3x4xf32>, tensor<2x3x1xf32>, tensor<2x3x1xf32>)
  %1:3 = aten.native_layer_norm.default %0#0, %w, %b {normalized_shape = [4], eps = 1.0e-05 : f64, operandSegmentSizes = array<i32: 1, 1, 1>} : (tensor<2x3x4xf32>, tensor<4xf32>, tensor<4xf32>) -> (tensor<2x3x4xf32>, tensor<2x3x1xf32>, tensor<2x3x1xf32>)
  return %1#0 : tensor<2x3x4xf32>
}

// -----

// Inference batch norm whose saved statistics nobody reads: the
// batch_norm composite (input, gamma, beta, mean, variance) {eps}; the
// absent weight is passed as ones of [C]; the unused statistics results
// leave nothing behind.
// CHECK-LABEL: coreai.graph private noinline @batch_norm(
// CHECK-SAME:    {coreai.name = "input"}, %{{.*}}: tensor<3xf32> {coreai.name = "gamma"}, %{{.*}}: tensor<3xf32> {coreai.name = "beta"}, %{{.*}}: tensor<3xf32> {coreai.name = "mean"}, %{{.*}}: tensor<3xf32> {coreai.name = "variance"}) -> tensor<2x3x4x5xf32>
// CHECK-SAME:    composite_decl = #coreai.composite_declaration<"batch_norm" = {input_names = ["input", "gamma", "beta", "mean", "variance"], op_attrs = {eps = 1.000000e-03 : f32, version = 1 : si64}, output_names = ["output"]}>, template_op = "batch_norm"}
// CHECK:         coreai.sqrt
// CHECK:         coreai.decomposable.broadcasting_divide
// CHECK-LABEL: coreai.graph @bn(
// CHECK-SAME:    %[[X:[^:]*]]: tensor<2x3x4x5xf32>, %[[B:[^:]*]]: tensor<3xf32>, %[[M:[^:]*]]: tensor<3xf32>, %[[V:[^:]*]]: tensor<3xf32>
// CHECK-NEXT:    %[[ONES:.*]] = coreai.constant dense<1.000000e+00> : tensor<3xf32>
// CHECK-NEXT:    %[[Y:.*]] = coreai.invoke @batch_norm(%[[X]], %[[ONES]], %[[B]], %[[M]], %[[V]])
// CHECK-NEXT:    coreai.output %[[Y]]
func.func @bn(%x: tensor<2x3x4x5xf32>, %b: tensor<3xf32>, %m: tensor<3xf32>, %v: tensor<3xf32>) -> tensor<2x3x4x5xf32> {
  %0:3 = aten._native_batch_norm_legit_no_training.default %x, %b, %m, %v {momentum = 0.1 : f64, eps = 1.0e-03 : f64, operandSegmentSizes = array<i32: 1, 0, 1, 1, 1>} : (tensor<2x3x4x5xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> (tensor<2x3x4x5xf32>, tensor<0xf32>, tensor<0xf32>)
  return %0#0 : tensor<2x3x4x5xf32>
}

// -----

// native_group_norm with unused statistics → group_norm {eps, num_channels,
// num_groups}; log_softmax.int → log_softmax {axis} (the normalized dim).
// CHECK-LABEL: coreai.graph private noinline @group_norm(
// CHECK-SAME:    composite_decl = #coreai.composite_declaration<"group_norm" = {input_names = ["input", "weight", "bias"], op_attrs = {eps = 9.99999974E-6 : f32, num_channels = 6 : si64, num_groups = 2 : si64, version = 1 : si64}, output_names = ["output"]}>, template_op = "group_norm"}
// CHECK-LABEL: coreai.graph private noinline @log_softmax(
// CHECK-SAME:    composite_decl = #coreai.composite_declaration<"log_softmax" = {input_names = ["input"], op_attrs = {axis = 3 : si64, version = 1 : si64}, output_names = ["output"]}>, template_op = "log_softmax"}
// CHECK-LABEL: coreai.graph @gn_logsoftmax(
// CHECK:         %[[G:.*]] = coreai.invoke @group_norm(
// CHECK:         %[[L:.*]] = coreai.invoke @log_softmax(%[[G]])
// CHECK:         coreai.output %[[L]]
func.func @gn_logsoftmax(%x: tensor<2x6x5x5xf32>, %w: tensor<6xf32>, %b: tensor<6xf32>) -> tensor<2x6x5x5xf32> {
  %0:3 = aten.native_group_norm.default %x, %w, %b {N = 2 : i64, C = 6 : i64, HxW = 25 : i64, group = 2 : i64, eps = 1.0e-05 : f64, operandSegmentSizes = array<i32: 1, 1, 1>} : (tensor<2x6x5x5xf32>, tensor<6xf32>, tensor<6xf32>) -> (tensor<2x6x5x5xf32>, tensor<2x2xf32>, tensor<2x2xf32>)
  %1 = aten.log_softmax.int %0#0 {dim = -1 : i64} : (tensor<2x6x5x5xf32>) -> tensor<2x6x5x5xf32>
  return %1 : tensor<2x6x5x5xf32>
}

// -----

// An op in a nested region (a torch.cond branch): the graph goes to module
// level, the invoke stays in the branch.
// CHECK-LABEL: coreai.graph private noinline @hard_sigmoid(
// CHECK-SAME:    %{{.*}}: tensor<3x4xf32> {coreai.name = "input"}) -> tensor<3x4xf32>
// CHECK-LABEL: coreai.graph @in_branch(
// CHECK-SAME:    %[[P:[^:]*]]: tensor<i1>, %[[X:[^:]*]]: tensor<3x4xf32>
// CHECK-NEXT:    coreai.if %[[P]] {
// CHECK-NEXT:      %[[Y:.*]] = coreai.invoke @hard_sigmoid(%[[X]])
// CHECK-NEXT:      coreai.yield %[[Y]]
func.func @in_branch(%p: tensor<i1>, %x: tensor<3x4xf32>) -> tensor<3x4xf32> {
  %0 = aten.cond %p (%x) : tensor<i1>, (tensor<3x4xf32>) -> (tensor<3x4xf32>) {
  ^bb0(%a: tensor<3x4xf32>):
    %1 = aten.hardsigmoid.default %a : (tensor<3x4xf32>) -> tensor<3x4xf32>
    aten.yield %1 : tensor<3x4xf32>
  }, {
  ^bb0(%a: tensor<3x4xf32>):
    aten.yield %a : tensor<3x4xf32>
  }
  return %0 : tensor<3x4xf32>
}
