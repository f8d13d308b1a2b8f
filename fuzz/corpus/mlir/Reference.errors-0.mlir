ag.weight @w : tensor<3xf32>

ag.forward @f(%x: tensor<2x3xf32> {ag.name = "x"}) -> (tensor<2x3xf32> {ag.name = "y"}) {
  ag.return %x : tensor<2x3xf32>
}

ag.forward @host() -> (tensor<2xf32> {ag.name = "y"}) {
  %u = ag.upload : tensor<2xf32>
  ag.return %u : tensor<2xf32>
}
