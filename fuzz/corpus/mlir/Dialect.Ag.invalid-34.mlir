ag.forward @f(%x: tensor<2x3xf32> {ag.name = "x"}) -> () {
  %0 = ag.sum %x keepdim : tensor<2x3xf32> -> tensor<f32>
  ag.return
}
