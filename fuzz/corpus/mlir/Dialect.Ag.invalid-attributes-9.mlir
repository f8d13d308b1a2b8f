ag.train_step @t(%x: tensor<4xf32> {ag.name = "x"}) -> (tensor<f32> {ag.name = "loss"})
    attributes {optimizer = #ag.adamw<eps = 1.0e-8, beta2 = 0.999, lr = 1.0e-2, beta1 = 0.9, decoupled = false>} {
  %l = ag.sum %x : tensor<4xf32> -> tensor<f32>
  ag.return %l : tensor<f32>
}
