// RUN: coreai-opt %s --split-input-file --pass-pipeline='builtin.module(target-ane)' | FileCheck %s --enable-var-scope
// RUN: coreai-opt %s --split-input-file --pass-pipeline='builtin.module(target-ane{remarks=true})' -o /dev/null 2>&1 | FileCheck %s --check-prefix=REMARK

// Three heads against one key head (broadcast, as grouped-query attention
// may leave it): the query's heads are sliced, the key is used whole, and
// the three products are concatenated along the head axis.
// CHECK-LABEL: coreai.graph @scores(
// CHECK-SAME:    %[[Q:[a-z0-9]+]]: tensor<1x3x4x8xf32>, %[[K:[a-z0-9]+]]: tensor<1x1x8x5xf32>
// CHECK:         %[[Q0:.*]] = coreai.slice %[[Q]], {{.*}} -> tensor<1x1x4x8xf32>
// CHECK:         %[[P0:.*]] = coreai.decomposable.broadcasting_batch_matmul %[[Q0]], %[[K]] : (tensor<1x1x4x8xf32>, tensor<1x1x8x5xf32>) -> tensor<1x1x4x5xf32>
// CHECK:         %[[Q1:.*]] = coreai.slice %[[Q]]
// CHECK:         %[[P1:.*]] = coreai.decomposable.broadcasting_batch_matmul %[[Q1]], %[[K]]
// CHECK:         %[[Q2:.*]] = coreai.slice %[[Q]]
// CHECK:         %[[P2:.*]] = coreai.decomposable.broadcasting_batch_matmul %[[Q2]], %[[K]]
// CHECK:         %[[C:.*]] = coreai.concat %{{.*}}, %[[P0]], %[[P1]], %[[P2]] : (tensor<si32>, tensor<1x1x4x5xf32>, tensor<1x1x4x5xf32>, tensor<1x1x4x5xf32>) -> tensor<1x3x4x5xf32>
// CHECK:         coreai.output %[[C]]
// REMARK: target-ane: loc({{.*}}): 'coreai.decomposable.broadcasting_batch_matmul' matmul-per-head: the Neural Engine computes attention one head at a time
coreai.graph @scores(%q: tensor<1x3x4x8xf32>, %k: tensor<1x1x8x5xf32>) -> tensor<1x3x4x5xf32> {
  %s = coreai.decomposable.broadcasting_batch_matmul %q, %k : (tensor<1x3x4x8xf32>, tensor<1x1x8x5xf32>) -> tensor<1x3x4x5xf32>
  coreai.output %s : tensor<1x3x4x5xf32>
}

// -----

// Declines: a constant operand (a weight), a batch of 2.
// CHECK-LABEL: coreai.graph @keeps(
// CHECK-NOT:     coreai.concat
// CHECK:         broadcasting_batch_matmul %arg0, %{{.*}} : (tensor<1x3x4x8xf32>, tensor<1x3x8x5xf32>)
// CHECK:         broadcasting_batch_matmul %arg1, %arg2 : (tensor<2x3x4x8xf32>, tensor<2x3x8x5xf32>)
// REMARK-NOT: matmul-per-head
coreai.graph @keeps(%q: tensor<1x3x4x8xf32>, %a: tensor<2x3x4x8xf32>, %b: tensor<2x3x8x5xf32>) -> (tensor<1x3x4x5xf32>, tensor<2x3x4x5xf32>) {
  %w = coreai.constant dense<5.000000e-01> : tensor<1x3x8x5xf32>
  %s = coreai.decomposable.broadcasting_batch_matmul %q, %w : (tensor<1x3x4x8xf32>, tensor<1x3x8x5xf32>) -> tensor<1x3x4x5xf32>
  %t = coreai.decomposable.broadcasting_batch_matmul %a, %b : (tensor<2x3x4x8xf32>, tensor<2x3x8x5xf32>) -> tensor<2x3x4x5xf32>
  coreai.output %s, %t : tensor<1x3x4x5xf32>, tensor<2x3x4x5xf32>
}
