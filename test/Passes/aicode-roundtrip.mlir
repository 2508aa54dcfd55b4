// RUN: coreai-opt %s --split-input-file --pass-pipeline='builtin.module(aicode-roundtrip)' | FileCheck %s

// The program as the asset holds it: a weight written and read back is the
// module's own blob (same key, same bytes); the graph attribute the aicode
// form does not hold (`__coreai_pure__`) is gone; names, types, the
// composite and the constant come back.
// CHECK-LABEL: coreai.graph @main
// CHECK-SAME:    (%[[X:.*]]: tensor<2x3xf32> {coreai.name = "x"}) -> (tensor<2x3xf32> {coreai.name = "y"}) {
// CHECK-NEXT:    %[[W:.*]] = coreai.constant dense_resource<weight> : tensor<2x3xf32>
// CHECK-NEXT:    %[[S:.*]] = coreai.constant dense<2.000000e+00> : tensor<f32>
// CHECK-NEXT:    %[[A:.*]] = coreai.add %[[X]], %[[W]]
// CHECK-NEXT:    %[[M:.*]] = coreai.decomposable.broadcasting_mul %[[A]], %[[S]]
// CHECK-NEXT:    coreai.output %[[M]] : tensor<2x3xf32>
// CHECK:       weight: "0x040000000000803F0000004000004040000080400000A0400000C040"
// CHECK-NOT:   weight_1
module {
  coreai.graph @main(%x: tensor<2x3xf32> {coreai.name = "x"}) -> (tensor<2x3xf32> {coreai.name = "y"}) attributes {__coreai_pure__} {
    %w = coreai.constant dense_resource<weight> : tensor<2x3xf32>
    %s = coreai.constant dense<2.0> : tensor<f32>
    %0 = coreai.add %x, %w : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
    %1 = coreai.decomposable.broadcasting_mul %0, %s : (tensor<2x3xf32>, tensor<f32>) -> tensor<2x3xf32>
    coreai.output %1 : tensor<2x3xf32>
  }
}
{-#
  dialect_resources: {
    builtin: {
      weight: "0x040000000000803F0000004000004040000080400000A0400000C040"
    }
  }
#-}

// -----

// A state handle and its tokens, and an encoded input: their aicode forms
// read back to the same ops and types.
// CHECK-LABEL: coreai.graph @main
// CHECK-SAME:    !coreai.handle<tensor<3xf32>> {MutableBuffers.buffer_mutation = "s", coreai.name = "s"}
// CHECK-SAME:    tensor<3xf32, #coreaix.hw_constraints<IOSurface, alignments: [1x32], interleave: [1]>> {coreai.name = "x"}
// CHECK-NEXT:    coreaix.copy_discarding_constraints
// CHECK-NEXT:    coreai.create_token
// CHECK-NEXT:    coreai.read_handle
// CHECK-NEXT:    coreai.add
// CHECK-NEXT:    coreai.write_handle
// CHECK-NEXT:    coreai.output
module {
  coreai.graph @main(%s: !coreai.handle<tensor<3xf32>> {MutableBuffers.buffer_mutation = "s", coreai.name = "s"}, %x: tensor<3xf32, #coreaix.hw_constraints<IOSurface, alignments: [1x32], interleave: [1]>> {coreai.name = "x"}) -> (!coreai.token {coreai.name = "s"}) {
    %x0 = coreaix.copy_discarding_constraints(%x) : (tensor<3xf32, #coreaix.hw_constraints<IOSurface, alignments: [1x32], interleave: [1]>>) -> tensor<3xf32>
    %t = coreai.create_token : !coreai.token
    %v, %t1 = coreai.read_handle %s, %t : (<tensor<3xf32>>, !coreai.token) -> (tensor<3xf32>, !coreai.token)
    %n = coreai.add %v, %x0 : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
    %t2 = coreai.write_handle %s, %n, %t1 : (<tensor<3xf32>>, tensor<3xf32>, !coreai.token) -> !coreai.token
    coreai.output %t2 : !coreai.token
  }
}

