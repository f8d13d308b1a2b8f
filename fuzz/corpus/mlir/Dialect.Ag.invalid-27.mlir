ag.forward @f(%x: tensor<2x3xf32> {ag.name = "x"}) -> () {
  %0 = "ag.stop_gradient"(%x) : (tensor<2x3xf32>) -> tensor<3x2xf32>
  ag.return
}
