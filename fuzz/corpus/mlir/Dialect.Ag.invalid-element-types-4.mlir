ag.forward @f(%x: tensor<2xf32> {ag.name = "x"}) -> (tensor<2xindex> {ag.name = "y"}) {
  %c = arith.constant dense<1> : tensor<2xindex>
  ag.return %c : tensor<2xindex>
}
