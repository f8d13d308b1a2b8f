ag.weight @w trainable : tensor<4x2xf32> = dense<[[0.1, -0.2], [0.3, 0.4], [-0.5, 0.6], [0.7, -0.8]]>
ag.weight @b trainable : tensor<2xf32> = dense<[0.05, -0.05]>
ag.weight @frozen : tensor<2xf32> = dense<[1.0, 2.0]>
ag.train_step @train(%x: tensor<3x4xf32> {ag.name = "x"}, %y: tensor<3x2xf32> {ag.name = "y"})
    -> (tensor<f32> {ag.name = "loss"}, tensor<3x2xf32> {ag.name = "pred"})
    attributes {optimizer = #ag.adamw<lr = 1.0e-2, beta1 = 0.9, beta2 = 0.999, eps = 1.0e-8, weight_decay = 0.01>, max_grad_norm = 1.0 : f32} {
  %w = ag.read_weight @w : tensor<4x2xf32>
  %b = ag.read_weight @b : tensor<2xf32>
  %f = ag.read_weight @frozen : tensor<2xf32>
  %xw = ag.matmul %x, %w : (tensor<3x4xf32>, tensor<4x2xf32>) -> tensor<3x2xf32>
  %h = ag.add %xw, %b : (tensor<3x2xf32>, tensor<2xf32>) -> tensor<3x2xf32>
  %p = ag.mul %h, %f : (tensor<3x2xf32>, tensor<2xf32>) -> tensor<3x2xf32>
  %l = ag.mse %p, %y : (tensor<3x2xf32>, tensor<3x2xf32>) -> tensor<f32>
  ag.return %l, %p : tensor<f32>, tensor<3x2xf32>
}
