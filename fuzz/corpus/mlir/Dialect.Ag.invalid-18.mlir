ag.forward @f(%x: tensor<2xf32> {ag.name = "x"}) -> (tensor<3xf32> {ag.name = "y"}) {
  ag.return %x : tensor<2xf32>
}
