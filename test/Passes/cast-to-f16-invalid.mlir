// RUN: coreai-opt %s --split-input-file --verify-diagnostics --pass-pipeline='builtin.module(cast-to-f16)'
// RUN: coreai-opt %s --pass-pipeline='builtin.module(cast-to-f16{keep-f32=mul})' | FileCheck %s
// RUN: not coreai-opt %s --pass-pipeline='builtin.module(cast-to-f16)' -o %t.out.mlir 2>&1 | FileCheck %s --check-prefix=NOOUT
// RUN: not test -e %t.out.mlir

// A constant beyond f16's range (1e5 > 65504) whose user would convert: an
// error at the constant naming the option that keeps the user in f32. With
// keep-f32=mul the multiply and its constant stay f32; the exp converts.
// CHECK-LABEL: coreai.graph @big(
// CHECK:         %[[K:.*]] = coreai.constant dense<[1.000000e+00, 2.000000e+00, 1.000000e+05, 3.000000e+00]> : tensor<4xf32>
// CHECK:         %[[M:.*]] = coreai.decomposable.broadcasting_mul %{{.*}}, %[[K]] : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
// CHECK:         %[[M16:.*]] = coreai.cast %[[M]] : tensor<4xf32> to tensor<4xf16>
// CHECK:         coreai.exp %[[M16]] : tensor<4xf16> -> tensor<4xf16>
// NOOUT: error: cast-to-f16: the constant holds 1e5
coreai.graph @big(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{the constant holds 1e5, outside the f16 range (|x| <= 65504), and its user 'coreai.decomposable.broadcasting_mul' would convert to f16; keep the user in f32 with keep-f32=mul}}
  %k = coreai.constant dense<[1.0, 2.0, 1.0e+05, 3.0]> : tensor<4xf32>
  %m = coreai.decomposable.broadcasting_mul %x, %k : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %e = coreai.exp %m : tensor<4xf32> -> tensor<4xf32>
  coreai.output %e : tensor<4xf32>
}
