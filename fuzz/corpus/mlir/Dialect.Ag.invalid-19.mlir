ag.forward @f(%x: tensor<2x3xf32> {ag.name = "x"}, %y: tensor<2xf32> {ag.name = "y"}) -> () {
  %0 = ag.add %x, %y : (tensor<2x3xf32>, tensor<2xf32>) -> tensor<2x3xf32>
  ag.return
}
