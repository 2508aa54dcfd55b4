// RUN: coreai-opt %s --split-input-file --pass-pipeline='builtin.module(palettize-weights{min-elements=0 n-bits=1 per-channel-scale=true})' | FileCheck %s --check-prefix=SCALE --enable-var-scope
// RUN: coreai-opt %s --split-input-file --pass-pipeline='builtin.module(palettize-weights{min-elements=0 n-bits=2 lut-dtype=int8})' | FileCheck %s --check-prefix=INT8 --enable-var-scope
// RUN: coreai-opt %s --split-input-file --pass-pipeline='builtin.module(palettize-weights{min-elements=0 n-bits=1 per-channel-scale=true lut-dtype=uint8})' | FileCheck %s --check-prefix=BOTH --enable-var-scope
// RUN: not coreai-opt %s --pass-pipeline='builtin.module(palettize-weights{lut-dtype=int4})' 2>&1 | FileCheck %s --check-prefix=BAD

// The output channels are the matmul's last axis, so the per-channel
// scales are per row: s = max |row| = [4, 1, 2, 3] (4x1). The rows over s:
// [0.5, -1], [-1, 1], [0.25, 1], [0, 1], each weighing s²: 16, 16, 1, 1,
// 4, 4, 9, 9. Two clusters, the error of the weight itself least:
// {-1 (16 + 1)} and {0 (9), 0.25 (4), 0.5 (16), 1 (1 + 4 + 9)}, whose
// weighted mean is 23/43 (0x3F08EE24); {-1, 0} | {0.25, 0.5, 1} costs 8.58
// against 5.95. Unweighted, the second palette entry would be 0.625.
// Indices [1, 0], [0, 1], [1, 1], [1, 1]: bits 1 0 0 1 1 1 1 1 → F9.
// SCALE-LABEL: coreai.graph @linear(
// SCALE-DAG:     %[[I:.*]] = coreai.constant dense_resource<{{weight.indices.*}}> : tensor<4x2xui1>
// SCALE-DAG:     %[[T:.*]] = coreai.constant dense_resource<{{weight.palettes.*}}> : tensor<1x1x2x1xf32>
// SCALE-DAG:     %[[A:.*]] = coreai.constant dense<0> : tensor<si16>
// SCALE:         %[[L:.*]] = coreai.lut_to_dense %[[I]], %[[T]], %[[A]] : (tensor<4x2xui1>, tensor<1x1x2x1xf32>, tensor<si16>) -> tensor<4x2xf32>
// SCALE-DAG:     %[[S:.*]] = coreai.constant dense_resource<{{weight.scales.*}}> : tensor<4x1xf32>
// SCALE-DAG:     %[[Z:.*]] = coreai.constant dense<0.000000e+00> : tensor<4x1xf32>
// SCALE-DAG:     %[[Z2:.*]] = coreai.constant dense<0.000000e+00> : tensor<4x1xf32>
// SCALE:         %[[W:.*]] = coreai.blockwise_shift_scale %[[L]], %[[S]], %[[Z]], %[[Z2]] : (tensor<4x2xf32>, tensor<4x1xf32>, tensor<4x1xf32>, tensor<4x1xf32>) -> tensor<4x2xf32>
// SCALE:         coreai.batch_matmul %{{.*}}, %[[W]]
// SCALE:         weight.indices{{.*}}: "0x10000000F9"
// SCALE:         weight.palettes{{.*}}: "0x10000000000080BF24EE083F"
// SCALE:         weight.scales{{.*}}: "0x10000000000080400000803F0000004000004040"
// The palette of palettize-weights.mlir (-4, -1, 0.5, 7/3) as int8 codes,
// quantize-weights' symmetric per-tensor rule: s = (8 + 1e-6) / 254 in f32
// (0x3D010205), codes rint(lut / s) = -127, -32, 16, 74.
// INT8-LABEL: coreai.graph @linear(
// INT8:         %[[T:.*]] = coreai.constant dense_resource<{{weight.palettes.*}}> : tensor<1x1x4x1xsi8>
// INT8:         %[[L:.*]] = coreai.lut_to_dense %{{.*}}, %[[T]], %{{.*}} : (tensor<4x2xui2>, tensor<1x1x4x1xsi8>, tensor<si16>) -> tensor<4x2xsi8>
// INT8:         %[[F:.*]] = coreai.cast %[[L]] : tensor<4x2xsi8> to tensor<4x2xf32>
// INT8:         %[[S:.*]] = coreai.constant dense<0.0314960666> : tensor<1x1xf32>
// INT8:         %[[Z:.*]] = coreai.constant dense<0.000000e+00> : tensor<1x1xf32>
// INT8:         %[[Z2:.*]] = coreai.constant dense<0.000000e+00> : tensor<1x1xf32>
// INT8:         %[[W:.*]] = coreai.blockwise_shift_scale %[[F]], %[[S]], %[[Z]], %[[Z2]] :
// INT8:         coreai.batch_matmul %{{.*}}, %[[W]]
// INT8:         weight.indices{{.*}}: "0x1000000093EE"
// INT8:         weight.palettes{{.*}}: "0x1000000081E0104A"
// Both: the palette [-1, 23/43] as uint8 codes (symmetric: 0..254 about
// 127, s = (2 + 1e-6) / 254), codes rint(x / s) + 127 = 0, 195; the
// scales are s times the per-channel ones.
// BOTH-LABEL: coreai.graph @linear(
// BOTH:         %[[T:.*]] = coreai.constant dense_resource<{{weight.palettes.*}}> : tensor<1x1x2x1xui8>
// BOTH:         %[[L:.*]] = coreai.lut_to_dense %{{.*}}, %[[T]], %{{.*}} : (tensor<4x2xui1>, tensor<1x1x2x1xui8>, tensor<si16>) -> tensor<4x2xui8>
// BOTH:         %[[F:.*]] = coreai.cast %[[L]] : tensor<4x2xui8> to tensor<4x2xf32>
// BOTH:         %[[S:.*]] = coreai.constant dense_resource<{{weight.scales.*}}> : tensor<4x1xf32>
// BOTH:         %[[Z:.*]] = coreai.constant dense<1.270000e+02> : tensor<4x1xf32>
// BOTH:         coreai.blockwise_shift_scale %[[F]], %[[S]], %[[Z]], %{{.*}} :
// BOTH:         weight.palettes{{.*}}: "0x1000000000C3"
// BOTH:         weight.scales{{.*}}: "0x100000000802013D0802013C0802813C0C83C13C"
// BAD: 'int4' is not one of int8, uint8, fp8e4m3fn, fp8e5m2
coreai.graph @linear(%x: tensor<3x4xf32>) -> tensor<3x2xf32> {
  %w = coreai.constant dense<[[2.0, -4.0], [-1.0, 1.0], [0.5, 2.0], [0.0, 3.0]]> : tensor<4x2xf32>
  %y = coreai.batch_matmul %x, %w : (tensor<3x4xf32>, tensor<4x2xf32>) -> tensor<3x2xf32>
  coreai.output %y : tensor<3x2xf32>
}
