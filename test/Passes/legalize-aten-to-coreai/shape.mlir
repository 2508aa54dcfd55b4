// RUN: coreai-opt %s --split-input-file --pass-pipeline='builtin.module(legalize-aten-to-coreai)' | FileCheck %s --enable-var-scope

// view is a reshape to the result's shape (-1 resolved), as a ui32 constant.
// CHECK-LABEL: coreai.graph @view(
// CHECK-SAME:    %[[X:[^:]*]]: tensor<6x4x5xf32>
// CHECK:         %[[S:.*]] = coreai.constant dense<[2, 3, 20]> : tensor<3xui32>
// CHECK-NEXT:    %[[R:.*]] = coreai.reshape %[[X]], %[[S]] : (tensor<6x4x5xf32>, tensor<3xui32>) -> tensor<2x3x20xf32>
// CHECK-NEXT:    coreai.output %[[R]]
func.func @view(%x: tensor<6x4x5xf32>) -> tensor<2x3x20xf32> {
  %0 = aten.view.default %x {size = [2, 3, -1]} : (tensor<6x4x5xf32>) -> tensor<2x3x20xf32>
  return %0 : tensor<2x3x20xf32>
}

// -----

// Negative permutation entries are normalized; transpose.int swaps two dims.
// CHECK-LABEL: coreai.graph @permute_transpose(
// CHECK-SAME:    %[[X:[^:]*]]: tensor<2x3x4xf32>
// CHECK:         %[[P:.*]] = coreai.constant dense<[2, 0, 1]> : tensor<3xui32>
// CHECK-NEXT:    %[[A:.*]] = coreai.transpose %[[X]], %[[P]] : (tensor<2x3x4xf32>, tensor<3xui32>) -> tensor<4x2x3xf32>
// CHECK:         %[[Q:.*]] = coreai.constant dense<[2, 1, 0]> : tensor<3xui32>
// CHECK-NEXT:    %[[B:.*]] = coreai.transpose %[[X]], %[[Q]] : (tensor<2x3x4xf32>, tensor<3xui32>) -> tensor<4x3x2xf32>
// CHECK-NEXT:    coreai.output %[[A]], %[[B]]
func.func @permute_transpose(%x: tensor<2x3x4xf32>) -> (tensor<4x2x3xf32>, tensor<4x3x2xf32>) {
  %0 = aten.permute.default %x {dims = [-1, 0, 1]} : (tensor<2x3x4xf32>) -> tensor<4x2x3xf32>
  %1 = aten.transpose.int %x {dim0 = 0 : i64, dim1 = -1 : i64} : (tensor<2x3x4xf32>) -> tensor<4x3x2xf32>
  return %0, %1 : tensor<4x2x3xf32>, tensor<4x3x2xf32>
}

// -----

// Static unsqueeze/squeeze are reshapes; a dynamic squeeze is shrink_dims on
// the unit dim (si32 axes).
// CHECK-LABEL: coreai.graph @unsqueeze_squeeze(
// CHECK:         coreai.reshape %{{.*}} -> tensor<3x1x4xf32>
// CHECK:         coreai.reshape %{{.*}} -> tensor<3x4xf32>
// CHECK-LABEL: coreai.graph @squeeze_dynamic(
// CHECK-SAME:    %[[X:[^:]*]]: tensor<?x1x4xf32>
// CHECK:         %[[A:.*]] = coreai.constant dense<1> : tensor<1xsi32>
// CHECK-NEXT:    coreai.shrink_dims %[[X]], %[[A]] : (tensor<?x1x4xf32>, tensor<1xsi32>) to tensor<?x4xf32>
func.func @unsqueeze_squeeze(%x: tensor<3x4xf32>) -> (tensor<3x1x4xf32>, tensor<3x4xf32>) {
  %0 = aten.unsqueeze.default %x {dim = -2 : i64} : (tensor<3x4xf32>) -> tensor<3x1x4xf32>
  %1 = aten.squeeze.dims %0 {dim = [1]} : (tensor<3x1x4xf32>) -> tensor<3x4xf32>
  return %0, %1 : tensor<3x1x4xf32>, tensor<3x4xf32>
}
func.func @squeeze_dynamic(%x: tensor<?x1x4xf32>) -> tensor<?x4xf32> {
  %0 = aten.squeeze.dim %x {dim = 1 : i64} : (tensor<?x1x4xf32>) -> tensor<?x4xf32>
  return %0 : tensor<?x4xf32>
}

