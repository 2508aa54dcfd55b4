// RUN: coreai-opt %s > %t.a && coreai-opt %t.a > %t.b && diff %t.a %t.b
// RUN: grep -v '^//' %s | sed '/^$/d' > %t.golden && sed '/^$/d' %t.a | diff %t.golden -
// coreai-torch 0.4.3 output for `state_handle`, printed by coreai-core 1.0.0b3.
// Regenerate with tools/coreai-golden/generate.py.

module {
  coreai.graph @main(%arg0: !coreai.handle<tensor<3xf32>> {MutableBuffers.buffer_mutation = "b_s", coreai.name = "b_s"}, %arg1: tensor<3xf32> {coreai.name = "x"}) -> (!coreai.token {coreai.name = "b_s"}, tensor<3xf32> {coreai.name = "mul"}) attributes {__coreai_pure__} {
    %0 = coreai.constant dense<2.000000e+00> : tensor<f32>
    %1 = coreai.create_token : !coreai.token
    %output, %out_token = coreai.read_handle %arg0, %1 : (<tensor<3xf32>>, !coreai.token) -> (tensor<3xf32>, !coreai.token)
    %2 = coreai.decomposable.broadcasting_add %output, %arg1 : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
    %3 = coreai.write_handle %arg0, %2, %out_token : (<tensor<3xf32>>, tensor<3xf32>, !coreai.token) -> !coreai.token
    %output_0, %out_token_1 = coreai.read_handle %arg0, %3 : (<tensor<3xf32>>, !coreai.token) -> (tensor<3xf32>, !coreai.token)
    %4 = coreai.decomposable.broadcasting_mul %output_0, %0 : (tensor<3xf32>, tensor<f32>) -> tensor<3xf32>
    coreai.output %out_token_1, %4 : !coreai.token, tensor<3xf32>
  }
}
