ag.weight @w trainable : tensor<5x3xf32> = #ag.init<zeros>
ag.train_step @train(%x: tensor<4x3xf32> {ag.name = "x"}, %labels: tensor<4xi32> {ag.name = "labels"})
    -> (tensor<f32> {ag.name = "loss"})
    attributes {optimizer = #ag.adamw<lr = 1.0e-2, beta1 = 0.9, beta2 = 0.999, eps = 1.0e-8, weight_decay = 0.0>} {
  %w = ag.read_weight @w : tensor<5x3xf32>
  %z = ag.matmul %x, %w {transpose_b} : (tensor<4x3xf32>, tensor<5x3xf32>) -> tensor<4x5xf32>
  %l = ag.cross_entropy %z, %labels : (tensor<4x5xf32>, tensor<4xi32>) -> tensor<f32>
  ag.return %l : tensor<f32>
}
