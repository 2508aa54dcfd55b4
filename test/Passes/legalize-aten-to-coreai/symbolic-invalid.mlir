// RUN: coreai-opt %s --split-input-file --verify-diagnostics --pass-pipeline='builtin.module(legalize-aten-to-coreai)'

func.func @item_of_many(%x: tensor<3xf32>) -> f64 {
  // expected-error @below {{cannot lower 'aten::_local_scalar_dense.default': item() of tensor<3xf32> needs exactly one element}}
  %0 = aten._local_scalar_dense.default %x : (tensor<3xf32>) -> f64
  return %0 : f64
}

// -----

func.func @sym_size_out_of_range(%x: tensor<?x4xf32>) -> i64 {
  // expected-error @below {{cannot lower 'aten::sym_size.int': dimension 2 is out of range for a rank-2 tensor}}
  %0 = aten.sym_size.int %x {dim = 2 : i64} : (tensor<?x4xf32>) -> i64
  return %0 : i64
}

// -----

func.func @round_to_digits(%x: tensor<?x4xf32>) -> f64 {
  %n = aten.sym_size.int %x {dim = 0 : i64} : (tensor<?x4xf32>) -> i64
  %f = aten.sym_float %n : (i64) -> f64
  // expected-error @below {{cannot lower 'builtins::round': round(x, ndigits) rounds to decimal digits, which has no lowering; round(x) and round(x, None) do}}
  %0 = aten.operator "builtins::round"(%f) {arg1 = 2 : i64, operand_args = ["arg0"], operand_groups = array<i64: 1>} : (f64) -> f64
  return %0 : f64
}
