ag.forward @f(%x: tensor<2xf32> {ag.name = "x"}) -> (tensor<2xf64> {ag.name = "y"}) {
  %c = arith.constant dense<1.0> : tensor<2xf64>
  ag.return %c : tensor<2xf64>
}
