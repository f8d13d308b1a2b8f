ag.forward @f(%x: tensor<2xf32> {ag.name = "x"}) -> () {
  %c = ag.constant dense<1> : tensor<2xindex>
  ag.return
}