// -----

// expand adds leading unit dims with a reshape, then broadcasts exactly the
// unit dims whose size changes.
// CHECK-LABEL: coreai.graph @expand(
// CHECK-SAME:    %[[X:[^:]*]]: tensor<3x1xf32>
// CHECK:         %[[U:.*]] = coreai.reshape %[[X]], %{{.*}} -> tensor<1x3x1xf32>
// CHECK-NEXT:    %[[S:.*]] = coreai.constant dense<[2, 5]> : tensor<2xui32>
// CHECK-NEXT:    %[[A:.*]] = coreai.constant dense<[0, 2]> : tensor<2xsi32>
// CHECK-NEXT:    %[[R:.*]] = coreai.broadcast_in_dims %[[U]], %[[S]], %[[A]] : (tensor<1x3x1xf32>, tensor<2xui32>, tensor<2xsi32>) -> tensor<2x3x5xf32>
// CHECK-NEXT:    coreai.output %[[R]]
func.func @expand(%x: tensor<3x1xf32>) -> tensor<2x3x5xf32> {
  %0 = aten.expand.default %x {size = [2, -1, 5], implicit = false} : (tensor<3x1xf32>) -> tensor<2x3x5xf32>
  return %0 : tensor<2x3x5xf32>
}

// -----

// slice keeps PyTorch's bounds (coreai wraps a negative bound once and
// clamps, as PyTorch does); INT64_MAX becomes 2^31-1; other dims are whole.
// CHECK-LABEL: coreai.graph @slice(
// CHECK-SAME:    %[[X:[^:]*]]: tensor<3x8xf32>, %[[Y:[^:]*]]: tensor<3x8xsi64>
// CHECK:         %[[B:.*]] = coreai.constant dense<[0, -7]> : tensor<2xsi32>
// CHECK-NEXT:    %[[E:.*]] = coreai.constant dense<[2147483647, 5]> : tensor<2xsi32>
// CHECK-NEXT:    %[[S:.*]] = coreai.constant dense<[1, 2]> : tensor<2xsi32>
// CHECK-NEXT:    coreai.slice %[[X]], %[[B]], %[[E]], %[[S]] : (tensor<3x8xf32>, tensor<2xsi32>, tensor<2xsi32>, tensor<2xsi32>) -> tensor<3x2xf32>
// CHECK:         %[[B2:.*]] = coreai.constant dense<[2, 0]> : tensor<2xsi32>
// CHECK-NEXT:    %[[E2:.*]] = coreai.constant dense<2147483647> : tensor<2xsi32>
// CHECK-NEXT:    %[[S2:.*]] = coreai.constant dense<1> : tensor<2xsi32>
// CHECK-NEXT:    coreai.slice %[[Y]], %[[B2]], %[[E2]], %[[S2]] : {{.*}} -> tensor<1x8xsi64>
func.func @slice(%x: tensor<3x8xf32>, %y: tensor<3x8xi64>) -> (tensor<3x2xf32>, tensor<1x8xi64>) {
  %0 = aten.slice.Tensor %x {dim = 1 : i64, start = -7 : i64, end = 5 : i64, step = 2 : i64} : (tensor<3x8xf32>) -> tensor<3x2xf32>
  %1 = aten.slice.Tensor %y {dim = 0 : i64, start = 2 : i64, end = 9223372036854775807 : i64, step = 1 : i64} : (tensor<3x8xi64>) -> tensor<1x8xi64>
  return %0, %1 : tensor<3x2xf32>, tensor<1x8xi64>
}

// -----

