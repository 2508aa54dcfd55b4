// RUN: coreai-opt %s --split-input-file --pass-pipeline='builtin.module(legalize-aten-to-coreai)' | FileCheck %s --enable-var-scope

// The branches capture the cond's operands; their ops are lowered in place.
// CHECK-LABEL: coreai.graph @cond(
// CHECK-SAME:    %[[X:[^:]*]]: tensor<3x4xf32>, %[[P:[^:]*]]: tensor<i1>
// CHECK:         %[[R:.*]] = coreai.if %[[P]] {
// CHECK-NEXT:      %[[S:.*]] = coreai.sin %[[X]] : tensor<3x4xf32> -> tensor<3x4xf32>
// CHECK-NEXT:      coreai.yield %[[S]] : tensor<3x4xf32>
// CHECK-NEXT:    } else {
// CHECK-NEXT:      %[[C:.*]] = coreai.cos %[[X]] : tensor<3x4xf32> -> tensor<3x4xf32>
// CHECK-NEXT:      coreai.yield %[[C]] : tensor<3x4xf32>
// CHECK-NEXT:    } : tensor<i1> -> tensor<3x4xf32>
// CHECK:         coreai.output %[[R]]
func.func @cond(%x: tensor<3x4xf32>, %p: tensor<i1>) -> tensor<3x4xf32> {
  %0 = aten.cond %p (%x) : tensor<i1>, (tensor<3x4xf32>) -> (tensor<3x4xf32>) {
  ^bb0(%a: tensor<3x4xf32>):
    %1 = aten.sin.default %a : (tensor<3x4xf32>) -> tensor<3x4xf32>
    aten.yield %1 : tensor<3x4xf32>
  }, {
  ^bb0(%a: tensor<3x4xf32>):
    %1 = aten.cos.default %a : (tensor<3x4xf32>) -> tensor<3x4xf32>
    aten.yield %1 : tensor<3x4xf32>
  }
  return %0 : tensor<3x4xf32>
}

// -----

// Several operands and results, and a cond nested in a branch: the
// pre-order walk lowers the outer op first, then what its regions hold.
// CHECK-LABEL: coreai.graph @nested(
// CHECK-SAME:    %[[X:[^:]*]]: tensor<2xf32>, %[[Y:[^:]*]]: tensor<2xf32>, %[[P:[^:]*]]: tensor<i1>, %[[Q:[^:]*]]: tensor<i1>
// CHECK:         %[[R:.*]]:2 = coreai.if %[[P]] {
// CHECK-NEXT:      %[[IN:.*]] = coreai.if %[[Q]] {
// CHECK-NEXT:        %[[A:.*]] = coreai.abs %[[Y]]
// CHECK-NEXT:        coreai.yield %[[A]] : tensor<2xf32>
// CHECK-NEXT:      } else {
// CHECK-NEXT:        coreai.yield %[[X]] : tensor<2xf32>
// CHECK-NEXT:      } : tensor<i1> -> tensor<2xf32>
// CHECK-NEXT:      coreai.yield %[[IN]], %[[X]] : tensor<2xf32>, tensor<2xf32>
// CHECK-NEXT:    } else {
// CHECK-NEXT:      coreai.yield %[[Y]], %[[X]] : tensor<2xf32>, tensor<2xf32>
// CHECK-NEXT:    } : tensor<i1> -> tensor<2xf32>, tensor<2xf32>
// CHECK:         coreai.output %[[R]]#0, %[[R]]#1
func.func @nested(%x: tensor<2xf32>, %y: tensor<2xf32>, %p: tensor<i1>, %q: tensor<i1>) -> (tensor<2xf32>, tensor<2xf32>) {
  %0:2 = aten.cond %p (%x, %y, %q) : tensor<i1>, (tensor<2xf32>, tensor<2xf32>, tensor<i1>) -> (tensor<2xf32>, tensor<2xf32>) {
  ^bb0(%a: tensor<2xf32>, %b: tensor<2xf32>, %c: tensor<i1>):
    %1 = aten.cond %c (%a, %b) : tensor<i1>, (tensor<2xf32>, tensor<2xf32>) -> (tensor<2xf32>) {
    ^bb0(%u: tensor<2xf32>, %v: tensor<2xf32>):
      %2 = aten.abs.default %v : (tensor<2xf32>) -> tensor<2xf32>
      aten.yield %2 : tensor<2xf32>
    }, {
    ^bb0(%u: tensor<2xf32>, %v: tensor<2xf32>):
      aten.yield %u : tensor<2xf32>
    }
    aten.yield %1, %a : tensor<2xf32>, tensor<2xf32>
  }, {
  ^bb0(%a: tensor<2xf32>, %b: tensor<2xf32>, %c: tensor<i1>):
    aten.yield %b, %a : tensor<2xf32>, tensor<2xf32>
  }
  return %0#0, %0#1 : tensor<2xf32>, tensor<2xf32>
}

