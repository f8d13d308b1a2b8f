ag.weight @w trainable : tensor<4xf32> = dense<5.000000e-01>
ag.param_pack @t.params weights([@w]) offsets([0]) size(4)
ag.train_step @t(%x: tensor<4xf32> {ag.name = "x"}, %hyper: tensor<7xf32> {ag.hyper = "adamw", ag.name = "adamw"}) -> (tensor<f32> {ag.name = "loss"}, tensor<4xf32> {ag.name = "w"}, tensor<f32> {ag.grad_norm, ag.name = "grad_norm"}, tensor<4xf32> {ag.name = "w_after"}) attributes {optimizer = #ag.adamw<lr = 1.000000e-02, beta1 = 9.000000e-01, beta2 = 0.999, eps = 1.000000e-08, weight_decay = 0.000000e+00>} {
  %w = ag.read_weight @w : tensor<4xf32>
  %p = ag.mul %w, %x : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %l = ag.sum %p : tensor<4xf32> -> tensor<f32>
  %g = ag.pack_grads @t.params(%x) : (tensor<4xf32>) -> tensor<4xf32>
  %sq = ag.mul %g, %g : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %s = ag.sum %sq : tensor<4xf32> -> tensor<f32>
  %n = ag.sqrt %s : tensor<f32>
  ag.apply_adamw @t.params grads(%g) grad_norm(%n) hyper(%hyper) : tensor<4xf32>, tensor<f32>, tensor<7xf32>
  %w2 = ag.read_weight @w : tensor<4xf32>
  ag.return %l, %w, %n, %w2 : tensor<f32>, tensor<4xf32>, tensor<f32>, tensor<4xf32>
}
