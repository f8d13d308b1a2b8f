ag.weight @w trainable : tensor<3x5xf32>
ag.weight @b trainable : tensor<5xf32>

ag.train_step @step(%x: tensor<2x3xf32> {ag.name = "x"}) -> (tensor<f32> {ag.name = "loss"}, tensor<2x5xf32> {ag.name = "pred"})
    attributes {optimizer = #ag.adamw<lr = 1.0e-3, beta1 = 0.9, beta2 = 0.999, eps = 1.0e-8, weight_decay = 0.0>,
                max_grad_norm = 1.0 : f32} {
  %w = ag.read_weight @w : tensor<3x5xf32>
  %b = ag.read_weight @b : tensor<5xf32>
  %xw = ag.matmul %x, %w : (tensor<2x3xf32>, tensor<3x5xf32>) -> tensor<2x5xf32>
  %h = ag.add %xw, %b : (tensor<2x5xf32>, tensor<5xf32>) -> tensor<2x5xf32>
  %l = ag.mean %h : tensor<2x5xf32> -> tensor<f32>
  ag.return %l, %h : tensor<f32>, tensor<2x5xf32>
}
