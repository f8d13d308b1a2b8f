ag.forward @f(%x: tensor<2x3xf32> {ag.name = "x"}) -> () {
  %0 = ag.mean %x axis = -1 : tensor<2x3xf32> -> tensor<3xf32>
  ag.return
}
