// RUN: coreai-opt %s --split-input-file | coreai-opt --split-input-file | FileCheck %s --enable-var-scope
// RUN: coreai-opt %s --split-input-file --mlir-print-op-generic | FileCheck %s --check-prefix=GENERIC

// The form coreai-torch 0.4.3 prints for `abs(x) + y * 2.0`.
// CHECK-LABEL: coreai.graph @main(
// CHECK-SAME:    %[[X:.*]]: tensor<2x3xf32> {coreai.name = "x"}, %[[Y:.*]]: tensor<2x3xf32> {coreai.name = "y"}) -> (tensor<2x3xf32> {coreai.name = "add"}) attributes {__coreai_pure__} {
// CHECK:         %[[C:.*]] = coreai.constant dense<2.000000e+00> : tensor<f32>
// CHECK:         %[[A:.*]] = coreai.abs %[[X]] : tensor<2x3xf32> -> tensor<2x3xf32>
// CHECK:         %[[M:.*]] = coreai.decomposable.broadcasting_mul %[[Y]], %[[C]] : (tensor<2x3xf32>, tensor<f32>) -> tensor<2x3xf32>
// CHECK:         %[[S:.*]] = coreai.decomposable.broadcasting_add %[[A]], %[[M]] : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK:         coreai.output %[[S]] : tensor<2x3xf32>
// GENERIC:       "coreai.graph"() <{arg_attrs = [{coreai.name = "x"}, {coreai.name = "y"}], function_type = (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>, param_decls = #param.decl.array<[]>, res_attrs = [{coreai.name = "add"}], sym_name = "main"}>
coreai.graph @main(%arg0: tensor<2x3xf32> {coreai.name = "x"}, %arg1: tensor<2x3xf32> {coreai.name = "y"}) -> (tensor<2x3xf32> {coreai.name = "add"}) attributes {__coreai_pure__} {
  %0 = coreai.constant dense<2.000000e+00> : tensor<f32>
  %1 = coreai.abs %arg0 : tensor<2x3xf32> -> tensor<2x3xf32>
  %2 = coreai.decomposable.broadcasting_mul %arg1, %0 : (tensor<2x3xf32>, tensor<f32>) -> tensor<2x3xf32>
  %3 = coreai.decomposable.broadcasting_add %1, %2 : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  coreai.output %3 : tensor<2x3xf32>
}

// -----

// CHECK-LABEL: coreai.graph private noinline @helper(
// CHECK:         coreai.output
// GENERIC:       "coreai.graph"() <{function_type = () -> (), no_inline, param_decls = #param.decl.array<[]>, priv, sym_name = "helper"}>
coreai.graph noinline private @helper() {
  coreai.output
}

// -----

// CHECK-LABEL: coreai.graph externalize @ext(
// CHECK:         coreai.output %{{.*}} : tensor<4xi32>
coreai.graph externalize @ext(%x: tensor<4xi32>) -> tensor<4xi32> {
  coreai.output %x : tensor<4xi32>
}

// -----

// Images: coreai-core prints `height`/`width` with their type and the image
// type without its `!coreai.image` prefix inside op formats.
// CHECK-LABEL: coreai.graph @images(
// CHECK-SAME:    %[[RGB:.*]]: !coreai.image<<k24RGB> x 4 : i64 x 6 : i64>, %[[Y:.*]]: !coreai.image<<k420YpCbCr8Planar> x 5 : i64 x 7 : i64>, %[[O:.*]]: !coreai.image<<"RGBA"> x 2 : i64 x 3 : i32, image_constraints = #coreaix.image_constraints<CVPixelBuffer, rowAlignmentsPerPlane: [64]>>, %{{.*}}: !coreai.image<<42> x 1 : i64 x 1 : i64>)
// CHECK:         %[[T:.*]] = coreai.image_to_tensor %[[RGB]] : <<k24RGB> x 4 : i64 x 6 : i64> -> tensor<4x6x3xui8>
// CHECK:         coreai.image_to_tensor %[[Y]] : <<k420YpCbCr8Planar> x 5 : i64 x 7 : i64> -> tensor<47xui8>
// CHECK:         coreai.image_to_tensor %[[O]] : <<"RGBA"> x 2 : i64 x 3 : i32, image_constraints = #coreaix.image_constraints<CVPixelBuffer, rowAlignmentsPerPlane: [64]>> -> tensor<6xui8>
// CHECK:         coreai.tensor_to_image %[[T]] : tensor<4x6x3xui8> -> <<k32BGRA> x 4 : i64 x 6 : i64> {note = "any layout"}
// GENERIC:       "coreai.image_to_tensor"(%{{.*}}) : (!coreai.image<<k24RGB> x 4 : i64 x 6 : i64>) -> tensor<4x6x3xui8>
coreai.graph @images(%rgb: !coreai.image<<k24RGB> x 4 x 6>, %y: !coreai.image<<"y420"> x 5 x 7>, %o: !coreai.image<<"RGBA"> x 2 x 3 : i32, image_constraints = #coreaix.image_constraints<CVPixelBuffer, rowAlignmentsPerPlane: [64]>>, %u: !coreai.image<<42> x 1 x 1>) -> (tensor<47xui8>, tensor<6xui8>, !coreai.image<<1111970369> x 4 x 6>) {
  %t = coreai.image_to_tensor %rgb : <<k24RGB> x 4 x 6> -> tensor<4x6x3xui8>
  %f = coreai.image_to_tensor %y : <<2033463856> x 5 x 7> -> tensor<47xui8>
  %g = coreai.image_to_tensor %o : <<"RGBA"> x 2 x 3 : i32, image_constraints = #coreaix.image_constraints<CVPixelBuffer, rowAlignmentsPerPlane: [64]>> -> tensor<6xui8>
  %i = coreai.tensor_to_image %t : tensor<4x6x3xui8> -> <<"BGRA"> x 4 x 6> {note = "any layout"}
  coreai.output %f, %g, %i : tensor<47xui8>, tensor<6xui8>, !coreai.image<<k32BGRA> x 4 x 6>
}

