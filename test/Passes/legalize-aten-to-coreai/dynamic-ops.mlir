// RUN: coreai-opt %s --split-input-file --pass-pipeline='builtin.module(legalize-aten-to-coreai{composites=inline})' | FileCheck %s --enable-var-scope

// x[i] with a dynamic index: the index column is a coreai.expand_dims (no
// reshape to a static shape), gathered by coreai.gather_nd.
// CHECK-LABEL: coreai.graph @index_dynamic_index(
// CHECK-SAME:    %[[X:[^:]*]]: tensor<?x5xf32>, %[[I:[^:]*]]: tensor<?xsi64>)
// CHECK:         %[[C:.*]] = coreai.cast %[[I]] : tensor<?xsi64> to tensor<?xsi32>
// CHECK:         %[[COL:.*]] = coreai.expand_dims %[[C]], %{{.*}} : (tensor<?xsi32>, tensor<1xsi32>) to tensor<?x1xsi32>
// CHECK:         %[[G:.*]] = coreai.gather_nd %[[X]] at %[[COL]] : (tensor<?x5xf32>, tensor<?x1xsi32>) to tensor<?x5xf32>
// CHECK:         coreai.output %[[G]]
func.func @index_dynamic_index(%x: tensor<?x5xf32>, %i: tensor<?xi64>) -> tensor<?x5xf32> {
  %0 = aten.index.Tensor %x, %i {indices_present = array<i1: true>} : (tensor<?x5xf32>, tensor<?xi64>) -> tensor<?x5xf32>
  return %0 : tensor<?x5xf32>
}

// -----

// x[:, j] and index_select along dim 1 with a dynamic index: the indexed
// dim moved first, gathered, moved back.
// CHECK-LABEL: coreai.graph @index_select_dynamic_index(
// CHECK:         coreai.transpose {{.*}} -> tensor<5x?xf32>
// CHECK:         coreai.expand_dims {{.*}} to tensor<?x1xsi32>
// CHECK:         coreai.gather_nd {{.*}} : (tensor<5x?xf32>, tensor<?x1xsi32>) to tensor<?x?xf32>
// CHECK:         coreai.transpose {{.*}} -> tensor<?x?xf32>
func.func @index_select_dynamic_index(%x: tensor<?x5xf32>, %j: tensor<?xi64>) -> tensor<?x?xf32> {
  %0 = aten.index_select.default %x, %j {dim = 1 : i64} : (tensor<?x5xf32>, tensor<?xi64>) -> tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}

// -----

// x[i, j] with two dynamic indices of one shape: their columns are
// concatenated into [?, 2] coordinates.
// CHECK-LABEL: coreai.graph @index_two_dynamic(
// CHECK:         coreai.expand_dims {{.*}} to tensor<?x1xsi32>
// CHECK:         coreai.expand_dims {{.*}} to tensor<?x1xsi32>
// CHECK:         %[[S:.*]] = coreai.concat {{.*}} -> tensor<?x2xsi32>
// CHECK:         coreai.gather_nd %{{.*}} at %[[S]] : (tensor<?x5xf32>, tensor<?x2xsi32>) to tensor<?xf32>
func.func @index_two_dynamic(%x: tensor<?x5xf32>, %i: tensor<?xi64>, %j: tensor<?xi64>) -> tensor<?xf32> {
  %0 = aten.index.Tensor %x, %i, %j {indices_present = array<i1: true, true>} : (tensor<?x5xf32>, tensor<?xi64>, tensor<?xi64>) -> tensor<?xf32>
  return %0 : tensor<?xf32>
}

// -----

