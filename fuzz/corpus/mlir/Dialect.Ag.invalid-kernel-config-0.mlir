ag.forward @f(%x: tensor<8192xf32> {ag.name = "x"}) -> (tensor<f32> {ag.name = "s"}) {
  %s = ag.sum %x {ag.kernel_config = 32} : tensor<8192xf32> -> tensor<f32>
  ag.return %s : tensor<f32>
}
