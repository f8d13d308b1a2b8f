ag.forward @f(%x: tensor<8192xf32> {ag.name = "x"}) -> (tensor<f32> {ag.name = "s"}) {
  %s = ag.sum %x {ag.kernel_config = #ag.two_pass<chunk = 4611686018427387904, parts = 1>} : tensor<8192xf32> -> tensor<f32>
  %r = ag.relu %s {ag.kernel_config = #ag.two_pass<chunk = 4, parts = 1>} : tensor<f32>
  ag.return %r : tensor<f32>
}
