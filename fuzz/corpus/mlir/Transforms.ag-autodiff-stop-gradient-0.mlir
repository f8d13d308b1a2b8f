ag.weight @w trainable : tensor<3xf32>
ag.train_step @mixed(%x: tensor<3xf32> {ag.name = "x"}) -> (tensor<f32> {ag.name = "loss"})
    attributes {optimizer = #ag.adamw<lr = 1.0e-3, beta1 = 0.9, beta2 = 0.999, eps = 1.0e-8, weight_decay = 0.0>} {
  %w = ag.read_weight @w : tensor<3xf32>
  %d = ag.stop_gradient %w : tensor<3xf32>
  %0 = ag.mul %w, %x : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  %1 = ag.mul %d, %x : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  %2 = ag.add %0, %1 : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  %l = ag.sum %2 : tensor<3xf32> -> tensor<f32>
  ag.return %l : tensor<f32>
}
