ag.forward @f(%x: tensor<2x2xf32> {ag.name = "x"}) -> (tensor<2x2xf32> {ag.name = "y"}) {
  %y = ag.exp %x {ag.plcaes = [#ag.place<scratch, 0>]} : tensor<2x2xf32>
  ag.return %y : tensor<2x2xf32>
}
