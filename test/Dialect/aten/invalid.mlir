// RUN: coreai-opt %s --split-input-file --verify-diagnostics

func.func @mean_dim_out_of_range(%x: tensor<2x3xf32>) -> tensor<2xf32> {
  // expected-error @+1 {{'aten.mean.dim' op dim 2 is out of range for a tensor of rank 2}}
  %0 = aten.mean.dim %x {dim = [2], keepdim = false} : (tensor<2x3xf32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

func.func @operator_unqualified(%a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{must be a qualified overload 'namespace::name.overload'}}
  %0 = aten.operator "scaled_add"(%a) : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @add_alpha_not_scalar(%a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'aten.add.Tensor' op attribute 'alpha' failed to satisfy constraint}}
  %0 = aten.add.Tensor %a, %a {alpha = "one"} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @relu_unranked(%a: tensor<*xf32>) -> tensor<*xf32> {
  // expected-error @+1 {{operand #0 must be ranked tensor of any type values}}
  %0 = aten.relu.default %a : (tensor<*xf32>) -> tensor<*xf32>
  return %0 : tensor<*xf32>
}

// -----

// expected-error @+1 {{custom op 'aten.no_such_op.default' is unknown}}
%0 = aten.no_such_op.default : () -> tensor<f32>

// -----

func.func @add_missing_operand(%a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{expected 2 operands, but found 1}}
  %0 = "aten.add.Tensor"(%a) {alpha = 1 : i64} : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @tensor_operand_given_a_scalar(%a: i64) -> tensor<4xf32> {
  // expected-error @+1 {{operand #0 must be ranked tensor of any type values, but got 'i64'}}
  %0 = aten.relu.default %a : (i64) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @int_attribute_given_a_float(%a: tensor<4x2xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{attribute 'dim' failed to satisfy constraint: 64-bit signless integer attribute}}
  %0 = aten.select.int %a {dim = 1.0 : f64, index = 0 : i64} : (tensor<4x2xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @cond_branch_arity(%p: tensor<i1>, %x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'aten.cond' op false_branch takes 0 arguments}}
  %r = aten.cond %p (%x) : tensor<i1>, (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%a: tensor<4xf32>):
    aten.yield %a : tensor<4xf32>
  }, {
    aten.yield %x : tensor<4xf32>
  }
  return %r : tensor<4xf32>
}

// -----

func.func @cond_pred_not_bool(%p: tensor<2xi1>, %x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{pred must be i1 or tensor<i1>}}
  %r = aten.cond %p (%x) : tensor<2xi1>, (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%a: tensor<4xf32>):
    aten.yield %a : tensor<4xf32>
  }, {
  ^bb0(%a: tensor<4xf32>):
    aten.yield %a : tensor<4xf32>
  }
  return %r : tensor<4xf32>
}

// -----

func.func @while_loop_result_types(%i: tensor<i64>) -> tensor<f32> {
  // expected-error @+1 {{results 'tensor<f32>' must have the carried inputs' types 'tensor<i64>'}}
  %r = aten.while_loop (%i : tensor<i64>) () -> tensor<f32> cond {
  ^bb0(%a: tensor<i64>):
    %c = aten.lt.Scalar %a {other = 5 : i64} : (tensor<i64>) -> tensor<i1>
    aten.yield %c : tensor<i1>
  } body {
  ^bb0(%a: tensor<i64>):
    aten.yield %a : tensor<i64>
  }
  return %r : tensor<f32>
}

// -----

func.func @yield_outside_region(%x: tensor<4xf32>) {
  // expected-error @+1 {{expects parent op to be one of 'aten.cond, aten.while_loop'}}
  aten.yield %x : tensor<4xf32>
}

// -----

// Regression (issue 20): an empty block has no terminator to look at.
func.func @cond_empty_branch_block(%p: tensor<i1>, %x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'aten.cond' op true_branch must end with aten.yield}}
  %r = aten.cond %p (%x) : tensor<i1>, (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%a: tensor<4xf32>):
  }, {
  ^bb0(%a: tensor<4xf32>):
    aten.yield %a : tensor<4xf32>
  }
  return %r : tensor<4xf32>
}

// -----

func.func @while_loop_empty_cond_block(%i: tensor<i64>) -> tensor<i64> {
  // expected-error @+1 {{'aten.while_loop' op cond must end with aten.yield}}
  %r = aten.while_loop (%i : tensor<i64>) () -> tensor<i64> cond {
  ^bb0(%a: tensor<i64>):
  } body {
  ^bb0(%a: tensor<i64>):
    aten.yield %a : tensor<i64>
  }
  return %r : tensor<i64>
}

// -----

func.func @while_loop_empty_body_block(%i: tensor<i64>) -> tensor<i64> {
  // expected-error @+1 {{'aten.while_loop' op body must end with aten.yield}}
  %r = aten.while_loop (%i : tensor<i64>) () -> tensor<i64> cond {
  ^bb0(%a: tensor<i64>):
    %c = aten.lt.Scalar %a {other = 5 : i64} : (tensor<i64>) -> tensor<i1>
    aten.yield %c : tensor<i1>
  } body {
  ^bb0(%a: tensor<i64>):
  }
  return %r : tensor<i64>
}
