ag.weight @w1 trainable : tensor<4x3xf32>
ag.weight @b1 trainable : tensor<3xf32>
ag.weight @frozen : tensor<3xf32>
ag.weight @unused trainable : tensor<2xf32>


ag.train_step @train(%x: tensor<5x4xf32> {ag.name = "x"}, %y: tensor<5x3xf32> {ag.name = "y"})
    -> (tensor<f32> {ag.name = "loss"}, tensor<5x3xf32> {ag.name = "pred"})
    attributes {optimizer = #ag.adamw<lr = 1.0e-3, beta1 = 0.9, beta2 = 0.999, eps = 1.0e-8, weight_decay = 0.0>} {
  %w = ag.read_weight @w1 : tensor<4x3xf32>
  %b = ag.read_weight @b1 : tensor<3xf32>
  %f = ag.read_weight @frozen : tensor<3xf32>
  %0 = ag.matmul %x, %w : (tensor<5x4xf32>, tensor<4x3xf32>) -> tensor<5x3xf32>
  %1 = ag.add %0, %b : (tensor<5x3xf32>, tensor<3xf32>) -> tensor<5x3xf32>
  %2 = ag.tanh %1 : tensor<5x3xf32>
  %3 = ag.mul %2, %f : (tensor<5x3xf32>, tensor<3xf32>) -> tensor<5x3xf32>
  %l = ag.mse %3, %y : (tensor<5x3xf32>, tensor<5x3xf32>) -> tensor<f32>
  ag.return %l, %3 : tensor<f32>, tensor<5x3xf32>
}
