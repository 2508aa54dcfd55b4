// RUN: coreai-opt %s --split-input-file --pass-pipeline='builtin.module(sparsify-weights{target-sparsity=0.5 min-elements=0})' | FileCheck %s --check-prefix=HALF
// RUN: coreai-opt %s --split-input-file --pass-pipeline='builtin.module(sparsify-weights{n-m=2:4 min-elements=0})' | FileCheck %s --check-prefix=NM
// RUN: coreai-opt %s --split-input-file --pass-pipeline='builtin.module(sparsify-weights{target-sparsity=0.5 block-size=8 min-elements=0})' 2>&1 | FileCheck %s --check-prefix=DENSE
// RUN: coreai-opt %s --split-input-file --pass-pipeline='builtin.module(sparsify-weights{quantize-dtype=int8 min-elements=0})' | FileCheck %s --check-prefix=INT8
// RUN: coreai-opt %s --split-input-file --pass-pipeline='builtin.module(sparsify-weights{quantize-dtype=uint8 min-elements=0})' | FileCheck %s --check-prefix=UINT8
// RUN: coreai-opt %s --split-input-file --pass-pipeline='builtin.module(sparsify-weights{quantize-dtype=fp8e4m3fn min-elements=0})' | FileCheck %s --check-prefix=FP8
// RUN: coreai-opt %s --split-input-file --pass-pipeline='builtin.module(sparsify-weights{palettize-nbits=1 min-elements=0})' | FileCheck %s --check-prefix=PAL --enable-var-scope
// RUN: coreai-opt %s --split-input-file -o /dev/null --pass-pipeline='builtin.module(sparsify-weights{target-sparsity=0.5 min-elements=0 remarks=true max-error=0.4})' 2>&1 | FileCheck %s --check-prefix=ERROR
// RUN: coreai-opt %s --split-input-file --pass-pipeline='builtin.module(sparsify-weights{target-sparsity=0.5 min-elements=0 remarks=true max-error=0.3})' 2>&1 | FileCheck %s --check-prefix=BOUND

// Values computed by hand. @half: the magnitudes are 1 .. 32; numpy's 50th
// percentile is 16.5 (between the 16th and 17th of 32), so 1 .. 16 go and
// rows 2 and 3 (-17 .. -24, 25 .. 32) stay: 16 values, mask bits 16 .. 31
// set (bytes 00 00 FF FF, after the blob's alignment word 0x10).
// HALF-LABEL: coreai.graph @half
// HALF:      %[[V:.*]] = coreai.constant dense_resource<weight.values> : tensor<16xf32>
// HALF-NEXT: %[[M:.*]] = coreai.constant dense_resource<weight.mask> : tensor<4x8xui1>
// HALF-NEXT: %[[S:.*]] = coreai.build_sparse_with_bitmask %[[V]], %[[M]] : (tensor<16xf32>, tensor<4x8xui1>) -> tensor<4x8xf32, #coreai.sparse_tensor_encoding<bitmask, numNonZero = 16, posWidth = 1, crdWidth = 1>>
// HALF-NEXT: %[[D:.*]] = coreai.sparse_with_bitmask_to_dense %[[S]] : tensor<4x8xf32, #coreai.sparse_tensor_encoding<bitmask, numNonZero = 16, posWidth = 1, crdWidth = 1>> -> tensor<4x8xf32>
// HALF-NEXT: coreai.batch_matmul %{{.*}}, %[[D]]
// HALF:      weight.values: "0x10000000000088C1000090C1{{[0-9A-F]*}}0000F84100000042"
// HALF:      weight.mask: "0x100000000000FFFF"

// The error of @half pruned: sqrt((1² + ... + 16²) / (1² + ... + 32²)) =
// sqrt(1496 / 11440) = 0.36162; over max-error=0.3 the weight stays as it
// was.
// ERROR: sparsify-weights: {{.*}}: [4, 8] f32 kept 16 of 32 (50.0% pruned), relative error 3.616e-1
// BOUND: sparsify-weights: {{.*}}: [4, 8] kept dense: relative error 3.616e-1 > max-error 3e-1
// BOUND-LABEL: coreai.graph @half
// BOUND-NOT: coreai.build_sparse_with_bitmask
// BOUND: coreai.batch_matmul