// -----

// Carried values are the regions' arguments (signless integers become
// signed); the additional input %n is captured; the condition region ends
// in coreai.condition forwarding the carried values.
// CHECK-LABEL: coreai.graph @while_loop(
// CHECK-SAME:    %[[I:[^:]*]]: tensor<si64>, %[[X:[^:]*]]: tensor<3xf32>, %[[N:[^:]*]]: tensor<si64>
// CHECK:         %[[R:.*]]:2 = coreai.while %[[I]], %[[X]] {
// CHECK-NEXT:    ^bb0(%[[CI:.*]]: tensor<si64>, %[[CX:.*]]: tensor<3xf32>):
// CHECK-NEXT:      %[[LT:.*]] = coreai.{{.*}}%[[N]]
// CHECK:           coreai.condition %[[LT]], %[[CI]], %[[CX]] : (tensor<i1>, tensor<si64>, tensor<3xf32>)
// CHECK-NEXT:    } do {
// CHECK-NEXT:    ^bb0(%[[BI:.*]]: tensor<si64>, %[[BX:.*]]: tensor<3xf32>):
// CHECK:           %[[NEXT:.*]] = coreai.decomposable.broadcasting_add %[[BI]], %[[BI]] : (tensor<si64>, tensor<si64>) -> tensor<si64>
// CHECK:           %[[SUM:.*]] = coreai.decomposable.broadcasting_add %[[BX]], %[[BX]] : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
// CHECK-NEXT:      coreai.yield %[[NEXT]], %[[SUM]] : tensor<si64>, tensor<3xf32>
// CHECK-NEXT:    } : (tensor<si64>, tensor<3xf32>) -> (tensor<si64>, tensor<3xf32>)
// CHECK:         coreai.output %[[R]]#0, %[[R]]#1
func.func @while_loop(%i: tensor<i64>, %x: tensor<3xf32>, %n: tensor<i64>) -> (tensor<i64>, tensor<3xf32>) {
  %0:2 = aten.while_loop (%i, %x : tensor<i64>, tensor<3xf32>) (%n : tensor<i64>) -> tensor<i64>, tensor<3xf32> cond {
  ^bb0(%a: tensor<i64>, %b: tensor<3xf32>, %m: tensor<i64>):
    %c = aten.lt.Tensor %a, %m : (tensor<i64>, tensor<i64>) -> tensor<i1>
    aten.yield %c : tensor<i1>
  } body {
  ^bb0(%a: tensor<i64>, %b: tensor<3xf32>, %m: tensor<i64>):
    %s = aten.add.Tensor %a, %a {alpha = 1 : i64} : (tensor<i64>, tensor<i64>) -> tensor<i64>
    %t = aten.add.Tensor %b, %b {alpha = 1 : i64} : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
    aten.yield %s, %t : tensor<i64>, tensor<3xf32>
  }
  return %0#0, %0#1 : tensor<i64>, tensor<3xf32>
}
