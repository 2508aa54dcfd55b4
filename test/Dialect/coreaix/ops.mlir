// RUN: coreai-opt %s | coreai-opt | FileCheck %s --enable-var-scope

// CHECK-LABEL: func.func @view(
// CHECK:         %[[V:.*]] = coreaix.view(%{{.*}}) : (tensor<4xf16, "a">) -> tensor<4xf16, "b">
// CHECK:         return %[[V]]
func.func @view(%x: tensor<4xf16, "a">) -> tensor<4xf16, "b"> {
  %0 = coreaix.view(%x) : (tensor<4xf16, "a">) -> tensor<4xf16, "b">
  return %0 : tensor<4xf16, "b">
}
