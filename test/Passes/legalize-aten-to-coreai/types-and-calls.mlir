// RUN: coreai-opt %s --pass-pipeline='builtin.module(legalize-aten-to-coreai)' | FileCheck %s

// Signless integers become signed everywhere: graph signature, block
// arguments, constants and lowered results. A wrapped Python number no
// lowering uses is erased; the mark never reaches the output.
// CHECK-LABEL: coreai.graph @main(
// CHECK-SAME:    %{{.*}}: tensor<3xsi64>, %{{.*}}: tensor<3xf32>) -> (tensor<3xsi64>, tensor<3xf32>)
// CHECK-NOT:     aten.wrapped_number
// CHECK:         %[[K:.*]] = coreai.constant dense<[1, 2, 3]> : tensor<3xsi64>
// CHECK-NOT:     coreai.constant
// CHECK:         %[[SUM:.*]] = coreai.decomposable.broadcasting_add %{{.*}}, %[[K]] : (tensor<3xsi64>, tensor<3xsi64>) -> tensor<3xsi64>
// CHECK:         %[[CALL:.*]] = coreai.invoke @f(%{{.*}}) : (tensor<3xf32>) -> tensor<3xf32>
// CHECK:         coreai.output %[[SUM]], %[[CALL]] : tensor<3xsi64>, tensor<3xf32>
// CHECK-LABEL: coreai.graph private @f(
// CHECK:         coreai.abs
func.func @main(%x: tensor<3xi64>, %y: tensor<3xf32>) -> (tensor<3xi64>, tensor<3xf32>) {
  %c = arith.constant {aten.wrapped_number} dense<2> : tensor<i64>
  %k = arith.constant dense<[1, 2, 3]> : tensor<3xi64>
  %0 = aten.add.Tensor %x, %k {alpha = 1 : i64} : (tensor<3xi64>, tensor<3xi64>) -> tensor<3xi64>
  %1 = call @f(%y) : (tensor<3xf32>) -> tensor<3xf32>
  return %0, %1 : tensor<3xi64>, tensor<3xf32>
}
func.func private @f(%y: tensor<3xf32>) -> tensor<3xf32> {
  %0 = aten.abs.default %y : (tensor<3xf32>) -> tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

// An integer dense_resource constant (an index list built in forward())
// keeps its bytes when its type becomes signed.
// CHECK-LABEL: coreai.graph @resource_indices(
// CHECK:         coreai.constant dense<[0, 2, 0]> : tensor<3xsi64>
func.func @resource_indices() -> tensor<3xi64> {
  %0 = arith.constant dense_resource<idx> : tensor<3xi64>
  return %0 : tensor<3xi64>
}

{-#
  dialect_resources: {
    builtin: {
      idx: "0x08000000000000000000000002000000000000000000000000000000"
    }
  }
#-}
