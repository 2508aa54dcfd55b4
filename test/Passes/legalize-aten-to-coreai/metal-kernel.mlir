// RUN: coreai-opt %s --split-input-file --pass-pipeline='builtin.module(legalize-aten-to-coreai)' | FileCheck %s --enable-var-scope
// RUN: coreai-opt %s --split-input-file --pass-pipeline='builtin.module(legalize-aten-to-coreai)' | coreai-opt --split-input-file | FileCheck %s --check-prefix=ROUNDTRIP

// A custom Metal kernel (coreai-torch's TorchMetalKernel, as coreai_export
// imports it) is a coreai.metal4_kernel with coreai-torch's MTLBuffer
// constraints on every kernel argument and result (alignments rank+1 ones,
// interleave rank ones), its dispatch and result shapes as ui32 constants,
// and the source coreai-core templates; the 8 letters after the name are a
// hash of the source. Its results are copied back to host tensors.
// CHECK-LABEL: coreai.graph @elementwise(
// CHECK-SAME:    %[[A:[^:]*]]: tensor<3x4xf32>, %[[B:[^:]*]]: tensor<3x4xf32>
// CHECK:         %[[AM:.*]] = coreaix.copy_with_constraints(%[[A]]) : (tensor<3x4xf32>) -> tensor<3x4xf32, #coreaix.hw_constraints<MTLBuffer, alignments: [1x1x1], interleave: [1x1]>>
// CHECK:         %[[BM:.*]] = coreaix.copy_with_constraints(%[[B]]) : (tensor<3x4xf32>) -> tensor<3x4xf32, #coreaix.hw_constraints<MTLBuffer, alignments: [1x1x1], interleave: [1x1]>>
// CHECK:         %[[G:.*]] = coreai.constant dense<[12, 1, 1]> : tensor<3xui32>
// CHECK:         %[[T:.*]] = coreai.constant dense<[4, 1, 1]> : tensor<3xui32>
// CHECK:         %[[S:.*]] = coreai.constant dense<[3, 4]> : tensor<2xui32>
// CHECK:         %[[K:.*]] = coreai.metal4_kernel kernel_args(%[[AM]], %[[BM]]), threads_per_grid %[[G]], threads_per_thread_group %[[T]], result_shapes(%[[S]])
// CHECK-SAME:      {kernel_name = "my_add_[[SUFFIX:[a-z]{8}]]", kernel_source = "\0A#include <metal_stdlib>\0A#include <MetalPerformancePrimitives/MetalPerformancePrimitives.h>\0Ausing namespace metal;\0Ausing namespace mpp::tensor_ops;\0A\0A{{\[\[}}kernel{{\]\]}} void my_add_[[SUFFIX]](tensor<device float, metal::dextents<int, 2>, tensor_handle> a {{\[\[}}buffer(0){{\]\]}}, tensor<device float, metal::dextents<int, 2>, tensor_handle> b {{\[\[}}buffer(1){{\]\]}}, tensor<device float, metal::dextents<int, 2>, tensor_handle> out {{\[\[}}buffer(2){{\]\]}}, uint gid {{\[\[}}thread_position_in_grid{{\]\]}}) { out[gid] = a[gid] + b[gid]; }"}
// CHECK-SAME:      -> tensor<3x4xf32, #coreaix.hw_constraints<MTLBuffer, alignments: [1x1x1], interleave: [1x1]>>
// CHECK:         %[[R:.*]] = coreaix.copy_discarding_constraints(%[[K]]) : (tensor<3x4xf32, #coreaix.hw_constraints<MTLBuffer, alignments: [1x1x1], interleave: [1x1]>>) -> tensor<3x4xf32>
// CHECK:         coreai.output %[[R]]
// ROUNDTRIP: coreai.metal4_kernel
func.func @elementwise(%a: tensor<3x4xf32>, %b: tensor<3x4xf32>) -> tensor<3x4xf32> {
  %0 = aten.operator "coreai_metal_kernels::my_add.default"(%a, %b) {metal_kernel = {name = "my_add", input_names = ["a", "b"], result_names = ["out"], source = "out[gid] = a[gid] + b[gid];", helper_source = "", metal_params = [["gid", "uint", "thread_position_in_grid"]], template_dtypes = [], scalars = {}, threads_per_grid = array<i64: 12, 1, 1>, threads_per_thread_group = array<i64: 4, 1, 1>, result_shapes = [array<i64: 3, 4>]}} : (tensor<3x4xf32>, tensor<3x4xf32>) -> tensor<3x4xf32>
  return %0 : tensor<3x4xf32>
}

// -----

