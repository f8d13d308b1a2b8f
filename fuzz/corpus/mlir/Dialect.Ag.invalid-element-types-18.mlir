ag.forward @f(%x: tensor<2xf32> {ag.name = "x"}) -> () {
  %e:2 = ag.eager "k" () : () -> (tensor<2xf32>, tensor<2xbf16>)
  ag.return
}
