// A weight scaled by a constant and transposed: core-optimize folds both
// into one constant with the executor's kernels.
coreai.graph @main(%x: tensor<3x2xf32> {coreai.name = "x"}) -> (tensor<3x2xf32> {coreai.name = "y"}) {
  %w = coreai.constant dense<[[1.0, -2.0, 0.5], [3.0, 0.25, -1.0]]> : tensor<2x3xf32>
  %s = coreai.constant dense<0.5> : tensor<2x3xf32>
  %ws = coreai.mul %w, %s : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %p = coreai.constant dense<[1, 0]> : tensor<2xui32>
  %wt = coreai.transpose %ws, %p : (tensor<2x3xf32>, tensor<2xui32>) -> tensor<3x2xf32>
  %y = coreai.add %x, %wt : (tensor<3x2xf32>, tensor<3x2xf32>) -> tensor<3x2xf32>
  coreai.output %y : tensor<3x2xf32>
}
