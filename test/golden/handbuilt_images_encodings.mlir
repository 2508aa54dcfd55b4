// RUN: coreai-opt %s > %t.a && coreai-opt %t.a > %t.b && diff %t.a %t.b
// RUN: grep -v '^//' %s | sed '/^$/d' > %t.golden && sed '/^$/d' %t.a | diff %t.golden -
// hand-built module for `handbuilt_images_encodings`, printed by coreai-core 1.0.0b3.
// Regenerate with tools/coreai-golden/generate.py.

module {
  coreai.graph @main(%arg0: !coreai.image<<k24RGB> x 4 : i64 x 6 : i64>, %arg1: !coreai.image<<"RGBA"> x 2 : i64 x 3 : i32, image_constraints = #coreaix.image_constraints<CVPixelBuffer, rowAlignmentsPerPlane: [64]>>, %arg2: tensor<4x8xf16>, %arg3: tensor<4xf32>, %arg4: tensor<2x3xui1>) -> (!coreai.image<<k32BGRA> x 4 : i64 x 6 : i64>, tensor<6xui8>, tensor<4x8xf32>, tensor<2x3xf32>) {
    %0 = coreai.image_to_tensor %arg0 : <<k24RGB> x 4 : i64 x 6 : i64> -> tensor<4x6x3xui8>
    %1 = coreai.tensor_to_image %0 : tensor<4x6x3xui8> -> <<k32BGRA> x 4 : i64 x 6 : i64>
    %2 = coreai.image_to_tensor %arg1 : <<"RGBA"> x 2 : i64 x 3 : i32, image_constraints = #coreaix.image_constraints<CVPixelBuffer, rowAlignmentsPerPlane: [64]>> -> tensor<6xui8>
    %3 = coreaix.copy_with_constraints(%arg2) : (tensor<4x8xf16>) -> tensor<4x8xf16, #coreaix.hw_constraints<MTLBuffer, alignments: [1x1x16], interleave: [1x1]>>
    %4 = coreaix.view(%3) : (tensor<4x8xf16, #coreaix.hw_constraints<MTLBuffer, alignments: [1x1x16], interleave: [1x1]>>) -> tensor<4x8xf16, #coreaix.hw_constraints<IOSurface, alignments: [1x1x1], interleave: [1x4]>>
    %5 = coreaix.cast(%4) : (tensor<4x8xf16, #coreaix.hw_constraints<IOSurface, alignments: [1x1x1], interleave: [1x4]>>) -> tensor<4x8xf32, #coreaix.hw_constraints<Heap, alignments: [1x1x1], interleave: [1x1]>>
    %6 = coreaix.copy_discarding_constraints(%5) : (tensor<4x8xf32, #coreaix.hw_constraints<Heap, alignments: [1x1x1], interleave: [1x1]>>) -> tensor<4x8xf32>
    %7 = coreai.build_sparse_with_bitmask %arg3, %arg4 : (tensor<4xf32>, tensor<2x3xui1>) -> tensor<2x3xf32, #coreai.sparse_tensor_encoding<bitmask, numNonZero = 4, posWidth = 1, crdWidth = 1>>
    %8 = coreai.sparse_with_bitmask_to_dense %7 : tensor<2x3xf32, #coreai.sparse_tensor_encoding<bitmask, numNonZero = 4, posWidth = 1, crdWidth = 1>> -> tensor<2x3xf32>
    coreai.output %1, %2, %6, %8 : !coreai.image<<k32BGRA> x 4 : i64 x 6 : i64>, tensor<6xui8>, tensor<4x8xf32>, tensor<2x3xf32>
  }
}
