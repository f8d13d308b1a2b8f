ag.forward @f(%x: tensor<2x3xf32> {ag.name = "x"}) -> () {
  %0 = ag.sum %x axis = 2 : tensor<2x3xf32> -> tensor<2xf32>
  ag.return
}
