ag.weight @fc.weight trainable : tensor<5x3xf32> = #ag.init<linear, fan_in = 3, seed = 1>
ag.weight @fc.bias trainable : tensor<5xf32> = #ag.init<linear, fan_in = 3, seed = 2>

ag.train_step @train(%x: tensor<4x3xf32> {ag.name = "x"}, %labels: tensor<4xi32> {ag.name = "labels"})
    -> (tensor<f32> {ag.name = "loss"})
    attributes {optimizer = #ag.adamw<lr = 1.0e-2, beta1 = 0.9, beta2 = 0.999, eps = 1.0e-8, weight_decay = 0.01>, max_grad_norm = 1.0 : f32} {
  %w = ag.read_weight @fc.weight : tensor<5x3xf32>
  %b = ag.read_weight @fc.bias : tensor<5xf32>
  %xw = ag.matmul %x, %w {transpose_b} : (tensor<4x3xf32>, tensor<5x3xf32>) -> tensor<4x5xf32>
  %z = ag.add %xw, %b : (tensor<4x5xf32>, tensor<5xf32>) -> tensor<4x5xf32>
  %l = ag.cross_entropy %z, %labels : (tensor<4x5xf32>, tensor<4xi32>) -> tensor<f32>
  ag.return %l : tensor<f32>
}
