ag.forward @f(%x: tensor<8192xf32> {ag.name = "x"}) -> (tensor<f32> {ag.name = "s"}) {
  %s = ag.sum %x {ag.kernel_config = #ag.two_pass<chunk = 256, parts = 33>} : tensor<8192xf32> -> tensor<f32>
  ag.return %s : tensor<f32>
}
