ag.weight @w trainable : tensor<2xf32>
ag.weight @frozen : tensor<2xf32>
ag.train_step @t(%x: tensor<2xf32> {ag.name = "x"}) -> (tensor<f32> {ag.name = "loss"}, tensor<2xf32> {ag.name = "grad/w", ag.grad_of = @w})
    attributes {optimizer = #ag.adamw<lr = 1.0e-3, beta1 = 0.9, beta2 = 0.999, eps = 1.0e-8, weight_decay = 0.0>,
                param_groups = [#ag.param_group<[@frozen], #ag.adamw<lr = 1.0e-2, beta1 = 0.9, beta2 = 0.999, eps = 1.0e-8, weight_decay = 0.0>>]} {
  %w = ag.read_weight @w : tensor<2xf32>
  %l = ag.sum %w : tensor<2xf32> -> tensor<f32>
  ag.return %l, %x : tensor<f32>, tensor<2xf32>
}
