%t = aten.add.Tensor %b, %b {alpha = 1 : i64} : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
%0 = aten.while_loop (%i : tensor<i64>) () -> tensor<i64> cond {
^bb0(%b: tensor<3xf32>):
}
