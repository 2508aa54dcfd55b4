// RUN: coreai-opt %s --pass-pipeline='builtin.module(aicode-roundtrip)' --verify-diagnostics

// Outside the writer's subset: one error naming the op and its location.
// expected-error-re@+1 {{aicode-roundtrip: "{{.*}}aicode-roundtrip-invalid.mlir":6:3: 'coreai.graph' of type tensor<4x8xui2, #coreai.sparse_tensor_encoding<bitmask, numNonZero = 10, posWidth = 1, crdWidth = 1>> is not yet supported by the aicode writer}}
module {
  coreai.graph @sparse(%x: tensor<4x8xui2, #coreai.sparse_tensor_encoding<bitmask, numNonZero = 10, posWidth = 1, crdWidth = 1>> {coreai.name = "x"}) -> (tensor<4x8xui2, #coreai.sparse_tensor_encoding<bitmask, numNonZero = 10, posWidth = 1, crdWidth = 1>> {coreai.name = "y"}) {
    coreai.output %x : tensor<4x8xui2, #coreai.sparse_tensor_encoding<bitmask, numNonZero = 10, posWidth = 1, crdWidth = 1>>
  }
}