// select.int -1 slices [-1, end) and drops the dim with a reshape.
// CHECK-LABEL: coreai.graph @select_negative(
// CHECK:         %[[B:.*]] = coreai.constant dense<[-1, 0]> : tensor<2xsi32>
// CHECK-NEXT:    %[[E:.*]] = coreai.constant dense<2147483647> : tensor<2xsi32>
// CHECK:         %[[S:.*]] = coreai.slice %{{.*}}, %[[B]], %[[E]], %{{.*}} -> tensor<1x8xf32>
// CHECK:         coreai.reshape %[[S]], %{{.*}} -> tensor<8xf32>
func.func @select_negative(%x: tensor<3x8xf32>) -> tensor<8xf32> {
  %0 = aten.select.int %x {dim = 0 : i64, index = -1 : i64} : (tensor<3x8xf32>) -> tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

// cat: one concat on the normalized dim (si32 scalar); empty inputs are left out.
// CHECK-LABEL: coreai.graph @cat(
// CHECK-SAME:    %[[A:[^:]*]]: tensor<4x1xf32>, %[[B:[^:]*]]: tensor<0xf32>, %[[C:[^:]*]]: tensor<4x2xf32>
// CHECK:         %[[D:.*]] = coreai.constant dense<1> : tensor<si32>
// CHECK-NEXT:    coreai.concat %[[D]], %[[A]], %[[C]] : (tensor<si32>, tensor<4x1xf32>, tensor<4x2xf32>) -> tensor<4x3xf32>
func.func @cat(%a: tensor<4x1xf32>, %b: tensor<0xf32>, %c: tensor<4x2xf32>) -> tensor<4x3xf32> {
  %0 = aten.cat.default %a, %b, %c {dim = -1 : i64} : (tensor<4x1xf32>, tensor<0xf32>, tensor<4x2xf32>) -> tensor<4x3xf32>
  return %0 : tensor<4x3xf32>
}

// -----

// stack: each input gets a unit dim at `dim`, then one concat.
// CHECK-LABEL: coreai.graph @stack(
// CHECK:         %[[A:.*]] = coreai.reshape %{{.*}} -> tensor<2x1x3xf32>
// CHECK:         %[[B:.*]] = coreai.reshape %{{.*}} -> tensor<2x1x3xf32>
// CHECK:         %[[D:.*]] = coreai.constant dense<1> : tensor<si32>
// CHECK-NEXT:    coreai.concat %[[D]], %[[A]], %[[B]] : {{.*}} -> tensor<2x2x3xf32>
func.func @stack(%a: tensor<2x3xf32>, %b: tensor<2x3xf32>) -> tensor<2x2x3xf32> {
  %0 = aten.stack.default %a, %b {dim = 1 : i64} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x2x3xf32>
  return %0 : tensor<2x2x3xf32>
}

// -----

// split_with_sizes and split.Tensor (uneven last piece) are one coreai.split;
// unbind splits into unit pieces and reshapes each.
// CHECK-LABEL: coreai.graph @splits(
// CHECK:         %[[S:.*]] = coreai.constant dense<[1, 5]> : tensor<2xui32>
// CHECK-NEXT:    %[[D:.*]] = coreai.constant dense<1> : tensor<si32>
// CHECK-NEXT:    %{{.*}}:2 = coreai.split %{{.*}}, %[[S]], %[[D]] : (tensor<4x6xf32>, tensor<2xui32>, tensor<si32>) -> (tensor<4x1xf32>, tensor<4x5xf32>)
// CHECK:         %[[T:.*]] = coreai.constant dense<[2, 2, 1]> : tensor<3xui32>
// CHECK:         coreai.split %{{.*}}, %[[T]], %{{.*}} -> (tensor<2x2xf32>, tensor<2x2xf32>, tensor<1x2xf32>)
// CHECK:         %[[U:.*]]:2 = coreai.split %{{.*}} -> (tensor<1x3xf32>, tensor<1x3xf32>)
// CHECK:         coreai.reshape %[[U]]#0, %{{.*}} -> tensor<3xf32>
// CHECK:         coreai.reshape %[[U]]#1, %{{.*}} -> tensor<3xf32>
func.func @splits(%x: tensor<4x6xf32>, %y: tensor<5x2xf32>, %z: tensor<2x3xf32>) -> (tensor<4x1xf32>, tensor<1x2xf32>, tensor<3xf32>, tensor<3xf32>) {
  %0:2 = aten.split_with_sizes.default %x {split_sizes = [1, 5], dim = -1 : i64} : (tensor<4x6xf32>) -> (tensor<4x1xf32>, tensor<4x5xf32>)
  %1:3 = aten.split.Tensor %y {split_size = 2 : i64, dim = 0 : i64} : (tensor<5x2xf32>) -> (tensor<2x2xf32>, tensor<2x2xf32>, tensor<1x2xf32>)
  %2:2 = aten.unbind.int %z {dim = 0 : i64} : (tensor<2x3xf32>) -> (tensor<3xf32>, tensor<3xf32>)
  return %0#0, %1#2, %2#0, %2#1 : tensor<4x1xf32>, tensor<1x2xf32>, tensor<3xf32>, tensor<3xf32>
}

// -----

// flip is coreai.reverse on si32 dims; roll by -1 on a dim of 4 is
// concat(x[:, 1:], x[:, :1]).
// CHECK-LABEL: coreai.graph @flip_roll(
// CHECK-SAME:    %[[X:[^:]*]]: tensor<3x4xf32>
// CHECK:         %[[D:.*]] = coreai.constant dense<[0, 1]> : tensor<2xsi32>
// CHECK-NEXT:    %[[F:.*]] = coreai.reverse %[[X]], %[[D]] : (tensor<3x4xf32>, tensor<2xsi32>) -> tensor<3x4xf32>
// CHECK:         %[[T:.*]] = coreai.slice %[[X]], {{.*}} -> tensor<3x3xf32>
// CHECK:         %[[H:.*]] = coreai.slice %[[X]], {{.*}} -> tensor<3x1xf32>
// CHECK:         %[[R:.*]] = coreai.concat %{{.*}}, %[[T]], %[[H]] : {{.*}} -> tensor<3x4xf32>
// CHECK-NEXT:    coreai.output %[[F]], %[[R]]
func.func @flip_roll(%x: tensor<3x4xf32>) -> (tensor<3x4xf32>, tensor<3x4xf32>) {
  %0 = aten.flip.default %x {dims = [0, -1]} : (tensor<3x4xf32>) -> tensor<3x4xf32>
  %1 = aten.roll.default %x {shifts = [-1], dims = [1]} : (tensor<3x4xf32>) -> tensor<3x4xf32>
  return %0, %1 : tensor<3x4xf32>, tensor<3x4xf32>
}

// -----

// repeat with more repeats than dims adds leading unit dims first; tile pads
// short repeat lists with leading 1s.
// CHECK-LABEL: coreai.graph @repeat_tile(
// CHECK-SAME:    %[[X:[^:]*]]: tensor<3x5xf32>
// CHECK:         %[[U:.*]] = coreai.reshape %[[X]], %{{.*}} -> tensor<1x3x5xf32>
// CHECK-NEXT:    %[[R:.*]] = coreai.constant dense<[2, 1, 3]> : tensor<3xui32>
// CHECK-NEXT:    coreai.tile %[[U]], %[[R]] : (tensor<1x3x5xf32>, tensor<3xui32>) -> tensor<2x3x15xf32>
// CHECK-NEXT:    %[[T:.*]] = coreai.constant dense<[1, 2]> : tensor<2xui32>
// CHECK-NEXT:    coreai.tile %[[X]], %[[T]] : (tensor<3x5xf32>, tensor<2xui32>) -> tensor<3x10xf32>
func.func @repeat_tile(%x: tensor<3x5xf32>) -> (tensor<2x3x15xf32>, tensor<3x10xf32>) {
  %0 = aten.repeat.default %x {repeats = [2, 1, 3]} : (tensor<3x5xf32>) -> tensor<2x3x15xf32>
  %1 = aten.tile.default %x {dims = [2]} : (tensor<3x5xf32>) -> tensor<3x10xf32>
  return %0, %1 : tensor<2x3x15xf32>, tensor<3x10xf32>
}

// -----

// Copies are the value itself: does not emit any op.
// CHECK-LABEL: coreai.graph @clone_alias(
// CHECK-SAME:    %[[X:[^:]*]]: tensor<3xf32>
// CHECK-NEXT:    coreai.output %[[X]] : tensor<3xf32>
func.func @clone_alias(%x: tensor<3xf32>) -> tensor<3xf32> {
  %0 = aten.clone.default %x {memory_format = "contiguous_format"} : (tensor<3xf32>) -> tensor<3xf32>
  %1 = aten.alias.default %0 : (tensor<3xf32>) -> tensor<3xf32>
  %2 = aten.lift_fresh_copy.default %1 : (tensor<3xf32>) -> tensor<3xf32>
  return %2 : tensor<3xf32>
}

// -----

// pixel_shuffle: reshape [N, C, r, r, H, W], transpose to [N, C, H, r, W, r], reshape,
// in coreai-torch's pixel_shuffle composite.
// CHECK-LABEL: coreai.graph private noinline @pixel_shuffle(
// CHECK-SAME:    tensor<1x8x2x3xf32> {coreai.name = "input"}) -> tensor<1x2x4x6xf32>
// CHECK-SAME:    composite_decl = #coreai.composite_declaration<"pixel_shuffle" = {input_names = ["input"], op_attrs = {upscale_factor = 2 : si64, version = 1 : si64}, output_names = ["output"]}>, template_op = "pixel_shuffle"}
// CHECK:         coreai.reshape %{{.*}} -> tensor<1x2x2x2x2x3xf32>
// CHECK:         %[[P:.*]] = coreai.constant dense<[0, 1, 4, 2, 5, 3]> : tensor<6xui32>
// CHECK-NEXT:    coreai.transpose %{{.*}}, %[[P]] : {{.*}} -> tensor<1x2x2x2x3x2xf32>
// CHECK:         coreai.reshape %{{.*}} -> tensor<1x2x4x6xf32>
// CHECK-LABEL: coreai.graph @pixel_shuffle_x2(
// CHECK-NEXT:    coreai.invoke @pixel_shuffle(%{{.*}}) : (tensor<1x8x2x3xf32>) -> tensor<1x2x4x6xf32>
func.func @pixel_shuffle_x2(%x: tensor<1x8x2x3xf32>) -> tensor<1x2x4x6xf32> {
  %0 = aten.pixel_shuffle.default %x {upscale_factor = 2 : i64} : (tensor<1x8x2x3xf32>) -> tensor<1x2x4x6xf32>
  return %0 : tensor<1x2x4x6xf32>
}

// -----

// Pads reverse PyTorch's last-dim-first pairs into (before, after) per dim;
// negative pads crop with a slice first.
// CHECK-LABEL: coreai.graph @pads(
// CHECK-SAME:    %[[X:[^:]*]]: tensor<1x3x8x8xf32>
// CHECK:         %[[V:.*]] = coreai.constant dense<5.000000e-01> : tensor<f32>
// CHECK-NEXT:    %[[P:.*]] = coreai.constant dense<[0, 0, 0, 0, 0, 2, 1, 0]> : tensor<8xui32>
// CHECK-NEXT:    coreai.pad %[[X]], %[[P]], %[[V]] mode = <constant> : {{.*}} -> tensor<1x3x10x9xf32>
// CHECK:         %[[Q:.*]] = coreai.constant dense<[0, 0, 0, 0, 1, 1, 2, 2]> : tensor<8xui32>
// CHECK-NEXT:    coreai.pad %[[X]], %[[Q]], %{{.*}} mode = <replicate> : {{.*}} -> tensor<1x3x10x12xf32>
// CHECK:         coreai.pad %[[X]], %{{.*}}, %{{.*}} mode = <reflect> : {{.*}} -> tensor<1x3x8x11xf32>
// CHECK:         %[[B:.*]] = coreai.constant dense<[0, 0, 1, 0]> : tensor<4xsi32>
// CHECK-NEXT:    %[[E:.*]] = coreai.constant dense<[2147483647, 2147483647, 8, 2147483647]> : tensor<4xsi32>
// CHECK:         %[[C:.*]] = coreai.slice %[[X]], %[[B]], %[[E]], %{{.*}} -> tensor<1x3x7x8xf32>
// CHECK:         coreai.pad %[[C]], %{{.*}}, %{{.*}} mode = <constant> : {{.*}} -> tensor<1x3x7x10xf32>
func.func @pads(%x: tensor<1x3x8x8xf32>) -> (tensor<1x3x10x9xf32>, tensor<1x3x10x12xf32>, tensor<1x3x8x11xf32>, tensor<1x3x7x10xf32>) {
  %0 = aten.constant_pad_nd.default %x {pad = [1, 0, 0, 2], value = 0.5 : f64} : (tensor<1x3x8x8xf32>) -> tensor<1x3x10x9xf32>
  %1 = aten.replication_pad2d.default %x {padding = [2, 2, 1, 1]} : (tensor<1x3x8x8xf32>) -> tensor<1x3x10x12xf32>
  %2 = aten.reflection_pad1d.default %x {padding = [1, 2]} : (tensor<1x3x8x8xf32>) -> tensor<1x3x8x11xf32>
  %3 = aten.constant_pad_nd.default %x {pad = [1, 1, -1, 0], value = 0 : i64} : (tensor<1x3x8x8xf32>) -> tensor<1x3x7x10xf32>
  return %0, %1, %2, %3 : tensor<1x3x10x9xf32>, tensor<1x3x10x12xf32>, tensor<1x3x8x11xf32>, tensor<1x3x7x10xf32>
}

// -----

// Creators fold to constants of the (coreai) result type: arange's
// elements, -inf in f16, 0.1 rounded to f32.
// CHECK-LABEL: coreai.graph @creators(
// CHECK-NEXT:    %[[A:.*]] = coreai.constant dense<[1, 3, 5, 7]> : tensor<4xsi64>
// CHECK-NEXT:    %[[F:.*]] = coreai.constant dense<0xFC00> : tensor<2x2xf16>
// CHECK-NEXT:    %[[S:.*]] = coreai.constant dense<1.000000e-01> : tensor<f32>
// CHECK-NEXT:    coreai.output %[[A]], %[[F]], %[[S]]
func.func @creators() -> (tensor<4xi64>, tensor<2x2xf16>, tensor<f32>) {
  %0 = aten.arange.start_step {start = 1 : i64, end = 9 : i64, step = 2 : i64, layout = "strided", device = "cpu", pin_memory = false} : () -> tensor<4xi64>
  %1 = aten.full.default {size = [2, 2], fill_value = 0xFFF0000000000000 : f64, dtype = f16} : () -> tensor<2x2xf16>
  %2 = aten.scalar_tensor.default {s = 0.1 : f64, dtype = f32} : () -> tensor<f32>
  return %0, %1, %2 : tensor<4xi64>, tensor<2x2xf16>, tensor<f32>
}

// -----

// slice_scatter / select_scatter are coreai.slice_update with slice bounds.
// CHECK-LABEL: coreai.graph @scatters(
// CHECK-SAME:    %[[X:[^:]*]]: tensor<4x6xf32>, %[[S:[^:]*]]: tensor<4x2xf32>, %[[R:[^:]*]]: tensor<6xf32>
// CHECK:         %[[B:.*]] = coreai.constant dense<[0, 1]> : tensor<2xsi32>
// CHECK-NEXT:    %[[E:.*]] = coreai.constant dense<[2147483647, 5]> : tensor<2xsi32>
// CHECK-NEXT:    %[[T:.*]] = coreai.constant dense<[1, 2]> : tensor<2xsi32>
// CHECK-NEXT:    %[[U:.*]] = coreai.slice_update %[[X]] with %[[S]] at{{ ?}}(%[[B]], %[[E]], %[[T]])
// CHECK:         %[[R1:.*]] = coreai.reshape %[[R]], %{{.*}} -> tensor<1x6xf32>
// CHECK:         coreai.slice_update %[[U]] with %[[R1]] at
func.func @scatters(%x: tensor<4x6xf32>, %s: tensor<4x2xf32>, %r: tensor<6xf32>) -> tensor<4x6xf32> {
  %0 = aten.slice_scatter.default %x, %s {dim = 1 : i64, start = 1 : i64, end = 5 : i64, step = 2 : i64} : (tensor<4x6xf32>, tensor<4x2xf32>) -> tensor<4x6xf32>
  %1 = aten.select_scatter.default %0, %r {dim = 0 : i64, index = -2 : i64} : (tensor<4x6xf32>, tensor<6xf32>) -> tensor<4x6xf32>
  return %1 : tensor<4x6xf32>
}

// -----

// Dynamic dims: a view with one dynamic result dim is a reshape with -1
// there (si32 shape), also from symbolic sizes; expand of a dynamic tensor
// adds leading dims with expand_dims and broadcasts only static unit dims.
// CHECK-LABEL: coreai.graph @dynamic(
// CHECK-SAME:    %[[X:[^:]*]]: tensor<?x1x4xf32>
// CHECK:         %[[S:.*]] = coreai.constant dense<[-1, 2, 2]> : tensor<3xsi32>
// CHECK-NEXT:    coreai.reshape %[[X]], %[[S]] : (tensor<?x1x4xf32>, tensor<3xsi32>) -> tensor<?x2x2xf32>
// CHECK:         %[[T:.*]] = coreai.constant dense<[-1, 4]> : tensor<2xsi32>
// CHECK-NEXT:    coreai.reshape %[[X]], %[[T]] : (tensor<?x1x4xf32>, tensor<2xsi32>) -> tensor<?x4xf32>
// CHECK:         %[[A:.*]] = coreai.constant dense<0> : tensor<1xsi32>
// CHECK-NEXT:    %[[E:.*]] = coreai.expand_dims %[[X]], %[[A]] : (tensor<?x1x4xf32>, tensor<1xsi32>) to tensor<1x?x1x4xf32>
// CHECK-NEXT:    %[[Z:.*]] = coreai.constant dense<[2, 3]> : tensor<2xui32>
// CHECK-NEXT:    %[[Y:.*]] = coreai.constant dense<[0, 2]> : tensor<2xsi32>
// CHECK-NEXT:    coreai.broadcast_in_dims %[[E]], %[[Z]], %[[Y]] : (tensor<1x?x1x4xf32>, tensor<2xui32>, tensor<2xsi32>) -> tensor<2x?x3x4xf32>
func.func @dynamic(%x: tensor<?x1x4xf32>, %n: i64) -> (tensor<?x2x2xf32>, tensor<?x4xf32>, tensor<2x?x3x4xf32>) {
  %0 = aten.view.default %x {size = [-1, 2, 2]} : (tensor<?x1x4xf32>) -> tensor<?x2x2xf32>
  %c = arith.constant 4 : i64
  %1 = aten.operator "aten::view.default"(%x, %n, %c) {operand_args = ["self", "size"], operand_groups = array<i64: 1, 2>} : (tensor<?x1x4xf32>, i64, i64) -> tensor<?x4xf32>
  %2 = aten.expand.default %x {size = [2, -1, 3, -1], implicit = false} : (tensor<?x1x4xf32>) -> tensor<2x?x3x4xf32>
  return %0, %1, %2 : tensor<?x2x2xf32>, tensor<?x4xf32>, tensor<2x?x3x4xf32>
}

// -----

// aten.pad: "constant" as constant_pad_nd, other modes as coreai.pad modes;
// repeat_interleave broadcasts a unit dim after `dim` and merges it.
// CHECK-LABEL: coreai.graph @pad_repeat_interleave(
// CHECK-SAME:    %[[X:[^:]*]]: tensor<2x3xf32>
// CHECK:         %[[P:.*]] = coreai.constant dense<[0, 0, 2, 1]> : tensor<4xui32>
// CHECK-NEXT:    coreai.pad %[[X]], %[[P]], %{{.*}} mode = <circular> : {{.*}} -> tensor<2x6xf32>
// CHECK:         coreai.pad %[[X]], %{{.*}}, %{{.*}} mode = <constant> : {{.*}} -> tensor<4x3xf32>
// CHECK:         %[[U:.*]] = coreai.reshape %[[X]], %{{.*}} -> tensor<2x3x1xf32>
// CHECK-NEXT:    %[[R:.*]] = coreai.constant dense<2> : tensor<1xui32>
// CHECK-NEXT:    %[[A:.*]] = coreai.constant dense<2> : tensor<1xsi32>
// CHECK-NEXT:    %[[B:.*]] = coreai.broadcast_in_dims %[[U]], %[[R]], %[[A]] : {{.*}} -> tensor<2x3x2xf32>
// CHECK:         coreai.reshape %[[B]], %{{.*}} -> tensor<2x6xf32>
func.func @pad_repeat_interleave(%x: tensor<2x3xf32>) -> (tensor<2x6xf32>, tensor<4x3xf32>, tensor<2x6xf32>) {
  %0 = aten.pad.default %x {pad = [2, 1], mode = "circular"} : (tensor<2x3xf32>) -> tensor<2x6xf32>
  %1 = aten.pad.default %x {pad = [0, 0, 1, 1], mode = "constant", value = 1.0 : f64} : (tensor<2x3xf32>) -> tensor<4x3xf32>
  %2 = aten.repeat_interleave.self_int %x {repeats = 2 : i64, dim = 1 : i64} : (tensor<2x3xf32>) -> tensor<2x6xf32>
  return %0, %1, %2 : tensor<2x6xf32>, tensor<4x3xf32>, tensor<2x6xf32>
}

// -----

// diagonal: the two dims moved last and flattened, then a slice from the
// first diagonal element in steps of n2 + 1 (offset 1: start 1).
// CHECK-LABEL: coreai.graph @diagonal(
// CHECK:         %[[T:.*]] = coreai.transpose %{{.*}} -> tensor<2x3x4xf32>
// CHECK:         %[[F:.*]] = coreai.reshape %[[T]], %{{.*}} -> tensor<2x12xf32>
// CHECK-NEXT:    %[[B:.*]] = coreai.constant dense<[0, 1]> : tensor<2xsi32>
// CHECK-NEXT:    %[[E:.*]] = coreai.constant dense<[2147483647, 12]> : tensor<2xsi32>
// CHECK-NEXT:    %[[S:.*]] = coreai.constant dense<[1, 5]> : tensor<2xsi32>
// CHECK-NEXT:    coreai.slice %[[F]], %[[B]], %[[E]], %[[S]] : {{.*}} -> tensor<2x3xf32>
func.func @diagonal(%x: tensor<3x2x4xf32>) -> tensor<2x3xf32> {
  %0 = aten.diagonal.default %x {offset = 1 : i64, dim1 = 0 : i64, dim2 = -1 : i64} : (tensor<3x2x4xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// `_copy` and `_as` variants (generic aten.operator form) lower like the
// originals.
// CHECK-LABEL: coreai.graph @copy_variants(
// CHECK-SAME:    %[[X:[^:]*]]: tensor<2x3xf32>, %[[Y:[^:]*]]: tensor<3x2xf32>
// CHECK:         %[[P:.*]] = coreai.constant dense<[1, 0]> : tensor<2xui32>
// CHECK-NEXT:    %[[T:.*]] = coreai.transpose %[[X]], %[[P]] : (tensor<2x3xf32>, tensor<2xui32>) -> tensor<3x2xf32>
// CHECK:         %[[V:.*]] = coreai.reshape %[[X]], %{{.*}} -> tensor<3x2xf32>
// CHECK:         %[[U:.*]] = coreai.reshape %[[X]], %{{.*}} -> tensor<2x1x3xf32>
// CHECK-NEXT:    coreai.output %[[T]], %[[V]], %[[U]]
func.func @copy_variants(%x: tensor<2x3xf32>, %y: tensor<3x2xf32>) -> (tensor<3x2xf32>, tensor<3x2xf32>, tensor<2x1x3xf32>) {
  %0 = aten.operator "aten::permute_copy.default"(%x) {dims = [1, 0]} : (tensor<2x3xf32>) -> tensor<3x2xf32>
  %1 = aten.operator "aten::view_as.default"(%x, %y) : (tensor<2x3xf32>, tensor<3x2xf32>) -> tensor<3x2xf32>
  %2 = aten.operator "aten::unsqueeze_copy.default"(%x) {dim = 1 : i64} : (tensor<2x3xf32>) -> tensor<2x1x3xf32>
  return %0, %1, %2 : tensor<3x2xf32>, tensor<3x2xf32>, tensor<2x1x3xf32>
}