// Scalar inputs become rank-0 constants (float → f32, int → si32, bool → ui8)
// passed as `constant T&` and baked into the body as shadowing locals, in
// input order (the attribute's dictionary is sorted; the input names are not);
// floats print as Python's repr (1e-05f). Template dtypes (T → half) apply to
// the body and the helper source.
// CHECK-LABEL: coreai.graph @scalars_and_template(
// CHECK-DAG:     coreai.constant dense<9.99999974E-6> : tensor<f32>
// CHECK-DAG:     coreai.constant dense<-2> : tensor<si32>
// CHECK-DAG:     coreai.constant dense<1> : tensor<ui8>
// CHECK:         coreaix.copy_with_constraints(%{{.*}}) : (tensor<6xf16>) -> tensor<6xf16, #coreaix.hw_constraints<MTLBuffer, alignments: [1x1], interleave: [1]>>
// CHECK:         coreaix.copy_with_constraints(%{{.*}}) : (tensor<f32>) -> tensor<f32, #coreaix.hw_constraints<MTLBuffer, alignments: [1], interleave: []>>
// CHECK:         coreaix.copy_with_constraints(%{{.*}}) : (tensor<si32>) -> tensor<si32, #coreaix.hw_constraints<MTLBuffer, alignments: [1], interleave: []>>
// CHECK:         coreaix.copy_with_constraints(%{{.*}}) : (tensor<ui8>) -> tensor<ui8, #coreaix.hw_constraints<MTLBuffer, alignments: [1], interleave: []>>
// CHECK:         coreai.metal4_kernel
// CHECK-SAME:      using namespace mpp::tensor_ops;\0Ainline half twice(half v) { return v + v; }\0A{{\[\[}}kernel{{\]\]}} void axpb_{{[a-z]+}}(tensor<device half, metal::dextents<int, 1>, tensor_handle> x {{\[\[}}buffer(0){{\]\]}}, constant float& s {{\[\[}}buffer(1){{\]\]}}, constant int& n {{\[\[}}buffer(2){{\]\]}}, constant bool& flag {{\[\[}}buffer(3){{\]\]}}, tensor<device half, metal::dextents<int, 1>, tensor_handle> y {{\[\[}}buffer(4){{\]\]}}, uint gid {{\[\[}}thread_position_in_grid{{\]\]}}) { {\0Afloat s = 1e-05f;\0Aint n = -2;\0Abool flag = true;\0Ay[gid] = flag ? (half)(x[gid] * s + n) : x[gid];\0A} }"
func.func @scalars_and_template(%h: tensor<6xf16>) -> tensor<6xf16> {
  %0 = aten.operator "coreai_metal_kernels::axpb.default"(%h) {metal_kernel = {name = "axpb", input_names = ["x", "s", "n", "flag"], result_names = ["y"], source = "y[gid] = flag ? (T)(x[gid] * s + n) : x[gid];", helper_source = "inline T twice(T v) { return v + v; }", metal_params = [["gid", "uint", "thread_position_in_grid"]], template_dtypes = [["x", "T"]], scalars = {"s" = 1.0000000000000001E-5 : f64, "n" = -2 : i64, "flag" = true}, threads_per_grid = array<i64: 6, 1, 1>, threads_per_thread_group = array<i64: 6, 1, 1>, result_shapes = [array<i64: 6>]}} : (tensor<6xf16>) -> tensor<6xf16>
  return %0 : tensor<6xf16>
}

// -----

// Two results: one result shape each, each copied back; a rank-1 result is
// a dextents<int, 1> parameter. Integer tensors map to their Metal types.
// CHECK-LABEL: coreai.graph @two_results(
// CHECK:         %[[S0:.*]] = coreai.constant dense<[3, 4]> : tensor<2xui32>
// CHECK:         %[[S1:.*]] = coreai.constant dense<4> : tensor<1xui32>
// CHECK:         %[[K:.*]]:2 = coreai.metal4_kernel kernel_args(%{{.*}}), threads_per_grid %{{.*}}, threads_per_thread_group %{{.*}}, result_shapes(%[[S0]], %[[S1]])
// CHECK-SAME:      (tensor<device int, metal::dextents<int, 2>, tensor_handle> x {{\[\[}}buffer(0){{\]\]}}, tensor<device int, metal::dextents<int, 2>, tensor_handle> p {{\[\[}}buffer(1){{\]\]}}, tensor<device float, metal::dextents<int, 1>, tensor_handle> q {{\[\[}}buffer(2){{\]\]}}, uint2 gid {{\[\[}}thread_position_in_grid{{\]\]}})
// CHECK-SAME:      -> (tensor<3x4xsi32, #coreaix.hw_constraints<MTLBuffer, alignments: [1x1x1], interleave: [1x1]>>, tensor<4xf32, #coreaix.hw_constraints<MTLBuffer, alignments: [1x1], interleave: [1]>>)
// CHECK:         coreaix.copy_discarding_constraints(%[[K]]#0) {{.*}} -> tensor<3x4xsi32>
// CHECK:         coreaix.copy_discarding_constraints(%[[K]]#1) {{.*}} -> tensor<4xf32>
func.func @two_results(%x: tensor<3x4xi32>) -> (tensor<3x4xi32>, tensor<4xf32>) {
  %0:2 = aten.operator "coreai_metal_kernels::two.default"(%x) {metal_kernel = {name = "two", input_names = ["x"], result_names = ["p", "q"], source = "p[gid] = x[gid];", helper_source = "", metal_params = [["gid", "uint2", "thread_position_in_grid"]], template_dtypes = [], scalars = {}, threads_per_grid = array<i64: 4, 3, 1>, threads_per_thread_group = array<i64: 4, 3, 1>, result_shapes = [array<i64: 3, 4>, array<i64: 4>]}} : (tensor<3x4xi32>) -> (tensor<3x4xi32>, tensor<4xf32>)
  return %0#0, %0#1 : tensor<3x4xi32>, tensor<4xf32>
}
