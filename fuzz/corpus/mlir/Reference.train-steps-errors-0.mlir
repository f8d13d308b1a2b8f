ag.weight @a trainable : tensor<2xf32> = dense<[1.0, 2.0]>
ag.weight @c trainable : tensor<2xf32>
ag.param_pack @step.params weights([@a]) offsets([0]) size(2)
ag.param_pack @other.params weights([@c]) offsets([0]) size(2)

ag.train_step @step(%h: tensor<7xf32> {ag.hyper = "adamw", ag.name = "adamw"})
    -> (tensor<f32> {ag.name = "loss"}, tensor<f32> {ag.grad_norm, ag.name = "grad_norm"})
    attributes {optimizer = #ag.adamw<lr = 1.0e-1, beta1 = 0.9, beta2 = 0.999, eps = 1.0e-8, weight_decay = 0.0>} {
  %a = ag.read_weight @a : tensor<2xf32>
  %loss = ag.sum %a : tensor<2xf32> -> tensor<f32>
  %one = ag.constant dense<1.0> : tensor<2xf32>
  %g = ag.pack_grads @step.params(%one) : (tensor<2xf32>) -> tensor<2xf32>
  %gg = ag.mul %g, %g : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  %ss = ag.sum %gg : tensor<2xf32> -> tensor<f32>
  %n = ag.sqrt %ss : tensor<f32>
  ag.apply_adamw @step.params grads(%g) grad_norm(%n) hyper(%h) : tensor<2xf32>, tensor<f32>, tensor<7xf32>
  ag.return %loss, %n : tensor<f32>, tensor<f32>
}
