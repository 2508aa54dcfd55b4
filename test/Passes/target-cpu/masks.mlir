// RUN: coreai-opt %s --pass-pipeline='builtin.module(target-cpu)' | FileCheck %s
// RUN: coreai-opt %s --pass-pipeline='builtin.module(target-cpu{remarks=true})' -o /dev/null 2>&1 | FileCheck %s --check-prefix=REMARK

// target-cpu runs target-gpu's mask patterns (guide §9.7 #8 is on the CPU
// delegate too; their cases are in ../target-gpu/masks.mlir) and not its
// rounding ones: the CPU rounds right, so x // 1 and round stay.
// CHECK-LABEL: coreai.graph @bounds(
// CHECK:         %[[Y:.*]] = coreai.decomposable.broadcasting_floor_divide %{{.*}}, %[[ONE1:.*]] :
// CHECK:         %[[R:.*]] = coreai.round %[[Y]]
// CHECK:         %[[ONE:.*]] = coreai.constant dense<1.000000e+00> : tensor<f32>
// CHECK:         %[[ZERO:.*]] = coreai.constant dense<0.000000e+00> : tensor<f32>
// CHECK:         %[[C0:.*]] = coreai.constant dense<0.000000e+00> : tensor<f32>
// CHECK:         %[[D0:.*]] = coreai.decomposable.broadcasting_sub %[[R]], %[[C0]]
// CHECK:         %[[E0:.*]] = coreai.decomposable.broadcasting_add %[[D0]], %[[ONE]]
// CHECK:         %[[N0:.*]] = coreai.decomposable.broadcasting_minimum %[[E0]], %[[ONE]]
// CHECK:         %[[GE:.*]] = coreai.decomposable.broadcasting_maximum %[[N0]], %[[ZERO]]
// CHECK-NOT:     coreai.cast {{.*}} : tensor<4xi1> to
// CHECK:         coreai.output %[[GE]]
// REMARK: target-cpu: loc({{.*}}): 'coreai.cast' mask-arithmetic: an integer comparison → bool → float chain corrupts an unrelated live tensor on the CPU and GPU delegates (guide §9.7 #8)
// REMARK-NOT: floor-by-two
// REMARK-NOT: round-half-even
coreai.graph @bounds(%x: tensor<4xf32>) -> tensor<4xf32> {
  %one = coreai.constant dense<1.000000e+00> : tensor<f32>
  %y = coreai.decomposable.broadcasting_floor_divide %x, %one : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  %r = coreai.round %y : tensor<4xf32> -> tensor<4xf32>
  %i = coreai.cast %r : tensor<4xf32> to tensor<4xsi64>
  %zero = coreai.constant dense<0> : tensor<si64>
  %gt = coreai.decomposable.broadcasting_greater %i, %zero : (tensor<4xsi64>, tensor<si64>) -> tensor<4xi1>
  %eq = coreai.decomposable.broadcasting_equal %i, %zero : (tensor<4xsi64>, tensor<si64>) -> tensor<4xi1>
  %ge = coreai.decomposable.broadcasting_or %gt, %eq : (tensor<4xi1>, tensor<4xi1>) -> tensor<4xi1>
  %m = coreai.cast %ge : tensor<4xi1> to tensor<4xf32>
  coreai.output %m : tensor<4xf32>
}
