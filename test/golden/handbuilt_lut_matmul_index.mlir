// RUN: coreai-opt %s > %t.a && coreai-opt %t.a > %t.b && diff %t.a %t.b
// RUN: grep -v '^//' %s | sed '/^$/d' > %t.golden && sed '/^$/d' %t.a | diff %t.golden -
// hand-built module for `handbuilt_lut_matmul_index`, printed by coreai-core 1.0.0b3.
// Regenerate with tools/coreai-golden/generate.py.

module {
  coreai.graph @main(%arg0: tensor<2x3x4xf32>, %arg1: tensor<2x4x5xf32>, %arg2: tensor<4x4xf32>, %arg3: tensor<3x2xf32>, %arg4: tensor<4x8xui2>, %arg5: tensor<1x1x4x1xf32>, %arg6: tensor<4x8xui2, #coreai.sparse_tensor_encoding<bitmask, numNonZero = 10, posWidth = 1, crdWidth = 1>>, %arg7: tensor<1x1x4x1xf16>, %arg8: tensor<2x3xf32>) -> (tensor<2x3x5xf32>, tensor<3xf32>, tensor<4x8xf32>, tensor<4x8xf16, #coreai.sparse_tensor_encoding<bitmask, numNonZero = 10, posWidth = 1, crdWidth = 1>>, tensor<2x1xui32>) {
    %0 = coreai.batch_matmul %arg0, %arg1 : (tensor<2x3x4xf32>, tensor<2x4x5xf32>) -> tensor<2x3x5xf32>
    %1 = coreai.interpolate_coordinates %arg2, %arg3 {interpolation_mode = #coreai.interpolation_mode<linear>} : (tensor<4x4xf32>, tensor<3x2xf32>) -> tensor<3xf32>
    %2 = coreai.constant dense<0> : tensor<si16>
    %3 = coreai.lut_to_dense %arg4, %arg5, %2 : (tensor<4x8xui2>, tensor<1x1x4x1xf32>, tensor<si16>) -> tensor<4x8xf32>
    %4 = coreai.lut_to_sparse_with_bitmask %arg6, %arg7, %2 : (tensor<4x8xui2, #coreai.sparse_tensor_encoding<bitmask, numNonZero = 10, posWidth = 1, crdWidth = 1>>, tensor<1x1x4x1xf16>, tensor<si16>) -> tensor<4x8xf16, #coreai.sparse_tensor_encoding<bitmask, numNonZero = 10, posWidth = 1, crdWidth = 1>>
    %5 = coreai.constant dense<1> : tensor<si32>
    %6 = coreai.constant dense<0xFF800000> : tensor<f32>
    %7 = coreai.constant dense<0> : tensor<ui32>
    %8 = coreai.reduce_index %arg8, %5, init %6 init_index %7 {
    ^bb0(%arg9: tensor<f32>, %arg10: tensor<f32>, %arg11: tensor<ui32>, %arg12: tensor<ui32>):
      %9 = coreai.greater %arg10, %arg9 : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %10 = coreai.where %9, %arg10, %arg9 : (tensor<i1>, tensor<f32>, tensor<f32>) -> tensor<f32>
      %11 = coreai.where %9, %arg12, %arg11 : (tensor<i1>, tensor<ui32>, tensor<ui32>) -> tensor<ui32>
      coreai.yield %10, %11 : tensor<f32>, tensor<ui32>
    } : (tensor<2x3xf32>, tensor<si32>, tensor<f32>, tensor<ui32>) -> tensor<2x1xui32>
    coreai.output %0, %1, %3, %4, %8 : tensor<2x3x5xf32>, tensor<3xf32>, tensor<4x8xf32>, tensor<4x8xf16, #coreai.sparse_tensor_encoding<bitmask, numNonZero = 10, posWidth = 1, crdWidth = 1>>, tensor<2x1xui32>
  }
}
