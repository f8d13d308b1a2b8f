ag.forward @f(%x: tensor<2x8xf32> {ag.name = "x"}, %l: tensor<2xi32> {ag.name = "l"}) -> () {
  %0 = ag.cross_entropy %x, %l : (tensor<2x8xf32>, tensor<2xi32>) -> tensor<2xf32>
  ag.return
}
