ag.forward @f(%x: tensor<2x8xf32> {ag.name = "x"}, %y: tensor<8xf32> {ag.name = "y"}) -> () {
  %0 = ag.mse %x, %y : (tensor<2x8xf32>, tensor<8xf32>) -> tensor<f32>
  ag.return
}
