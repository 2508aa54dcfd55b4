// RUN: coreai-opt %s --split-input-file --pass-pipeline='builtin.module(legalize-aten-to-coreai)' | FileCheck %s --enable-var-scope

// A reduction keeps the reduced dims (coreai's form), then reshapes when
// keepdim is false; negative dims are normalized, axes are si32 constants.
// CHECK-LABEL: coreai.graph @sum_dims_f32(
// CHECK-SAME:    %[[X:[^:]*]]: tensor<2x3x4xf32>
// CHECK:         %[[A:.*]] = coreai.constant dense<[0, 2]> : tensor<2xsi32>
// CHECK:         %[[S:.*]] = coreai.reduce_sum %[[X]], %[[A]] : (tensor<2x3x4xf32>, tensor<2xsi32>) -> tensor<1x3x1xf32>
// CHECK:         %[[SH:.*]] = coreai.constant dense<3> : tensor<1xui32>
// CHECK:         %[[R:.*]] = coreai.reshape %[[S]], %[[SH]] : (tensor<1x3x1xf32>, tensor<1xui32>) -> tensor<3xf32>
// CHECK:         coreai.output %[[R]]
func.func @sum_dims_f32(%x: tensor<2x3x4xf32>) -> tensor<3xf32> {
  %0 = aten.sum.dim_IntList %x {dim = [0, -1], keepdim = false} : (tensor<2x3x4xf32>) -> tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

// An empty dim list sums every dim (PyTorch's rule); an int64 sum
// accumulates in si64 (coreai-torch narrows to si32 and wraps).
// CHECK-LABEL: coreai.graph @sum_empty_dims_is_all_i64(
// CHECK-SAME:    %[[X:[^:]*]]: tensor<6x7xsi64>
// CHECK:         %[[A:.*]] = coreai.constant dense<[0, 1]> : tensor<2xsi32>
// CHECK:         %[[S:.*]] = coreai.reduce_sum %[[X]], %[[A]] : (tensor<6x7xsi64>, tensor<2xsi32>) -> tensor<1x1xsi64>
// CHECK:         %[[SH:.*]] = coreai.constant dense<> : tensor<0xui32>
// CHECK:         coreai.reshape %[[S]], %[[SH]] : (tensor<1x1xsi64>, tensor<0xui32>) -> tensor<si64>
// CHECK-NOT:     si32>) -> tensor<si32>
func.func @sum_empty_dims_is_all_i64(%x: tensor<6x7xi64>) -> tensor<i64> {
  %0 = aten.sum.dim_IntList %x {dim = [], keepdim = false} : (tensor<6x7xi64>) -> tensor<i64>
  return %0 : tensor<i64>
}

// -----

// sum(dtype=int64) of int32: the input is widened first, the sum runs in si64.
// CHECK-LABEL: coreai.graph @sum_i32_dtype_i64(
// CHECK:         %[[C:.*]] = coreai.cast %{{.*}} : tensor<6x7xsi32> to tensor<6x7xsi64>
// CHECK:         coreai.reduce_sum %[[C]], %{{.*}} : (tensor<6x7xsi64>, tensor<2xsi32>) -> tensor<1x1xsi64>
func.func @sum_i32_dtype_i64(%x: tensor<6x7xi32>) -> tensor<i64> {
  %0 = aten.sum.dim_IntList %x {dim = [], keepdim = false, dtype = i64} : (tensor<6x7xi32>) -> tensor<i64>
  return %0 : tensor<i64>
}

// -----

// A bool sum promotes to int64 as in PyTorch; keepdim needs no reshape.
// CHECK-LABEL: coreai.graph @sum_bool_keepdim(
// CHECK:         %[[C:.*]] = coreai.cast %{{.*}} : tensor<3x5xi1> to tensor<3x5xsi64>
// CHECK:         %[[A:.*]] = coreai.constant dense<0> : tensor<1xsi32>
// CHECK:         %[[S:.*]] = coreai.reduce_sum %[[C]], %[[A]] : (tensor<3x5xsi64>, tensor<1xsi32>) -> tensor<1x5xsi64>
// CHECK-NEXT:    coreai.output %[[S]]
func.func @sum_bool_keepdim(%x: tensor<3x5xi1>) -> tensor<1x5xi64> {
  %0 = aten.sum.dim_IntList %x {dim = [0], keepdim = true} : (tensor<3x5xi1>) -> tensor<1x5xi64>
  return %0 : tensor<1x5xi64>
}

// -----

// CHECK-LABEL: coreai.graph @mean_keepdim(
// CHECK:         %[[A:.*]] = coreai.constant dense<2> : tensor<1xsi32>
// CHECK:         %[[M:.*]] = coreai.reduce_mean %{{.*}}, %[[A]] : (tensor<2x3x4xf32>, tensor<1xsi32>) -> tensor<2x3x1xf32>
// CHECK-NEXT:    coreai.output %[[M]]
func.func @mean_keepdim(%x: tensor<2x3x4xf32>) -> tensor<2x3x1xf32> {
  %0 = aten.mean.dim %x {dim = [-1], keepdim = true} : (tensor<2x3x4xf32>) -> tensor<2x3x1xf32>
  return %0 : tensor<2x3x1xf32>
}

// -----

// mean.default: every dim, reshaped to rank 0.
// CHECK-LABEL: coreai.graph @mean_default(
// CHECK:         coreai.reduce_mean %{{.*}}, %{{.*}} : (tensor<2x3xf32>, tensor<2xsi32>) -> tensor<1x1xf32>
// CHECK:         coreai.reshape %{{.*}} -> tensor<f32>
func.func @mean_default(%x: tensor<2x3xf32>) -> tensor<f32> {
  %0 = aten.mean.default %x : (tensor<2x3xf32>) -> tensor<f32>
  return %0 : tensor<f32>
}

// -----

// argmax: PyTorch picks the first NaN, coreai's argmax never does, so a
// slice holding a NaN is replaced by its NaN mask; ui32 → si64 cast.
// CHECK-LABEL: coreai.graph @argmax_f32(
// CHECK-SAME:    %[[X:[^:]*]]: tensor<4x7xf32>
// CHECK:         %[[NAN:.*]] = coreai.not_equal %[[X]], %[[X]] : (tensor<4x7xf32>, tensor<4x7xf32>) -> tensor<4x7xi1>
// CHECK:         %[[ANY:.*]] = coreai.any %[[NAN]], %{{.*}} : (tensor<4x7xi1>, tensor<1xsi32>) -> tensor<4x1xi1>
// CHECK:         %[[MASK:.*]] = coreai.cast %[[NAN]] : tensor<4x7xi1> to tensor<4x7xf32>
// CHECK:         %[[KEY:.*]] = coreai.decomposable.broadcasting_where %[[ANY]], %[[MASK]], %[[X]] : (tensor<4x1xi1>, tensor<4x7xf32>, tensor<4x7xf32>) -> tensor<4x7xf32>
// CHECK:         %[[AX:.*]] = coreai.constant dense<1> : tensor<si32>
// CHECK:         %[[I:.*]] = coreai.argmax %[[KEY]], %[[AX]] : (tensor<4x7xf32>, tensor<si32>) -> tensor<4x1xui32>
// CHECK:         %[[C:.*]] = coreai.cast %[[I]] : tensor<4x1xui32> to tensor<4x1xsi64>
// CHECK:         coreai.reshape %[[C]], %{{.*}} : (tensor<4x1xsi64>, tensor<1xui32>) -> tensor<4xsi64>
func.func @argmax_f32(%x: tensor<4x7xf32>) -> tensor<4xi64> {
  %0 = aten.argmax.default %x {dim = -1 : i64, keepdim = false} : (tensor<4x7xf32>) -> tensor<4xi64>
  return %0 : tensor<4xi64>
}

// -----

// argmin of integers: argmax of x ^ -1 (order-reversing, no overflow); no NaN path.
// CHECK-LABEL: coreai.graph @argmin_i64(
// CHECK-SAME:    %[[X:[^:]*]]: tensor<4x7xsi64>
// CHECK:         %[[M1:.*]] = coreai.constant dense<-1> : tensor<si64>
// CHECK:         %[[K:.*]] = coreai.decomposable.broadcasting_bitwise_xor %[[X]], %[[M1]] : (tensor<4x7xsi64>, tensor<si64>) -> tensor<4x7xsi64>
// CHECK-NOT:     coreai.not_equal
// CHECK:         coreai.argmax %[[K]], %{{.*}} : (tensor<4x7xsi64>, tensor<si32>) -> tensor<1x7xui32>
func.func @argmin_i64(%x: tensor<4x7xi64>) -> tensor<7xi64> {
  %0 = aten.argmin.default %x {dim = 0 : i64, keepdim = false} : (tensor<4x7xi64>) -> tensor<7xi64>
  return %0 : tensor<7xi64>
}

// -----

// argmax with dim = None: the flattened tensor.
// CHECK-LABEL: coreai.graph @argmax_flat(
// CHECK:         %[[F:.*]] = coreai.reshape %{{.*}}, %{{.*}} : (tensor<2x3xsi32>, tensor<1xui32>) -> tensor<6xsi32>
// CHECK:         coreai.argmax %[[F]], %{{.*}} : (tensor<6xsi32>, tensor<si32>) -> tensor<1xui32>
// CHECK:         coreai.reshape %{{.*}} : (tensor<1xsi64>, tensor<0xui32>) -> tensor<si64>
func.func @argmax_flat(%x: tensor<2x3xi32>) -> tensor<i64> {
  %0 = aten.argmax.default %x {keepdim = false} : (tensor<2x3xi32>) -> tensor<i64>
  return %0 : tensor<i64>
}

// -----

// max.dim: reduce_max for the values, the NaN-first argmax for the indices.
// CHECK-LABEL: coreai.graph @max_dim(
// CHECK:         %[[V:.*]] = coreai.reduce_max %{{.*}}, %{{.*}} : (tensor<4x7xf32>, tensor<1xsi32>) -> tensor<1x7xf32>
// CHECK:         %[[I:.*]] = coreai.argmax %{{.*}}, %{{.*}} : (tensor<4x7xf32>, tensor<si32>) -> tensor<1x7xui32>
// CHECK:         %[[C:.*]] = coreai.cast %[[I]] : tensor<1x7xui32> to tensor<1x7xsi64>
// CHECK:         %[[RV:.*]] = coreai.reshape %[[V]], %{{.*}} -> tensor<7xf32>
// CHECK:         %[[RI:.*]] = coreai.reshape %[[C]], %{{.*}} -> tensor<7xsi64>
// CHECK:         coreai.output %[[RV]], %[[RI]]
func.func @max_dim(%x: tensor<4x7xf32>) -> (tensor<7xf32>, tensor<7xi64>) {
  %0:2 = aten.max.dim %x {dim = 0 : i64, keepdim = false} : (tensor<4x7xf32>) -> (tensor<7xf32>, tensor<7xi64>)
  return %0#0, %0#1 : tensor<7xf32>, tensor<7xi64>
}

// -----

// amax over a bool tensor is `any` (coreai's reduce_max takes no i1).
// CHECK-LABEL: coreai.graph @amax_bool(
// CHECK:         coreai.any %{{.*}}, %{{.*}} : (tensor<3x4xi1>, tensor<1xsi32>) -> tensor<3x1xi1>
func.func @amax_bool(%x: tensor<3x4xi1>) -> tensor<3x1xi1> {
  %0 = aten.amax.default %x {dim = [1], keepdim = true} : (tensor<3x4xi1>) -> tensor<3x1xi1>
  return %0 : tensor<3x1xi1>
}

// -----

// CHECK-LABEL: coreai.graph @prod_dim_int(
// CHECK:         %[[A:.*]] = coreai.constant dense<1> : tensor<1xsi32>
// CHECK:         coreai.reduce_product %{{.*}}, %[[A]] : (tensor<2x3xf32>, tensor<1xsi32>) -> tensor<2x1xf32>
func.func @prod_dim_int(%x: tensor<2x3xf32>) -> tensor<2xf32> {
  %0 = aten.prod.dim_int %x {dim = -1 : i64, keepdim = false} : (tensor<2x3xf32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

// cumsum of int64 scans in si64; the axis is a ui32 scalar.
// CHECK-LABEL: coreai.graph @cumsum_i64(
// CHECK-SAME:    %[[X:[^:]*]]: tensor<6x7xsi64>
// CHECK:         %[[AX:.*]] = coreai.constant dense<1> : tensor<ui32>
// CHECK:         %[[REV:.*]] = coreai.constant dense<false> : tensor<i1>
// CHECK:         %[[S:.*]] = coreai.scan %[[X]], %[[AX]], %[[REV]] combiner = <sum> : (tensor<6x7xsi64>, tensor<ui32>, tensor<i1>) -> tensor<6x7xsi64>
// CHECK-NEXT:    coreai.output %[[S]]
func.func @cumsum_i64(%x: tensor<6x7xi64>) -> tensor<6x7xi64> {
  %0 = aten.cumsum.default %x {dim = -1 : i64} : (tensor<6x7xi64>) -> tensor<6x7xi64>
  return %0 : tensor<6x7xi64>
}

// -----

// cumsum of int32 promotes to int64 before the scan.
// CHECK-LABEL: coreai.graph @cumsum_i32_promotes(
// CHECK:         %[[C:.*]] = coreai.cast %{{.*}} : tensor<6x7xsi32> to tensor<6x7xsi64>
// CHECK:         coreai.scan %[[C]], %{{.*}}, %{{.*}} combiner = <sum> : (tensor<6x7xsi64>, tensor<ui32>, tensor<i1>) -> tensor<6x7xsi64>
func.func @cumsum_i32_promotes(%x: tensor<6x7xi32>) -> tensor<6x7xi64> {
  %0 = aten.cumsum.default %x {dim = 0 : i64} : (tensor<6x7xi32>) -> tensor<6x7xi64>
  return %0 : tensor<6x7xi64>
}

// -----

// CHECK-LABEL: coreai.graph @cumprod(
// CHECK:         coreai.scan %{{.*}}, %{{.*}}, %{{.*}} combiner = <product> : (tensor<3x6xf32>, tensor<ui32>, tensor<i1>) -> tensor<3x6xf32>
func.func @cumprod(%x: tensor<3x6xf32>) -> tensor<3x6xf32> {
  %0 = aten.cumprod.default %x {dim = 1 : i64} : (tensor<3x6xf32>) -> tensor<3x6xf32>
  return %0 : tensor<3x6xf32>
}

// -----

// A descending float sort puts NaN first (PyTorch); coreai's argsort puts it
// last in both directions, so the reversed input is sorted ascending (NaN
// last, ties by position), reversed back and its positions mapped to x's:
// 6 - q for a dim of 7.
// CHECK-LABEL: coreai.graph @sort_descending_f32(
// CHECK-SAME:    %[[X:[^:]*]]: tensor<4x7xf32>
// CHECK:         %[[R:.*]] = coreai.reverse %[[X]], %{{.*}} : (tensor<4x7xf32>, tensor<1xsi32>) -> tensor<4x7xf32>
// CHECK:         %[[ASC:.*]] = coreai.constant dense<false> : tensor<i1>
// CHECK:         %[[Q:.*]] = coreai.argsort %[[R]], %{{.*}}, %[[ASC]], %{{.*}} : (tensor<4x7xf32>, tensor<si32>, tensor<i1>, tensor<i1>) -> tensor<4x7xsi32>
// CHECK:         %[[QR:.*]] = coreai.reverse %[[Q]], %{{.*}} : (tensor<4x7xsi32>, tensor<1xsi32>) -> tensor<4x7xsi32>
// CHECK:         %[[LAST:.*]] = coreai.constant dense<6> : tensor<si32>
// CHECK:         %[[P:.*]] = coreai.decomposable.broadcasting_sub %[[LAST]], %[[QR]] : (tensor<si32>, tensor<4x7xsi32>) -> tensor<4x7xsi32>
// CHECK:         %[[V:.*]] = coreai.gather_along_axis %[[X]] at %[[P]] along %{{.*}} : (tensor<4x7xf32>, tensor<4x7xsi32>, tensor<si32>) to tensor<4x7xf32>
// CHECK:         %[[I:.*]] = coreai.cast %[[P]] : tensor<4x7xsi32> to tensor<4x7xsi64>
// CHECK:         coreai.output %[[V]], %[[I]]
func.func @sort_descending_f32(%x: tensor<4x7xf32>) -> (tensor<4x7xf32>, tensor<4x7xi64>) {
  %0:2 = aten.sort.default %x {dim = 1 : i64, descending = true} : (tensor<4x7xf32>) -> (tensor<4x7xf32>, tensor<4x7xi64>)
  return %0#0, %0#1 : tensor<4x7xf32>, tensor<4x7xi64>
}

// -----

// Along a dynamic dim (no constant n - 1) the NaN flags are sorted a second
// time, stably, after an ascending-position argsort.
// CHECK-LABEL: coreai.graph @sort_descending_dynamic(
// CHECK-SAME:    %[[X:[^:]*]]: tensor<4x?xf32>
// CHECK:         %[[P1:.*]] = coreai.argsort %[[X]], %{{.*}}, %{{.*}}, %{{.*}} : (tensor<4x?xf32>, tensor<si32>, tensor<i1>, tensor<i1>) -> tensor<4x?xsi32>
// CHECK:         %[[NAN:.*]] = coreai.not_equal %[[X]], %[[X]]
// CHECK:         %[[F:.*]] = coreai.cast %[[NAN]] : tensor<4x?xi1> to tensor<4x?xf32>
// CHECK:         %[[G:.*]] = coreai.gather_along_axis %[[F]] at %[[P1]]
// CHECK:         %[[P2:.*]] = coreai.argsort %[[G]]
// CHECK:         %[[P:.*]] = coreai.gather_along_axis %[[P1]] at %[[P2]]
// CHECK:         coreai.gather_along_axis %[[X]] at %[[P]]
// CHECK-NOT:     coreai.reverse
func.func @sort_descending_dynamic(%x: tensor<4x?xf32>) -> (tensor<4x?xf32>, tensor<4x?xi64>) {
  %0:2 = aten.sort.default %x {dim = 1 : i64, descending = true} : (tensor<4x?xf32>) -> (tensor<4x?xf32>, tensor<4x?xi64>)
  return %0#0, %0#1 : tensor<4x?xf32>, tensor<4x?xi64>
}

// -----

// An ascending (or integer) sort: coreai.sort and a stable coreai.argsort.
// CHECK-LABEL: coreai.graph @sort_ascending_i32(
// CHECK-SAME:    %[[X:[^:]*]]: tensor<4x7xsi32>
// CHECK:         %[[D:.*]] = coreai.constant dense<false> : tensor<i1>
// CHECK:         %[[ST:.*]] = coreai.constant dense<true> : tensor<i1>
// CHECK:         %[[P:.*]] = coreai.argsort %[[X]], %{{.*}}, %[[D]], %[[ST]] : (tensor<4x7xsi32>, tensor<si32>, tensor<i1>, tensor<i1>) -> tensor<4x7xsi32>
// CHECK:         %[[V:.*]] = coreai.sort %[[X]], %{{.*}}, %{{.*}}, %{{.*}} : (tensor<4x7xsi32>, tensor<si32>, tensor<i1>, tensor<i1>) -> tensor<4x7xsi32>
// CHECK:         %[[I:.*]] = coreai.cast %[[P]] : tensor<4x7xsi32> to tensor<4x7xsi64>
// CHECK:         coreai.output %[[V]], %[[I]]
func.func @sort_ascending_i32(%x: tensor<4x7xi32>) -> (tensor<4x7xi32>, tensor<4x7xi64>) {
  %0:2 = aten.sort.default %x {dim = 0 : i64, descending = false} : (tensor<4x7xi32>) -> (tensor<4x7xi32>, tensor<4x7xi64>)
  return %0#0, %0#1 : tensor<4x7xi32>, tensor<4x7xi64>
}

// -----

// topk: the sort, both results sliced to [0, k) along dim.
// CHECK-LABEL: coreai.graph @topk_smallest(
// CHECK:         %[[P:.*]] = coreai.argsort %{{.*}} -> tensor<4x7xsi32>
// CHECK:         %[[S:.*]] = coreai.sort %{{.*}} -> tensor<4x7xf32>
// CHECK:         %[[E:.*]] = coreai.constant dense<[4, 3]> : tensor<2xsi32>
// CHECK:         %[[V:.*]] = coreai.slice %[[S]], %{{.*}}, %[[E]], %{{.*}} : (tensor<4x7xf32>, tensor<2xsi32>, tensor<2xsi32>, tensor<2xsi32>) -> tensor<4x3xf32>
// CHECK:         %[[I:.*]] = coreai.slice %[[P]], %{{.*}}, %{{.*}}, %{{.*}} : (tensor<4x7xsi32>, tensor<2xsi32>, tensor<2xsi32>, tensor<2xsi32>) -> tensor<4x3xsi32>
// CHECK:         %[[C:.*]] = coreai.cast %[[I]] : tensor<4x3xsi32> to tensor<4x3xsi64>
// CHECK:         coreai.output %[[V]], %[[C]]
func.func @topk_smallest(%x: tensor<4x7xf32>) -> (tensor<4x3xf32>, tensor<4x3xi64>) {
  %0:2 = aten.topk.default %x {k = 3 : i64, dim = -1 : i64, largest = false, sorted = true} : (tensor<4x7xf32>) -> (tensor<4x3xf32>, tensor<4x3xi64>)
  return %0#0, %0#1 : tensor<4x3xf32>, tensor<4x3xi64>
}

// -----

// var: mean, squared deviations, sum, divided by N - correction (3 - 1).
// CHECK-LABEL: coreai.graph @var_correction(
// CHECK-SAME:    %[[X:[^:]*]]: tensor<2x3x4xf32>
// CHECK:         %[[M:.*]] = coreai.reduce_mean %[[X]], %{{.*}} -> tensor<2x1x4xf32>
// CHECK:         %[[D:.*]] = coreai.decomposable.broadcasting_sub %[[X]], %[[M]]
// CHECK:         %[[SQ:.*]] = coreai.decomposable.broadcasting_mul %[[D]], %[[D]]
// CHECK:         %[[S:.*]] = coreai.reduce_sum %[[SQ]], %{{.*}} -> tensor<2x1x4xf32>
// CHECK:         %[[N:.*]] = coreai.constant dense<2.000000e+00> : tensor<f32>
// CHECK:         %[[V:.*]] = coreai.decomposable.broadcasting_divide %[[S]], %[[N]]
// CHECK:         coreai.reshape %[[V]], %{{.*}} -> tensor<2x4xf32>
func.func @var_correction(%x: tensor<2x3x4xf32>) -> tensor<2x4xf32> {
  %0 = aten.var.correction %x {dim = [1], correction = 1 : i64, keepdim = false} : (tensor<2x3x4xf32>) -> tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}

// -----

// std.dim: the square root of the variance (unbiased = false: N - 0).
// CHECK-LABEL: coreai.graph @std_dim(
// CHECK:         coreai.constant dense<4.000000e+00> : tensor<f32>
// CHECK:         %[[V:.*]] = coreai.decomposable.broadcasting_divide
// CHECK:         coreai.sqrt %[[V]] : tensor<2x1xf32> -> tensor<2x1xf32>
func.func @std_dim(%x: tensor<2x4xf32>) -> tensor<2x1xf32> {
  %0 = aten.std.dim %x {dim = [1], unbiased = false, keepdim = true} : (tensor<2x4xf32>) -> tensor<2x1xf32>
  return %0 : tensor<2x1xf32>
}

// -----

// any over a float tensor: coreai.any takes bools, so x != 0 first.
// CHECK-LABEL: coreai.graph @any_dim_f32(
// CHECK-SAME:    %[[X:[^:]*]]: tensor<3x4xf32>
// CHECK:         %[[Z:.*]] = coreai.constant dense<0.000000e+00> : tensor<f32>
// CHECK:         %[[B:.*]] = coreai.decomposable.broadcasting_not_equal %[[X]], %[[Z]] : (tensor<3x4xf32>, tensor<f32>) -> tensor<3x4xi1>
// CHECK:         %[[A:.*]] = coreai.any %[[B]], %{{.*}} : (tensor<3x4xi1>, tensor<1xsi32>) -> tensor<3x1xi1>
// CHECK:         coreai.reshape %[[A]], %{{.*}} -> tensor<3xi1>
func.func @any_dim_f32(%x: tensor<3x4xf32>) -> tensor<3xi1> {
  %0 = aten.any.dim %x {dim = 1 : i64, keepdim = false} : (tensor<3x4xf32>) -> tensor<3xi1>
  return %0 : tensor<3xi1>
}

// -----

// all.dims with an empty list reduces nothing (eager PyTorch's rule).
// CHECK-LABEL: coreai.graph @all_dims_empty(
// CHECK-SAME:    %[[X:[^:]*]]: tensor<3x4xi1>
// CHECK-NEXT:    coreai.output %[[X]]
func.func @all_dims_empty(%x: tensor<3x4xi1>) -> tensor<3x4xi1> {
  %0 = aten.operator "aten::all.dims"(%x) {dim = [], keepdim = false} : (tensor<3x4xi1>) -> tensor<3x4xi1>
  return %0 : tensor<3x4xi1>
}

// -----

// logsumexp: the max-shifted form (an infinite max shifts by 0, as PyTorch).
// CHECK-LABEL: coreai.graph @logsumexp(
// CHECK-SAME:    %[[X:[^:]*]]: tensor<3x6xf32>
// CHECK:         %[[M:.*]] = coreai.reduce_max %[[X]], %{{.*}} -> tensor<3x1xf32>
// CHECK:         %[[ABS:.*]] = coreai.abs %[[M]]
// CHECK:         %[[INF:.*]] = coreai.constant dense<0x7F800000> : tensor<f32>
// CHECK:         %[[ISINF:.*]] = coreai.decomposable.broadcasting_equal %[[ABS]], %[[INF]]
// CHECK:         %[[SH:.*]] = coreai.decomposable.broadcasting_where %[[ISINF]], %{{.*}}, %[[M]]
// CHECK:         %[[D:.*]] = coreai.decomposable.broadcasting_sub %[[X]], %[[SH]]
// CHECK:         %[[E:.*]] = coreai.exp %[[D]]
// CHECK:         %[[S:.*]] = coreai.reduce_sum %[[E]], %{{.*}} -> tensor<3x1xf32>
// CHECK:         %[[L:.*]] = coreai.log %[[S]]
// CHECK:         %[[R:.*]] = coreai.decomposable.broadcasting_add %[[L]], %[[SH]]
// CHECK:         coreai.reshape %[[R]], %{{.*}} -> tensor<3xf32>
func.func @logsumexp(%x: tensor<3x6xf32>) -> tensor<3xf32> {
  %0 = aten.logsumexp.default %x {dim = [1], keepdim = false} : (tensor<3x6xf32>) -> tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

// linalg_vector_norm, ord 2: sqrt(sum(x·x)), in coreai-torch's
// linalg_vector_norm composite (ord as given: an int is si64).
// CHECK-LABEL: coreai.graph private noinline @linalg_vector_norm(
// CHECK-SAME:    tensor<3x4xf32> {coreai.name = "input"}) -> tensor<3xf32>
// CHECK-SAME:    composite_decl = #coreai.composite_declaration<"linalg_vector_norm" = {input_names = ["input"], op_attrs = {axes = [-1 : si64], keep_dim = false, ord = 2 : si64, version = 1 : si64}, output_names = ["output"]}>, template_op = "linalg_vector_norm"}
// CHECK:         %[[SQ:.*]] = coreai.decomposable.broadcasting_mul %{{.*}}, %{{.*}} -> tensor<3x4xf32>
// CHECK:         %[[S:.*]] = coreai.reduce_sum %[[SQ]], %{{.*}} -> tensor<3x1xf32>
// CHECK:         %[[R:.*]] = coreai.sqrt %[[S]]
// CHECK:         coreai.reshape %[[R]], %{{.*}} -> tensor<3xf32>
// CHECK-LABEL: coreai.graph @vector_norm_2(
// CHECK-NEXT:    coreai.invoke @linalg_vector_norm(%{{.*}}) : (tensor<3x4xf32>) -> tensor<3xf32>
func.func @vector_norm_2(%x: tensor<3x4xf32>) -> tensor<3xf32> {
  %0 = aten.linalg_vector_norm.default %x {ord = 2 : i64, dim = [-1], keepdim = false} : (tensor<3x4xf32>) -> tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

// ord = inf, keepdim, no dim: every axis is declared; a non-finite ord is
// an f32 bit pattern.
// CHECK-LABEL: coreai.graph private noinline @linalg_vector_norm(
// CHECK-SAME:    op_attrs = {axes = [0 : si64, 1 : si64], keep_dim = true, ord = 0x7F800000 : f32, version = 1 : si64}
// CHECK:         coreai.abs
// CHECK:         coreai.reduce_max {{.*}} -> tensor<1x1xf32>
// CHECK-LABEL: coreai.graph @vector_norm_inf(
// CHECK-NEXT:    coreai.invoke @linalg_vector_norm(
func.func @vector_norm_inf(%x: tensor<3x4xf32>) -> tensor<1x1xf32> {
  %0 = aten.linalg_vector_norm.default %x {ord = 0x7FF0000000000000 : f64, keepdim = true} : (tensor<3x4xf32>) -> tensor<1x1xf32>
  return %0 : tensor<1x1xf32>
}

// -----

// A dynamic result drops the reduced dims with coreai.shrink_dims.
// CHECK-LABEL: coreai.graph @sum_dynamic_batch(
// CHECK:         %[[S:.*]] = coreai.reduce_sum %{{.*}}, %{{.*}} : (tensor<?x4xf32>, tensor<1xsi32>) -> tensor<?x1xf32>
// CHECK:         %[[A:.*]] = coreai.constant dense<1> : tensor<1xsi32>
// CHECK:         coreai.shrink_dims %[[S]], %[[A]] : (tensor<?x1xf32>, tensor<1xsi32>) to tensor<?xf32>
func.func @sum_dynamic_batch(%x: tensor<?x4xf32>) -> tensor<?xf32> {
  %0 = aten.sum.dim_IntList %x {dim = [1], keepdim = false} : (tensor<?x4xf32>) -> tensor<?xf32>
  return %0 : tensor<?xf32>
}

// -----

// f16 accumulates in f32 and rounds once (PyTorch's CPU kernels).
// CHECK-LABEL: coreai.graph @cumsum_f16(
// CHECK:         %[[U:.*]] = coreai.cast %{{.*}} : tensor<2x8xf16> to tensor<2x8xf32>
// CHECK:         %[[S:.*]] = coreai.scan %[[U]], %{{.*}}, %{{.*}} combiner = <sum> : (tensor<2x8xf32>, tensor<ui32>, tensor<i1>) -> tensor<2x8xf32>
// CHECK:         %[[D:.*]] = coreai.cast %[[S]] : tensor<2x8xf32> to tensor<2x8xf16>
// CHECK-NEXT:    coreai.output %[[D]]
func.func @cumsum_f16(%x: tensor<2x8xf16>) -> tensor<2x8xf16> {
  %0 = aten.cumsum.default %x {dim = 1 : i64} : (tensor<2x8xf16>) -> tensor<2x8xf16>
  return %0 : tensor<2x8xf16>
}

// -----

// var_mean: the variance and the mean it subtracts.
// CHECK-LABEL: coreai.graph @var_mean(
// CHECK:         %[[M:.*]] = coreai.reduce_mean %{{.*}}, %{{.*}} -> tensor<3x1xf32>
// CHECK:         %[[V:.*]] = coreai.decomposable.broadcasting_divide
// CHECK:         %[[RV:.*]] = coreai.reshape %[[V]], %{{.*}} -> tensor<3xf32>
// CHECK:         %[[RM:.*]] = coreai.reshape %[[M]], %{{.*}} -> tensor<3xf32>
// CHECK:         coreai.output %[[RV]], %[[RM]]
func.func @var_mean(%x: tensor<3x5xf32>) -> (tensor<3xf32>, tensor<3xf32>) {
  %0:2 = aten.operator "aten::var_mean.correction"(%x) {dim = [1], correction = 1 : i64, keepdim = false} : (tensor<3x5xf32>) -> (tensor<3xf32>, tensor<3xf32>)
  return %0#0, %0#1 : tensor<3xf32>, tensor<3xf32>
}

// -----

// cummax of integers: a max scan for the values, a max scan of the
// positions where the running max is hit for the (latest) indices.
// CHECK-LABEL: coreai.graph @cummax_i64(
// CHECK-SAME:    %[[X:[^:]*]]: tensor<2x8xsi64>
// CHECK:         %[[M:.*]] = coreai.scan %[[X]], %{{.*}}, %{{.*}} combiner = <max> : (tensor<2x8xsi64>, tensor<ui32>, tensor<i1>) -> tensor<2x8xsi64>
// CHECK:         %[[IOTA:.*]] = coreai.constant dense<[0, 1, 2, 3, 4, 5, 6, 7]> : tensor<8xsi32>
// CHECK:         %[[POS:.*]] = coreai.reshape %[[IOTA]], %{{.*}} -> tensor<1x8xsi32>
// CHECK:         %[[HIT:.*]] = coreai.equal %[[X]], %[[M]] : (tensor<2x8xsi64>, tensor<2x8xsi64>) -> tensor<2x8xi1>
// CHECK:         %[[CAND:.*]] = coreai.decomposable.broadcasting_where %[[HIT]], %[[POS]], %{{.*}} -> tensor<2x8xsi32>
// CHECK:         %[[I:.*]] = coreai.scan %[[CAND]], %{{.*}}, %{{.*}} combiner = <max> : (tensor<2x8xsi32>, tensor<ui32>, tensor<i1>) -> tensor<2x8xsi32>
// CHECK:         %[[C:.*]] = coreai.cast %[[I]] : tensor<2x8xsi32> to tensor<2x8xsi64>
// CHECK:         coreai.output %[[M]], %[[C]]
func.func @cummax_i64(%x: tensor<2x8xi64>) -> (tensor<2x8xi64>, tensor<2x8xi64>) {
  %0:2 = aten.operator "aten::cummax.default"(%x) {dim = 1 : i64} : (tensor<2x8xi64>) -> (tensor<2x8xi64>, tensor<2x8xi64>)
  return %0#0, %0#1 : tensor<2x8xi64>, tensor<2x8xi64>
}

// -----

// median.dim: position (n - 1) / 2 of the stable ascending permutation, the
// value gathered; a lane with a NaN gives NaN at its first NaN's index.
// CHECK-LABEL: coreai.graph @median_dim(
// CHECK-SAME:    %[[X:[^:]*]]: tensor<3x5xf32>
// CHECK:         %[[P:.*]] = coreai.argsort %[[X]], %{{.*}}, %{{.*}}, %{{.*}} : (tensor<3x5xf32>, tensor<si32>, tensor<i1>, tensor<i1>) -> tensor<3x5xsi32>
// CHECK:         %[[B:.*]] = coreai.constant dense<[0, 2]> : tensor<2xsi32>
// CHECK:         %[[E:.*]] = coreai.constant dense<3> : tensor<2xsi32>
// CHECK:         %[[I:.*]] = coreai.slice %[[P]], %[[B]], %[[E]], %{{.*}} -> tensor<3x1xsi32>
// CHECK:         %[[V:.*]] = coreai.gather_along_axis %[[X]] at %[[I]] along %{{.*}} : (tensor<3x5xf32>, tensor<3x1xsi32>, tensor<si32>) to tensor<3x1xf32>
// CHECK:         %[[NAN:.*]] = coreai.not_equal %[[X]], %[[X]]
// CHECK:         %[[ANY:.*]] = coreai.any %[[NAN]]
// CHECK:         coreai.argmax
// CHECK:         coreai.decomposable.broadcasting_where %[[ANY]]
// CHECK:         coreai.decomposable.broadcasting_where %[[ANY]]
// CHECK:         coreai.output
func.func @median_dim(%x: tensor<3x5xf32>) -> (tensor<3xf32>, tensor<3xi64>) {
  %0:2 = aten.operator "aten::median.dim"(%x) {dim = 1 : i64, keepdim = false} : (tensor<3x5xf32>) -> (tensor<3xf32>, tensor<3xi64>)
  return %0#0, %0#1 : tensor<3xf32>, tensor<3xi64>
}
