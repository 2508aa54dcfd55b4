// RUN: coreai-opt %s --split-input-file --pass-pipeline='builtin.module(quantize-weights{min-elements=0})' | FileCheck %s --check-prefix=INT8 --enable-var-scope
// RUN: coreai-opt %s --split-input-file --pass-pipeline='builtin.module(quantize-weights{min-elements=0 dtype=int4 granularity=per-tensor})' | FileCheck %s --check-prefix=INT4 --enable-var-scope
// RUN: coreai-opt %s --split-input-file --pass-pipeline='builtin.module(quantize-weights{min-elements=0 dtype=uint4 qscheme=asymmetric granularity=per-block block-size=2})' | FileCheck %s --check-prefix=UINT4 --enable-var-scope
// RUN: coreai-opt %s --split-input-file --pass-pipeline='builtin.module(quantize-weights)' | FileCheck %s --check-prefix=DEFAULT
// RUN: coreai-opt %s --split-input-file --pass-pipeline='builtin.module(quantize-weights{min-elements=0 dtype=int4 granularity=per-tensor max-error=0.08 remarks=true})' 2>&1 | FileCheck %s --check-prefix=BOUND8
// RUN: coreai-opt %s --split-input-file --pass-pipeline='builtin.module(quantize-weights{min-elements=0 dtype=int4 granularity=per-tensor max-error=0.081})' | FileCheck %s --check-prefix=BOUND81
// RUN: coreai-opt %s --split-input-file --pass-pipeline='builtin.module(quantize-weights{min-elements=0 exclude=keep})' | FileCheck %s --check-prefix=EXCLUDE

