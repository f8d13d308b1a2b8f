ag.weight @w : tensor<2xf32>
ag.forward @clean(%x: tensor<2xf32> {ag.name = "x"}) -> (tensor<2xf32> {ag.name = "y"}) {
  %w = ag.read_weight @w : tensor<2xf32>
  %one = ag.upload constant : tensor<2xf32> = dense<1.0>
  %0 = ag.add %x, %w : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  %1 = ag.add %0, %one : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  ag.return %1 : tensor<2xf32>
}
ag.forward @first(%x: tensor<2xf32> {ag.name = "x"}) -> () {
  ag.download %x : tensor<2xf32>
  ag.return
}
ag.forward @second() -> () {
  %u = ag.upload : tensor<2xf32> = dense<3.0>
  ag.return
}
