ag.forward @f(%x: tensor<2xf32> {ag.name = "x"}) -> (tensor<2xf32> {ag.name = "y"}) {
  %0 = ag.exp %x : tensor<2xf32>
  ag.download %0 : tensor<2xf32>
  ag.return %0 : tensor<2xf32>
}
