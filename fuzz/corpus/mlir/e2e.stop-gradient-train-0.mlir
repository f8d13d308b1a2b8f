ag.weight @w trainable : tensor<3xf32> = dense<[0.5, -1.0, 2.0]>
ag.weight @u trainable : tensor<3xf32> = dense<[1.0, 2.0, 3.0]>

ag.train_step @train(%x: tensor<4x3xf32> {ag.name = "x"}, %y: tensor<4x3xf32> {ag.name = "y"})
    -> (tensor<f32> {ag.name = "loss"}, tensor<4x3xf32> {ag.name = "pred"})
    attributes {optimizer = #ag.adamw<lr = 1.0e-1, beta1 = 0.9, beta2 = 0.999, eps = 1.0e-8, weight_decay = 0.0>} {
  %w = ag.read_weight @w : tensor<3xf32>
  %u = ag.read_weight @u : tensor<3xf32>
  %ws = ag.stop_gradient %w : tensor<3xf32>
  %us = ag.stop_gradient %u : tensor<3xf32>
  %a = ag.mul %x, %w : (tensor<4x3xf32>, tensor<3xf32>) -> tensor<4x3xf32>
  %b = ag.mul %x, %ws : (tensor<4x3xf32>, tensor<3xf32>) -> tensor<4x3xf32>
  %s = ag.add %a, %b : (tensor<4x3xf32>, tensor<4x3xf32>) -> tensor<4x3xf32>
  %t = ag.add %s, %us : (tensor<4x3xf32>, tensor<3xf32>) -> tensor<4x3xf32>
  %l = ag.mse %t, %y : (tensor<4x3xf32>, tensor<4x3xf32>) -> tensor<f32>
  ag.return %l, %t : tensor<f32>, tensor<4x3xf32>
}

ag.forward @predict(%x: tensor<4x3xf32> {ag.name = "x"}) -> (tensor<4x3xf32> {ag.name = "y"}) {
  %w = ag.read_weight @w : tensor<3xf32>
  %u = ag.read_weight @u : tensor<3xf32>
  %ws = ag.stop_gradient %w : tensor<3xf32>
  %a = ag.mul %x, %ws : (tensor<4x3xf32>, tensor<3xf32>) -> tensor<4x3xf32>
  %t = ag.add %a, %u : (tensor<4x3xf32>, tensor<3xf32>) -> tensor<4x3xf32>
  ag.return %t : tensor<4x3xf32>
}
