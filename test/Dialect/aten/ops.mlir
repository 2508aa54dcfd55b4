// RUN: coreai-opt %s --split-input-file | coreai-opt --split-input-file | FileCheck %s --enable-var-scope
// RUN: coreai-opt %s --split-input-file --mlir-print-op-generic | coreai-opt --split-input-file | FileCheck %s --enable-var-scope

// CHECK-LABEL: func.func @relu(
// CHECK-SAME:    %[[X:.*]]: tensor<2x3xf32>
// CHECK:         %[[R:.*]] = aten.relu.default %[[X]] : (tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK:         return %[[R]]
func.func @relu(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = aten.relu.default %x : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// CHECK-LABEL: func.func @add_broadcast(
// CHECK:         aten.add.Tensor %{{.*}}, %{{.*}} {alpha = 2.500000e+00 : f64} : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
func.func @add_broadcast(%a: tensor<2x3xf32>, %b: tensor<3xf32>) -> tensor<2x3xf32> {
  %0 = aten.add.Tensor %a, %b {alpha = 2.5 : f64} : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// CHECK-LABEL: func.func @mean_dim(
// CHECK:         aten.mean.dim %{{.*}} {dim = [-1], keepdim = true} : (tensor<2x3xf32>) -> tensor<2x1xf32>
func.func @mean_dim(%x: tensor<2x3xf32>) -> tensor<2x1xf32> {
  %0 = aten.mean.dim %x {dim = [-1], keepdim = true} : (tensor<2x3xf32>) -> tensor<2x1xf32>
  return %0 : tensor<2x1xf32>
}

// -----

// CHECK-LABEL: func.func @unknown_overload(
// CHECK:         aten.operator "my_lib::scaled_add.default"(%{{.*}}, %{{.*}}) {scale = 2.000000e+00 : f64} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
func.func @unknown_overload(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
  %0 = aten.operator "my_lib::scaled_add.default"(%a, %b) {scale = 2.0 : f64} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// CHECK-LABEL: func.func @multi_result_and_segments(
// CHECK:         %[[VALUES:.*]], %[[INDICES:.*]] = aten.max.dim %{{.*}} {dim = -1 : i64, keepdim = false} : (tensor<2x3xf32>) -> (tensor<2xf32>, tensor<2xi64>)
// CHECK:         aten.native_layer_norm.default {{.*}}operandSegmentSizes = array<i32: 1, 1, 0>
// CHECK:         aten.index.Tensor {{.*}}indices_present = array<i1: false, true>
func.func @multi_result_and_segments(%x: tensor<2x3xf32>, %w: tensor<3xf32>, %i: tensor<2xi64>) -> (tensor<2xf32>, tensor<2x3xf32>, tensor<2x2xf32>) {
  %m:2 = aten.max.dim %x {dim = -1 : i64, keepdim = false} : (tensor<2x3xf32>) -> (tensor<2xf32>, tensor<2xi64>)
  %n:3 = aten.native_layer_norm.default %x, %w {normalized_shape = [3], eps = 1.0e-05 : f64, operandSegmentSizes = array<i32: 1, 1, 0>} : (tensor<2x3xf32>, tensor<3xf32>) -> (tensor<2x3xf32>, tensor<2x1xf32>, tensor<2x1xf32>)
  %g = aten.index.Tensor %x, %i {indices_present = array<i1: false, true>} : (tensor<2x3xf32>, tensor<2xi64>) -> tensor<2x2xf32>
  return %m#0, %n#0, %g : tensor<2xf32>, tensor<2x3xf32>, tensor<2x2xf32>
}

// -----

// CHECK-LABEL: func.func @cond(
// CHECK:         aten.cond %{{.*}} (%{{.*}}) : tensor<i1>, (tensor<4xf32>) -> tensor<4xf32> {
// CHECK:           aten.yield
// CHECK:         }, {
// CHECK:           aten.neg.default
func.func @cond(%p: tensor<i1>, %x: tensor<4xf32>) -> tensor<4xf32> {
  %r = aten.cond %p (%x) : tensor<i1>, (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%a: tensor<4xf32>):
    aten.yield %a : tensor<4xf32>
  }, {
  ^bb0(%a: tensor<4xf32>):
    %n = aten.neg.default %a : (tensor<4xf32>) -> tensor<4xf32>
    aten.yield %n : tensor<4xf32>
  }
  return %r : tensor<4xf32>
}

// -----

// CHECK-LABEL: func.func @while_loop(
// CHECK:         aten.while_loop(%{{.*}} : tensor<i64>, tensor<2xf32>) () -> tensor<i64>, tensor<2xf32> cond {
// CHECK:         } body {
func.func @while_loop(%i: tensor<i64>, %x: tensor<2xf32>) -> tensor<2xf32> {
  %r:2 = aten.while_loop (%i, %x : tensor<i64>, tensor<2xf32>) () -> tensor<i64>, tensor<2xf32> cond {
  ^bb0(%a: tensor<i64>, %b: tensor<2xf32>):
    %c = aten.lt.Scalar %a {other = 5 : i64} : (tensor<i64>) -> tensor<i1>
    aten.yield %c : tensor<i1>
  } body {
  ^bb0(%a: tensor<i64>, %b: tensor<2xf32>):
    %s = aten.add.Scalar %a {other = 1 : i64, alpha = 1 : i64} : (tensor<i64>) -> tensor<i64>
    %d = aten.mul.Scalar %b {other = 2.0 : f64} : (tensor<2xf32>) -> tensor<2xf32>
    aten.yield %s, %d : tensor<i64>, tensor<2xf32>
  }
  return %r#1 : tensor<2xf32>
}

// -----

// CHECK-LABEL: func.func @symbolic_sizes(
// CHECK:         %[[S:.*]] = aten.sym_size.int %{{.*}} {dim = 0 : i64} : (tensor<?x8xf32>) -> i64
// CHECK:         aten.mul %[[S]], %[[S]] : (i64, i64) -> i64
// CHECK:         aten.sym_float %{{.*}} : (i64) -> f64
func.func @symbolic_sizes(%x: tensor<?x8xf32>) -> f64 {
  %s = aten.sym_size.int %x {dim = 0 : i64} : (tensor<?x8xf32>) -> i64
  %m = aten.mul %s, %s : (i64, i64) -> i64
  %f = aten.sym_float %m : (i64) -> f64
  return %f : f64
}
