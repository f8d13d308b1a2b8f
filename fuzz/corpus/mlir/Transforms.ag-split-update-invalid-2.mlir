ag.weight @w trainable : tensor<2xf32>
ag.param_pack @t.params weights([@w]) offsets([0]) size(2)
ag.train_step @t(%adamw: tensor<2xf32> {ag.name = "adamw"}) -> (tensor<f32> {ag.name = "loss"}, tensor<2xf32> {ag.name = "grads", ag.packed_grads = @t.params}, tensor<f32> {ag.name = "grad_norm", ag.grad_norm})
    attributes {optimizer = #ag.adamw<lr = 1.0e-3, beta1 = 0.9, beta2 = 0.999, eps = 1.0e-8, weight_decay = 0.0>} {
  %w = ag.read_weight @w : tensor<2xf32>
  %l = ag.sum %w : tensor<2xf32> -> tensor<f32>
  %g = ag.pack_grads @t.params(%adamw) : (tensor<2xf32>) -> tensor<2xf32>
  ag.return %l, %g, %l : tensor<f32>, tensor<2xf32>, tensor<f32>
}