// n:m 2:4 along the input channels (axis 0 of a matmul's right operand),
// each column in groups of rows 0-3 and 4-7: column 0 keeps rows 2, 3, 6,
// 7 (pruning 1, 2 and 0.5, -0.25); column 1 keeps rows 0, 1, 6, 7
// (pruning 6, -5 and 1, 2). Kept, row-major: -8, 7, -3, 4, 8, -3, 1, 4;
// mask bits 1, 3, 4, 6 and 12 .. 15 (bytes 5A F0).
// NM-LABEL: coreai.graph @n_m
// NM:      %[[V:.*]] = coreai.constant dense_resource<weight.values{{.*}}> : tensor<8xf32>
// NM-NEXT: %[[M:.*]] = coreai.constant dense_resource<weight.mask{{.*}}> : tensor<8x2xui1>
// NM-NEXT: coreai.build_sparse_with_bitmask %[[V]], %[[M]] : (tensor<8xf32>, tensor<8x2xui1>) -> tensor<8x2xf32, #coreai.sparse_tensor_encoding<bitmask, numNonZero = 8, posWidth = 1, crdWidth = 1>>
// NM:      weight.values: "0x10000000000000C10000E040000040C00000804000000041000040C00000803F00008040"
// NM:      weight.mask: "0x100000005AF0"

// Joint with a palette (`palettize-nbits=1`): the 16 kept values of @half
// (-17 .. -24, 25 .. 32) in two clusters, means -20.5 (0xC1A40000) and
// 28.5 (0x41E40000); indices 0 for row 2's, 1 for row 3's, one bit each
// (bytes 00 FF). coreai-opt's form: lut_to_dense of the kept values, then
// the scatter.
// PAL-LABEL: coreai.graph @half
// PAL-DAG:   %[[I:.*]] = coreai.constant dense_resource<[[IDX:weight.indices]]> : tensor<16xui1>
// PAL-DAG:   %[[T:.*]] = coreai.constant dense_resource<[[LUT:weight.palette]]> : tensor<1x2x1xf32>
// PAL-DAG:   %[[A:.*]] = coreai.constant dense<0> : tensor<si16>
// PAL:       %[[V:.*]] = coreai.lut_to_dense %[[I]], %[[T]], %[[A]] : (tensor<16xui1>, tensor<1x2x1xf32>, tensor<si16>) -> tensor<16xf32>
// PAL:       coreai.build_sparse_with_bitmask %[[V]], %{{.*}} : (tensor<16xf32>, tensor<4x8xui1>)
// PAL:       [[IDX]]: "0x1000000000FF"
// PAL:       [[LUT]]: "0x100000000000A4C10000E441"

// Blocks of 8 output channels over a weight of 8: the structure does not
// fit, so the weight stays dense, with a remark saying why.
// DENSE: remark: sparsify-weights: kept dense: block-size=8 is more than half the 8 output channels (axis 1) of the weight [4, 8]
// DENSE-LABEL: coreai.graph @half
// DENSE: coreai.constant dense<{{\[\[}}-1.000000e+00
// DENSE-NOT: build_sparse_with_bitmask

coreai.graph @half(%x: tensor<3x4xf32>) -> tensor<3x8xf32> {
  %w = coreai.constant dense<"0x000080BF000000C0000040C0000080C00000A0C00000C0C00000E0C0000000C10000104100002041000030410000404100005041000060410000704100008041000088C1000090C1000098C10000A0C10000A8C10000B0C10000B8C10000C0C10000C8410000D0410000D8410000E0410000E8410000F0410000F84100000042"> : tensor<4x8xf32>
  %y = coreai.batch_matmul %x, %w : (tensor<3x4xf32>, tensor<4x8xf32>) -> tensor<3x8xf32>
  coreai.output %y : tensor<3x8xf32>
}

// -----

coreai.graph @n_m(%x: tensor<3x8xf32>) -> tensor<3x2xf32> {
  %w = coreai.constant dense<"0x0000803F000000C1000000400000E040000040C00000C040000080400000A0C00000003F0000803F000080BE0000004000000041000040C00000803F00008040"> : tensor<8x2xf32>
  %y = coreai.batch_matmul %x, %w : (tensor<3x8xf32>, tensor<8x2xf32>) -> tensor<3x2xf32>
  coreai.output %y : tensor<3x2xf32>
}

// -----

