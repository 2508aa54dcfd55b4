// RUN: coreai-opt %s --split-input-file --pass-pipeline='builtin.module(target-ane)' | FileCheck %s --enable-var-scope
// RUN: coreai-opt %s --split-input-file --pass-pipeline='builtin.module(target-ane{remarks=true})' -o /dev/null 2>&1 | FileCheck %s --check-prefix=REMARK
// The pipeline of `coreai-compile --target ane` after the pass:
// RUN: coreai-opt %s --split-input-file --pass-pipeline='builtin.module(target-ane,canonicalize,cse,core-optimize)' | FileCheck %s --check-prefix=FOLD

// wav2vec2's first feature convolution: kernel 10, stride 5 along W. The
// input's 400 positions become 5 phases of 80 (channel c·5 + r), the kernel
// 5 phases of 2, and the convolution runs at stride 1.
// CHECK-LABEL: coreai.graph @stride5(
// CHECK-SAME:    %[[X:.*]]: tensor<1x1x1x400xf32>
// CHECK:         %[[XS:.*]] = coreai.reshape %[[X]], %{{.*}} -> tensor<1x1x1x80x5xf32>
// CHECK:         %[[XT:.*]] = coreai.transpose %[[XS]], %{{.*}} -> tensor<1x1x5x1x80xf32>
// CHECK:         %[[XD:.*]] = coreai.reshape %[[XT]], %{{.*}} -> tensor<1x5x1x80xf32>
// CHECK:         %[[WD:.*]] = coreai.reshape %{{.*}} -> tensor<16x5x1x2xf32>
// CHECK:         %[[ONE:.*]] = coreai.constant dense<1> : tensor<2xui32>
// CHECK:         coreai.conv2d %[[XD]], %[[WD]], %[[ONE]], %{{.*}} : (tensor<1x5x1x80xf32>, tensor<16x5x1x2xf32>, tensor<2xui32>, tensor<2xui32>, tensor<ui32>) -> tensor<1x16x1x79xf32>
// REMARK: target-ane: loc({{.*}}): 'coreai.conv2d' stride-space-to-depth: the Neural Engine maps convolution strides of 2s and 3s well
// FOLD-LABEL: coreai.graph @stride5(
// FOLD:         coreai.constant dense<{{.*}}> : tensor<16x5x1x2xf32>
coreai.graph @stride5(%x: tensor<1x1x1x400xf32>) -> tensor<1x16x1x79xf32> {
  %w = coreai.constant dense<2.500000e-01> : tensor<16x1x1x10xf32>
  %s = coreai.constant dense<[1, 5]> : tensor<2xui32>
  %d = coreai.constant dense<1> : tensor<2xui32>
  %g = coreai.constant dense<1> : tensor<ui32>
  %y = coreai.conv2d %x, %w, %s, %d, %g : (tensor<1x1x1x400xf32>, tensor<16x1x1x10xf32>, tensor<2xui32>, tensor<2xui32>, tensor<ui32>) -> tensor<1x16x1x79xf32>
  coreai.output %y : tensor<1x16x1x79xf32>
}

// -----

// Stride 5 along H with 2 groups: the input is first sliced to the
// 5·(3 + 2 - 1) = 20 rows the convolution reads (of 23), the groups'
// channels stay together (c·5 + r), W keeps its stride 2.
// CHECK-LABEL: coreai.graph @grouped_rows(
// CHECK:         coreai.slice %arg0, {{.*}} -> tensor<1x4x20x9xf32>
// CHECK:         coreai.reshape %{{.*}} -> tensor<1x4x4x5x9xf32>
// CHECK:         coreai.transpose %{{.*}} -> tensor<1x4x5x4x9xf32>
// CHECK:         coreai.reshape %{{.*}} -> tensor<1x20x4x9xf32>
// CHECK:         coreai.reshape %{{.*}} -> tensor<6x10x2x3xf32>
// CHECK:         %[[S:.*]] = coreai.constant dense<[1, 2]> : tensor<2xui32>
// CHECK:         coreai.conv2d %{{.*}}, %{{.*}}, %[[S]], %{{.*}} : (tensor<1x20x4x9xf32>, tensor<6x10x2x3xf32>, {{.*}}) -> tensor<1x6x3x4xf32>
// REMARK: stride-space-to-depth
coreai.graph @grouped_rows(%x: tensor<1x4x23x9xf32>, %w: tensor<6x2x10x3xf32>) -> tensor<1x6x3x4xf32> {
  %s = coreai.constant dense<[5, 2]> : tensor<2xui32>
  %d = coreai.constant dense<1> : tensor<2xui32>
  %g = coreai.constant dense<2> : tensor<ui32>
  %y = coreai.conv2d %x, %w, %s, %d, %g : (tensor<1x4x23x9xf32>, tensor<6x2x10x3xf32>, tensor<2xui32>, tensor<2xui32>, tensor<ui32>) -> tensor<1x6x3x4xf32>
  coreai.output %y : tensor<1x6x3x4xf32>
}

// -----

// Declines: strides of 2s and 3s (4, 6), a kernel the stride does not
// divide (7 by 5), a dilation on the strided axis.
// CHECK-LABEL: coreai.graph @keeps(
// CHECK-NOT:     coreai.transpose
// CHECK-COUNT-3: coreai.conv2d %arg
// REMARK-NOT: stride-space-to-depth
coreai.graph @keeps(%x: tensor<1x2x1x64xf32>, %w: tensor<3x2x1x6xf32>, %v: tensor<3x2x1x7xf32>, %u: tensor<3x2x1x5xf32>) -> (tensor<1x3x1x10xf32>, tensor<1x3x1x12xf32>, tensor<1x3x1x12xf32>) {
  %s46 = coreai.constant dense<[4, 6]> : tensor<2xui32>
  %s5 = coreai.constant dense<[1, 5]> : tensor<2xui32>
  %d1 = coreai.constant dense<1> : tensor<2xui32>
  %d2 = coreai.constant dense<[1, 2]> : tensor<2xui32>
  %g = coreai.constant dense<1> : tensor<ui32>
  %a = coreai.conv2d %x, %w, %s46, %d1, %g : (tensor<1x2x1x64xf32>, tensor<3x2x1x6xf32>, tensor<2xui32>, tensor<2xui32>, tensor<ui32>) -> tensor<1x3x1x10xf32>
  %b = coreai.conv2d %x, %v, %s5, %d1, %g : (tensor<1x2x1x64xf32>, tensor<3x2x1x7xf32>, tensor<2xui32>, tensor<2xui32>, tensor<ui32>) -> tensor<1x3x1x12xf32>
  %c = coreai.conv2d %x, %u, %s5, %d2, %g : (tensor<1x2x1x64xf32>, tensor<3x2x1x5xf32>, tensor<2xui32>, tensor<2xui32>, tensor<ui32>) -> tensor<1x3x1x12xf32>
  coreai.output %a, %b, %c : tensor<1x3x1x10xf32>, tensor<1x3x1x12xf32>, tensor<1x3x1x12xf32>
}