// The `y` operand of a matmul: output channels on its last axis (one scale
// per column), input channels on the one before. Codes by hand:
//   column 0 = [2, -1, 0.5, 0]: m = 2, s = (4 + 1e-6) / 254 = 0.0157480... (f32
//     0x3C810206); w / s = [126.99997, -63.49998, 31.74999, 0] → [127, -63, 32, 0];
//   column 1 = [-4, 1, 2, 3]: m = 4, s = (8 + 1e-6) / 254 (0x3D010205);
//     w / s = [-126.99998, 31.74999, 63.49998, 95.24998] → [-127, 32, 63, 95].
// Row-major si8 bytes: 7F 81 C1 20 20 3F 00 5F.
// int4, one scale: m = 4, s = (8 + 1e-6) / 14 (0x3F124926); codes
//   [3, -7, -2, 2, 1, 3, 0, 5], packed two to a byte, low nibble first:
//   93 2E 31 50.
// INT8-LABEL: coreai.graph @linear(
// INT8-DAG:     %[[Q:.*]] = coreai.constant dense_resource<[[CODES:weight.codes.*]]> : tensor<4x2xsi8>
// INT8-DAG:     %[[S:.*]] = coreai.constant dense_resource<[[SCALES:weight.scales.*]]> : tensor<1x2xf32>
// INT8-DAG:     %[[Z:.*]] = coreai.constant dense<0> : tensor<1x2xsi8>
// INT8-DAG:     %[[O:.*]] = coreai.constant dense<0.000000e+00> : tensor<1x2xf32>
// INT8:         %[[W:.*]] = coreai.blockwise_shift_scale %[[Q]], %[[S]], %[[Z]], %[[O]] : (tensor<4x2xsi8>, tensor<1x2xf32>, tensor<1x2xsi8>, tensor<1x2xf32>) -> tensor<4x2xf32>
// INT8:         coreai.batch_matmul %{{.*}}, %[[W]]
// INT8:         [[CODES]]: "0x100000007F81C120203F005F"
// INT8:         [[SCALES]]: "0x100000000602813C0502013D"
// INT4-LABEL: coreai.graph @linear(
// INT4:         coreai.blockwise_shift_scale {{.*}} : (tensor<4x2xsi4>, tensor<1x1xf32>, tensor<1x1xsi4>, tensor<1x1xf32>) -> tensor<4x2xf32>
// INT4:         weight.codes{{.*}}: "0x10000000932E3150"
// INT4:         weight.scales{{.*}}: "0x100000002649123F"
// UINT4 (blocks of 2 input channels in each column; asymmetric: vmin = min(0, min w),
// vmax = max(0, max w), s = (vmax - vmin + 1e-6) / 15, z = rint((0·vmax - 15·vmin) / (vmax - vmin + 1e-6))):
//   column 0, rows 0-1 [2, -1]: z = rint(15 / 3.000001) = 5, codes rint(w / s) + z = [10 + 5, -5 + 5] = [15, 0];
//   column 0, rows 2-3 [0.5, 0]: z = 0, codes [15, 0];
//   column 1, rows 0-1 [-4, 1]: z = rint(60 / 5.000001) = 12, codes [-12 + 12, 3 + 12] = [0, 15];
//   column 1, rows 2-3 [2, 3]: z = 0, codes [10, 15].
// Zero points [[5, 12], [0, 0]] packed: C5 00; codes [[15, 0], [0, 15], [15, 10], [0, 15]]: 0F F0 AF F0.
// UINT4-LABEL: coreai.graph @linear(
// UINT4:         coreai.blockwise_shift_scale {{.*}} : (tensor<4x2xui4>, tensor<2x2xf32>, tensor<2x2xui4>, tensor<2x2xf32>) -> tensor<4x2xf32>
// UINT4:         weight.codes{{.*}}: "0x100000000FF0AFF0"
// UINT4:         weight.zero_points{{.*}}: "0x10000000C500"
// max-error: the int4 codes above dequantize to s·[3, -7, -2, 2, 1, 3, 0, 5]
// = [1.714, -4, -1.143, 1.143, 0.571, 1.714, 0, 2.857]; ‖w - w'‖² = 0.2296,
// ‖w‖² = 35.25: a relative error of 0.0807. Bound 0.08 keeps the weight
// dense (and says so), 0.081 quantizes it.
// BOUND8: quantize-weights: loc({{.*}}): [4, 2] kept dense: relative error 8.070e-2 > max-error 8e-2
// BOUND8-LABEL: coreai.graph @linear(
// BOUND8-NOT:   blockwise_shift_scale
// BOUND8:       coreai.constant dense<{{\[\[}}2.000000e+00, -4.000000e+00]
// BOUND81-LABEL: coreai.graph @linear(
// BOUND81:       blockwise_shift_scale
// DEFAULT-LABEL: coreai.graph @linear(
// DEFAULT-NOT:   blockwise_shift_scale
coreai.graph @linear(%x: tensor<3x4xf32>) -> tensor<3x2xf32> {
  %w = coreai.constant dense<[[2.0, -4.0], [-1.0, 1.0], [0.5, 2.0], [0.0, 3.0]]> : tensor<4x2xf32>
  %y = coreai.batch_matmul %x, %w : (tensor<3x4xf32>, tensor<4x2xf32>) -> tensor<3x2xf32>
  coreai.output %y : tensor<3x2xf32>
}

// -----

// A weight any other op reads stays (Apple's candidates); so does one
// `exclude=` names by location.
// INT8-LABEL: coreai.graph @other_uses(
// INT8-NOT:     blockwise_shift_scale
// INT8-LABEL: coreai.graph @excluded(
// INT8:         blockwise_shift_scale
// EXCLUDE-LABEL: coreai.graph @excluded(
// EXCLUDE-NOT:   blockwise_shift_scale
// EXCLUDE:       coreai.output
coreai.graph @other_uses(%x: tensor<4x2xf32>) -> tensor<4x2xf32> {
  %w = coreai.constant dense<[[2.0, -4.0], [-1.0, 1.0], [0.5, 2.0], [0.0, 3.0]]> : tensor<4x2xf32>
  %y = coreai.add %x, %w : (tensor<4x2xf32>, tensor<4x2xf32>) -> tensor<4x2xf32>
  coreai.output %y : tensor<4x2xf32>
}
coreai.graph @excluded(%x: tensor<3x4xf32>) -> tensor<3x2xf32> {
  %w = coreai.constant dense<[[2.0, -4.0], [-1.0, 1.0], [0.5, 2.0], [0.0, 3.0]]> : tensor<4x2xf32> loc("keep_me")
  %y = coreai.batch_matmul %x, %w : (tensor<3x4xf32>, tensor<4x2xf32>) -> tensor<3x2xf32>
  coreai.output %y : tensor<3x2xf32>
}