// Joint with 8-bit codes. Magnitudes 2 4 1 1 0.5 2 0 3: the median is 1.5,
// so 2, -4, 2, 3 stay (mask bits 0, 1, 5, 7: A3). One symmetric scale
// s = (2·4 + 1e-6) / 254 = 0.0314960666 (f32); codes rint(v / s) = 63, -127,
// 63, 95 (v / s = 63.49999, -126.99998, 63.49999, 95.24999).
// int8, coreai-opt's form: the codes scattered, then dequantized (zero
// point 0: a pruned element reads 0).
// INT8-LABEL: coreai.graph @joint
// INT8:      %[[C:.*]] = coreai.constant dense_resource<weight.codes> : tensor<4xsi8>
// INT8-NEXT: %[[M:.*]] = coreai.constant dense_resource<weight.mask> : tensor<4x2xui1>
// INT8-NEXT: %[[S:.*]] = coreai.build_sparse_with_bitmask %[[C]], %[[M]] : (tensor<4xsi8>, tensor<4x2xui1>) -> tensor<4x2xsi8, #coreai.sparse_tensor_encoding<bitmask, numNonZero = 4, posWidth = 1, crdWidth = 1>>
// INT8-NEXT: %[[D:.*]] = coreai.sparse_with_bitmask_to_dense %[[S]] : {{.*}} -> tensor<4x2xsi8>
// INT8-NEXT: %[[SC:.*]] = coreai.constant dense<0.0314960666> : tensor<1x1xf32>
// INT8-NEXT: %[[Z:.*]] = coreai.constant dense<0> : tensor<1x1xsi8>
// INT8-NEXT: %[[O:.*]] = coreai.constant dense<0.000000e+00> : tensor<1x1xf32>
// INT8-NEXT: %[[W:.*]] = coreai.blockwise_shift_scale %[[D]], %[[SC]], %[[Z]], %[[O]] : {{.*}} -> tensor<4x2xf32>
// INT8-NEXT: coreai.batch_matmul %{{.*}}, %[[W]]
// INT8:      weight.codes: "0x100000003F813F5F"
// INT8:      weight.mask: "0x10000000A3"
// uint8 (zero point 127): the kept values dequantized first, then
// scattered as floats, so a pruned element reads 0, not -127·s.
// UINT8-LABEL: coreai.graph @joint
// UINT8:      %[[C:.*]] = coreai.constant dense_resource<weight.codes> : tensor<4xui8>
// UINT8-NEXT: %[[M:.*]] = coreai.constant dense_resource<weight.mask> : tensor<4x2xui1>
// UINT8-NEXT: %[[SC:.*]] = coreai.constant dense<0.0314960666> : tensor<1xf32>
// UINT8-NEXT: %[[Z:.*]] = coreai.constant dense<127> : tensor<1xui8>
// UINT8-NEXT: %[[O:.*]] = coreai.constant dense<0.000000e+00> : tensor<1xf32>
// UINT8-NEXT: %[[V:.*]] = coreai.blockwise_shift_scale %[[C]], %[[SC]], %[[Z]], %[[O]] : {{.*}} -> tensor<4xf32>
// UINT8-NEXT: %[[S:.*]] = coreai.build_sparse_with_bitmask %[[V]], %[[M]] : (tensor<4xf32>, tensor<4x2xui1>)
// UINT8-NEXT: coreai.sparse_with_bitmask_to_dense %[[S]] : {{.*}} -> tensor<4x2xf32>
// UINT8:      weight.codes: "0x10000000BE00BEDE"
// f8E4M3FN, coreai-opt's form like int8 (code 0 is 0): s = (2·4 + 1e-6) /
// (2·448) = 0.00892857275 (f32); v / s = 223.99997, -447.99994, 223.99997,
// 335.99994, rounded to f8E4M3FN: 224 (76), -448 (FE), 224, 320 (7A; 336
// is the tie between 320 and 352, and the quotient is below it).
// FP8-LABEL: coreai.graph @joint
// FP8:      %[[C:.*]] = coreai.constant dense_resource<weight.codes> : tensor<4xf8E4M3FN>
// FP8:      %[[D:.*]] = coreai.sparse_with_bitmask_to_dense %{{.*}} : {{.*}} -> tensor<4x2xf8E4M3FN>
// FP8-NEXT: %[[SC:.*]] = coreai.constant dense<0.00892857275> : tensor<1x1xf32>
// FP8-NEXT: %[[Z:.*]] = coreai.constant dense<0.000000e+00> : tensor<1x1xf8E4M3FN>
// FP8-NEXT: %[[O:.*]] = coreai.constant dense<0.000000e+00> : tensor<1x1xf32>
// FP8-NEXT: coreai.blockwise_shift_scale %[[D]], %[[SC]], %[[Z]], %[[O]] : {{.*}} -> tensor<4x2xf32>
// FP8:      weight.codes: "0x1000000076FE767A"

coreai.graph @joint(%x: tensor<3x4xf32>) -> tensor<3x2xf32> {
  %w = coreai.constant dense<[[2.0, -4.0], [-1.0, 1.0], [0.5, 2.0], [0.0, 3.0]]> : tensor<4x2xf32>
  %y = coreai.batch_matmul %x, %w : (tensor<3x4xf32>, tensor<4x2xf32>) -> tensor<3x2xf32>
  coreai.output %y : tensor<3x2xf32>
}
