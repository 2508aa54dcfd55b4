// RUN: coreai-opt %s --split-input-file --verify-diagnostics --pass-pipeline='builtin.module(legalize-aten-to-coreai)'

// histc forms that decline, with the reason.

func.func @data_range(%x: tensor<6xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{cannot lower 'aten::histc.default': histc with min == max (0) takes its range from the data at run time, which is not lowered; pass min < max}}
  %0 = aten.operator "aten::histc.default"(%x) {bins = 4 : i64, min = 0 : i64, max = 0 : i64, operand_args = ["self"], operand_groups = array<i64: 1>} : (tensor<6xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @reversed_range(%x: tensor<6xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{cannot lower 'aten::histc.default': histc with min 3 > max 1: PyTorch raises}}
  %0 = aten.operator "aten::histc.default"(%x) {bins = 4 : i64, min = 3 : i64, max = 1 : i64, operand_args = ["self"], operand_groups = array<i64: 1>} : (tensor<6xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @integer_input(%x: tensor<6xi64>) -> tensor<4xi64> {
  // expected-error @+1 {{cannot lower 'aten::histc.default': histc of tensor<6xsi64>: PyTorch's CPU kernel takes float tensors only}}
  %0 = aten.operator "aten::histc.default"(%x) {bins = 4 : i64, min = 0 : i64, max = 3 : i64, operand_args = ["self"], operand_groups = array<i64: 1>} : (tensor<6xi64>) -> tensor<4xi64>
  return %0 : tensor<4xi64>
}

// -----

// bf16 counts are exact only up to 256 per bin.
func.func @bf16_many(%x: tensor<300xbf16>) -> tensor<4xbf16> {
  // expected-error @+1 {{cannot lower 'aten::histc.default': histc of tensor<300xbf16>: PyTorch counts in bf16, which is exact only up to 256 elements per bin; cast the input to f32}}
  %0 = aten.operator "aten::histc.default"(%x) {bins = 4 : i64, min = 0 : i64, max = 3 : i64, operand_args = ["self"], operand_groups = array<i64: 1>} : (tensor<300xbf16>) -> tensor<4xbf16>
  return %0 : tensor<4xbf16>
}

// -----

func.func @no_bins(%x: tensor<6xf32>) -> tensor<0xf32> {
  // expected-error @+1 {{cannot lower 'aten::histc.default': histc with bins = 0: PyTorch needs at least one bin}}
  %0 = aten.operator "aten::histc.default"(%x) {bins = 0 : i64, min = 0 : i64, max = 3 : i64, operand_args = ["self"], operand_groups = array<i64: 1>} : (tensor<6xf32>) -> tensor<0xf32>
  return %0 : tensor<0xf32>
}
