ag.forward @f(%x: tensor<2x3xf32> {ag.name = "x"}) -> () {
  %0 = ag.reshape %x : tensor<2x3xf32> -> tensor<7xf32>
  ag.return
}