// x[b, q] with index tensors of shapes [1, 1] and [?, 1]: both are
// broadcast at run time by adding the zero b*0*q of the broadcast shape
// [?, 1], then gathered as one shape.
// CHECK-LABEL: coreai.graph @index_broadcast_dynamic(
// CHECK:         %[[Z0:.*]] = coreai.decomposable.broadcasting_mul %{{.*}}, %[[B:[^ ]*]] : (tensor<si32>, tensor<1x1xsi32>) -> tensor<1x1xsi32>
// CHECK:         %[[Z:.*]] = coreai.decomposable.broadcasting_mul %[[Z0]], %[[Q:[^ ]*]] : (tensor<1x1xsi32>, tensor<?x1xsi32>) -> tensor<?x1xsi32>
// CHECK:         coreai.decomposable.broadcasting_add %[[B]], %[[Z]] : (tensor<1x1xsi32>, tensor<?x1xsi32>) -> tensor<?x1xsi32>
// CHECK-NOT:     coreai.decomposable.broadcasting_add %[[Q]]
// CHECK:         coreai.concat {{.*}} -> tensor<?x1x2xsi32>
// CHECK:         coreai.gather_nd {{.*}} : (tensor<1x?xf32>, tensor<?x1x2xsi32>) to tensor<?x1xf32>
func.func @index_broadcast_dynamic(%x: tensor<1x?xf32>, %b: tensor<1x1xi64>, %q: tensor<?x1xi64>) -> tensor<?x1xf32> {
  %0 = aten.index.Tensor %x, %b, %q {indices_present = array<i1: true, true>} : (tensor<1x?xf32>, tensor<1x1xi64>, tensor<?x1xi64>) -> tensor<?x1xf32>
  return %0 : tensor<?x1xf32>
}

// -----

// index_put with a dynamic index: the values [?, 1] are broadcast to the
// update shape [len(i), 5] read at run time (the index's length from its
// coordinates' coreai.get_shape).
// CHECK-LABEL: coreai.graph @index_put_dynamic(
// CHECK:         %[[IDX:.*]] = coreai.expand_dims {{.*}} to tensor<?x1xsi32>
// CHECK:         %[[SH:.*]] = coreai.get_shape %[[IDX]] : tensor<?x1xsi32> -> tensor<2xui32>
// CHECK:         %[[N:.*]] = coreai.slice %[[SH]]
// CHECK:         %[[US:.*]] = coreai.concat {{.*}}%[[N]]{{.*}} -> tensor<2xui32>
// CHECK:         %[[U:.*]] = coreai.broadcast_to %{{.*}}, %[[US]] : (tensor<?x1xf32>, tensor<2xui32>) -> tensor<?x5xf32>
// CHECK:         coreai.scatter_nd %{{.*}} with %[[U]] at %[[IDX]]
func.func @index_put_dynamic(%x: tensor<?x5xf32>, %i: tensor<?xi64>, %v: tensor<?x1xf32>) -> tensor<?x5xf32> {
  %0 = aten.index_put.default %x, %i, %v {indices_present = array<i1: true>, accumulate = false} : (tensor<?x5xf32>, tensor<?xi64>, tensor<?x1xf32>) -> tensor<?x5xf32>
  return %0 : tensor<?x5xf32>
}

// -----

// Upsampling with a dynamic batch and channel count: the output shape
// operand takes them from the input's coreai.get_shape.
// CHECK-LABEL: coreai.graph @upsample_dynamic_batch(
// CHECK-SAME:    %[[X:[^:]*]]: tensor<?x?x4x5xf32>)
// CHECK:         %[[SH:.*]] = coreai.get_shape %[[X]] : tensor<?x?x4x5xf32> -> tensor<4xui32>
// CHECK:         %[[S:.*]] = coreai.concat {{.*}} -> tensor<4xsi32>
// CHECK:         coreai.interpolate %[[X]], %[[S]], {{.*}} -> tensor<?x?x8x10xf32>
func.func @upsample_dynamic_batch(%x: tensor<?x?x4x5xf32>) -> tensor<?x?x8x10xf32> {
  %0 = aten.upsample_nearest2d.vec %x {scale_factors = [2.0, 2.0]} : (tensor<?x?x4x5xf32>) -> tensor<?x?x8x10xf32>
  return %0 : tensor<?x?x8x10xf32>
}

// -----

