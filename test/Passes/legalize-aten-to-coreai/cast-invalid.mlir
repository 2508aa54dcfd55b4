// RUN: coreai-opt %s --split-input-file --verify-diagnostics --pass-pipeline='builtin.module(legalize-aten-to-coreai)'

func.func @sparse_layout(%x: tensor<4xf32>) -> tensor<4xf16> {
  // expected-error @below {{cannot lower 'aten::_to_copy.default': the layout 'sparse_coo' has no coreai equivalent; only strided tensors convert}}
  %0 = aten._to_copy.default %x {dtype = f16, layout = "sparse_coo", non_blocking = false} : (tensor<4xf32>) -> tensor<4xf16>
  return %0 : tensor<4xf16>
}

// -----

func.func @wrap_to_64_bits(%x: tensor<4xi64>) -> tensor<4xui64> {
  // expected-error @below {{cannot lower 'aten::_to_copy.default': converting si64 to ui64 wraps in PyTorch; only wrapping conversions to integers narrower than 64 bits are supported}}
  %0 = aten._to_copy.default %x {dtype = ui64, non_blocking = false} : (tensor<4xi64>) -> tensor<4xui64>
  return %0 : tensor<4xui64>
}
