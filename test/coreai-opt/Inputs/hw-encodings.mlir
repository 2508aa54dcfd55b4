// Two hw_constraints encodings, one with an interleave factor 4, for
// reader-faults.test (the factor is patched in the bytecode).
coreai.graph @main(%x: tensor<4x8xf16>) -> (tensor<4x8xf16>, tensor<4x8xf16>) {
  %0 = coreaix.copy_with_constraints(%x) : (tensor<4x8xf16>) -> tensor<4x8xf16, #coreaix.hw_constraints<MTLBuffer, alignments: [1x1x16], interleave: [1x1]>>
  %1 = coreaix.view(%0) : (tensor<4x8xf16, #coreaix.hw_constraints<MTLBuffer, alignments: [1x1x16], interleave: [1x1]>>) -> tensor<4x8xf16, #coreaix.hw_constraints<IOSurface, alignments: [1x1x1], interleave: [1x4]>>
  %2 = coreaix.copy_discarding_constraints(%1) : (tensor<4x8xf16, #coreaix.hw_constraints<IOSurface, alignments: [1x1x1], interleave: [1x4]>>) -> tensor<4x8xf16>
  %3 = coreaix.copy_with_constraints(%x) : (tensor<4x8xf16>) -> tensor<4x8xf16, #coreaix.hw_constraints<Heap, alignments: [1x1x1], interleave: [4x1]>>
  %4 = coreaix.copy_discarding_constraints(%3) : (tensor<4x8xf16, #coreaix.hw_constraints<Heap, alignments: [1x1x1], interleave: [4x1]>>) -> tensor<4x8xf16>
  coreai.output %2, %4 : tensor<4x8xf16>, tensor<4x8xf16>
}
