ag.weight @a trainable : tensor<2xf32>
ag.weight @c trainable : tensor<2xf32>
ag.weight @one.params : tensor<2xf32>

ag.train_step @one(%x: tensor<2xf32> {ag.name = "x"}) -> (tensor<f32> {ag.name = "loss"})
    attributes {optimizer = #ag.adamw<lr = 1.0e-3, beta1 = 0.9, beta2 = 0.999, eps = 1.0e-8, weight_decay = 0.0>} {
  %a = ag.read_weight @a : tensor<2xf32>
  %0 = ag.mul %a, %x : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  %l = ag.sum %0 : tensor<2xf32> -> tensor<f32>
  ag.return %l : tensor<f32>
}

ag.train_step @two(%x: tensor<2xf32> {ag.name = "x"}) -> (tensor<f32> {ag.name = "loss"})
    attributes {optimizer = #ag.adamw<lr = 1.0e-3, beta1 = 0.9, beta2 = 0.999, eps = 1.0e-8, weight_decay = 0.0>} {
  %c = ag.read_weight @c : tensor<2xf32>
  %0 = ag.mul %c, %x : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  %l = ag.sum %0 : tensor<2xf32> -> tensor<f32>
  ag.return %l : tensor<f32>
}
