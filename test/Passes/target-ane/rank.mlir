// RUN: coreai-opt %s --split-input-file --pass-pipeline='builtin.module(target-ane)' | FileCheck %s --enable-var-scope
// RUN: coreai-opt %s --split-input-file --pass-pipeline='builtin.module(target-ane{remarks=true})' -o /dev/null 2>&1 | FileCheck %s --check-prefix=REMARK
// The pipeline of `coreai-compile --target ane` after the pass: no rank-6 value is left.
// RUN: coreai-opt %s --split-input-file --pass-pipeline='builtin.module(target-ane,canonicalize,cse,core-optimize)' | FileCheck %s --check-prefix=FOLD

// Swin's window partition: view(B, H/w, w, W/w, w, C).permute(0, 1, 3, 2, 4, 5)
// → the runs [0, 1], [3], [2], [4, 5] are one dim each: a rank-4 transpose.
// CHECK-LABEL: coreai.graph @window_partition(
// CHECK-SAME:    %[[X:.*]]: tensor<2x8x8x16xf32>
// CHECK:         %[[X6:.*]] = coreai.reshape %[[X]], %{{.*}} -> tensor<2x2x4x2x4x16xf32>
// CHECK:         %[[G:.*]] = coreai.reshape %[[X6]], %{{.*}} : (tensor<2x2x4x2x4x16xf32>, tensor<4xui32>) -> tensor<4x4x2x64xf32>
// CHECK:         %[[P:.*]] = coreai.constant dense<[0, 2, 1, 3]> : tensor<4xui32>
// CHECK:         %[[T:.*]] = coreai.transpose %[[G]], %[[P]] : (tensor<4x4x2x64xf32>, tensor<4xui32>) -> tensor<4x2x4x64xf32>
// CHECK:         %[[B:.*]] = coreai.reshape %[[T]], %{{.*}} : (tensor<4x2x4x64xf32>, tensor<6xui32>) -> tensor<2x2x2x4x4x16xf32>
// CHECK:         coreai.reshape %[[B]], %{{.*}} -> tensor<8x16x16xf32>
// REMARK: target-ane: loc({{.*}}): 'coreai.transpose' rank-reduce: the Neural Engine takes rank <= 5
// FOLD-LABEL: coreai.graph @window_partition(
// FOLD-SAME:    %[[X:.*]]: tensor<2x8x8x16xf32>
// FOLD-NOT:     tensor<6xui32>
// FOLD:         %[[G:.*]] = coreai.reshape %[[X]], %{{.*}} -> tensor<4x4x2x64xf32>
// FOLD-NEXT:    %[[T:.*]] = coreai.transpose %[[G]], %{{.*}} -> tensor<4x2x4x64xf32>
// FOLD-NEXT:    coreai.constant
// FOLD-NEXT:    %[[W:.*]] = coreai.reshape %[[T]], %{{.*}} -> tensor<8x16x16xf32>
// FOLD-NEXT:    coreai.output %[[W]]
coreai.graph @window_partition(%x: tensor<2x8x8x16xf32>) -> tensor<8x16x16xf32> {
  %s6 = coreai.constant dense<[2, 2, 4, 2, 4, 16]> : tensor<6xui32>
  %perm = coreai.constant dense<[0, 1, 3, 2, 4, 5]> : tensor<6xui32>
  %s3 = coreai.constant dense<[8, 16, 16]> : tensor<3xui32>
  %x6 = coreai.reshape %x, %s6 : (tensor<2x8x8x16xf32>, tensor<6xui32>) -> tensor<2x2x4x2x4x16xf32>
  %t = coreai.transpose %x6, %perm : (tensor<2x2x4x2x4x16xf32>, tensor<6xui32>) -> tensor<2x2x2x4x4x16xf32>
  %w = coreai.reshape %t, %s3 : (tensor<2x2x2x4x4x16xf32>, tensor<3xui32>) -> tensor<8x16x16xf32>
  coreai.output %w : tensor<8x16x16xf32>
}

// -----

// Unit dims move nowhere: with B = 1 and H/w = 1 the same permutation moves
// three groups, [2], [3] and [4, 5].
// CHECK-LABEL: coreai.graph @unit_dims(
// CHECK:         %[[G:.*]] = coreai.reshape %{{.*}} : (tensor<1x1x4x2x4x16xf16>, tensor<3xui32>) -> tensor<4x2x64xf16>
// CHECK:         %[[P:.*]] = coreai.constant dense<[1, 0, 2]> : tensor<3xui32>
// CHECK:         coreai.transpose %[[G]], %[[P]] : (tensor<4x2x64xf16>, tensor<3xui32>) -> tensor<2x4x64xf16>
coreai.graph @unit_dims(%x: tensor<1x1x4x2x4x16xf16>) -> tensor<1x1x2x4x4x16xf16> {
  %perm = coreai.constant dense<[0, 1, 3, 2, 4, 5]> : tensor<6xui32>
  %t = coreai.transpose %x, %perm : (tensor<1x1x4x2x4x16xf16>, tensor<6xui32>) -> tensor<1x1x2x4x4x16xf16>
  coreai.output %t : tensor<1x1x2x4x4x16xf16>
}

// -----

// Declined: six groups move (a full reversal), and rank 5 is the Neural
// Engine's own limit.
// CHECK-LABEL: coreai.graph @declined(
// CHECK:         coreai.transpose %{{.*}} -> tensor<7x6x5x4x3x2xf32>
// CHECK:         coreai.transpose %{{.*}} -> tensor<6x5x4x3x2xf32>
coreai.graph @declined(%x: tensor<2x3x4x5x6x7xf32>, %y: tensor<2x3x4x5x6xf32>) -> (tensor<7x6x5x4x3x2xf32>, tensor<6x5x4x3x2xf32>) {
  %p6 = coreai.constant dense<[5, 4, 3, 2, 1, 0]> : tensor<6xui32>
  %p5 = coreai.constant dense<[4, 3, 2, 1, 0]> : tensor<5xui32>
  %a = coreai.transpose %x, %p6 : (tensor<2x3x4x5x6x7xf32>, tensor<6xui32>) -> tensor<7x6x5x4x3x2xf32>
  %b = coreai.transpose %y, %p5 : (tensor<2x3x4x5x6xf32>, tensor<5xui32>) -> tensor<6x5x4x3x2xf32>
  coreai.output %a, %b : tensor<7x6x5x4x3x2xf32>, tensor<6x5x4x3x2xf32>
}
