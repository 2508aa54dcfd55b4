// A Core AI graph as coreai-torch prints `abs(x) + y * 2.0`, with a redundant
// abs, and an ATen function with a relu chain and a dead helper.
coreai.graph @main(%x: tensor<2x3xf32> {coreai.name = "x"}, %y: tensor<2x3xf32> {coreai.name = "y"}) -> (tensor<2x3xf32> {coreai.name = "add"}) {
  %two = coreai.constant dense<2.000000e+00> : tensor<f32>
  %a = coreai.abs %x : tensor<2x3xf32> -> tensor<2x3xf32>
  %aa = coreai.abs %a : tensor<2x3xf32> -> tensor<2x3xf32>
  %m = coreai.decomposable.broadcasting_mul %y, %two : (tensor<2x3xf32>, tensor<f32>) -> tensor<2x3xf32>
  %s = coreai.decomposable.broadcasting_add %aa, %m : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  coreai.output %s : tensor<2x3xf32>
}

func.func @relu_twice(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = aten.relu.default %x : (tensor<4xf32>) -> tensor<4xf32>
  %1 = aten.relu.default %0 : (tensor<4xf32>) -> tensor<4xf32>
  %2 = aten.add.Tensor %1, %0 {alpha = 1 : i64} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %2 : tensor<4xf32>
}

func.func private @unused_helper(%x: tensor<4xf32>) -> tensor<4xf32> {
  return %x : tensor<4xf32>
}
