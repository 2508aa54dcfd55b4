// RUN: coreai-opt %s --verify-diagnostics --pass-pipeline='builtin.module(ane-residency)' -o /dev/null 2>&1 | FileCheck %s

// Compressed weights: the constant operands of the decompression ops
// (int4 codes and scales, 4-bit palette indices, a 1-bit sparse mask) are
// the weight's storage, not tensors the Neural Engine computes on; the ops
// themselves produce f16 weights and stay. A mask computed at run time is
// a boolean the Neural Engine does not hold.

// CHECK: ane-residency: 6 of 7 ops Neural-Engine-resident (1 leave it: dtype: 1)

coreai.graph @main(%x: tensor<2x8xf16>, %m: tensor<8x8xui1>) -> (tensor<2x8xf16>, tensor<8x8xf16>) {
  %codes = coreai.constant dense<1> : tensor<8x8xsi4>
  %scale = coreai.constant dense<0.5> : tensor<8x1xf16>
  %zero_point = coreai.constant dense<0> : tensor<8x1xsi4>
  %offset = coreai.constant dense<0.0> : tensor<8x1xf16>
  %w1 = coreai.blockwise_shift_scale %codes, %scale, %zero_point, %offset : (tensor<8x8xsi4>, tensor<8x1xf16>, tensor<8x1xsi4>, tensor<8x1xf16>) -> tensor<8x8xf16>
  %indices = coreai.constant dense<3> : tensor<8x8xui4>
  %lut = coreai.constant dense<0.25> : tensor<1x1x16x1xf16>
  %axis = coreai.constant dense<0> : tensor<si16>
  %w2 = coreai.lut_to_dense %indices, %lut, %axis : (tensor<8x8xui4>, tensor<1x1x16x1xf16>, tensor<si16>) -> tensor<8x8xf16>
  %values = coreai.constant dense<1.0> : tensor<32xf16>
  %mask = coreai.constant dense<[[true, false, true, false, true, false, true, false], [true, false, true, false, true, false, true, false], [true, false, true, false, true, false, true, false], [true, false, true, false, true, false, true, false], [true, false, true, false, true, false, true, false], [true, false, true, false, true, false, true, false], [true, false, true, false, true, false, true, false], [true, false, true, false, true, false, true, false]]> : tensor<8x8xui1>
  %s = coreai.build_sparse_with_bitmask %values, %mask : (tensor<32xf16>, tensor<8x8xui1>) -> tensor<8x8xf16, #coreai.sparse_tensor_encoding<bitmask, numNonZero = 32, posWidth = 1, crdWidth = 1>>
  %w3 = coreai.sparse_with_bitmask_to_dense %s : tensor<8x8xf16, #coreai.sparse_tensor_encoding<bitmask, numNonZero = 32, posWidth = 1, crdWidth = 1>> -> tensor<8x8xf16>
  %a = coreai.add %w1, %w2 : (tensor<8x8xf16>, tensor<8x8xf16>) -> tensor<8x8xf16>
  %y = coreai.batch_matmul %x, %a : (tensor<2x8xf16>, tensor<8x8xf16>) -> tensor<2x8xf16>
  // expected-remark @+1 {{ane-residency: 'coreai.build_sparse_with_bitmask' leaves the Neural Engine: dtype: operand #1 is tensor<8x8xui1> (the Neural Engine computes in f16, int8 and int16 only)}}
  %t = coreai.build_sparse_with_bitmask %values, %m : (tensor<32xf16>, tensor<8x8xui1>) -> tensor<8x8xf16, #coreai.sparse_tensor_encoding<bitmask, numNonZero = 32, posWidth = 1, crdWidth = 1>>
  coreai.output %y, %w3 : tensor<2x8xf16>, tensor<8x8xf16>
}
