ag.forward @f(%x: tensor<2x3xf32> {ag.name = "x"}, %y: tensor<3x3xf32> {ag.name = "y"}) -> () {
  %0 = ag.concat %x, %y axis = 1 : (tensor<2x3xf32>, tensor<3x3xf32>) -> tensor<2x6xf32>
  ag.return
}
