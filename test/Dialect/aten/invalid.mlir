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
