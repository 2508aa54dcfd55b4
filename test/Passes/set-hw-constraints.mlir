// RUN: coreai-opt %s --split-input-file --pass-pipeline='builtin.module(set-hw-constraints{constraints=x=IOSurface:1x1x32x1:1x1x1,out=MTLBuffer:1x1x1x1:1x1x1})' | FileCheck %s

// A tensor input: the encoding on its type, a discarding copy at the start
// of the body (in argument order), every use reading the copy. A tensor
// output: returned through copy_with_constraints. Inputs and outputs that
// are not named keep their types. The op order is coreai-core's
// set_hardware_constraints' (test/e2e/test_hw_constraints.py compares the
// two on whole programs).
// CHECK-LABEL: coreai.graph @main(
// CHECK-SAME:    %[[X:.*]]: tensor<1x32x4xf32, #coreaix.hw_constraints<IOSurface, alignments: [1x1x32x1], interleave: [1x1x1]>> {coreai.name = "x"}
// CHECK-SAME:    %[[Y:.*]]: tensor<1x32x4xf32> {coreai.name = "y"}
// CHECK-SAME:    -> (tensor<1x32x4xf32> {coreai.name = "sum"}, tensor<1x32x4xf32, #coreaix.hw_constraints<MTLBuffer, alignments: [1x1x1x1], interleave: [1x1x1]>> {coreai.name = "out"})
// CHECK-NEXT:    %[[XP:.*]] = coreaix.copy_discarding_constraints(%[[X]]) : (tensor<1x32x4xf32, #coreaix.hw_constraints<IOSurface, {{.*}}>>) -> tensor<1x32x4xf32>
// CHECK-NEXT:    %[[A:.*]] = coreai.relu %[[XP]]
// CHECK-NEXT:    %[[S:.*]] = coreai.decomposable.broadcasting_add %[[A]], %[[Y]]
// CHECK-NEXT:    %[[M:.*]] = coreai.decomposable.broadcasting_mul %[[XP]], %[[XP]]
// CHECK-NEXT:    %[[MC:.*]] = coreaix.copy_with_constraints(%[[M]]) : (tensor<1x32x4xf32>) -> tensor<1x32x4xf32, #coreaix.hw_constraints<MTLBuffer, {{.*}}>>
// CHECK-NEXT:    coreai.output %[[S]], %[[MC]] :
coreai.graph @main(%x: tensor<1x32x4xf32> {coreai.name = "x"}, %y: tensor<1x32x4xf32> {coreai.name = "y"}) -> (tensor<1x32x4xf32> {coreai.name = "sum"}, tensor<1x32x4xf32> {coreai.name = "out"}) {
  %a = coreai.relu %x : (tensor<1x32x4xf32>) -> tensor<1x32x4xf32>
  %s = coreai.decomposable.broadcasting_add %a, %y : (tensor<1x32x4xf32>, tensor<1x32x4xf32>) -> tensor<1x32x4xf32>
  %m = coreai.decomposable.broadcasting_mul %x, %x : (tensor<1x32x4xf32>, tensor<1x32x4xf32>) -> tensor<1x32x4xf32>
  coreai.output %s, %m : tensor<1x32x4xf32>, tensor<1x32x4xf32>
}

// -----

// A handle input: the encoding on the tensor it wraps; each read yields the
// constrained tensor, followed by a discarding copy; each write takes a
// constrained copy of the value. The token returned under the handle's
// name is left alone, and so are the graph's other attributes.
// CHECK-LABEL: coreai.graph @main(
// CHECK-SAME:    %[[H:.*]]: !coreai.handle<tensor<1x32x4xf32, #coreaix.hw_constraints<IOSurface, alignments: [1x1x32x1], interleave: [1x1x1]>>> {coreai.name = "x"}
// CHECK-SAME:    -> (!coreai.token {coreai.name = "x"}, tensor<1x32x4xf32, #coreaix.hw_constraints<MTLBuffer, {{.*}}>> {coreai.name = "out"})
// CHECK-SAME:    attributes {__coreai_pure__}
// CHECK:         %[[R:.*]], %[[T1:.*]] = coreai.read_handle %[[H]], %{{.*}} : (<tensor<1x32x4xf32, #coreaix.hw_constraints<{{.*}}>>>, !coreai.token) -> (tensor<1x32x4xf32, #coreaix.hw_constraints<{{.*}}>>, !coreai.token)
// CHECK-NEXT:    %[[RP:.*]] = coreaix.copy_discarding_constraints(%[[R]])
// CHECK-NEXT:    %[[N:.*]] = coreai.decomposable.broadcasting_add %[[RP]], %{{.*}}
// CHECK-NEXT:    %[[NC:.*]] = coreaix.copy_with_constraints(%[[N]]) : (tensor<1x32x4xf32>) -> tensor<1x32x4xf32, #coreaix.hw_constraints<IOSurface, {{.*}}>>
// CHECK-NEXT:    %[[T2:.*]] = coreai.write_handle %[[H]], %[[NC]], %[[T1]]
// CHECK-NEXT:    %[[OC:.*]] = coreaix.copy_with_constraints(%[[N]]) : (tensor<1x32x4xf32>) -> tensor<1x32x4xf32, #coreaix.hw_constraints<MTLBuffer, {{.*}}>>
// CHECK-NEXT:    coreai.output %[[T2]], %[[OC]] : !coreai.token, tensor<1x32x4xf32, #coreaix.hw_constraints<MTLBuffer, {{.*}}>>
coreai.graph @main(%h: !coreai.handle<tensor<1x32x4xf32>> {coreai.name = "x"}, %y: tensor<1x32x4xf32> {coreai.name = "y"}) -> (!coreai.token {coreai.name = "x"}, tensor<1x32x4xf32> {coreai.name = "out"}) attributes {__coreai_pure__} {
  %t0 = coreai.create_token : !coreai.token
  %r, %t1 = coreai.read_handle %h, %t0 : (<tensor<1x32x4xf32>>, !coreai.token) -> (tensor<1x32x4xf32>, !coreai.token)
  %n = coreai.decomposable.broadcasting_add %r, %y : (tensor<1x32x4xf32>, tensor<1x32x4xf32>) -> tensor<1x32x4xf32>
  %t2 = coreai.write_handle %h, %n, %t1 : (<tensor<1x32x4xf32>>, tensor<1x32x4xf32>, !coreai.token) -> !coreai.token
  coreai.output %t2, %n : !coreai.token, tensor<1x32x4xf32>
}
