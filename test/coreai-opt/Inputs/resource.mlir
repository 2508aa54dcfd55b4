func.func @fooz(%x: tensor<77xf32>) -> tensor<4xf32> {
  %0 = "arith.constant"() {value = dense_resource<w> : tensor<4xf32>} : () -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
{-#
  dialect_resources: {
    builtin: {
      w: "0x040000000000803F000000400000404000008040"
    }
  }
#-}
