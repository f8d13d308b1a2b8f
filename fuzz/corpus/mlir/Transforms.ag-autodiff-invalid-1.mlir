ag.weight @w trainable : tensor<3xf32>
ag.weight @v trainable : tensor<3xf32>
ag.train_step @t(%x: tensor<3xf32> {ag.name = "x"}) -> (tensor<f32> {ag.name = "loss"}, tensor<3xf32> {ag.name = "side"})
    attributes {optimizer = #ag.adamw<lr = 1.0e-3, beta1 = 0.9, beta2 = 0.999, eps = 1.0e-8, weight_decay = 0.0>} {
  %w = ag.read_weight @w : tensor<3xf32>
  %l = ag.sum %x : tensor<3xf32> -> tensor<f32>
  ag.return %l, %w : tensor<f32>, tensor<3xf32>
}
