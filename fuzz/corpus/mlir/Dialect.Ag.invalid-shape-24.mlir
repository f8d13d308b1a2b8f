ag.forward @f(%x: tensor<2x8xf32> {ag.name = "x"}) -> () {
  %0 = ag.mse %x, %x : (tensor<2x8xf32>, tensor<2x8xf32>) -> tensor<1xf32>
  ag.return
}
