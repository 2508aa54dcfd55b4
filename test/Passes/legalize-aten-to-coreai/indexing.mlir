// RUN: coreai-opt %s --split-input-file --pass-pipeline='builtin.module(legalize-aten-to-coreai)' | FileCheck %s --enable-var-scope

// gather: the index is cast to si32 (coreai's index type); the axis is a
// tensor<si32>.
// CHECK-LABEL: coreai.graph @gather(
// CHECK-SAME:    %[[X:[^:]*]]: tensor<4x6xf32>, %[[I:[^:]*]]: tensor<4x3xsi64>
// CHECK:         %[[C:.*]] = coreai.cast %[[I]] : tensor<4x3xsi64> to tensor<4x3xsi32>
// CHECK-NEXT:    %[[A:.*]] = coreai.constant dense<1> : tensor<si32>
// CHECK-NEXT:    %[[G:.*]] = coreai.gather_along_axis %[[X]] at %[[C]] along %[[A]] : (tensor<4x6xf32>, tensor<4x3xsi32>, tensor<si32>) to tensor<4x3xf32>
// CHECK-NEXT:    coreai.output %[[G]]
func.func @gather(%x: tensor<4x6xf32>, %i: tensor<4x3xi64>) -> tensor<4x3xf32> {
  %0 = aten.gather.default %x, %i {dim = 1 : i64, sparse_grad = false} : (tensor<4x6xf32>, tensor<4x3xi64>) -> tensor<4x3xf32>
  return %0 : tensor<4x3xf32>
}

// -----

