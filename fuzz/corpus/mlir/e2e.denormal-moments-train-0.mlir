ag.weight @table trainable : tensor<6x4xf32> = #ag.init<normal, mean = 0.0, std = 1.0, seed = 7>

ag.train_step @train(%ids: tensor<2xi32> {ag.name = "ids"})
    -> (tensor<f32> {ag.name = "loss"})
    attributes {optimizer = #ag.adamw<lr = 1.0e-2, beta1 = 0.9, beta2 = 0.999, eps = 1.0e-8, weight_decay = 0.0>} {
  %t = ag.read_weight @table : tensor<6x4xf32>
  %e = ag.get_rows %t, %ids : (tensor<6x4xf32>, tensor<2xi32>) -> tensor<2x4xf32>
  %s = ag.square %e : tensor<2x4xf32>
  %l = ag.mean %s : tensor<2x4xf32> -> tensor<f32>
  ag.return %l : tensor<f32>
}
