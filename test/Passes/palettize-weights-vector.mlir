// RUN: coreai-opt %s --split-input-file --pass-pipeline='builtin.module(palettize-weights{min-elements=0 n-bits=1 cluster-dim=2})' | FileCheck %s --check-prefix=TENSOR --enable-var-scope
// RUN: coreai-opt %s --split-input-file --pass-pipeline='builtin.module(palettize-weights{min-elements=0 n-bits=1 cluster-dim=2 granularity=per-grouped-channel group-size=2})' | FileCheck %s --check-prefix=GROUPED --enable-var-scope
// RUN: coreai-opt %s --split-input-file --pass-pipeline='builtin.module(palettize-weights{min-elements=0 n-bits=4 cluster-dim=2})' | FileCheck %s --check-prefix=FEW --enable-var-scope
// RUN: coreai-opt %s --split-input-file --pass-pipeline='builtin.module(palettize-weights{min-elements=0 n-bits=1 cluster-dim=2 lut-dtype=int8})' | FileCheck %s --check-prefix=INT8 --enable-var-scope
// RUN: coreai-opt %s --split-input-file --pass-pipeline='builtin.module(palettize-weights{min-elements=0 n-bits=1 cluster-dim=2 remarks=true})' -o /dev/null 2>&1 | FileCheck %s --check-prefix=REMARK
// RUN: coreai-opt %s --split-input-file --verify-diagnostics --pass-pipeline='builtin.module(palettize-weights{min-elements=0 cluster-dim=4})'
// RUN: not coreai-opt %s --pass-pipeline='builtin.module(palettize-weights{min-elements=0 cluster-dim=4 granularity=per-grouped-channel group-size=2})' 2>&1 | FileCheck %s --check-prefix=GROUP4
// RUN: not coreai-opt %s --pass-pipeline='builtin.module(palettize-weights{cluster-dim=2 per-channel-scale=true})' 2>&1 | FileCheck %s --check-prefix=SCALE
// RUN: not coreai-opt %s --pass-pipeline='builtin.module(palettize-weights{cluster-dim=0})' 2>&1 | FileCheck %s --check-prefix=ZERO

