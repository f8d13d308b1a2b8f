ag.forward @f(%x: tensor<2x3xf32> {ag.name = "x"}) -> () {
  %0 = ag.broadcast_to %x : tensor<2x3xf32> -> tensor<3xf32>
  ag.return
}
