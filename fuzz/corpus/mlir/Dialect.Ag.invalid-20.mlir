ag.forward @f(%x: tensor<2x3xf32> {ag.name = "x"}, %y: tensor<3xf32> {ag.name = "y"}) -> () {
  %0 = ag.mul %x, %y : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<3xf32>
  ag.return
}
