ag.weight @w trainable : tensor<3x5xf32>
ag.weight @b trainable : tensor<5xf32>
ag.weight @b2 trainable : tensor<2xf32>
ag.weight @c trainable : tensor<5xf32>

ag.train_step @step(%x: tensor<2x3xf32> {ag.name = "x"}) -> (tensor<f32> {ag.name = "loss"})
    attributes {optimizer = #ag.adamw<lr = 1.0e-3, beta1 = 0.9, beta2 = 0.999, eps = 1.0e-8, weight_decay = 0.0>,
                param_groups = [#ag.param_group<[@b2, @b], #ag.adamw<lr = 1.0e-2, beta1 = 0.9, beta2 = 0.999, eps = 1.0e-8, weight_decay = 0.0>>]} {
  %w = ag.read_weight @w : tensor<3x5xf32>
  %b = ag.read_weight @b : tensor<5xf32>
  %b2 = ag.read_weight @b2 : tensor<2xf32>
  %c = ag.read_weight @c : tensor<5xf32>
  %xw = ag.matmul %x, %w : (tensor<2x3xf32>, tensor<3x5xf32>) -> tensor<2x5xf32>
  %h = ag.add %xw, %b : (tensor<2x5xf32>, tensor<5xf32>) -> tensor<2x5xf32>
  %hc = ag.mul %h, %c : (tensor<2x5xf32>, tensor<5xf32>) -> tensor<2x5xf32>
  %l1 = ag.sum %hc : tensor<2x5xf32> -> tensor<f32>
  %l2 = ag.sum %b2 : tensor<2xf32> -> tensor<f32>
  %l = ag.add %l1, %l2 : (tensor<f32>, tensor<f32>) -> tensor<f32>
  ag.return %l : tensor<f32>
}
