// RUN: coreai-opt %s --split-input-file --pass-pipeline='builtin.module(decompose)' | FileCheck %s --enable-var-scope

// CHECK-LABEL: func.func @views(
// CHECK-SAME:    %[[X:[^:]*]]: tensor<2x16x4x16xf32>, %[[Y:[^:]*]]: tensor<1x20x6xf32>, %[[Z:[^:]*]]: tensor<5x8x4xf32>
// CHECK:         %[[T:.*]] = aten.permute.default %[[X]] {dims = [0, 2, 1, 3]} : (tensor<2x16x4x16xf32>) -> tensor<2x4x16x16xf32>
// CHECK:         %[[S:.*]] = aten.squeeze.dims %[[Y]] {dim = [0]} : (tensor<1x20x6xf32>) -> tensor<20x6xf32>
// CHECK:         %[[V:.*]] = aten.view.default %[[Z]] {size = [10, 16]}
// CHECK:         return %[[T]], %[[S]], %[[V]]
func.func @views(%x: tensor<2x16x4x16xf32>, %y: tensor<1x20x6xf32>, %z: tensor<5x8x4xf32>) -> (tensor<2x4x16x16xf32>, tensor<20x6xf32>, tensor<10x16xf32>) {
  %0 = aten.transpose.int %x {dim0 = 1 : i64, dim1 = -2 : i64} : (tensor<2x16x4x16xf32>) -> tensor<2x4x16x16xf32>
  %1 = aten.squeeze.dim %y {dim = 0 : i64} : (tensor<1x20x6xf32>) -> tensor<20x6xf32>
  %2 = aten._unsafe_view.default %z {size = [10, 16]} : (tensor<5x8x4xf32>) -> tensor<10x16xf32>
  return %0, %1, %2 : tensor<2x4x16x16xf32>, tensor<20x6xf32>, tensor<10x16xf32>
}

// -----

// split → slices (the last one shorter); unbind → selects; stack → cat of unsqueezes.
// CHECK-LABEL: func.func @split_unbind_stack(
// CHECK-SAME:    %[[Y:[^:]*]]: tensor<5x3xf32>
// CHECK:         %[[S0:.*]] = aten.slice.Tensor %[[Y]] {dim = 0 : i64, end = 2 : i64, start = 0 : i64, step = 1 : i64} : (tensor<5x3xf32>) -> tensor<2x3xf32>
// CHECK:         aten.slice.Tensor %[[Y]] {dim = 0 : i64, end = 4 : i64, start = 2 : i64, step = 1 : i64}
// CHECK:         %[[S2:.*]] = aten.slice.Tensor %[[Y]] {dim = 0 : i64, end = 5 : i64, start = 4 : i64, step = 1 : i64} : (tensor<5x3xf32>) -> tensor<1x3xf32>
// CHECK:         aten.select.int %[[Y]] {dim = 1 : i64, index = 0 : i64}
// CHECK:         aten.select.int %[[Y]] {dim = 1 : i64, index = 1 : i64}
// CHECK:         %[[U2:.*]] = aten.select.int %[[Y]] {dim = 1 : i64, index = 2 : i64} : (tensor<5x3xf32>) -> tensor<5xf32>
// CHECK:         %[[A:.*]] = aten.unsqueeze.default %[[Y]] {dim = 2 : i64} : (tensor<5x3xf32>) -> tensor<5x3x1xf32>
// CHECK:         %[[B:.*]] = aten.unsqueeze.default %[[Y]] {dim = 2 : i64}
// CHECK:         %[[ST:.*]] = aten.cat.default %[[A]], %[[B]] {dim = 2 : i64} : (tensor<5x3x1xf32>, tensor<5x3x1xf32>) -> tensor<5x3x2xf32>
// CHECK:         return %[[S0]], %[[S2]], %[[U2]], %[[ST]]
func.func @split_unbind_stack(%y: tensor<5x3xf32>) -> (tensor<2x3xf32>, tensor<1x3xf32>, tensor<5xf32>, tensor<5x3x2xf32>) {
  %0:3 = aten.split.Tensor %y {split_size = 2 : i64, dim = 0 : i64} : (tensor<5x3xf32>) -> (tensor<2x3xf32>, tensor<2x3xf32>, tensor<1x3xf32>)
  %1:3 = aten.unbind.int %y {dim = 1 : i64} : (tensor<5x3xf32>) -> (tensor<5xf32>, tensor<5xf32>, tensor<5xf32>)
  %2 = aten.stack.default %y, %y {dim = -1 : i64} : (tensor<5x3xf32>, tensor<5x3xf32>) -> tensor<5x3x2xf32>
  return %0#0, %0#2, %1#2, %2 : tensor<2x3xf32>, tensor<1x3xf32>, tensor<5xf32>, tensor<5x3x2xf32>
}

