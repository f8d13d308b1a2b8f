ag.forward @f(%x: tensor<2x8xf32> {ag.name = "x"}) -> () {
  %0 = ag.log_softmax %x axis = -3 : tensor<2x8xf32>
  ag.return
}
