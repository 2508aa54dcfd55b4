// RUN: coreai-opt %s --split-input-file | coreai-opt --split-input-file | FileCheck %s --enable-var-scope

// The form coreai-core 1.0.0b3 prints: #coreaix.hw_constraints<backing,
// alignments: [rank + 1 values], interleave: [rank values]>.
// CHECK-LABEL: coreai.graph @copies(
// CHECK-SAME:    %[[X:.*]]: tensor<4x8xf16>)
// CHECK:         %[[C:.*]] = coreaix.copy_with_constraints(%[[X]]) : (tensor<4x8xf16>) -> tensor<4x8xf16, #coreaix.hw_constraints<MTLBuffer, alignments: [1x1x16], interleave: [1x1]>>
// CHECK:         %[[V:.*]] = coreaix.view(%[[C]]) : (tensor<4x8xf16, #coreaix.hw_constraints<MTLBuffer, alignments: [1x1x16], interleave: [1x1]>>) -> tensor<4x8xf16, #coreaix.hw_constraints<IOSurface, alignments: [1x1x64], interleave: [1x4]>>
// CHECK:         %[[K:.*]] = coreaix.cast(%[[V]]) : (tensor<4x8xf16, #coreaix.hw_constraints<IOSurface, alignments: [1x1x64], interleave: [1x4]>>) -> tensor<4x8xf32, #coreaix.hw_constraints<Heap, alignments: [1x1x1], interleave: [1x1]>>
// CHECK:         %[[D:.*]] = coreaix.copy_discarding_constraints(%[[K]]) : (tensor<4x8xf32, #coreaix.hw_constraints<Heap, alignments: [1x1x1], interleave: [1x1]>>) -> tensor<4x8xf32>
// CHECK:         coreai.output %[[D]]
coreai.graph @copies(%x: tensor<4x8xf16>) -> tensor<4x8xf32> {
  %0 = coreaix.copy_with_constraints(%x) : (tensor<4x8xf16>) -> tensor<4x8xf16, #coreaix.hw_constraints<MTLBuffer, alignments: [1x1x16], interleave: [1x1]>>
  %1 = coreaix.view(%0) : (tensor<4x8xf16, #coreaix.hw_constraints<MTLBuffer, alignments: [1x1x16], interleave: [1x1]>>) -> tensor<4x8xf16, #coreaix.hw_constraints<IOSurface,alignments:[1x1x64],interleave:[1x4]>>
  %2 = coreaix.cast(%1) : (tensor<4x8xf16, #coreaix.hw_constraints<IOSurface, alignments: [1x1x64], interleave: [1x4]>>) -> tensor<4x8xf32, #coreaix.hw_constraints<Heap, alignments: [1x1x1], interleave: [1x1]>>
  %3 = coreaix.copy_discarding_constraints(%2) : (tensor<4x8xf32, #coreaix.hw_constraints<Heap, alignments: [1x1x1], interleave: [1x1]>>) -> tensor<4x8xf32>
  coreai.output %3 : tensor<4x8xf32>
}

// -----

// As in coreai-core, a view or copy may change the shape (not the element
// type); dynamic dimensions and 0-D tensors take constraints too.
// CHECK-LABEL: coreai.graph @reshaping_view(
// CHECK:         coreaix.view(%{{.*}}) : (tensor<2x3xf32, #coreaix.hw_constraints<MTLBuffer, alignments: [1x1x1], interleave: [1x1]>>) -> tensor<6xf32, #coreaix.hw_constraints<MTLBuffer, alignments: [1x1], interleave: [3]>>
// CHECK:         coreaix.copy_with_constraints(%{{.*}}) : (tensor<?x4xf32>) -> tensor<?x4xf32, #coreaix.hw_constraints<MTLBuffer, alignments: [1x1x1], interleave: [1x2]>>
// CHECK:         coreaix.copy_with_constraints(%{{.*}}) : (tensor<f32>) -> tensor<f32, #coreaix.hw_constraints<Heap, alignments: [1], interleave: []>>
coreai.graph @reshaping_view(%x: tensor<2x3xf32, #coreaix.hw_constraints<MTLBuffer, alignments: [1x1x1], interleave: [1x1]>>, %d: tensor<?x4xf32>, %s: tensor<f32>) {
  %0 = coreaix.view(%x) : (tensor<2x3xf32, #coreaix.hw_constraints<MTLBuffer, alignments: [1x1x1], interleave: [1x1]>>) -> tensor<6xf32, #coreaix.hw_constraints<MTLBuffer, alignments: [1x1], interleave: [3]>>
  %1 = coreaix.copy_with_constraints(%d) : (tensor<?x4xf32>) -> tensor<?x4xf32, #coreaix.hw_constraints<MTLBuffer, alignments: [1x1x1], interleave: [1x2]>>
  %2 = coreaix.copy_with_constraints(%s) : (tensor<f32>) -> tensor<f32, #coreaix.hw_constraints<Heap, alignments: [1], interleave: []>>
  coreai.output
}

// -----

// A view into a smaller extent is fine: 2x3 with alignments [1x16x1] spans
// 32 elements, 6 with [1x4] interleave [2] spans 12.
// CHECK-LABEL: coreai.graph @view_within_source(
// CHECK:         coreaix.view(%{{.*}}) : (tensor<2x3xf32, #coreaix.hw_constraints<MTLBuffer, alignments: [1x16x1], interleave: [1x1]>>) -> tensor<6xf32, #coreaix.hw_constraints<MTLBuffer, alignments: [1x4], interleave: [2]>>
coreai.graph @view_within_source(%x: tensor<2x3xf32, #coreaix.hw_constraints<MTLBuffer, alignments: [1x16x1], interleave: [1x1]>>) {
  %0 = coreaix.view(%x) : (tensor<2x3xf32, #coreaix.hw_constraints<MTLBuffer, alignments: [1x16x1], interleave: [1x1]>>) -> tensor<6xf32, #coreaix.hw_constraints<MTLBuffer, alignments: [1x4], interleave: [2]>>
  coreai.output
}