// -----

// tile pads its dims with leading 1s; repeat_interleave = expand a new
// axis and merge it; roll = two slices swapped, per dim (shift mod n).
// CHECK-LABEL: func.func @repeats(
// CHECK-SAME:    %[[X:[^:]*]]: tensor<1x3x5xf32>
// CHECK:         %[[T:.*]] = aten.repeat.default %[[X]] {repeats = [1, 1, 2]} : (tensor<1x3x5xf32>) -> tensor<1x3x10xf32>
// CHECK:         %[[U:.*]] = aten.unsqueeze.default %[[X]] {dim = 2 : i64} : (tensor<1x3x5xf32>) -> tensor<1x3x1x5xf32>
// CHECK:         %[[E:.*]] = aten.expand.default %[[U]] {implicit = false, size = [1, 3, 2, 5]}
// CHECK:         %[[RI:.*]] = aten.view.default %[[E]] {size = [1, 6, 5]}
// CHECK:         %[[TAIL:.*]] = aten.slice.Tensor %[[X]] {dim = 1 : i64, end = 3 : i64, start = 1 : i64, step = 1 : i64}
// CHECK:         %[[HEAD:.*]] = aten.slice.Tensor %[[X]] {dim = 1 : i64, end = 1 : i64, start = 0 : i64, step = 1 : i64}
// CHECK:         %[[R1:.*]] = aten.cat.default %[[TAIL]], %[[HEAD]] {dim = 1 : i64}
// CHECK:         %[[TAIL2:.*]] = aten.slice.Tensor %[[R1]] {dim = 2 : i64, end = 5 : i64, start = 3 : i64, step = 1 : i64}
// CHECK:         %[[HEAD2:.*]] = aten.slice.Tensor %[[R1]] {dim = 2 : i64, end = 3 : i64, start = 0 : i64, step = 1 : i64}
// CHECK:         %[[R2:.*]] = aten.cat.default %[[TAIL2]], %[[HEAD2]] {dim = 2 : i64}
// CHECK:         return %[[T]], %[[RI]], %[[R2]]
func.func @repeats(%x: tensor<1x3x5xf32>) -> (tensor<1x3x10xf32>, tensor<1x6x5xf32>, tensor<1x3x5xf32>) {
  %0 = aten.tile.default %x {dims = [2]} : (tensor<1x3x5xf32>) -> tensor<1x3x10xf32>
  %1 = aten.repeat_interleave.self_int %x {repeats = 2 : i64, dim = 1 : i64} : (tensor<1x3x5xf32>) -> tensor<1x6x5xf32>
  %2 = aten.roll.default %x {shifts = [-1, 7], dims = [1, 2]} : (tensor<1x3x5xf32>) -> tensor<1x3x5xf32>
  return %0, %1, %2 : tensor<1x3x10xf32>, tensor<1x6x5xf32>, tensor<1x3x5xf32>
}

// -----