// An index smaller than the input on another dim: the input is sliced to it.
// CHECK-LABEL: coreai.graph @gather_smaller_index(
// CHECK:         %[[E:.*]] = coreai.constant dense<[2, 6]> : tensor<2xsi32>
// CHECK:         %[[S:.*]] = coreai.slice %{{.*}}, %{{.*}}, %[[E]], %{{.*}} -> tensor<2x6xf32>
// CHECK:         coreai.gather_along_axis %[[S]] at
func.func @gather_smaller_index(%x: tensor<4x6xf32>, %i: tensor<2x3xi64>) -> tensor<2x3xf32> {
  %0 = aten.gather.default %x, %i {dim = 1 : i64, sparse_grad = false} : (tensor<4x6xf32>, tensor<2x3xi64>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// index_select: the 1-D index is reshaped to [1, n] and broadcast over the
// other dims, then gathered along the (normalized) dim.
// CHECK-LABEL: coreai.graph @index_select(
// CHECK:         %[[R:.*]] = coreai.reshape %{{.*}} -> tensor<1x5xsi32>
// CHECK-NEXT:    %[[S:.*]] = coreai.constant dense<3> : tensor<1xui32>
// CHECK-NEXT:    %[[A:.*]] = coreai.constant dense<0> : tensor<1xsi32>
// CHECK-NEXT:    %[[B:.*]] = coreai.broadcast_in_dims %[[R]], %[[S]], %[[A]] : {{.*}} -> tensor<3x5xsi32>
// CHECK-NEXT:    %[[D:.*]] = coreai.constant dense<1> : tensor<si32>
// CHECK-NEXT:    coreai.gather_along_axis %{{.*}} at %[[B]] along %[[D]] : {{.*}} to tensor<3x5xf32>
func.func @index_select(%x: tensor<3x8xf32>, %i: tensor<5xi64>) -> tensor<3x5xf32> {
  %0 = aten.index_select.default %x, %i {dim = -1 : i64} : (tensor<3x8xf32>, tensor<5xi64>) -> tensor<3x5xf32>
  return %0 : tensor<3x5xf32>
}

// -----

// embedding: gather_nd of whole rows at indices[..., None].
// CHECK-LABEL: coreai.graph @embedding(
// CHECK-SAME:    %[[W:[^:]*]]: tensor<50x8xf32>
// CHECK:         %[[I:.*]] = coreai.reshape %{{.*}} -> tensor<2x10x1xsi32>
// CHECK-NEXT:    coreai.gather_nd %[[W]] at %[[I]] : (tensor<50x8xf32>, tensor<2x10x1xsi32>) to tensor<2x10x8xf32>
func.func @embedding(%w: tensor<50x8xf32>, %ids: tensor<2x10xi64>) -> tensor<2x10x8xf32> {
  %0 = aten.embedding.default %w, %ids {padding_idx = -1 : i64, scale_grad_by_freq = false, sparse = false} : (tensor<50x8xf32>, tensor<2x10xi64>) -> tensor<2x10x8xf32>
  return %0 : tensor<2x10x8xf32>
}

// -----

// scatter.src, scatter_add and scatter_reduce are scatter_along_axis with
// the matching mode; include_self = false first resets the targets to the
// reduction's identity (-inf for amax); a NaN in src still wins, as in
// PyTorch (coreai's <max> would drop it).
// CHECK-LABEL: coreai.graph @scatters(
// CHECK-SAME:    %[[X:[^:]*]]: tensor<4x6xf32>, %[[I:[^:]*]]: tensor<4x3xsi64>, %[[S:[^:]*]]: tensor<4x3xf32>
// CHECK:         coreai.scatter_along_axis %[[X]], %{{.*}}, %[[S]], %{{.*}} : (tensor<4x6xf32>, tensor<4x3xsi32>, tensor<4x3xf32>, tensor<si32>) -> tensor<4x6xf32>
// CHECK:         coreai.scatter_along_axis %[[X]], %{{.*}}, %[[S]], %{{.*}} scatter_mode = <add>
// CHECK:         %[[NI:.*]] = coreai.constant dense<0xFF800000> : tensor<4x3xf32>
// CHECK:         %[[RESET:.*]] = coreai.scatter_along_axis %[[X]], %{{.*}}, %[[NI]], %{{.*}} :
// CHECK:         %[[MAX:.*]] = coreai.scatter_along_axis %[[RESET]], %{{.*}}, %[[S]], %{{.*}} scatter_mode = <max>
// CHECK:         %[[ISNAN:.*]] = coreai.decomposable.broadcasting_not_equal %[[S]], %[[S]]
// CHECK:         %[[HITS:.*]] = coreai.scatter_along_axis %{{.*}} scatter_mode = <max>
// CHECK:         %[[HIT:.*]] = coreai.decomposable.broadcasting_greater %[[HITS]]
// CHECK:         %[[NAN:.*]] = coreai.constant dense<0x7FC00000> : tensor<f32>
// CHECK-NEXT:    coreai.decomposable.broadcasting_where %[[HIT]], %[[NAN]], %[[MAX]]
func.func @scatters(%x: tensor<4x6xf32>, %i: tensor<4x3xi64>, %s: tensor<4x3xf32>) -> (tensor<4x6xf32>, tensor<4x6xf32>, tensor<4x6xf32>) {
  %0 = aten.scatter.src %x, %i, %s {dim = 1 : i64} : (tensor<4x6xf32>, tensor<4x3xi64>, tensor<4x3xf32>) -> tensor<4x6xf32>
  %1 = aten.scatter_add.default %x, %i, %s {dim = 1 : i64} : (tensor<4x6xf32>, tensor<4x3xi64>, tensor<4x3xf32>) -> tensor<4x6xf32>
  %2 = aten.scatter_reduce.two %x, %i, %s {dim = 1 : i64, reduce = "amax", include_self = false} : (tensor<4x6xf32>, tensor<4x3xi64>, tensor<4x3xf32>) -> tensor<4x6xf32>
  return %0, %1, %2 : tensor<4x6xf32>, tensor<4x6xf32>, tensor<4x6xf32>
}

// -----

// x[i]: gather_nd of rows at i[:, None] (gather_nd wraps negative indices).
// CHECK-LABEL: coreai.graph @index_rows(
// CHECK-SAME:    %[[X:[^:]*]]: tensor<5x6xf32>
// CHECK:         %[[I:.*]] = coreai.reshape %{{.*}} -> tensor<3x1xsi32>
// CHECK-NEXT:    coreai.gather_nd %[[X]] at %[[I]] : (tensor<5x6xf32>, tensor<3x1xsi32>) to tensor<3x6xf32>
func.func @index_rows(%x: tensor<5x6xf32>, %i: tensor<3xi64>) -> tensor<3x6xf32> {
  %0 = aten.index.Tensor %x, %i {indices_present = array<i1: true>} : (tensor<5x6xf32>, tensor<3xi64>) -> tensor<3x6xf32>
  return %0 : tensor<3x6xf32>
}

// -----

// x[:, j]: the leading un-indexed dim is indexed by an arange column, both
// broadcast to [5, 3] and stacked on a new last dim.
// CHECK-LABEL: coreai.graph @index_columns(
// CHECK:         coreai.constant dense<[0, 1, 2, 3, 4]> : tensor<5xsi32>
// CHECK:         %[[R:.*]] = coreai.reshape %{{.*}} -> tensor<5x3x1xsi32>
// CHECK:         %[[J:.*]] = coreai.reshape %{{.*}} -> tensor<5x3x1xsi32>
// CHECK:         %[[D:.*]] = coreai.constant dense<2> : tensor<si32>
// CHECK-NEXT:    %[[K:.*]] = coreai.concat %[[D]], %[[R]], %[[J]] : {{.*}} -> tensor<5x3x2xsi32>
// CHECK-NEXT:    coreai.gather_nd %{{.*}} at %[[K]] : (tensor<5x6xf32>, tensor<5x3x2xsi32>) to tensor<5x3xf32>
func.func @index_columns(%x: tensor<5x6xf32>, %j: tensor<3xi64>) -> tensor<5x3xf32> {
  %0 = aten.index.Tensor %x, %j {indices_present = array<i1: false, true>} : (tensor<5x6xf32>, tensor<3xi64>) -> tensor<5x3xf32>
  return %0 : tensor<5x3xf32>
}

// -----

// Non-adjacent indexed dims move to the front (PyTorch puts the broadcast
// dims first then).
// CHECK-LABEL: coreai.graph @index_non_adjacent(
// CHECK-SAME:    %[[X:[^:]*]]: tensor<2x3x4xf32>
// CHECK:         %[[P:.*]] = coreai.constant dense<[0, 2, 1]> : tensor<3xui32>
// CHECK-NEXT:    %[[T:.*]] = coreai.transpose %[[X]], %[[P]] : {{.*}} -> tensor<2x4x3xf32>
// CHECK:         %[[K:.*]] = coreai.concat {{.*}} -> tensor<5x2xsi32>
// CHECK-NEXT:    coreai.gather_nd %[[T]] at %[[K]] : (tensor<2x4x3xf32>, tensor<5x2xsi32>) to tensor<5x3xf32>
func.func @index_non_adjacent(%x: tensor<2x3x4xf32>, %i: tensor<5xi64>, %k: tensor<5xi64>) -> tensor<5x3xf32> {
  %0 = aten.index.Tensor %x, %i, %k {indices_present = array<i1: true, false, true>} : (tensor<2x3x4xf32>, tensor<5xi64>, tensor<5xi64>) -> tensor<5x3xf32>
  return %0 : tensor<5x3xf32>
}

// -----

// index_put without accumulate is scatter_nd replacing the rows; with
// accumulate the (wrapped) row index drives a scatter_along_axis <add>, so
// duplicate rows add up.
// CHECK-LABEL: coreai.graph @index_put(
// CHECK-SAME:    %[[X:[^:]*]]: tensor<5x4xf32>, %[[I:[^:]*]]: tensor<2xsi64>, %[[V:[^:]*]]: tensor<2x4xf32>
// CHECK:         %[[IDX:.*]] = coreai.reshape %{{.*}} -> tensor<2x1xsi32>
// CHECK-NEXT:    %[[SET:.*]] = coreai.scatter_nd %[[X]] with %[[V]] at %[[IDX]] {
// CHECK-NEXT:    ^bb0(%{{.*}}: tensor<f32>, %[[NEW:.*]]: tensor<f32>):
// CHECK-NEXT:      coreai.yield %[[NEW]] : tensor<f32>
// CHECK-NEXT:    } : (tensor<5x4xf32>, tensor<2x4xf32>, tensor<2x1xsi32>) to tensor<5x4xf32>
// CHECK:         %[[N:.*]] = coreai.constant dense<5> : tensor<1xsi32>
// CHECK:         %[[M1:.*]] = coreai.decomposable.broadcasting_modulo %{{.*}}, %[[N]]
// CHECK-NEXT:    %[[M2:.*]] = coreai.decomposable.broadcasting_add %[[M1]], %[[N]]
// CHECK-NEXT:    %[[M3:.*]] = coreai.decomposable.broadcasting_modulo %[[M2]], %[[N]]
// CHECK:         %[[B:.*]] = coreai.broadcast_in_dims %[[M3]], {{.*}} -> tensor<2x4xsi32>
// CHECK:         %[[ACC:.*]] = coreai.scatter_along_axis %[[X]], %[[B]], %[[V]], %{{.*}} scatter_mode = <add>
// CHECK-NEXT:    coreai.output %[[SET]], %[[ACC]]
func.func @index_put(%x: tensor<5x4xf32>, %i: tensor<2xi64>, %v: tensor<2x4xf32>) -> (tensor<5x4xf32>, tensor<5x4xf32>) {
  %0 = aten.index_put.default %x, %i, %v {indices_present = array<i1: true>, accumulate = false} : (tensor<5x4xf32>, tensor<2xi64>, tensor<2x4xf32>) -> tensor<5x4xf32>
  %1 = aten.index_put.default %x, %i, %v {indices_present = array<i1: true>, accumulate = true} : (tensor<5x4xf32>, tensor<2xi64>, tensor<2x4xf32>) -> tensor<5x4xf32>
  return %0, %1 : tensor<5x4xf32>, tensor<5x4xf32>
}

// -----

// masked_scatter: a sum scan of the mask picks the source element; where
// keeps x elsewhere. masked_fill is a where with the (−inf) constant.
// CHECK-LABEL: coreai.graph @masked(
// CHECK-SAME:    %[[X:[^:]*]]: tensor<5x4xf32>, %[[M:[^:]*]]: tensor<5x4xi1>
// CHECK:         %[[C:.*]] = coreai.cast %{{.*}} : tensor<20xi1> to tensor<20xsi32>
// CHECK:         %[[CS:.*]] = coreai.scan %[[C]], %{{.*}}, %{{.*}} combiner = <sum>
// CHECK:         coreai.gather_along_axis
// CHECK:         coreai.decomposable.broadcasting_where
// CHECK:         %[[NI:.*]] = coreai.constant dense<0xFF800000> : tensor<f32>
// CHECK-NEXT:    coreai.decomposable.broadcasting_where %[[M]], %[[NI]], %[[X]] : (tensor<5x4xi1>, tensor<f32>, tensor<5x4xf32>) -> tensor<5x4xf32>
func.func @masked(%x: tensor<5x4xf32>, %m: tensor<5x4xi1>, %s: tensor<5x4xf32>) -> (tensor<5x4xf32>, tensor<5x4xf32>) {
  %0 = aten.masked_scatter.default %x, %m, %s : (tensor<5x4xf32>, tensor<5x4xi1>, tensor<5x4xf32>) -> tensor<5x4xf32>
  %1 = aten.masked_fill.Scalar %x, %m {value = 0xFFF0000000000000 : f64} : (tensor<5x4xf32>, tensor<5x4xi1>) -> tensor<5x4xf32>
  return %0, %1 : tensor<5x4xf32>, tensor<5x4xf32>
}

// -----

// nonzero: coreai.non_zero gives si32 coordinates of a dynamic count, cast
// to the result's si64; nonzero_numpy splits the columns.
// CHECK-LABEL: coreai.graph @nonzero(
// CHECK-SAME:    %[[X:[^:]*]]: tensor<3x4xf32>
// CHECK:         %[[N:.*]] = coreai.non_zero %[[X]] : tensor<3x4xf32> -> tensor<?x2xsi32>
// CHECK-NEXT:    %[[C:.*]] = coreai.cast %[[N]] : tensor<?x2xsi32> to tensor<?x2xsi64>
// CHECK:         %[[M:.*]] = coreai.non_zero %[[X]]
// CHECK:         %[[CM:.*]] = coreai.cast %[[M]]
// CHECK:         %[[S:.*]] = coreai.slice %[[CM]], {{.*}} -> tensor<?x1xsi64>
// CHECK:         coreai.shrink_dims %[[S]], %{{.*}} : (tensor<?x1xsi64>, tensor<1xsi32>) to tensor<?xsi64>
func.func @nonzero(%x: tensor<3x4xf32>) -> (tensor<?x2xi64>, tensor<?xi64>, tensor<?xi64>) {
  %0 = aten.nonzero.default %x : (tensor<3x4xf32>) -> tensor<?x2xi64>
  %1:2 = aten.nonzero_numpy.default %x : (tensor<3x4xf32>) -> (tensor<?xi64>, tensor<?xi64>)
  return %0, %1#0, %1#1 : tensor<?x2xi64>, tensor<?xi64>, tensor<?xi64>
}

// -----

// A boolean mask over the leading dims: x[m] gathers at non_zero(m) (a
// dynamic count); x[m] = v (one element) is a where on the mask broadcast
// over the trailing dims, x[m] += v a where of x + v.
// CHECK-LABEL: coreai.graph @bool_mask(
// CHECK-SAME:    %[[X:[^:]*]]: tensor<4x3xf32>, %[[R:[^:]*]]: tensor<4xi1>, %[[V:[^:]*]]: tensor<f32>
// CHECK:         %[[N:.*]] = coreai.non_zero %[[R]] : tensor<4xi1> -> tensor<?x1xsi32>
// CHECK-NEXT:    %[[G:.*]] = coreai.gather_nd %[[X]] at %[[N]] : (tensor<4x3xf32>, tensor<?x1xsi32>) to tensor<?x3xf32>
// CHECK:         %[[M:.*]] = coreai.reshape %[[R]], %{{.*}} -> tensor<4x1xi1>
// CHECK-NEXT:    %[[P:.*]] = coreai.decomposable.broadcasting_where %[[M]], %[[V]], %[[X]] : (tensor<4x1xi1>, tensor<f32>, tensor<4x3xf32>) -> tensor<4x3xf32>
// CHECK:         %[[A:.*]] = coreai.decomposable.broadcasting_add %[[X]], %[[V]]
// CHECK-NEXT:    %[[Q:.*]] = coreai.decomposable.broadcasting_where %{{.*}}, %[[A]], %[[X]]
// CHECK-NEXT:    coreai.output %[[G]], %[[P]], %[[Q]]
func.func @bool_mask(%x: tensor<4x3xf32>, %r: tensor<4xi1>, %v: tensor<f32>) -> (tensor<?x3xf32>, tensor<4x3xf32>, tensor<4x3xf32>) {
  %0 = aten.index.Tensor %x, %r {indices_present = array<i1: true>} : (tensor<4x3xf32>, tensor<4xi1>) -> tensor<?x3xf32>
  %1 = aten.index_put.default %x, %r, %v {indices_present = array<i1: true>, accumulate = false} : (tensor<4x3xf32>, tensor<4xi1>, tensor<f32>) -> tensor<4x3xf32>
  %2 = aten.index_put.default %x, %r, %v {indices_present = array<i1: true>, accumulate = true} : (tensor<4x3xf32>, tensor<4xi1>, tensor<f32>) -> tensor<4x3xf32>
  return %0, %1, %2 : tensor<?x3xf32>, tensor<4x3xf32>, tensor<4x3xf32>
}

// -----

// scatter_reduce mean: a sum and a count, both scatter_along_axis <add>;
// without include_self the targets start at 0 and counts at least 1.
// CHECK-LABEL: coreai.graph @scatter_mean(
// CHECK-SAME:    %[[X:[^:]*]]: tensor<4x6xf32>, %[[I:[^:]*]]: tensor<4x3xsi64>, %[[S:[^:]*]]: tensor<4x3xf32>
// CHECK:         %[[Z:.*]] = coreai.scatter_along_axis %[[X]], %{{.*}}, %{{.*}}, %{{.*}} :
// CHECK:         %[[SUM:.*]] = coreai.scatter_along_axis %[[Z]], %{{.*}}, %[[S]], %{{.*}} scatter_mode = <add>
// CHECK:         %[[C0:.*]] = coreai.constant dense<0.000000e+00> : tensor<4x6xf32>
// CHECK:         %[[ONES:.*]] = coreai.constant dense<1.000000e+00> : tensor<4x3xf32>
// CHECK:         %[[C:.*]] = coreai.scatter_along_axis %[[C0]], %{{.*}}, %[[ONES]], %{{.*}} scatter_mode = <add>
// CHECK:         %[[C1:.*]] = coreai.decomposable.broadcasting_maximum %[[C]], %{{.*}}
// CHECK-NEXT:    %[[R:.*]] = coreai.decomposable.broadcasting_divide %[[SUM]], %[[C1]]
// CHECK-NEXT:    coreai.output %[[R]]
func.func @scatter_mean(%x: tensor<4x6xf32>, %i: tensor<4x3xi64>, %s: tensor<4x3xf32>) -> tensor<4x6xf32> {
  %0 = aten.scatter_reduce.two %x, %i, %s {dim = 1 : i64, reduce = "mean", include_self = false} : (tensor<4x6xf32>, tensor<4x3xi64>, tensor<4x3xf32>) -> tensor<4x6xf32>
  return %0 : tensor<4x6xf32>
}

// -----

// Dynamic inputs: index_select moves the selected dim first and uses
// gather_nd (the broadcast form needs every size); gather and embedding
// keep their forms when the index and the input agree.
// CHECK-LABEL: coreai.graph @dynamic(
// CHECK-SAME:    %[[X:[^:]*]]: tensor<?x6xf32>, %[[I:[^:]*]]: tensor<4xsi64>, %[[G:[^:]*]]: tensor<?x3xsi64>
// CHECK:         %[[P:.*]] = coreai.constant dense<[1, 0]> : tensor<2xui32>
// CHECK-NEXT:    %[[T:.*]] = coreai.transpose %[[X]], %[[P]] : (tensor<?x6xf32>, tensor<2xui32>) -> tensor<6x?xf32>
// CHECK:         %[[N:.*]] = coreai.gather_nd %[[T]] at %{{.*}} : (tensor<6x?xf32>, tensor<4x1xsi32>) to tensor<4x?xf32>
// CHECK:         coreai.transpose %[[N]], %{{.*}} -> tensor<?x4xf32>
// CHECK:         coreai.gather_along_axis %[[X]] at %{{.*}} : (tensor<?x6xf32>, tensor<?x3xsi32>, tensor<si32>) to tensor<?x3xf32>
// CHECK:         %[[E:.*]] = coreai.expand_dims %{{.*}} : (tensor<?x3xsi32>, tensor<1xsi32>) to tensor<?x3x1xsi32>
// CHECK-NEXT:    coreai.gather_nd %{{.*}} at %[[E]] : (tensor<10x5xf32>, tensor<?x3x1xsi32>) to tensor<?x3x5xf32>
func.func @dynamic(%x: tensor<?x6xf32>, %i: tensor<4xi64>, %g: tensor<?x3xi64>, %w: tensor<10x5xf32>) -> (tensor<?x4xf32>, tensor<?x3xf32>, tensor<?x3x5xf32>) {
  %0 = aten.index_select.default %x, %i {dim = 1 : i64} : (tensor<?x6xf32>, tensor<4xi64>) -> tensor<?x4xf32>
  %1 = aten.gather.default %x, %g {dim = 1 : i64, sparse_grad = false} : (tensor<?x6xf32>, tensor<?x3xi64>) -> tensor<?x3xf32>
  %2 = aten.embedding.default %w, %g {padding_idx = -1 : i64, scale_grad_by_freq = false, sparse = false} : (tensor<10x5xf32>, tensor<?x3xi64>) -> tensor<?x3x5xf32>
  return %0, %1, %2 : tensor<?x4xf32>, tensor<?x3xf32>, tensor<?x3x5xf32>
}

// -----

// x[:, j] with a dynamic leading dim: no arange of unknown size; gather_nd
// on x with dim 1 moved first, the index dims moved back to dim 1.
// CHECK-LABEL: coreai.graph @index_dynamic_leading(
// CHECK-SAME:    %[[X:[^:]*]]: tensor<?x6xf32>
// CHECK:         %[[T:.*]] = coreai.transpose %[[X]], %{{.*}} -> tensor<6x?xf32>
// CHECK:         %[[J:.*]] = coreai.reshape %{{.*}} -> tensor<3x2x1xsi32>
// CHECK-NEXT:    %[[G:.*]] = coreai.gather_nd %[[T]] at %[[J]] : (tensor<6x?xf32>, tensor<3x2x1xsi32>) to tensor<3x2x?xf32>
// CHECK-NEXT:    %[[P:.*]] = coreai.constant dense<[2, 0, 1]> : tensor<3xui32>
// CHECK-NEXT:    coreai.transpose %[[G]], %[[P]] : (tensor<3x2x?xf32>, tensor<3xui32>) -> tensor<?x3x2xf32>
func.func @index_dynamic_leading(%x: tensor<?x6xf32>, %j: tensor<3x2xi64>) -> tensor<?x3x2xf32> {
  %0 = aten.index.Tensor %x, %j {indices_present = array<i1: false, true>} : (tensor<?x6xf32>, tensor<3x2xi64>) -> tensor<?x3x2xf32>
  return %0 : tensor<?x3x2xf32>
}

// -----

// Dynamic trailing dims do not matter to x[i]: gather_nd of rows.
// CHECK-LABEL: coreai.graph @index_dynamic_trailing(
// CHECK-SAME:    %[[X:[^:]*]]: tensor<5x?xf32>
// CHECK:         %[[I:.*]] = coreai.reshape %{{.*}} -> tensor<3x1xsi32>
// CHECK-NEXT:    coreai.gather_nd %[[X]] at %[[I]] : (tensor<5x?xf32>, tensor<3x1xsi32>) to tensor<3x?xf32>
func.func @index_dynamic_trailing(%x: tensor<5x?xf32>, %i: tensor<3xi64>) -> tensor<3x?xf32> {
  %0 = aten.index.Tensor %x, %i {indices_present = array<i1: true>} : (tensor<5x?xf32>, tensor<3xi64>) -> tensor<3x?xf32>
  return %0 : tensor<3x?xf32>
}
