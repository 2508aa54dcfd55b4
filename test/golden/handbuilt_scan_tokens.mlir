// RUN: coreai-opt %s > %t.a && coreai-opt %t.a > %t.b && diff %t.a %t.b
// RUN: grep -v '^//' %s | sed '/^$/d' > %t.golden && sed '/^$/d' %t.a | diff %t.golden -
// hand-built module for `handbuilt_scan_tokens`, printed by coreai-core 1.0.0b3.
// Regenerate with tools/coreai-golden/generate.py.

module {
  coreai.graph @main(%arg0: tensor<3x4xf32>, %arg1: !coreai.handle<tensor<3x4xf32>>) -> (tensor<3x4xf32>, tensor<3x4xf32>, !coreai.token) {
    %0 = coreai.constant dense<1> : tensor<ui32>
    %1 = coreai.constant dense<true> : tensor<i1>
    %2 = coreai.scan %arg0, %0, %1 combiner = <max> : (tensor<3x4xf32>, tensor<ui32>, tensor<i1>) -> tensor<3x4xf32>
    %3 = coreai.scan %arg0, %0, %1 combiner = <product> : (tensor<3x4xf32>, tensor<ui32>, tensor<i1>) -> tensor<3x4xf32>
    %4 = coreai.create_token : !coreai.token
    %5 = coreai.write_handle %arg1, %2, %4 : (<tensor<3x4xf32>>, tensor<3x4xf32>, !coreai.token) -> !coreai.token
    %6 = coreai.join_token %4, %5 : (!coreai.token, !coreai.token) -> !coreai.token
    coreai.output %2, %3, %6 : tensor<3x4xf32>, tensor<3x4xf32>, !coreai.token
  }
}
