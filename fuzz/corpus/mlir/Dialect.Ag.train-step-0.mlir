ag.weight @w trainable : tensor<4x2xf32>

ag.train_step @train(%x: tensor<8x4xf32> {ag.name = "x"}, %y: tensor<8x2xf32> {ag.name = "y"})
    -> (tensor<f32> {ag.name = "loss"}, tensor<8x2xf32> {ag.name = "pred"})
    attributes {optimizer = #ag.adamw<lr = 3.0e-4, beta1 = 0.9, beta2 = 0.999, eps = 1.0e-8, weight_decay = 0.01>,
                max_grad_norm = 0.5 : f32} {
  %w = ag.read_weight @w : tensor<4x2xf32>
  %p = ag.matmul %x, %w : (tensor<8x4xf32>, tensor<4x2xf32>) -> tensor<8x2xf32>
  %l = ag.mse %p, %y : (tensor<8x2xf32>, tensor<8x2xf32>) -> tensor<f32>
  ag.return %l, %p : tensor<f32>, tensor<8x2xf32>
}

ag.train_step @no_clip(%x: tensor<8x4xf32> {ag.name = "x"}) -> (tensor<f32> {ag.name = "loss"})
    attributes {optimizer = #ag.adamw<lr = 1.0e-3, beta1 = 0.9, beta2 = 0.999, eps = 1.0e-8, weight_decay = 0.0>} {
  %w = ag.read_weight @w : tensor<4x2xf32>
  %p = ag.matmul %x, %w : (tensor<8x4xf32>, tensor<4x2xf32>) -> tensor<8x2xf32>
  %l = ag.mean %p : tensor<8x2xf32> -> tensor<f32>
  ag.return %l : tensor<f32>
}

ag.train_step @adam_l2(%x: tensor<8x4xf32> {ag.name = "x"}) -> (tensor<f32> {ag.name = "loss"})
    attributes {optimizer = #ag.adamw<decoupled = false, lr = 1.0e-3, beta1 = 0.9, beta2 = 0.999, eps = 1.0e-8, weight_decay = 0.1>} {
  %w = ag.read_weight @w : tensor<4x2xf32>
  %p = ag.matmul %x, %w : (tensor<8x4xf32>, tensor<4x2xf32>) -> tensor<8x2xf32>
  %l = ag.mean %p : tensor<8x2xf32> -> tensor<f32>
  ag.return %l : tensor<f32>
}

ag.train_step @adamw_explicit(%x: tensor<8x4xf32> {ag.name = "x"}) -> (tensor<f32> {ag.name = "loss"})
    attributes {optimizer = #ag.adamw<lr = 1.0e-3, beta1 = 0.9, beta2 = 0.999, eps = 1.0e-8, weight_decay = 0.1, decoupled = true>} {
  %w = ag.read_weight @w : tensor<4x2xf32>
  %p = ag.matmul %x, %w : (tensor<8x4xf32>, tensor<4x2xf32>) -> tensor<8x2xf32>
  %l = ag.mean %p : tensor<8x2xf32> -> tensor<f32>
  ag.return %l : tensor<f32>
}