// Vector palettes: each entry is 2 consecutive elements along the
// output axis, the matmul's y's last axis (1), which is the look-up's
// axis; the indices are [4, 4 / 2]. The vectors, row by row:
//   row 0: (1, 1) (-2, 0)    row 1: (-2, 1) (1, 2)
//   row 2: (2, 1) (-3, 0)    row 3: (2, 2) (-1, -1)
// Two clusters (the best of the 127 two-way partitions, by enumeration):
// {(-2, 0), (-2, 1), (-3, 0), (-1, -1)} → (-2, 0) and
// {(1, 1), (1, 2), (2, 1), (2, 2)} → (1.5, 1.5), sum of squared errors
// 4 + 2 = 6. Entries in lexicographic order: f32 C0000000 00000000,
// 3FC00000 3FC00000. Indices [1, 0, 0, 1, 1, 0, 1, 0], a bit each, low
// bits first: 0b01011001 = 59.
// TENSOR-LABEL: coreai.graph @linear(
// TENSOR-DAG:     %[[I:.*]] = coreai.constant dense_resource<{{weight.indices.*}}> : tensor<4x2xui1>
// TENSOR-DAG:     %[[T:.*]] = coreai.constant dense_resource<{{weight.palettes.*}}> : tensor<1x1x2x2xf32>
// TENSOR-DAG:     %[[A:.*]] = coreai.constant dense<1> : tensor<si16>
// TENSOR:         %[[W:.*]] = coreai.lut_to_dense %[[I]], %[[T]], %[[A]] : (tensor<4x2xui1>, tensor<1x1x2x2xf32>, tensor<si16>) -> tensor<4x4xf32>
// TENSOR:         coreai.batch_matmul %{{.*}}, %[[W]]
// TENSOR:         weight.indices{{.*}}: "0x1000000059"
// TENSOR:         weight.palettes{{.*}}: "0x10000000000000C0000000000000C03F0000C03F"
// Its error relative to the weight: sqrt(6 / Σw²) = sqrt(6 / 40).
// REMARK: [4, 4] f32 to ui1 indices, 1 palette(s) of 2 vectors of 2 along axis 1, relative error 3.873e-1
// TENSOR-LABEL: coreai.graph @wide(
// TENSOR:         coreai.lut_to_dense {{.*}} : (tensor<4x3xui1>, tensor<1x1x2x2xf32>, tensor<si16>) -> tensor<4x6xf32>
// A convolution's output channels are its weight's axis 0: the vectors
// (1, 2) and (3, 4), each its own entry; indices [0, 1]: 02.
// TENSOR-LABEL: coreai.graph @grouped_conv(
// TENSOR-DAG:     %[[CI:.*]] = coreai.constant dense_resource<{{weight.indices.*}}> : tensor<2x1x1x1xui1>
// TENSOR-DAG:     %[[CA:.*]] = coreai.constant dense<0> : tensor<si16>
// TENSOR:         coreai.lut_to_dense %[[CI]], %{{.*}}, %[[CA]] : (tensor<2x1x1x1xui1>, tensor<1x1x1x1x2x2xf32>, tensor<si16>) -> tensor<4x1x1x1xf32>
// TENSOR:         weight.indices{{.*}}: "0x1000000002"
// TENSOR:         weight.palettes{{.*}}: "0x100000000000803F000000400000404000008040"
// One palette per 2 output channels: columns 0-1 hold the vectors (1, 1),
// (-2, 1), (2, 1), (2, 2): {(-2, 1)} and {(1, 1), (2, 1), (2, 2)} →
// (5/3, 4/3), error 4/3; columns 2-3 hold (-2, 0), (1, 2), (-3, 0),
// (-1, -1): {(-2, 0), (-3, 0), (-1, -1)} → (-2, -1/3) and {(1, 2)},
// error 8/3 (both by enumeration). Palettes [[(-2, 1), (5/3, 4/3)],
// [(-2, -1/3), (1, 2)]]; indices [[1, 0], [0, 1], [1, 0], [1, 0]]: 59.
// GROUPED-LABEL: coreai.graph @linear(
// GROUPED:         coreai.lut_to_dense {{.*}} : (tensor<4x2xui1>, tensor<1x2x2x2xf32>, tensor<si16>) -> tensor<4x4xf32>
// GROUPED:         weight.indices{{.*}}: "0x1000000059"
// GROUPED:         weight.palettes{{.*}}: "0x10000000000000C00000803F5555D53FABAAAA3F000000C0ABAAAABE0000803F00000040"
// Eight distinct vectors and 16 entries: each vector its own entry, in
// lexicographic order (-3, 0), (-2, 0), (-2, 1), (-1, -1), (1, 1),
// (1, 2), (2, 1), (2, 2), the rest 0. Indices [4, 1, 2, 5, 6, 0, 7, 3],
// two to a byte, low nibble first: 14 52 06 37.
// FEW-LABEL: coreai.graph @linear(
// FEW:         coreai.lut_to_dense {{.*}} : (tensor<4x2xui4>, tensor<1x1x16x2xf32>, tensor<si16>) -> tensor<4x4xf32>
// FEW:         weight.indices{{.*}}: "0x1000000014520637"
// FEW:         weight.palettes{{.*}}: "0x10000000000040C000000000000000C000000000000000C00000803F000080BF000080BF0000803F0000803F0000803F00000040000000400000803F00000040000000400000000000000000
// Palettes of codes: the two vector entries (-2, 0), (1.5, 1.5) as int8
// codes of one scale, quantize-weights' symmetric per-tensor rule:
// s = (4 + 1e-6) / 254 in f32, codes rint(x / s) = -127, 0, 95, 95.
// INT8-LABEL: coreai.graph @linear(
// INT8:         %[[T:.*]] = coreai.constant dense_resource<{{weight.palettes.*}}> : tensor<1x1x2x2xsi8>
// INT8:         %[[L:.*]] = coreai.lut_to_dense %{{.*}}, %[[T]], %{{.*}} : (tensor<4x2xui1>, tensor<1x1x2x2xsi8>, tensor<si16>) -> tensor<4x4xsi8>
// INT8:         coreai.cast %[[L]] : tensor<4x4xsi8> to tensor<4x4xf32>
// INT8:         coreai.blockwise_shift_scale
// INT8:         weight.palettes{{.*}}: "0x1000000081005F5F"
// Options that do not fit: 4 does not divide groups of 2 output channels.
// GROUP4: cluster-dim=4: 4 does not divide group-size=2 of the weight [4, 4]
// Per-channel scales are for scalar palettes (coreai-opt rejects the pair too).
// SCALE: palettize-weights: cluster-dim=2 with per-channel-scale=true: per-channel scales are for scalar palettes (cluster-dim=1)
// ZERO: '0' is not a positive cluster dimension
coreai.graph @linear(%x: tensor<3x4xf32>) -> tensor<3x4xf32> {
  %w = coreai.constant dense<[[1.0, 1.0, -2.0, 0.0], [-2.0, 1.0, 1.0, 2.0], [2.0, 1.0, -3.0, 0.0], [2.0, 2.0, -1.0, -1.0]]> : tensor<4x4xf32>
  %y = coreai.batch_matmul %x, %w : (tensor<3x4xf32>, tensor<4x4xf32>) -> tensor<3x4xf32>
  coreai.output %y : tensor<3x4xf32>
}

// -----

// 6 output channels: vectors of 4 do not fit them.
coreai.graph @wide(%x: tensor<3x4xf32>) -> tensor<3x6xf32> {
  // expected-error @+1 {{cluster-dim=4: 4 does not divide axis 1 (of size 6) of the weight [4, 6]}}
  %w = coreai.constant dense<[[1.0, 2.0, 3.0, 4.0, 5.0, 6.0], [1.0, 2.0, 3.0, 4.0, 5.0, 6.0], [1.0, 2.0, 3.0, 4.0, 5.0, 6.0], [1.0, 2.0, 3.0, 4.0, 5.0, 6.0]]> : tensor<4x6xf32>
  %y = coreai.batch_matmul %x, %w : (tensor<3x4xf32>, tensor<4x6xf32>) -> tensor<3x6xf32>
  coreai.output %y : tensor<3x6xf32>
}

// -----

// A convolution of 2 groups: 4 output channels, 2 per group; vectors of
// 4 would straddle the groups (coreai-opt's rule).
coreai.graph @grouped_conv(%x: tensor<1x2x3x3xf32>) -> tensor<1x4x3x3xf32> {
  %s = coreai.constant dense<1> : tensor<2xui32>
  %g = coreai.constant dense<2> : tensor<ui32>
  // expected-error @+1 {{cluster-dim=4: 4 does not divide the 2 output channels of each of the 2 groups of the convolution reading the weight [4, 1, 1, 1]}}
  %w = coreai.constant dense<[[[[1.0]]], [[[2.0]]], [[[3.0]]], [[[4.0]]]]> : tensor<4x1x1x1xf32>
  %y = coreai.conv2d %x, %w, %s, %s, %g : (tensor<1x2x3x3xf32>, tensor<4x1x1x1xf32>, tensor<2xui32>, tensor<2xui32>, tensor<ui32>) -> tensor<1x4x3x3xf32>
  coreai.output %y : tensor<1x4x3x3xf32>
}