// -----

// Sparse tensors: #coreai.sparse_tensor_encoding (numNonZero and blockSize
// are optional).
// CHECK-LABEL: coreai.graph @sparse(
// CHECK:         %[[S:.*]] = coreai.build_sparse_with_bitmask %{{.*}}, %{{.*}} : (tensor<4xf32>, tensor<2x3xui1>) -> tensor<2x3xf32, #coreai.sparse_tensor_encoding<bitmask, numNonZero = 4, posWidth = 1, crdWidth = 1>>
// CHECK:         coreai.sparse_with_bitmask_to_dense %[[S]] : tensor<2x3xf32, #coreai.sparse_tensor_encoding<bitmask, numNonZero = 4, posWidth = 1, crdWidth = 1>> -> tensor<2x3xf32>
// CHECK-SAME:    {other = #coreai.sparse_tensor_encoding<bsr, posWidth = 32, crdWidth = 32, blockSize = [2, 2]>}
coreai.graph @sparse(%v: tensor<4xf32>, %m: tensor<2x3xui1>) -> tensor<2x3xf32> {
  %s = coreai.build_sparse_with_bitmask %v, %m : (tensor<4xf32>, tensor<2x3xui1>) -> tensor<2x3xf32, #coreai.sparse_tensor_encoding<bitmask, numNonZero = 4, posWidth = 1, crdWidth = 1>>
  %d = coreai.sparse_with_bitmask_to_dense %s : tensor<2x3xf32, #coreai.sparse_tensor_encoding<bitmask, numNonZero = 4, posWidth = 1, crdWidth = 1>> -> tensor<2x3xf32> {other = #coreai.sparse_tensor_encoding<bsr, posWidth = 32, crdWidth = 32, blockSize = [2, 2]>}
  coreai.output %d : tensor<2x3xf32>
}

// -----

// CHECK-LABEL: coreai.graph @metal(
// CHECK:         coreai.metal4_kernel kernel_args(%{{.*}}), threads_per_grid %{{.*}}, threads_per_thread_group %{{.*}}, result_shapes(%{{.*}}) {kernel_name = "k", kernel_source = "k"} : (tensor<2x3xf32, #coreaix.hw_constraints<MTLBuffer, alignments: [1x1x1], interleave: [1x1]>>, tensor<3xui32>, tensor<3xui32>, tensor<2xui32>) -> tensor<2x3xf32, #coreaix.hw_constraints<MTLBuffer, alignments: [1x1x1], interleave: [1x1]>>
coreai.graph @metal(%x: tensor<2x3xf32, #coreaix.hw_constraints<MTLBuffer, alignments: [1x1x1], interleave: [1x1]>>, %g: tensor<3xui32>, %s: tensor<2xui32>) {
  %0 = coreai.metal4_kernel kernel_args(%x), threads_per_grid %g, threads_per_thread_group %g, result_shapes(%s) {kernel_name = "k", kernel_source = "k"} : (tensor<2x3xf32, #coreaix.hw_constraints<MTLBuffer, alignments: [1x1x1], interleave: [1x1]>>, tensor<3xui32>, tensor<3xui32>, tensor<2xui32>) -> tensor<2x3xf32, #coreaix.hw_constraints<MTLBuffer, alignments: [1x1x1], interleave: [1x1]>>
  coreai.output
}
