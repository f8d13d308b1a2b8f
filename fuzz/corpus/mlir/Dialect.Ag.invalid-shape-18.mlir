ag.forward @f(%x: tensor<2x8xf32> {ag.name = "x"}) -> () {
  %0 = ag.softmax %x axis = 2 : tensor<2x8xf32>
  ag.return
}
