ag.weight @w trainable : tensor<4x2xf32>
ag.weight @b trainable : tensor<2xf32>

ag.train_step @train(%x: tensor<8x4xf32> {ag.name = "x"}, %y: tensor<8x2xf32> {ag.name = "y"})
    -> (tensor<f32> {ag.name = "loss"})
    attributes {optimizer = #ag.adamw<lr = 3.0e-4, beta1 = 0.9, beta2 = 0.999, eps = 1.0e-8, weight_decay = 0.01>,
                param_groups = [#ag.param_group<[@b], #ag.adamw<lr = 0.2, beta1 = 0.8, beta2 = 0.99, eps = 1.0e-6, weight_decay = 0.0>>]} {
  %w = ag.read_weight @w : tensor<4x2xf32>
  %b = ag.read_weight @b : tensor<2xf32>
  %p = ag.matmul %x, %w : (tensor<8x4xf32>, tensor<4x2xf32>) -> tensor<8x2xf32>
  %q = ag.add %p, %b : (tensor<8x2xf32>, tensor<2xf32>) -> tensor<8x2xf32>
  %l = ag.mse %q, %y : (tensor<8x2xf32>, tensor<8x2xf32>) -> tensor<f32>
  ag.return %l : tensor<f32>
}

ag.param_pack @p weights([@w, @b]) offsets([0, 8]) size(10) groups([0, 1])
ag.param_pack @q weights([@w, @b]) offsets([0, 8]) size(10)
