ag.forward @plain(%x: tensor<2xf32> {ag.name = "x"}) -> (tensor<2xf32> {ag.name = "y"}) {
  %y = ag.exp %x : tensor<2xf32>
  ag.return %y : tensor<2xf32>
}
