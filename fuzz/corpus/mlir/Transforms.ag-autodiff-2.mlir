ag.weight @wr trainable : tensor<4x3xf32>
ag.train_step @relu_result(%x: tensor<5x4xf32> {ag.name = "x"})
    -> (tensor<f32> {ag.name = "loss"})
    attributes {optimizer = #ag.adamw<lr = 1.0e-3, beta1 = 0.9, beta2 = 0.999, eps = 1.0e-8, weight_decay = 0.0>} {
  %w = ag.read_weight @wr : tensor<4x3xf32>
  %0 = ag.matmul %x, %w : (tensor<5x4xf32>, tensor<4x3xf32>) -> tensor<5x3xf32>
  %1 = ag.relu %0 : tensor<5x3xf32>
  %l = ag.sum %1 : tensor<5x3xf32> -> tensor<f32>
  ag.return %l : tensor<f32>
}
