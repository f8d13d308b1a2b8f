ag.weight @w trainable : tensor<4x2xf32> = dense<[[0.1, -0.3], [0.3, 0.4], [-0.5, 0.6], [0.7, -0.8]]>
ag.weight @b trainable : tensor<2xf32> = dense<[0.5, -0.25]>

ag.train_step @train(%x: tensor<3x4xf32> {ag.name = "x"}, %y: tensor<3x2xf32> {ag.name = "y"})
    -> (tensor<f32> {ag.name = "loss"})
    attributes {optimizer = #ag.adamw<lr = 5.0e-2, beta1 = 0.9, beta2 = 0.999, eps = 1.0e-8, weight_decay = 0.1, decoupled = false>, max_grad_norm = 1.0 : f32} {
  %w = ag.read_weight @w : tensor<4x2xf32>
  %b = ag.read_weight @b : tensor<2xf32>
  %xw = ag.matmul %x, %w : (tensor<3x4xf32>, tensor<4x2xf32>) -> tensor<3x2xf32>
  %z = ag.add %xw, %b : (tensor<3x2xf32>, tensor<2xf32>) -> tensor<3x2xf32>
  %d = ag.sub %z, %y : (tensor<3x2xf32>, tensor<3x2xf32>) -> tensor<3x2xf32>
  %dd = ag.mul %d, %d : (tensor<3x2xf32>, tensor<3x2xf32>) -> tensor<3x2xf32>
  %l = ag.sum %dd : tensor<3x2xf32> -> tensor<f32>
  ag.return %l : tensor<f32>
}

ag.forward @predict(%x: tensor<3x4xf32> {ag.name = "x"}) -> (tensor<3x2xf32> {ag.name = "y"}) {
  %w = ag.read_weight @w : tensor<4x2xf32>
  %b = ag.read_weight @b : tensor<2xf32>
  %xw = ag.matmul %x, %w : (tensor<3x4xf32>, tensor<4x2xf32>) -> tensor<3x2xf32>
  %z = ag.add %xw, %b : (tensor<3x2xf32>, tensor<2xf32>) -> tensor<3x2xf32>
  ag.return %z : tensor<3x2xf32>
}
