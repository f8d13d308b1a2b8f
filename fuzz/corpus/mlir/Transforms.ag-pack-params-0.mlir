ag.weight @w trainable : tensor<3x5xf32>
ag.weight @b trainable : tensor<5xf32>
ag.weight @unused trainable : tensor<2xf32>
ag.weight @scale : tensor<5xf32>

ag.train_step @step(%x: tensor<2x3xf32> {ag.name = "x"}) -> (tensor<f32> {ag.name = "loss"}, tensor<2x5xf32> {ag.name = "pred"})
    attributes {optimizer = #ag.adamw<lr = 1.0e-3, beta1 = 0.9, beta2 = 0.999, eps = 1.0e-8, weight_decay = 0.0>} {
  %w = ag.read_weight @w : tensor<3x5xf32>
  %b = ag.read_weight @b : tensor<5xf32>
  %s = ag.read_weight @scale : tensor<5xf32>
  %u = ag.read_weight @unused : tensor<2xf32>
  %xw = ag.matmul %x, %w : (tensor<2x3xf32>, tensor<3x5xf32>) -> tensor<2x5xf32>
  %h = ag.add %xw, %b : (tensor<2x5xf32>, tensor<5xf32>) -> tensor<2x5xf32>
  %p = ag.mul %h, %s : (tensor<2x5xf32>, tensor<5xf32>) -> tensor<2x5xf32>
  %l = ag.sum %p : tensor<2x5xf32> -> tensor<f32>
  ag.return %l, %p : tensor<f32>, tensor<2x5xf32>
}
