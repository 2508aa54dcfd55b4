// RUN: coreai-opt %s --pass-pipeline='builtin.module(quantize-weights{min-elements=0 dtype=fp8e4m3fn})' | FileCheck %s --check-prefix=FP8 --enable-var-scope
// RUN: not coreai-opt %s --pass-pipeline='builtin.module(quantize-weights{dtype=fp4e2m1fn})' 2>&1 | FileCheck %s --check-prefix=MXBLOCK
// RUN: not coreai-opt %s --pass-pipeline='builtin.module(quantize-weights{dtype=fp4e2m1fn granularity=per-block block-size=16})' 2>&1 | FileCheck %s --check-prefix=MXBLOCK16
// RUN: not coreai-opt %s --pass-pipeline='builtin.module(quantize-weights{dtype=fp8e5m2 qscheme=asymmetric})' 2>&1 | FileCheck %s --check-prefix=ASYM
// RUN: not coreai-opt %s --pass-pipeline='builtin.module(quantize-weights{dtype=int8 scale-dtype=fp8e8m0fnu})' 2>&1 | FileCheck %s --check-prefix=INTSCALE
// RUN: not coreai-opt %s --pass-pipeline='builtin.module(quantize-weights{dtype=fp8e4m3fn scale-dtype=f16})' 2>&1 | FileCheck %s --check-prefix=SCALEDTYPE

// MXBLOCK: error: quantize-weights: dtype=fp4e2m1fn is MXFP4, which takes granularity=per-block block-size=32 (not granularity=per-channel)
// MXBLOCK16: error: quantize-weights: dtype=fp4e2m1fn is MXFP4, which takes granularity=per-block block-size=32 (not granularity=per-block block-size=16)
// ASYM: error: quantize-weights: qscheme=asymmetric: float codes are symmetric (their zero point is 0)
// INTSCALE: error: quantize-weights: scale-dtype=fp8e8m0fnu is for float codes
// SCALEDTYPE: 'f16' is not fp8e8m0fnu

// f8E4M3FN codes with f32 scales, one per output channel (the matmul's
// columns), coreai-opt's formula: s = (2m + 1e-6) / 896 in f32, codes
// RNE(clip(w / s, ±448)):
//   column 0, m = 2: s = 0x3B924927; w / s = [447.99988, -223.99994, 111.99997, 0]
//     → 448 (7E), -224 (F6), 112 (6E), 0 (00);
//   column 1, m = 4: s = 0x3C124926; w / s = [-447.99994, 111.999985, 223.99997, 335.99994]
//     → -448 (FE), 112 (6E), 224 (76), 320 (7A: 335.99994 is just below
//     336, halfway between 320 and 352).
// Row-major bytes: 7E FE F6 6E 6E 76 00 7A.
// FP8-LABEL: coreai.graph @linear(
// FP8-DAG:     %[[Q:.*]] = coreai.constant dense_resource<[[CODES:weight.codes.*]]> : tensor<4x2xf8E4M3FN>
// FP8-DAG:     %[[S:.*]] = coreai.constant dense_resource<[[SCALES:weight.scales.*]]> : tensor<1x2xf32>
// FP8-DAG:     %[[Z:.*]] = coreai.constant dense<0.000000e+00> : tensor<1x2xf8E4M3FN>
// FP8-DAG:     %[[O:.*]] = coreai.constant dense<0.000000e+00> : tensor<1x2xf32>
// FP8:         %[[W:.*]] = coreai.blockwise_shift_scale %[[Q]], %[[S]], %[[Z]], %[[O]] : (tensor<4x2xf8E4M3FN>, tensor<1x2xf32>, tensor<1x2xf8E4M3FN>, tensor<1x2xf32>) -> tensor<4x2xf32>
// FP8:         coreai.batch_matmul %{{.*}}, %[[W]]
// FP8:         [[CODES]]: "0x100000007EFEF66E6E76007A"
// FP8:         [[SCALES]]: "0x100000002749923B2649123C"
coreai.graph @linear(%x: tensor<3x4xf32>) -> tensor<3x2xf32> {
  %w = coreai.constant dense<[[2.0, -4.0], [-1.0, 1.0], [0.5, 2.0], [0.0, 3.0]]> : tensor<4x2xf32>
  %y = coreai.batch_matmul %x, %w : (tensor<3x4xf32>, tensor<4x2xf32>) -> tensor<3x2xf32>
  coreai.output %y : tensor<3x2xf32>
}
