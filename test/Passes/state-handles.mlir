// RUN: coreai-opt %s --pass-pipeline='builtin.module(state-handles)' | FileCheck %s
// RUN: coreai-opt %s --pass-pipeline='builtin.module(state-handles)' | coreai-opt --pass-pipeline='builtin.module(state-handles)' | FileCheck %s

// Two states, as the importer marks a KV cache mutated in place: each
// becomes a handle read at the start and written before the output, and
// the graph returns one token per state (named after it, in argument
// order) before its other results: coreai-torch's `state_names` form.
// A second run finds no coreai.state and changes nothing.

// CHECK-LABEL: coreai.graph @step
// CHECK-SAME: (%[[X:.*]]: tensor<2xf32> {coreai.name = "x"}, %[[K:.*]]: !coreai.handle<tensor<4x2xf32>> {MutableBuffers.buffer_mutation = "keyCache", coreai.name = "keyCache"}, %[[V:.*]]: !coreai.handle<tensor<4x2xf32>> {MutableBuffers.buffer_mutation = "valueCache", coreai.name = "valueCache"})
// CHECK-SAME: -> (!coreai.token {coreai.name = "keyCache"}, !coreai.token {coreai.name = "valueCache"}, tensor<2xf32> {coreai.name = "y"})
// CHECK-NEXT: %[[T:.*]] = coreai.create_token
// CHECK-NEXT: %[[KV:.*]], %[[KT:.*]] = coreai.read_handle %[[K]], %[[T]]
// CHECK-NEXT: %[[VV:.*]], %[[VT:.*]] = coreai.read_handle %[[V]], %[[T]]
// CHECK: %[[NK:.*]] = coreai.slice_update %[[KV]]
// CHECK: %[[NV:.*]] = coreai.slice_update %[[VV]]
// CHECK: %[[Y:.*]] = coreai.decomposable.broadcasting_add %[[X]]
// CHECK-NEXT: %[[KW:.*]] = coreai.write_handle %[[K]], %[[NK]], %[[KT]]
// CHECK-NEXT: %[[VW:.*]] = coreai.write_handle %[[V]], %[[NV]], %[[VT]]
// CHECK-NEXT: coreai.output %[[KW]], %[[VW]], %[[Y]] : !coreai.token, !coreai.token, tensor<2xf32>
coreai.graph @step(%x: tensor<2xf32> {coreai.name = "x"},
                   %k: tensor<4x2xf32> {coreai.name = "keyCache", coreai.state},
                   %v: tensor<4x2xf32> {coreai.name = "valueCache", coreai.state})
    -> (tensor<2xf32> {coreai.name = "y"}, tensor<4x2xf32> {coreai.name = "keyCache", coreai.state},
        tensor<4x2xf32> {coreai.name = "valueCache", coreai.state}) {
  %b = coreai.constant dense<[1, 0]> : tensor<2xsi32>
  %e = coreai.constant dense<[2, 2]> : tensor<2xsi32>
  %s = coreai.constant dense<1> : tensor<2xsi32>
  %row = coreai.constant dense<[2]> : tensor<1xui32>
  %u = coreai.reshape %x, %row : (tensor<2xf32>, tensor<1xui32>) -> tensor<2xf32>
  %shape = coreai.constant dense<[1, 2]> : tensor<2xui32>
  %u2 = coreai.reshape %u, %shape : (tensor<2xf32>, tensor<2xui32>) -> tensor<1x2xf32>
  %nk = coreai.slice_update %k with %u2 at (%b, %e, %s) : (tensor<4x2xf32>, tensor<1x2xf32>, tensor<2xsi32>, tensor<2xsi32>, tensor<2xsi32>) to tensor<4x2xf32>
  %nv = coreai.slice_update %v with %u2 at (%b, %e, %s) : (tensor<4x2xf32>, tensor<1x2xf32>, tensor<2xsi32>, tensor<2xsi32>, tensor<2xsi32>) to tensor<4x2xf32>
  %y = coreai.decomposable.broadcasting_add %x, %x : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  coreai.output %y, %nk, %nv : tensor<2xf32>, tensor<4x2xf32>, tensor<4x2xf32>
}

// A graph without states is unchanged.
// CHECK-LABEL: coreai.graph @plain
// CHECK-SAME: (%{{.*}}: tensor<2xf32>) -> tensor<2xf32>
// CHECK-NOT: create_token
// CHECK: coreai.output
coreai.graph @plain(%x: tensor<2xf32>) -> tensor<2xf32> {
  coreai.output %x : tensor<2xf32>
}
