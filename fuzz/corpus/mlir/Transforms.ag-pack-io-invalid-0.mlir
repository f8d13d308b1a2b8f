ag.weight @w trainable : tensor<2xf32>
ag.train_step @train(%x: tensor<2xf32> {ag.name = "x"}) -> (tensor<f32> {ag.name = "loss"})
    attributes {optimizer = #ag.adamw<lr = 1.0e-3, beta1 = 0.9, beta2 = 0.999, eps = 1.0e-8, weight_decay = 0.0>} {
  %w = ag.read_weight @w : tensor<2xf32>
  %y = ag.mul %x, %w : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  %l = ag.sum %y : tensor<2xf32> -> tensor<f32>
  ag.return %l : tensor<f32>
}
