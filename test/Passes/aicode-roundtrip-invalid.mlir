// RUN: coreai-opt %s --pass-pipeline='builtin.module(aicode-roundtrip)' --verify-diagnostics

// Outside the writer's subset (an encoded tensor read by an op other than
// the constraint copies): one error naming the op and its location.
// expected-error-re@+1 {{aicode-roundtrip: "{{.*}}aicode-roundtrip-invalid.mlir":8:10: 'coreai.add' on a #coreaix.hw_constraints<IOSurface, ...> tensor is not yet supported by the aicode writer}}
module {
  coreai.graph @main(%x: tensor<3xf32, #coreaix.hw_constraints<IOSurface, alignments: [1x32], interleave: [1]>> {coreai.name = "x"}) -> (tensor<3xf32, #coreaix.hw_constraints<IOSurface, alignments: [1x32], interleave: [1]>> {coreai.name = "y"}) {
    %0 = coreai.add %x, %x : (tensor<3xf32, #coreaix.hw_constraints<IOSurface, alignments: [1x32], interleave: [1]>>, tensor<3xf32, #coreaix.hw_constraints<IOSurface, alignments: [1x32], interleave: [1]>>) -> tensor<3xf32, #coreaix.hw_constraints<IOSurface, alignments: [1x32], interleave: [1]>>
    coreai.output %0 : tensor<3xf32, #coreaix.hw_constraints<IOSurface, alignments: [1x32], interleave: [1]>>
  }
}
