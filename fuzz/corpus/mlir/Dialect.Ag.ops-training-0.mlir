ag.weight @w trainable : tensor<4x2xf32>
ag.weight @b trainable : tensor<2xf32>

ag.param_pack @train.params weights([@w, @b]) offsets([0, 64]) size(66)

ag.train_step @train(%x: tensor<4xf32> {ag.name = "x"},
                     %h: tensor<7xf32> {ag.name = "adamw", ag.hyper = "adamw"})
    -> (tensor<f32> {ag.name = "loss"}, tensor<f32> {ag.name = "grad_norm", ag.grad_norm})
    attributes {optimizer = #ag.adamw<lr = 1.0e-3, beta1 = 0.9, beta2 = 0.999, eps = 1.0e-8, weight_decay = 0.0>} {
  %gw = ag.constant dense<1.0> : tensor<4x2xf32>
  %gb = ag.constant dense<2.0> : tensor<2xf32>
  %g = ag.pack_grads @train.params(%gw, %gb) : (tensor<4x2xf32>, tensor<2xf32>) -> tensor<66xf32>
  %sq = ag.mul %g, %g : (tensor<66xf32>, tensor<66xf32>) -> tensor<66xf32>
  %s = ag.sum %sq : tensor<66xf32> -> tensor<f32>
  %n = ag.sqrt %s : tensor<f32>
  ag.apply_adamw @train.params grads(%g) grad_norm(%n) hyper(%h) : tensor<66xf32>, tensor<f32>, tensor<7xf32>
  ag.return %s, %n : tensor<f32>, tensor<f32>
}
