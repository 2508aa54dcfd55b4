// RUN: coreai-opt %s --split-input-file --verify-diagnostics --pass-pipeline='builtin.module(legalize-aten-to-coreai)'

// Shape and layout lowerings that decline, with the reason.

func.func @expand_unit_to_dynamic(%x: tensor<1x3xf32>) -> tensor<?x3xf32> {
  // expected-error @+1 {{cannot lower 'aten::expand.default': dim 0 expands from 1 to a dynamic size the op does not carry (no symbolic size operand)}}
  %0 = aten.expand.default %x {size = [-1, 3], implicit = false} : (tensor<1x3xf32>) -> tensor<?x3xf32>
  return %0 : tensor<?x3xf32>
}

// -----

// Two dynamic dims need their sizes as operands (the generic form with
// symbolic sizes); the typed form's size attribute holds none.
func.func @view_two_dynamic_dims(%x: tensor<?x4xf32>) -> tensor<?x?xf32> {
  // expected-error @+1 {{cannot lower 'aten::view.default': the result tensor<?x?xf32> has 2 dynamic dims and the view carries no symbolic size of them}}
  %0 = aten.view.default %x {size = [-1, 2]} : (tensor<?x4xf32>) -> tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}

// -----

func.func @slice_negative_step(%x: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{cannot lower 'aten::slice.Tensor': slice step must be positive, got -1}}
  %0 = aten.slice.Tensor %x {dim = 0 : i64, step = -1 : i64} : (tensor<8xf32>) -> tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

func.func @select_out_of_range(%x: tensor<3x8xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{cannot lower 'aten::select.int': index -4 is out of range for dim 0 of size 3}}
  %0 = aten.select.int %x {dim = 0 : i64, index = -4 : i64} : (tensor<3x8xf32>) -> tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

func.func @permute_bad_dim(%x: tensor<2x3xf32>) -> tensor<3x2xf32> {
  // expected-error @+1 {{cannot lower 'aten::permute.default': dimension 2 is out of range for a rank-2 tensor}}
  %0 = aten.permute.default %x {dims = [2, 0]} : (tensor<2x3xf32>) -> tensor<3x2xf32>
  return %0 : tensor<3x2xf32>
}

// -----

func.func @reflection_pad_negative(%x: tensor<1x3x8xf32>) -> tensor<1x3x7xf32> {
  // expected-error @+1 {{cannot lower 'aten::reflection_pad1d.default': negative reflect padding is not supported}}
  %0 = aten.reflection_pad1d.default %x {padding = [-1, 0]} : (tensor<1x3x8xf32>) -> tensor<1x3x7xf32>
  return %0 : tensor<1x3x7xf32>
}

// -----

func.func @full_fraction_in_int(%x: tensor<2xi64>) -> tensor<2xi64> {
  // expected-error @+1 {{cannot lower 'aten::full.default': 2.5 is not an integer of type si64}}
  %0 = aten.full.default {size = [2], fill_value = 2.5 : f64, dtype = i64} : () -> tensor<2xi64>
  return %0 : tensor<2xi64>
}

// -----

// Symbolic start and end lower (dynamic-bounds.mlir); a symbolic step does not.
func.func @slice_symbolic_step(%x: tensor<?x8xf32>, %n: i64) -> tensor<?x?xf32> {
  // expected-error @+1 {{cannot lower 'aten::slice.Tensor': a symbolic slice step is not supported (start and end may be)}}
  %0 = aten.operator "aten::slice.Tensor"(%x, %n) {dim = 1 : i64, start = 0 : i64, operand_args = ["self", "step"], operand_groups = array<i64: 1, 1>} : (tensor<?x8xf32>, i64) -> tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}