// CHECK-LABEL: func.func @pads(
// CHECK-SAME:    %[[X:[^:]*]]: tensor<1x3x8x8xf32>
// CHECK:         %[[RF:.*]] = aten.reflection_pad2d.default %[[X]] {padding = [1, 1, 1, 1]}
// CHECK:         %[[RP:.*]] = aten.replication_pad2d.default %[[X]] {padding = [2, 2, 1, 1]}
// CHECK:         %[[C:.*]] = aten.constant_pad_nd.default %[[X]] {pad = [1, 2], value = -3.000000e+00 : f64}
// CHECK:         %[[V:.*]] = aten.view.default %[[X]] {size = [1, 3, 4, 2, 4, 2]}
// CHECK:         %[[P:.*]] = aten.permute.default %[[V]] {dims = [0, 1, 3, 5, 2, 4]} : (tensor<1x3x4x2x4x2xf32>) -> tensor<1x3x2x2x4x4xf32>
// CHECK:         %[[PU:.*]] = aten.view.default %[[P]] {size = [1, 12, 4, 4]}
// CHECK:         return %[[RF]], %[[RP]], %[[C]], %[[PU]]
func.func @pads(%x: tensor<1x3x8x8xf32>) -> (tensor<1x3x10x10xf32>, tensor<1x3x10x12xf32>, tensor<1x3x8x11xf32>, tensor<1x12x4x4xf32>) {
  %0 = aten.pad.default %x {pad = [1, 1, 1, 1], mode = "reflect"} : (tensor<1x3x8x8xf32>) -> tensor<1x3x10x10xf32>
  %1 = aten.pad.default %x {pad = [2, 2, 1, 1], mode = "replicate"} : (tensor<1x3x8x8xf32>) -> tensor<1x3x10x12xf32>
  %2 = aten.pad.default %x {pad = [1, 2], mode = "constant", value = -3.0 : f64} : (tensor<1x3x8x8xf32>) -> tensor<1x3x8x11xf32>
  %3 = aten.pixel_unshuffle.default %x {downscale_factor = 2 : i64} : (tensor<1x3x8x8xf32>) -> tensor<1x12x4x4xf32>
  return %0, %1, %2, %3 : tensor<1x3x10x10xf32>, tensor<1x3x10x12xf32>, tensor<1x3x8x11xf32>, tensor<1x12x4x4xf32>
}

// -----

// Two-operand einsum: [batch, free, contracted] @ [batch, contracted, free] with bmm.
// CHECK-LABEL: func.func @einsum(
// CHECK-SAME:    %[[X:[^:]*]]: tensor<10x32xf32>, %[[W:[^:]*]]: tensor<10x2x32x64xf32>, %[[A:[^:]*]]: tensor<3x4xf32>, %[[B:[^:]*]]: tensor<5x4xf32>
// CHECK:         %[[L:.*]] = aten.view.default %[[X]] {size = [10, 1, 32]}
// CHECK:         %[[WP:.*]] = aten.permute.default %[[W]] {dims = [0, 2, 1, 3]}
// CHECK:         %[[R:.*]] = aten.view.default %[[WP]] {size = [10, 32, 128]}
// CHECK:         %[[M:.*]] = aten.bmm.default %[[L]], %[[R]] : (tensor<10x1x32xf32>, tensor<10x32x128xf32>) -> tensor<10x1x128xf32>
// CHECK:         %[[Y0:.*]] = aten.view.default %[[M]] {size = [10, 2, 64]}
// CHECK:         %[[AL:.*]] = aten.view.default %[[A]] {size = [1, 3, 4]}
// CHECK:         %[[BT:.*]] = aten.permute.default %[[B]] {dims = [1, 0]}
// CHECK:         %[[BR:.*]] = aten.view.default %[[BT]] {size = [1, 4, 5]}
// CHECK:         %[[M1:.*]] = aten.bmm.default %[[AL]], %[[BR]]
// CHECK:         %[[V1:.*]] = aten.view.default %[[M1]] {size = [3, 5]}
// CHECK:         %[[Y1:.*]] = aten.permute.default %[[V1]] {dims = [1, 0]} : (tensor<3x5xf32>) -> tensor<5x3xf32>
// CHECK:         return %[[Y0]], %[[Y1]]
func.func @einsum(%x: tensor<10x32xf32>, %w: tensor<10x2x32x64xf32>, %a: tensor<3x4xf32>, %b: tensor<5x4xf32>) -> (tensor<10x2x64xf32>, tensor<5x3xf32>) {
  %0 = aten.einsum.default %x, %w {equation = "td,tkdh->tkh"} : (tensor<10x32xf32>, tensor<10x2x32x64xf32>) -> tensor<10x2x64xf32>
  %1 = aten.einsum.default %a, %b {equation = "ij,kj->ki"} : (tensor<3x4xf32>, tensor<5x4xf32>) -> tensor<5x3xf32>
  return %0, %1 : tensor<10x2x64xf32>, tensor<5x3xf32>
}