// A causal mask over a dynamic sequence length: coreai.range up to the
// query's and key's runtime lengths.
// CHECK-LABEL: coreai.graph @sdpa_causal_dynamic(
// CHECK-SAME:    %[[Q:[^:]*]]: tensor<1x2x?x8xf32>, %[[K:[^:]*]]: tensor<1x2x?x8xf32>
// CHECK:         coreai.get_shape %[[Q]]
// CHECK:         %[[L:.*]] = coreai.range {{.*}} -> tensor<?xsi32>
// CHECK:         coreai.get_shape %[[K]]
// CHECK:         %[[S:.*]] = coreai.range {{.*}} -> tensor<?xsi32>
// CHECK:         coreai.decomposable.broadcasting_greater {{.*}} : (tensor<1x?xsi32>, tensor<?x1xsi32>) -> tensor<?x?xi1>
// CHECK:         coreai.softmax
func.func @sdpa_causal_dynamic(%q: tensor<1x2x?x8xf32>, %k: tensor<1x2x?x8xf32>, %v: tensor<1x2x?x8xf32>) -> tensor<1x2x?x8xf32> {
  %0 = aten.scaled_dot_product_attention.default %q, %k, %v {dropout_p = 0.0 : f64, is_causal = true, enable_gqa = false, operandSegmentSizes = array<i32: 1, 1, 1, 0>} : (tensor<1x2x?x8xf32>, tensor<1x2x?x8xf32>, tensor<1x2x?x8xf32>) -> tensor<1x2x?x8xf32>
  return %0 : tensor<1x2x?x8xf32>
}

// -----

// argmax over every dim of a dynamic shape: flattened with an inferred -1.
// CHECK-LABEL: coreai.graph @argmax_all_dynamic(
// CHECK:         %[[F:.*]] = coreai.constant dense<-1> : tensor<1xsi32>
// CHECK:         coreai.reshape %{{.*}}, %[[F]] : (tensor<?x3xf32>, tensor<1xsi32>) -> tensor<?xf32>
// CHECK:         coreai.argmax
func.func @argmax_all_dynamic(%x: tensor<?x3xf32>) -> tensor<si64> {
  %0 = aten.argmax.default %x {keepdim = false} : (tensor<?x3xf32>) -> tensor<si64>
  return %0 : tensor<si64>
}

// -----

