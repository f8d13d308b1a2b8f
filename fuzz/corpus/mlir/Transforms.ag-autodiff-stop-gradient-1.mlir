ag.weight @u trainable : tensor<3xf32>
ag.weight @v trainable : tensor<3xf32>
ag.train_step @only_detached() -> (tensor<f32> {ag.name = "loss"})
    attributes {optimizer = #ag.adamw<lr = 1.0e-3, beta1 = 0.9, beta2 = 0.999, eps = 1.0e-8, weight_decay = 0.0>} {
  %u = ag.read_weight @u : tensor<3xf32>
  %v = ag.read_weight @v : tensor<3xf32>
  %d = ag.stop_gradient %u : tensor<3xf32>
  %0 = ag.mul %d, %v : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  %l = ag.sum %0 : tensor<3xf32> -> tensor<f32>
  ag.return %l : tensor<f32>
}
