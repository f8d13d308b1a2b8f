ag.forward @f(%x: tensor<2xf32> {ag.name = "x"}) -> () {
  %0 = ag.probe "" %x : tensor<2xf32>
  ag.return
}
