ag.forward @single(%a: tensor<16xf32> {ag.name = "a"}) -> (tensor<f32> {ag.name = "s"}) {
  %e = ag.exp %a : tensor<16xf32>
  %s = ag.sum %e : tensor<16xf32> -> tensor<f32>
  ag.return %s : tensor<f32>
}
