ag.train_step @t(%x: tensor<2xf32> {ag.name = "x"}) -> (tensor<f32> {ag.name = "loss"})
    attributes {optimizer = "sgd"} {
  %l = ag.sum %x : tensor<2xf32> -> tensor<f32>
  ag.return %l : tensor<f32>
}
