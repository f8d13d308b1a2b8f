ag.train_step @t(%x: tensor<4xf32> {ag.name = "x"}) -> (tensor<f32> {ag.name = "loss"})
    attributes {optimizer = #ag.adamw<lr = 1.0e-2, beta1 = 0.9, beta2 = 0.999, eps = 1.0e-8, weight_decay = 0.1, decoupled = 0>} {
  %l = ag.sum %x : tensor<4xf32> -> tensor<f32>
  ag.return %l : tensor<f32>
}
