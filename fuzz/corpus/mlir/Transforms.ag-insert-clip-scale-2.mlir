ag.weight @p trainable : tensor<2xf32>
ag.weight @q trainable : tensor<3xf32>
ag.param_pack @packed.params weights([@p, @q]) offsets([0, 64]) size(67)
ag.train_step @packed(%x: tensor<2xf32> {ag.name = "x"}) -> (tensor<f32> {ag.name = "loss"}, tensor<67xf32> {ag.name = "grads", ag.packed_grads = @packed.params})
    attributes {optimizer = #ag.adamw<lr = 1.0e-3, beta1 = 0.9, beta2 = 0.999, eps = 1.0e-8, weight_decay = 0.0>,
                max_grad_norm = 1.0 : f32} {
  %gq = ag.constant dense<1.0> : tensor<3xf32>
  %g = ag.pack_grads @packed.params(%x, %gq) : (tensor<2xf32>, tensor<3xf32>) -> tensor<67xf32>
  %l = ag.sum %x : tensor<2xf32> -> tensor<f32>
  ag.return %l, %g : tensor<f32>, tensor<67xf32>
}
