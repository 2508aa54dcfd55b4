// RUN: coreai-opt %s --pass-pipeline='builtin.module(quantize-weights{min-elements=0 dtype=fp4e2m1fn granularity=per-block block-size=32})' | FileCheck %s --check-prefix=MXFP4

// Four-bit floats with one power-of-two scale per 32 input channels. The column is
// [6.5, 0.6, -0.6, 0.6, 0 × 28]: m = 6.5, E = ⌈log2(6.5 / 6)⌉ = 1.
//   e = 1: w / 2 = [3.25, 0.3, -0.3, 0.3] → [3, 0.5, -0.5, 0.5], error²
//     0.25 + 3 × 0.16 = 0.73;
//   e = 0: w clipped to 6 → [6, 0.5, -0.5, 0.5], error² 0.25 + 3 × 0.01 = 0.28:
//     the smaller, so e = 0 (f8E8M0FNU code 127 = 0x7F).
// E2M1 codes 7 (6), 1 (0.5), 9 (-0.5), 1, then zeros, packed low nibble
// first: 17 19 00 × 14.
// MXFP4-LABEL: coreai.graph @column(
// MXFP4:         coreai.blockwise_shift_scale {{.*}} : (tensor<32x1xf4E2M1FN>, tensor<1x1xf8E8M0FNU>, tensor<1x1xf4E2M1FN>, tensor<1x1xf32>) -> tensor<32x1xf32>
// MXFP4:         weight.codes{{.*}}: "0x1000000017190000000000000000000000000000"
// MXFP4:         weight.scales{{.*}}: "0x100000007F"
coreai.graph @column(%x: tensor<1x32xf32>) -> tensor<1x1xf32> {
  %w = coreai.constant dense<[[6.5], [0.6], [-0.6], [0.6], [0.0], [0.0], [0.0], [0.0], [0.0], [0.0], [0.0], [0.0], [0.0], [0.0], [0.0], [0.0], [0.0], [0.0], [0.0], [0.0], [0.0], [0.0], [0.0], [0.0], [0.0], [0.0], [0.0], [0.0], [0.0], [0.0], [0.0], [0.0]]> : tensor<32x1xf32>
  %y = coreai.batch_matmul %x, %w : (tensor<1x32xf32>, tensor<32x1xf32>) -> tensor<1x1xf32>
  coreai.output %y : tensor<1x1xf32>
}