// var over a dynamic dim: N - correction from coreai.get_shape.
// CHECK-LABEL: coreai.graph @var_dynamic(
// CHECK-SAME:    %[[X:[^:]*]]: tensor<?x3xf32>)
// CHECK:         coreai.reduce_sum
// CHECK:         %[[SH:.*]] = coreai.get_shape %[[X]]
// CHECK:         %[[N:.*]] = coreai.cast {{.*}} : tensor<ui32> to tensor<f32>
// CHECK:         coreai.decomposable.broadcasting_sub
// CHECK:         coreai.decomposable.broadcasting_maximum
// CHECK:         coreai.decomposable.broadcasting_divide
func.func @var_dynamic(%x: tensor<?x3xf32>) -> tensor<3xf32> {
  %0 = aten.var.correction %x {dim = [0], correction = 1 : i64, keepdim = false} : (tensor<?x3xf32>) -> tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

// A view with two symbolic sizes: the shape is built from them at run time
// (in the order given, which may exchange the input's dynamic dims).
// CHECK-LABEL: coreai.graph @view_two_symbolic(
// CHECK-SAME:    %[[X:[^:]*]]: tensor<?x?x6xf32>)
// CHECK:         %[[S:.*]] = coreai.concat {{.*}} -> tensor<3xsi32>
// CHECK:         %[[R:.*]] = coreai.reshape %[[X]], %[[S]] : (tensor<?x?x6xf32>, tensor<3xsi32>) -> tensor<?x?x6xf32>
// CHECK:         coreai.output %[[R]]
func.func @view_two_symbolic(%x: tensor<?x?x6xf32>) -> tensor<?x?x6xf32> {
  %n = aten.sym_size.int %x {dim = 0 : i64} : (tensor<?x?x6xf32>) -> i64
  %m = aten.sym_size.int %x {dim = 1 : i64} : (tensor<?x?x6xf32>) -> i64
  %c6 = arith.constant 6 : i64
  %0 = aten.operator "aten::view.default"(%x, %m, %n, %c6) {operand_args = ["self", "size"], operand_groups = array<i64: 1, 3>} : (tensor<?x?x6xf32>, i64, i64, i64) -> tensor<?x?x6xf32>
  return %0 : tensor<?x?x6xf32>
}

// -----

// expand of a unit dim to a symbolic size: coreai.broadcast_to the size.
// CHECK-LABEL: coreai.graph @expand_symbolic(
// CHECK:         %[[S:.*]] = coreai.concat {{.*}} -> tensor<2xui32>
// CHECK:         coreai.broadcast_to %{{.*}}, %[[S]] : (tensor<1x3xf32>, tensor<2xui32>) -> tensor<?x3xf32>
func.func @expand_symbolic(%x: tensor<?x4xf32>, %y: tensor<1x3xf32>) -> tensor<?x3xf32> {
  %n = aten.sym_size.int %x {dim = 0 : i64} : (tensor<?x4xf32>) -> i64
  %c3 = arith.constant 3 : i64
  %0 = aten.operator "aten::expand.default"(%y, %n, %c3) {implicit = false, operand_args = ["self", "size"], operand_groups = array<i64: 1, 2>} : (tensor<1x3xf32>, i64, i64) -> tensor<?x3xf32>
  return %0 : tensor<?x3xf32>
}

// -----

// scalar_tensor of a symbolic size: its value cast.
// CHECK-LABEL: coreai.graph @scalar_tensor_symbolic(
// CHECK:         %[[N:.*]] = coreai.cast %{{.*}} : tensor<ui32> to tensor<si64>
// CHECK:         %[[F:.*]] = coreai.cast %[[N]] : tensor<si64> to tensor<f32>
// CHECK:         coreai.output %[[F]]
func.func @scalar_tensor_symbolic(%x: tensor<?x4xf32>) -> tensor<f32> {
  %n = aten.sym_size.int %x {dim = 0 : i64} : (tensor<?x4xf32>) -> i64
  %0 = aten.operator "aten::scalar_tensor.default"(%n) {device = "cpu", pin_memory = false, operand_args = ["s"], operand_groups = array<i64: 1>} : (i64) -> tensor<f32>
  return %0 : tensor<f32>
}

// -----

// A dynamic spatial dim under power-of-two scale factors: the output shape
// is the input's runtime shape times [1, 1, kh, kw], the offsets 0.
// CHECK-LABEL: coreai.graph @upsample_dynamic_spatial(
// CHECK-SAME:    %[[X:[^:]*]]: tensor<1x2x?x?xf32>)
// CHECK:         %[[SH:.*]] = coreai.get_shape %[[X]] : tensor<1x2x?x?xf32> -> tensor<4xui32>
// CHECK:         %[[SI:.*]] = coreai.cast %[[SH]] : tensor<4xui32> to tensor<4xsi32>
// CHECK:         %[[K:.*]] = coreai.constant dense<[1, 1, 4, 2]> : tensor<4xsi32>
// CHECK:         %[[OUT:.*]] = coreai.decomposable.broadcasting_mul %[[SI]], %[[K]]
// CHECK:         coreai.interpolate %[[X]], %[[OUT]], {{.*}} -> tensor<1x2x?x?xf32>
func.func @upsample_dynamic_spatial(%x: tensor<1x2x?x?xf32>) -> tensor<1x2x?x?xf32> {
  %0 = aten.upsample_bilinear2d.vec %x {scale_factors = [4.0, 2.0], align_corners = false} : (tensor<1x2x?x?xf32>) -> tensor<1x2x?x?xf32>
  return %0 : tensor<1x2x?x?xf32>
}

// -----

// Nearest resizing to symbolic sizes (another tensor's runtime shape): per
// spatial dim, W then H, the source index floor(o * (in / out)) computed at
// run time from a coreai.range over the output size, at most in - 1, then
// gathered along that dim.
// CHECK-LABEL: coreai.graph @upsample_nearest_to_symbolic_size(
// CHECK:         %[[W:.*]] = coreai.range %{{.*}}, %{{.*}}, %{{.*}} : (tensor<si32>, tensor<si32>, tensor<si32>) -> tensor<?xsi32>
// CHECK:         %[[WF:.*]] = coreai.cast %[[W]] : tensor<?xsi32> to tensor<?xf32>
// CHECK:         %[[R:.*]] = coreai.decomposable.broadcasting_divide {{.*}} : (tensor<1xf32>, tensor<1xf32>) -> tensor<1xf32>
// CHECK:         %[[S:.*]] = coreai.decomposable.broadcasting_mul %[[WF]], %[[R]]
// CHECK:         %[[F:.*]] = coreai.decomposable.broadcasting_floor_divide %[[S]]
// CHECK:         %[[I:.*]] = coreai.cast %[[F]] : tensor<?xf32> to tensor<?xsi32>
// CHECK:         coreai.decomposable.broadcasting_minimum %[[I]]
// CHECK:         coreai.gather_nd {{.*}} to tensor<?x1x2x?xf32>
// CHECK:         coreai.range
// CHECK:         coreai.gather_nd {{.*}} to tensor<?x1x2x?xf32>
// CHECK:         coreai.output {{.*}} : tensor<1x2x?x?xf32>
func.func @upsample_nearest_to_symbolic_size(%x: tensor<1x2x?x?xf32>, %like: tensor<?x?xf32>) -> tensor<1x2x?x?xf32> {
  %h = aten.sym_size.int %like {dim = 0 : i64} : (tensor<?x?xf32>) -> i64
  %w = aten.sym_size.int %like {dim = 1 : i64} : (tensor<?x?xf32>) -> i64
  %0 = aten.operator "aten::upsample_nearest2d.vec"(%x, %h, %w) {operand_args = ["input", "output_size"], operand_groups = array<i64: 1, 2>} : (tensor<1x2x?x?xf32>, i64, i64) -> tensor<1x2x?x?xf32>
  return %0 : tensor<1x2x?x?xf32>
}

// -----

// masked_scatter of a dynamic shape: flat views of inferred length, the
// result reshaped to x's runtime shape.
// CHECK-LABEL: coreai.graph @masked_scatter_dynamic(
// CHECK:         coreai.reshape {{.*}} -> tensor<?xf32>
// CHECK:         coreai.scan
// CHECK:         coreai.gather_along_axis
// CHECK:         coreai.reshape {{.*}} -> tensor<?x3xf32>
func.func @masked_scatter_dynamic(%x: tensor<?x3xf32>, %m: tensor<?x3xi1>, %s: tensor<?x3xf32>) -> tensor<?x3xf32> {
  %0 = aten.masked_scatter.default %x, %m, %s : (tensor<?x3xf32>, tensor<?x3xi1>, tensor<?x3xf32>) -> tensor<?x3xf32>
  return %0 : tensor<?x3xf32>
}

// -----

// A negative constant pad on a dynamic dim crops it with a negative end
// bound (coreai.slice counts it from the end); the positive pads follow.
// CHECK-LABEL: coreai.graph @constant_pad_negative_dynamic(
// CHECK:         %[[B:.*]] = coreai.constant dense<[0, 0, 0, 1]> : tensor<4xsi32>
// CHECK:         %[[E:.*]] = coreai.constant dense<[2147483647, 2147483647, -2, 2147483647]> : tensor<4xsi32>
// CHECK:         %[[S:.*]] = coreai.slice %{{.*}}, %[[B]], %[[E]], %{{.*}} -> tensor<1x2x?x?xf32>
// CHECK:         coreai.pad %[[S]], {{.*}} -> tensor<1x2x?x?xf32>
func.func @constant_pad_negative_dynamic(%x: tensor<1x2x?x?xf32>) -> tensor<1x2x?x?xf32> {
  %0 = aten.constant_pad_nd.default %x {pad = [-1, 2, 1, -2], value = 0.0 : f64} : (tensor<1x2x?x?xf32>) -> tensor<1x2x?x?xf32>
  return %0 : tensor<1x2x?x?xf32>
}
