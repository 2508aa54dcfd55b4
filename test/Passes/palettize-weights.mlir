// RUN: coreai-opt %s --split-input-file --pass-pipeline='builtin.module(palettize-weights{min-elements=0 n-bits=2})' | FileCheck %s --check-prefix=TWO --enable-var-scope
// RUN: coreai-opt %s --split-input-file --pass-pipeline='builtin.module(palettize-weights{min-elements=0 n-bits=1 granularity=per-grouped-channel group-size=1})' | FileCheck %s --check-prefix=GROUPED --enable-var-scope
// RUN: coreai-opt %s --split-input-file --pass-pipeline='builtin.module(palettize-weights{min-elements=0 n-bits=4})' | FileCheck %s --check-prefix=FEW --enable-var-scope

// The weight's values, sorted: -4, -1, 0, 0.5, 1, 2, 2, 3. The best 4 runs
// (sum of squared errors 1.1667, checked against every partition):
// {-4}, {-1}, {0, 0.5, 1} → 0.5, {2, 2, 3} → 2.3333; f32 palette
// C0800000 BF800000 3F000000 40155555. Indices, row-major
// [3, 0, 1, 2, 2, 3, 2, 3], packed four to a byte, low bits first: 93 EE.
// TWO-LABEL: coreai.graph @linear(
// TWO-DAG:     %[[I:.*]] = coreai.constant dense_resource<{{weight.indices.*}}> : tensor<4x2xui2>
// TWO-DAG:     %[[T:.*]] = coreai.constant dense_resource<{{weight.palettes.*}}> : tensor<1x1x4x1xf32>
// TWO-DAG:     %[[A:.*]] = coreai.constant dense<0> : tensor<si16>
// TWO:         %[[W:.*]] = coreai.lut_to_dense %[[I]], %[[T]], %[[A]] : (tensor<4x2xui2>, tensor<1x1x4x1xf32>, tensor<si16>) -> tensor<4x2xf32>
// TWO:         coreai.batch_matmul %{{.*}}, %[[W]]
// TWO:         weight.indices{{.*}}: "0x1000000093EE"
// TWO:         weight.palettes{{.*}}: "0x10000000000080C0000080BF0000003F55551540"
// One palette of 2 per output channel (the matmul's y: its last axis):
// column 0 [2, -1, 0.5, 0] → {-1, 0, 0.5} → -1/6, {2}; column 1
// [-4, 1, 2, 3] → {-4}, {1, 2, 3} → 2. Palettes [[-1/6, 2], [-4, 2]],
// indices [[1, 0], [0, 1], [0, 1], [0, 1]]: bits 1 0 0 1 0 1 0 1 → A9.
// GROUPED-LABEL: coreai.graph @linear(
// GROUPED:       coreai.lut_to_dense {{.*}} : (tensor<4x2xui1>, tensor<1x2x2x1xf32>, tensor<si16>) -> tensor<4x2xf32>
// GROUPED:       weight.indices{{.*}}: "0x10000000A9"
// GROUPED:       weight.palettes{{.*}}: "0x10000000ABAA2ABE00000040000080C000000040"
// Seven distinct values and 16 entries: each value its own entry, the
// rest 0 (-4, -1, 0, 0.5, 1, 2, 3).
// FEW:           coreai.lut_to_dense {{.*}} : (tensor<4x2xui4>, tensor<1x1x16x1xf32>, tensor<si16>) -> tensor<4x2xf32>
// FEW:           weight.palettes{{.*}}: "0x10000000000080C0000080BF000000000000003F0000803F000000400000404000000000
coreai.graph @linear(%x: tensor<3x4xf32>) -> tensor<3x2xf32> {
  %w = coreai.constant dense<[[2.0, -4.0], [-1.0, 1.0], [0.5, 2.0], [0.0, 3.0]]> : tensor<4x2xf32>
  %y = coreai.batch_matmul %x, %w : (tensor<3x4xf32>, tensor<4x2xf32>) -> tensor<3x2xf32>
  coreai.output %y : tensor<3x2xf32>
}
