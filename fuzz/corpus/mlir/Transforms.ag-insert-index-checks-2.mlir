ag.weight @w trainable : tensor<5x3xf32> = #ag.init<zeros>
ag.weight @t trainable : tensor<6x3xf32> = #ag.init<zeros>
ag.train_step @train(%x: tensor<4x3xf32> {ag.name = "x"}, %labels: tensor<4xi32> {ag.name = "labels"}, %ids: tensor<2xi32> {ag.name = "ids"})
    -> (tensor<f32> {ag.name = "loss"}, tensor<5x3xf32> {ag.grad_of = @w, ag.name = "grad/w"}, tensor<f32> {ag.grad_norm, ag.name = "grad_norm"})
    attributes {optimizer = #ag.adamw<lr = 1.0e-2, beta1 = 0.9, beta2 = 0.999, eps = 1.0e-8, weight_decay = 0.0>} {
  %w = ag.read_weight @w : tensor<5x3xf32>
  %t = ag.read_weight @t : tensor<6x3xf32>
  %r = ag.get_rows %t, %ids : (tensor<6x3xf32>, tensor<2xi32>) -> tensor<2x3xf32>
  %z = ag.matmul %x, %w {transpose_b} : (tensor<4x3xf32>, tensor<5x3xf32>) -> tensor<4x5xf32>
  %l = ag.cross_entropy %z, %labels : (tensor<4x5xf32>, tensor<4xi32>) -> tensor<f32>
  %sq = ag.mul %w, %w : (tensor<5x3xf32>, tensor<5x3xf32>) -> tensor<5x3xf32>
  %s = ag.sum %sq : tensor<5x3xf32> -> tensor<f32>
  %n = ag.sqrt %s : tensor<f32>
  %scaled = ag.div %w, %n : (tensor<5x3xf32>, tensor<f32>) -> tensor<5x3xf32>
  ag.return %l, %scaled, %n : tensor<f32>, tensor<5x3xf32>, tensor<f32>
}
