ag.forward @f(%x: tensor<2x3xf32> {ag.name = "x"}) -> () {
  %0 = ag.div %x, %x : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x?xf32>
  ag.return
}
