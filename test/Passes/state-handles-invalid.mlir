// RUN: coreai-opt %s --split-input-file --verify-diagnostics --pass-pipeline='builtin.module(state-handles)'

// A state passed in but never returned cannot be written back.
// expected-error @+1 {{state-handles: state 'cache' (argument #0) is not returned}}
coreai.graph @lost(%c: tensor<4xf32> {coreai.name = "cache", coreai.state}) -> tensor<4xf32> {
  coreai.output %c : tensor<4xf32>
}

// -----

// A state returned with another type than it came in.
// expected-error @+1 {{state-handles: state 'cache' is passed in as tensor<4xf32> and returned as tensor<4xf16>}}
coreai.graph @retyped(%c: tensor<4xf32> {coreai.name = "cache", coreai.state}) -> (tensor<4xf16> {coreai.name = "cache", coreai.state}) {
  %h = coreai.cast %c : tensor<4xf32> to tensor<4xf16>
  coreai.output %h : tensor<4xf16>
}

// -----

// A state result with no argument of its name.
// expected-error @+1 {{state-handles: state result #0 ('cache') has no state argument of its name}}
coreai.graph @orphan(%x: tensor<4xf32>) -> (tensor<4xf32> {coreai.name = "cache", coreai.state}) {
  coreai.output %x : tensor<4xf32>
}
