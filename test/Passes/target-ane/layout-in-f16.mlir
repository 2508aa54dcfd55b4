// RUN: coreai-opt %s --split-input-file --pass-pipeline='builtin.module(target-ane)' | FileCheck %s --enable-var-scope
// RUN: coreai-opt %s --split-input-file --pass-pipeline='builtin.module(target-ane{remarks=true})' -o /dev/null 2>&1 | FileCheck %s --check-prefix=REMARK

// layout-in-f16: a reshape after a widening cast runs before it, on f16;
// a narrowing cast of a transpose runs before the transpose. The casts stay.

// CHECK-LABEL: coreai.graph @output(
// CHECK-SAME:    %[[X:.*]]: tensor<1x1x8x4xf16>
// CHECK:         %[[R:.*]] = coreai.reshape %[[X]], %{{.*}} : (tensor<1x1x8x4xf16>, tensor<2xui32>) -> tensor<8x4xf16>
// CHECK-NEXT:    %[[C:.*]] = coreai.cast %[[R]] : tensor<8x4xf16> to tensor<8x4xf32>
// CHECK-NEXT:    coreai.output %[[C]]
// REMARK: 'coreai.reshape' layout-in-f16: data movement next to an f16/f32 cast
coreai.graph @output(%x: tensor<1x1x8x4xf16>) -> tensor<8x4xf32> {
  %s = coreai.constant dense<[8, 4]> : tensor<2xui32>
  %c = coreai.cast %x : tensor<1x1x8x4xf16> to tensor<1x1x8x4xf32>
  %r = coreai.reshape %c, %s : (tensor<1x1x8x4xf32>, tensor<2xui32>) -> tensor<8x4xf32>
  coreai.output %r : tensor<8x4xf32>
}

// -----

// CHECK-LABEL: coreai.graph @input(
// CHECK-SAME:    %[[X:.*]]: tensor<2x3xf32>
// CHECK:         %[[C:.*]] = coreai.cast %[[X]] : tensor<2x3xf32> to tensor<2x3xf16>
// CHECK-NEXT:    %[[T:.*]] = coreai.transpose %[[C]], %{{.*}} : (tensor<2x3xf16>, tensor<2xui32>) -> tensor<3x2xf16>
// CHECK-NEXT:    coreai.output %[[T]]
// REMARK: 'coreai.cast' layout-in-f16: data movement next to an f16/f32 cast
coreai.graph @input(%x: tensor<2x3xf32>) -> tensor<3x2xf16> {
  %p = coreai.constant dense<[1, 0]> : tensor<2xui32>
  %t = coreai.transpose %x, %p : (tensor<2x3xf32>, tensor<2xui32>) -> tensor<3x2xf32>
  %c = coreai.cast %t : tensor<3x2xf32> to tensor<3x2xf16>
  coreai.output %c : tensor<3x2xf16>
}

// -----

// A widening cast with another user stays where it is.
// CHECK-LABEL: coreai.graph @shared(
// CHECK:         %[[C:.*]] = coreai.cast %{{.*}} : tensor<2x3xf16> to tensor<2x3xf32>
// CHECK-NEXT:    coreai.reshape %[[C]]
coreai.graph @shared(%x: tensor<2x3xf16>) -> (tensor<6xf32>, tensor<2x3xf32>) {
  %s = coreai.constant dense<6> : tensor<1xui32>
  %c = coreai.cast %x : tensor<2x3xf16> to tensor<2x3xf32>
  %r = coreai.reshape %c, %s : (tensor<2x3xf32>, tensor<1xui32>) -> tensor<6xf32>
  coreai.output %r, %c : tensor<6xf32>, tensor<2x3xf32>
}
