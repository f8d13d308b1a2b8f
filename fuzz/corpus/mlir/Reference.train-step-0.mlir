ag.weight @emb trainable : tensor<4x2xf32> = dense<[[0.0, 1.0], [2.0, 0.0], [0.0, 0.0], [1.0, 1.0]]>

ag.forward @predict(%ids: tensor<3xi32> {ag.name = "ids"}) -> (tensor<3x2xf32> {ag.name = "rows"}) {
  %e = ag.read_weight @emb : tensor<4x2xf32>
  %rows = ag.get_rows %e, %ids : (tensor<4x2xf32>, tensor<3xi32>) -> tensor<3x2xf32>
  ag.return %rows : tensor<3x2xf32>
}

ag.train_step @train(%ids: tensor<3xi32> {ag.name = "ids"}, %labels: tensor<3xi32> {ag.name = "labels"})
    -> (tensor<f32> {ag.name = "loss"}, tensor<3x2xf32> {ag.name = "mask"}, tensor<4x2xf32> {ag.name = "grad/emb"})
    attributes {optimizer = #ag.adamw<lr = 1.0e-3, beta1 = 0.9, beta2 = 0.999, eps = 1.0e-8, weight_decay = 0.0>} {
  %e = ag.read_weight @emb : tensor<4x2xf32>
  %rows = ag.get_rows %e, %ids : (tensor<4x2xf32>, tensor<3xi32>) -> tensor<3x2xf32>
  %hot = ag.one_hot %labels : tensor<3xi32> -> tensor<3x2xf32>
  %picked = ag.mul %rows, %hot : (tensor<3x2xf32>, tensor<3x2xf32>) -> tensor<3x2xf32>
  %loss = ag.sum %picked : tensor<3x2xf32> -> tensor<f32>
  %half = ag.constant dense<0.5> : tensor<f32>
  %mask = ag.compare gt, %rows, %half : (tensor<3x2xf32>, tensor<f32>) -> tensor<3x2xf32>
  %grad = ag.scatter_add_rows %hot, %ids : (tensor<3x2xf32>, tensor<3xi32>) -> tensor<4x2xf32>
  ag.return %loss, %mask, %grad : tensor<f32>, tensor<3x2xf32>, tensor<4x2xf32>
}
